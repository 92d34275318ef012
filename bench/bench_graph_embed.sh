#!/usr/bin/env bash
# DeepWalk and node2vec quality against the node2vec paper (Grover & Leskovec 2016):
#  - BlogCatalog and PPI macro/micro-F1 at 50% training (one-vs-rest logistic regression, top-k),
#    paper: node2vec 0.2581 / 0.1791, DeepWalk 0.2110 / 0.1768 (macro-F1);
#  - Facebook (SNAP ego graph) link prediction ROC-AUC, Hadamard features, paper: 0.968.
# All runs: dim 128, 10 walks of length 80 per node, window 10, 5 negatives, 1 epoch.
# node2vec p, q: the paper's best per graph (BlogCatalog 0.25/0.25, PPI 4/1); Facebook FB_P/FB_Q.
# Node classification runs beside the reference implementation (bench/peers/node2vec_reference.py,
# needs python3-gensim and python3-networkx: installed as root, else its runs skipped), SEEDS seeds each.
# Records bench/results/graph_embed.md. Usage: bench/bench_graph_embed.sh [BUILD_DIR].
# Environment: THREADS (2), REPEATS (splits per evaluation, 5), SEEDS (5), SEED (1, link prediction), FB_P (1), FB_Q (0.5),
# LOOM_DATA (or DATA; ../shared/data), WORK (/tmp/loom-bench-graphs; imported stores are reused).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
use_build_dir "${1:-}"
threads="${THREADS:-2}"
repeats="${REPEATS:-5}"
seed="${SEED:-1}"
seeds="${SEEDS:-5}"
fb_p="${FB_P:-1}"
fb_q="${FB_Q:-0.5}"
work="${WORK:-/tmp/loom-bench-graphs}"
result=bench/results/graph_embed.md
require_loom || exit 1
require_data "$data"/graphs/{blogcatalog,ppi} "$data/edgelists/facebook_combined.txt.gz" || exit 0
mkdir -p "$work" bench/results

for g in blogcatalog ppi; do
  [[ -d "$work/$g" ]] || "$loom" import ogb "$data/graphs/$g" -o "$work/$g" >/dev/null
done
# The shared facebook_combined.txt.gz ends with 4,039 "node value" lines that are not edges: skipped.
[[ -d "$work/facebook-snap" ]] || "$loom" import edgelist "$data/edgelists/facebook_combined.txt.gz" \
  -o "$work/facebook-snap" --bad-lines skip >/dev/null

common=(--dim 128 --walks 10 --length 80 --window 10 --negative 5 --epochs 1 --threads "$threads" --quiet)
get() { "$python" -c "import json,sys; j=json.loads(sys.argv[1]); print(eval(sys.argv[2], {}, {'j': j}))" "$1" "$2"; }

# Node classification, Loom beside the reference node2vec/DeepWalk (bench/peers/node2vec_reference.py:
# networkx, alias tables, gensim), SEEDS seeds each, both evaluated by `loom eval nodeclass`.
runs="$work/nodeclass-runs.jsonl"
: > "$runs"
record() {  # system graph method seed embedding-json eval-json
  "$python" - "$@" >> "$runs" <<'PY'
import json, sys
system, graph, method, seed, emb, ev = sys.argv[1:7]
e, v = json.loads(emb), json.loads(ev)["ratios"][0]
total = e.get("total_seconds", e.get("walk_seconds", 0) + e.get("train_seconds", 0))
print(json.dumps({"system": system, "graph": graph, "method": method, "seed": int(seed), "macro_f1": v["macro_f1"],
                  "micro_f1": v["micro_f1"], "walk_seconds": e["walk_seconds"], "train_seconds": e["train_seconds"],
                  "preprocess_seconds": e.get("preprocess_seconds", 0), "total_seconds": total}))
PY
}
eval_json() { "$loom" eval nodeclass "$1" --store "$2" --ratios 0.5 --repeats "$repeats" --seed 1 --threads "$threads" --json; }
run_nodeclass() {  # graph method p q
  local g="$1" method="$2" p="$3" q="$4" label="$2" extra=()
  if [[ "$method" == node2vec ]]; then extra=(--p "$p" --q "$q"); label="node2vec p=$p q=$q"; fi
  for ((s = 1; s <= seeds; s++)); do
    local emb="$work/$g-$method-loom-$s.emb" ej
    ej="$("$loom" embed "$method" "$work/$g" -o "$emb" "${common[@]}" --seed "$s" "${extra[@]}" --json)"
    record loom "$g" "$label" "$s" "$ej" "$(eval_json "$emb" "$work/$g")"
    ej="$("$loom" embed "$method" "$work/$g" -o "$emb" "${common[@]}" --seed "$s" "${extra[@]}" --kernel hogwild --json)"
    record loom-hogwild "$g" "$label" "$s" "$ej" "$(eval_json "$emb" "$work/$g")"
  done
  if [[ $have_reference == 1 ]]; then
    local lines="$work/$g-$method-ref.jsonl" line
    "$python" bench/peers/node2vec_reference.py "$work/$g" -o "$work/$g-$method-ref-{seed}.emb" \
      --p "$p" --q "$q" --dim 128 --walks 10 --length 80 --window 10 --negative 5 --epochs 1 \
      --workers "$threads" --seeds "$(seq -s, 1 "$seeds")" > "$lines"
    while read -r line; do
      record reference "$g" "$label" "$(get "$line" "j['seed']")" "$line" "$(eval_json "$(get "$line" "j['output']")" "$work/$g")"
    done < "$lines"
  fi
}
have_reference=1
require_python_modules gensim networkx numpy ||
  { have_reference=0; echo "bench_graph_embed: no reference runs (bench/peers/node2vec_reference.py)" >&2; }
