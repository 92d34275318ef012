#!/usr/bin/env bash
# Word2Vec benchmark: Loom (batched and hogwild kernels) vs word2vec.c vs gensim 4 on the same
# tokenised Gutenberg corpus (lowercased, letters only, one paragraph per line), skip-gram, dim
# 100, window 5, negative 5, sample 1e-4, 5 epochs, min-count 5, 2 threads. The tools run back to
# back so they see the same machine load (uptime is recorded before and after). Every model is
# evaluated by the same `loom eval` (analogy over the 30,000 most frequent words, wordsim353
# Spearman), and cross-checked with gensim's own evaluation. Results: bench/results/word2vec.md.
#
# usage: bench/bench_word2vec.sh [REPS]
#   env: LOOM=path/to/loom, THREADS=2, KERNELS="batched hogwild" (Loom kernels to run), LOOM_DATA=...
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DATA=${LOOM_DATA:-$ROOT/../shared/data}
LOOM=${LOOM:-$ROOT/build/loom}
THREADS=${THREADS:-2}
KERNELS=${KERNELS:-batched hogwild}
REPS=${1:-1}
WORK=$ROOT/bench/work/w2v
PY=/usr/bin/python3
mkdir -p "$WORK" "$ROOT/bench/results"
[ -x "$LOOM" ] || { echo "loom binary not found at $LOOM (set LOOM=...)" >&2; exit 1; }

# Peers: gensim from Debian, word2vec.c compiled from the npm package `word2vec`.
$PY -c "import gensim" 2>/dev/null || apt-get install -y python3-gensim
W2C=$WORK/node_modules/word2vec/src
if [ ! -f "$W2C/word2vec.c" ]; then (cd "$WORK" && npm install --no-audit --no-fund word2vec); fi
if [ ! -x "$W2C/word2vec.loom-built" ]; then make -B -C "$W2C" word2vec >/dev/null && touch "$W2C/word2vec.loom-built" && chmod +x "$W2C/word2vec.loom-built"; fi

TOK=$WORK/gutenberg.tok.txt
VOCAB=$WORK/gutenberg.w2c.vocab
[ -s "$TOK" ] || $PY "$ROOT/bench/w2v_tokenize.py" "$DATA/corpus/gutenberg.txt.gz" "$TOK" "$VOCAB"
Q=$DATA/words/questions-words.txt
WS=$DATA/words/wordsim353.tsv
COMMON="--dim 100 --window 5 --negative 5 --sample 1e-4 --epochs 5 --min-count 5 --threads $THREADS"
LOG=$WORK/runs.jsonl
: > "$LOG"
now() { date +%s.%N; }
record() { echo "$1" >> "$LOG"; }

LOAD_BEFORE=$(uptime)
for rep in $(seq 1 "$REPS"); do
  for kernel in $KERNELS; do
    out=$WORK/loom-$kernel.bin
    json=$("$LOOM" embed text "$TOK" -o "$out" --format binary --tokenize raw --kernel $kernel $COMMON --quiet --json)
    record "{\"tool\":\"loom-$kernel\",\"rep\":$rep,\"emb\":\"$out\",\"run\":$json}"
  done
  t0=$(now)
  "$W2C/word2vec" -train "$TOK" -read-vocab "$VOCAB" -output "$WORK/w2c.bin" -cbow 0 -size 100 -window 5 -negative 5 \
    -hs 0 -sample 1e-4 -threads "$THREADS" -binary 1 -iter 5 -min-count 5 -alpha 0.025 >/dev/null
  t1=$(now)
  record "{\"tool\":\"word2vec.c\",\"rep\":$rep,\"emb\":\"$WORK/w2c.bin\",\"run\":{\"train_seconds\":$($PY -c "print($t1 - $t0)")}}"
  json=$($PY "$ROOT/bench/w2v_gensim.py" train "$TOK" "$WORK/gensim.bin" "$THREADS")
  record "{\"tool\":\"gensim\",\"rep\":$rep,\"emb\":\"$WORK/gensim.bin\",\"run\":$json}"
done
LOAD_AFTER=$(uptime)

# Quality of the last run of each tool, with loom eval and gensim's evaluation.
QUALITY_TOOLS="w2c gensim"
for kernel in $KERNELS; do QUALITY_TOOLS="loom-$kernel $QUALITY_TOOLS"; done
for tool in $QUALITY_TOOLS; do
  emb=$WORK/$tool.bin
  a=$("$LOOM" eval analogy "$emb" --questions "$Q" --top 30000 --json)
  s=$("$LOOM" eval similarity "$emb" --pairs "$WS" --json)
  g=$($PY "$ROOT/bench/w2v_gensim.py" check "$emb" "$Q" "$WS")
  record "{\"quality\":\"$tool\",\"analogy\":$a,\"similarity\":$s,\"gensim_check\":$g}"
done
$PY "$ROOT/bench/w2v_report.py" "$LOG" "$LOAD_BEFORE" "$LOAD_AFTER" "$THREADS" > "$ROOT/bench/results/word2vec.md"
cat "$ROOT/bench/results/word2vec.md"
