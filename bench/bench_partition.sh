#!/usr/bin/env bash
# Partition quality and cost of METIS vs random vs hash: for K = 2, 4, 8 on the real Facebook
# page graph (imported with `loom import ogb`) and on a products-scale SBM graph
# (`loom generate sbm --nodes 2500000 --avg-degree 25 --feat-dim 100 --classes 47`), records
# edge cut, halo sizes, balance (max/mean of nodes, stored edges, training nodes), wall time and
# peak RSS (/usr/bin/time -v) in bench/results/partition.md.
# Usage: bench/bench_partition.sh [BUILD_DIR] (runs BUILD_DIR/loom; default $LOOM, else build/loom).
# Environment: LOOM_DATA (shared data folder, default ../shared/data; DATA also works), WORK (scratch, default
# /tmp/loom-bench-partition; imported/generated stores are reused), THREADS (default 2),
# NODES (SBM nodes, default 2500000; 0 skips the large graph), KS (default "2 4 8"),
# METHODS (default "metis random hash").
set -euo pipefail
source "$(dirname "$0")/lib.sh"
use_build_dir "${1:-}"
work="${WORK:-/tmp/loom-bench-partition}"
threads="${THREADS:-2}"
nodes="${NODES:-2500000}"
ks="${KS:-2 4 8}"
methods="${METHODS:-metis random hash}"
result=bench/results/partition.md

[[ -x /usr/bin/time ]] || { echo "bench_partition: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
require_loom || exit 1
mkdir -p "$work" bench/results
rows="$work/rows.md"
: > "$rows"

# seconds and peak RSS (GiB) of the command last run under /usr/bin/time -v
timed() {
  OMP_NUM_THREADS="$threads" /usr/bin/time -v "$@" > "$work/out.txt" 2> "$work/time.txt" || {
    cat "$work/out.txt" "$work/time.txt" >&2
    exit 1
  }
}
wall_s() { grep -F 'Elapsed (wall clock)' "$work/time.txt" | sed 's/.*: //' | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.1f", s }'; }
rss_gib() { grep -F 'Maximum resident set size' "$work/time.txt" | sed 's/.*: //' | awk '{ printf "%.2f", $1 / 1048576 }'; }

partition_graph() {  # name store
  local name="$1" store="$2"
  for k in $ks; do
    for method in $methods; do
      local out="$work/parts-$name-$method-$k"
      timed "$loom" --log-level warn partition "$store" -k "$k" --method "$method" --seed 1 -o "$out" --overwrite
      "$python" - "$out/meta.json" "$name" "$method" "$k" "$(wall_s)" "$(rss_gib)" >> "$rows" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
q = m["quality"]
halos = [p["halo"] for p in q["parts"]]
b = q["balance"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {q['edge_cut']:,} | {100 * q['edge_cut_fraction']:.2f}% "
      f"| {sum(halos):,} | {max(halos):,} | {b['nodes']:.3f} | {b['edges']:.3f} | {b['train_nodes']:.3f} "
      f"| {q['seconds']['partition']:.1f} | {sys.argv[5]} | {sys.argv[6]} |")
EOF
      tail -1 "$rows"
      rm -rf "$out"
    done
  done
}

facebook="$work/facebook"
if require_data "$data/graphs/facebook"; then
  [[ -f "$facebook/meta.json" ]] || timed "$loom" import ogb "$data/graphs/facebook" -o "$facebook" --overwrite
  partition_graph facebook "$facebook"
fi

sbm="$work/sbm-$nodes"
gen_note=""
if [[ "$nodes" != 0 ]]; then
  if [[ ! -f "$sbm/meta.json" ]]; then
    timed "$loom" generate sbm --nodes "$nodes" --avg-degree 25 --feat-dim 100 --classes 47 --seed 1 -o "$sbm" --overwrite
    gen_note="generated in $(wall_s) s, peak RSS $(rss_gib) GiB"
  fi
  partition_graph "sbm-$nodes" "$sbm"
fi

cpu="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
describe() {
  [[ -f "$1/meta.json" ]] && "$python" - "$1/meta.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print(f"{m['num_nodes']:,} nodes, {m['num_edges']:,} stored edges, {m['feat_dim']}-dim {m['feat_dtype']} features, "
      f"train {m['splits'].get('train', 0):,}")
PY
}
{
  cat <<EOF
# Partitioning benchmark

\`bench/bench_partition.sh\` ($(date -u +%Y-%m-%d), $(nproc) cores: $cpu, OMP_NUM_THREADS=$threads)

Command: \`loom partition STORE -k K --method METHOD --seed 1 -o OUT\` (writes the whole
partitioned store: topology, K parts with features, labels, splits, orig ids and halos).

Graphs:
- facebook: \`loom import ogb $data/graphs/facebook\` — $(describe "$facebook" || echo "not available")
- sbm-$nodes: \`loom generate sbm --nodes $nodes --avg-degree 25 --feat-dim 100 --classes 47 --seed 1\` — $(describe "$sbm" || echo "not run") ${gen_note:+($gen_note)}

Columns: edge cut = undirected edges whose ends lie in different parts (and the fraction of all
edges); halo = distinct remote neighbours of a part's nodes (sum over parts, and the largest part);
balance = max/mean over parts of nodes, stored edges, training nodes (METIS balances all three,
multi-constraint); partition s = the partitioner alone; wall s and peak RSS = the whole command
(partition, relabel, write topology and parts) under /usr/bin/time -v.

| graph | method | K | edge cut | cut % | halo sum | halo max | node bal | edge bal | train bal | partition s | wall s | peak RSS GiB |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
  cat "$rows"
} > "$result"
echo "wrote $result"