run_nodeclass ppi deepwalk 1 1
run_nodeclass ppi node2vec 4 1
run_nodeclass blogcatalog deepwalk 1 1
run_nodeclass blogcatalog node2vec 0.25 0.25
nodeclass_table="$("$python" bench/graph_embed_report.py "$runs")"

linkpred_rows=""
run_linkpred() {  # method p q
  local lj line
  lj="$("$loom" eval linkpred "$work/facebook-snap" --method "$1" --p "$2" --q "$3" "${common[@]}" --seed "$seed" \
        --operator hadamard,average,l1,l2 --json)"
  line="| facebook (SNAP) | $1 p=$2 q=$3 | $(get "$lj" "'%.4f' % j['auc']['hadamard']['auc']") | 0.968 | $(get "$lj" "'%.4f' % j['auc']['average']['auc']") | $(get "$lj" "'%.4f' % j['auc']['l1']['auc']") | $(get "$lj" "'%.4f' % j['auc']['l2']['auc']") | $(get "$lj" "'%d / %d' % (j['removed_edges'], j['total_edges'])") |"
  echo "$line"
  linkpred_rows+="$line"$'\n'
}
run_linkpred deepwalk 1 1
run_linkpred node2vec "$fb_p" "$fb_q"

cpu="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
cat > "$result" <<EOF2
# DeepWalk / node2vec embeddings: node classification and link prediction

\`bench/bench_graph_embed.sh\` ($(date -u +%Y-%m-%d), $(nproc) cores: $cpu, $threads threads, seeds 1..$seeds).
Embedding: \`loom embed deepwalk|node2vec STORE ${common[*]} --seed S\` (skip-gram as the authors' code
runs it: subsampling 1e-3, per-pair sequential updates, inputs initialised in +-1/dim; the default
\`shared\` kernel draws one set of negatives per window, the \`hogwild\` column is word2vec.c's
per-pair kernel with fresh negatives per pair, same runs otherwise), beside the
reference implementation \`bench/peers/node2vec_reference.py\` (written from the paper as the authors'
code does it: networkx, alias tables per node and per edge, shuffled rounds of walks, gensim
Word2Vec sg=1 with the same dim, window, negatives, epochs and 2 workers), same seeds.
Node classification of both: \`loom eval nodeclass EMB --store STORE --ratios 0.5 --repeats $repeats\`:
one-vs-rest L2 logistic regression (C = 1), each test node predicted its k top-scoring labels
(k = its true count), mean over $repeats random 50/50 splits; the table gives mean ± sd over the seeds.
Time: seconds per run (Loom: walks + training; the reference: its alias tables, built once per
graph and method as the authors' code builds them, also for DeepWalk = p = q = 1, + walks + training).
Paper numbers: node2vec (Grover & Leskovec 2016), Table 2.

$nodeclass_table

Link prediction: \`loom eval linkpred STORE --method M --p P --q Q ... --operator hadamard,average,l1,l2\`:
half the edges removed keeping the graph connected (random spanning tree kept), as many non-edge
pairs as negatives, embeddings trained on the residual graph, logistic regression on 50% of the
labelled pairs, ROC-AUC on the other 50%. Paper: node2vec Hadamard 0.968 on Facebook.

| graph | method | AUC hadamard | paper | AUC average | AUC l1 | AUC l2 | removed / edges |
|---|---|---|---|---|---|---|---|
$linkpred_rows
Load average at the end of the run: $(uptime | sed 's/.*load average: //'). The Facebook edge list is
imported with \`--bad-lines skip\` (its 4,039 trailing "node value" lines are not edges); 4,039 nodes
and 88,234 edges remain, as published.
EOF2
echo "wrote $result"
