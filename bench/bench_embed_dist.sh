#!/usr/bin/env bash
# Distributed DeepWalk (GraphAny2Vec): BlogCatalog embedded by 1 process (2 threads) and by 4 ranks
# (mpirun -np 4, 1 thread each) with the average and gc combiners, then node classification
# (one-vs-rest logistic regression, 50% train, macro/micro-F1 over 3 splits). Records F1, training
# time and bytes exchanged; then the same three runs of Word2Vec on the Gutenberg corpus with
# analogy accuracy and wordsim353 Spearman (WORD2VEC=0 skips them). Writes
# bench/results/embed_distributed.md.
# Usage: bench/bench_embed_dist.sh [BUILD_DIR]. Environment: LOOM_DATA (or DATA), WORK (default /tmp/loom-bench-embed),
# ROUNDS (default 512), GRAPH (default blogcatalog), HALF (default 1: row updates sent as float16,
# --half-updates; 0 sends float32).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
use_build_dir "${1:-}"
work="${WORK:-/tmp/loom-bench-embed}"
rounds="${ROUNDS:-512}"
graph="${GRAPH:-blogcatalog}"
half=()
[[ "${HALF:-1}" == 1 ]] && half=(--half-updates)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
require_loom || exit 1
require_data "$data/graphs/$graph" || exit 0
mkdir -p "$work" bench/results
[[ -f "$work/$graph/meta.json" ]] || "$loom" --log-level warn import ogb "$data/graphs/$graph" -o "$work/$graph"
common=(--quiet --json --seed 1)
get() { "$python" -c "import json,sys; j=json.loads(sys.argv[1]); print(eval(sys.argv[2], {}, {'j': j}))" "$1" "$2"; }
rows=""
run() {  # label threads launcher... (launcher may be empty)
  local label="$1" threads="$2"; shift 2
  local file="${label// /_}" ej nj
  local emb="$work/$graph-$file.emb"
  ej="$("$@" "$loom" --log-level warn embed deepwalk "$work/$graph" -o "$emb" "${common[@]}" --threads "$threads" \
        "${extra[@]}" | tail -1)"
  nj="$("$loom" --log-level warn eval nodeclass "$emb" --store "$work/$graph" --ratios 0.5 --repeats 3 --seed 1 --json)"
  rows+="| $label | $(get "$nj" "'%.4f' % j['ratios'][0]['macro_f1']") | $(get "$nj" "'%.4f' % j['ratios'][0]['micro_f1']") | $(get "$ej" "'%.1f' % j['train_seconds']") | $(get "$ej" "'%.1f' % (j.get('embeddings_bytes_sent', 0) / 1e6)") |"$'\n'
  echo "bench_embed_dist: $label done" >&2
}
extra=()
run "1 process" 2
for combiner in average gc; do
  extra=(--combiner "$combiner" --rounds "$rounds" "${half[@]}")
  run "4 ranks, $combiner" 1 mpirun -np 4 --oversubscribe --bind-to none
done
# Word2Vec on the Gutenberg corpus (tokenised as bench_word2vec.sh does): analogy and wordsim353.
w2v_rows=""
tok="$work/gutenberg.tok.txt"
if [[ -f "$data/corpus/gutenberg.txt.gz" && "${WORD2VEC:-1}" == 1 ]]; then
  [[ -s "$tok" ]] || "$python" bench/w2v_tokenize.py "$data/corpus/gutenberg.txt.gz" "$tok" "$work/gutenberg.vocab"
  w2v=(embed text "$tok" --format binary --tokenize raw --dim 100 --window 5 --negative 5 --sample 1e-4 --epochs 5
       --min-count 5 --quiet --json)
  w2v_run() {  # label threads launcher...
    local label="$1" threads="$2"; shift 2
    local out="$work/w2v-${label// /_}.bin" ej aj sj
    ej="$("$@" "$loom" --log-level warn "${w2v[@]}" -o "$out" --threads "$threads" "${extra[@]}" | tail -1)"
    aj="$("$loom" --log-level warn eval analogy "$out" --questions "$data/words/questions-words.txt" --top 30000 --json)"
    sj="$("$loom" --log-level warn eval similarity "$out" --pairs "$data/words/wordsim353.tsv" --json)"
    w2v_rows+="| $label | $(get "$aj" "'%.2f%%' % (100 * j['total']['accuracy'])") | $(get "$sj" "'%.4f' % j[0]['spearman']") | $(get "$ej" "'%.1f' % j['train_seconds']") | $(get "$ej" "'%.0f' % (j.get('embeddings_bytes_sent', 0) / 1e6 / 5)") |"$'\n'
    echo "bench_embed_dist: word2vec $label done" >&2
  }
  extra=()
  w2v_run "1 process" 2
  for combiner in average gc; do
    extra=(--combiner "$combiner" --rounds "$rounds" "${half[@]}")
    w2v_run "4 ranks, $combiner" 1 mpirun -np 4 --oversubscribe --bind-to none
  done
fi

cat > bench/results/embed_distributed.md <<MD
# Distributed DeepWalk (GraphAny2Vec combiners)

\`bench/bench_embed_dist.sh\` ($(date -I)), $graph, \`loom embed deepwalk\` defaults (seed 1); 4 ranks = \`mpirun -np 4\`,
1 thread each, on the same 2-core machine, $rounds synchronisation rounds per epoch$([[ ${#half[@]} -gt 0 ]] && echo ', row updates sent as float16 (--half-updates)'). Node classification: one-vs-rest
logistic regression on 50% of the nodes, mean of 3 splits. Bytes = rows exchanged on the embeddings channel, all ranks.

| run | macro-F1 | micro-F1 | train s | MB exchanged |
|---|---|---|---|---|
$rows

Word2Vec, Gutenberg corpus (skip-gram, dim 100, window 5, negative 5, sample 1e-4, 5 epochs, min-count 5),
analogy over the 30,000 most frequent words, wordsim353 Spearman; MB per epoch exchanged, all ranks.

| run | analogy | wordsim353 | train s | MB per epoch |
|---|---|---|---|---|
$w2v_rows
MD
cat bench/results/embed_distributed.md
