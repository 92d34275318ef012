#!/usr/bin/env bash
# Word2Vec benchmark: Loom (batched and hogwild kernels) vs word2vec.c vs gensim 4 on the same
# tokenised Gutenberg corpus (lowercased, letters only, one paragraph per line), skip-gram, dim
# 100, window 5, negative 5, sample 1e-4, 5 epochs, min-count 5, 2 threads. The tools run back to
# back so they see the same machine load (uptime is recorded before and after). Every model is
# evaluated by the same `loom eval` (analogy over the 30,000 most frequent words, wordsim353
# Spearman), and cross-checked with gensim's own evaluation. Results: bench/results/word2vec.md.
#
# usage: bench/bench_word2vec.sh [REPS]
#   env: LOOM=path/to/loom, THREADS=2, KERNELS="batched hogwild" (Loom kernels to run), LOOM_DATA=...,
#        LOOM_PYTHON (bench/lib.sh)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
THREADS=${THREADS:-2}
KERNELS=${KERNELS:-batched hogwild}
REPS=${1:-1}
WORK=$PWD/bench/work/w2v
require_loom || exit 1
require_data "$data"/{corpus/gutenberg.txt.gz,words/questions-words.txt,words/wordsim353.tsv} || exit 0

# Peers: gensim from Debian, word2vec.c compiled from the npm package `word2vec`.
require_python_modules gensim || exit 0
mkdir -p "$WORK" bench/results
W2C=$WORK/node_modules/word2vec/src
if [ ! -f "$W2C/word2vec.c" ]; then
  command -v npm > /dev/null || { echo "$bench: skipped, word2vec.c needs npm (apt-get install npm)" >&2; exit 0; }
  (cd "$WORK" && npm install --no-audit --no-fund word2vec)
fi
if [ ! -x "$W2C/word2vec.loom-built" ]; then make -B -C "$W2C" word2vec >/dev/null && touch "$W2C/word2vec.loom-built" && chmod +x "$W2C/word2vec.loom-built"; fi

TOK=$WORK/gutenberg.tok.txt
VOCAB=$WORK/gutenberg.w2c.vocab
[ -s "$TOK" ] || "$python" bench/w2v_tokenize.py "$data/corpus/gutenberg.txt.gz" "$TOK" "$VOCAB"
Q=$data/words/questions-words.txt
WS=$data/words/wordsim353.tsv
COMMON="--dim 100 --window 5 --negative 5 --sample 1e-4 --epochs 5 --min-count 5 --threads $THREADS"
LOG=$WORK/runs.jsonl
: > "$LOG"
now() { date +%s.%N; }
record() { echo "$1" >> "$LOG"; }

LOAD_BEFORE=$(uptime)
for rep in $(seq 1 "$REPS"); do
  for kernel in $KERNELS; do
    out=$WORK/loom-$kernel.bin
    json=$("$loom" embed text "$TOK" -o "$out" --format binary --tokenize raw --kernel $kernel $COMMON --quiet --json)
    record "{\"tool\":\"loom-$kernel\",\"rep\":$rep,\"emb\":\"$out\",\"run\":$json}"
  done
  t0=$(now)
  "$W2C/word2vec" -train "$TOK" -read-vocab "$VOCAB" -output "$WORK/w2c.bin" -cbow 0 -size 100 -window 5 -negative 5 \
    -hs 0 -sample 1e-4 -threads "$THREADS" -binary 1 -iter 5 -min-count 5 -alpha 0.025 >/dev/null
  t1=$(now)
  seconds=$("$python" -c "print($t1 - $t0)")
  record "{\"tool\":\"word2vec.c\",\"rep\":$rep,\"emb\":\"$WORK/w2c.bin\",\"run\":{\"train_seconds\":$seconds}}"
  json=$("$python" bench/w2v_gensim.py train "$TOK" "$WORK/gensim.bin" "$THREADS")
  record "{\"tool\":\"gensim\",\"rep\":$rep,\"emb\":\"$WORK/gensim.bin\",\"run\":$json}"
done
LOAD_AFTER=$(uptime)

# Quality of the last run of each tool, with loom eval and gensim's evaluation.
QUALITY_TOOLS="w2c gensim"
for kernel in $KERNELS; do QUALITY_TOOLS="loom-$kernel $QUALITY_TOOLS"; done
for tool in $QUALITY_TOOLS; do
  emb=$WORK/$tool.bin
  a=$("$loom" eval analogy "$emb" --questions "$Q" --top 30000 --json)
  s=$("$loom" eval similarity "$emb" --pairs "$WS" --json)
  g=$("$python" bench/w2v_gensim.py check "$emb" "$Q" "$WS")
  record "{\"quality\":\"$tool\",\"analogy\":$a,\"similarity\":$s,\"gensim_check\":$g}"
done
"$python" bench/w2v_report.py "$LOG" "$LOAD_BEFORE" "$LOAD_AFTER" "$THREADS" > bench/results/word2vec.md
cat bench/results/word2vec.md
