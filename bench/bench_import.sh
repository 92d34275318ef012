#!/usr/bin/env bash
# Times `loom import edgelist` on a products-scale edge list (default 2.5M nodes, 31M edges,
# gzip, sparse 64-bit ids) made by bench/make_edgelist, and records edges/s and peak RSS in
# bench/results/import.md. Usage: bench/bench_import.sh [BUILD_DIR] (runs BUILD_DIR/loom and
# BUILD_DIR/bench/make_edgelist; default $LOOM and the folder it is in, else build/).
# Environment: NODES, EDGES, SEED, THREADS (OMP_NUM_THREADS for the import, default 2),
# WORK (scratch folder, default /tmp/loom-bench-import; the input is reused when present).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
use_build_dir "${1:-}"
build=$(dirname "$loom")  # the build folder: bench/make_edgelist is in it
nodes="${NODES:-2500000}"
edges="${EDGES:-31000000}"
seed="${SEED:-1}"
threads="${THREADS:-2}"
work="${WORK:-/tmp/loom-bench-import}"
input="$work/edges-${nodes}-${edges}-${seed}.txt.gz"
store="$work/store"
result=bench/results/import.md

[[ -x /usr/bin/time ]] || { echo "bench_import: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
require_loom || exit 1
[[ -x "$build/bench/make_edgelist" ]] ||
  { echo "bench_import: $build/bench/make_edgelist not built (ninja -C $build make_edgelist)" >&2; exit 1; }
mkdir -p "$work" bench/results

if [[ ! -f "$input" ]]; then
  SECONDS=0
  "$build/bench/make_edgelist" "$input.part" "$nodes" "$edges" "$seed"
  mv "$input.part" "$input"
  echo "generated $input in ${SECONDS} s"
fi

load_before="$(cut -d' ' -f1 /proc/loadavg)"
OMP_NUM_THREADS="$threads" /usr/bin/time -v "$loom" import edgelist "$input" -o "$store" --overwrite \
  2> "$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }

field() { grep -F "$1" "$work/time.txt" | sed 's/.*: //'; }
elapsed="$(field 'Elapsed (wall clock) time')"
seconds="$(echo "$elapsed" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')"
rss_kib="$(field 'Maximum resident set size')"
cpu_s="$(awk -v u="$(field 'User time')" -v s="$(field 'System time')" 'BEGIN { printf "%.2f", u + s }')"
cpu_pct="$(field 'Percent of CPU this job got')"
read -r input_edges stored undirected num_nodes dups loops < <("$python" - "$store/meta.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
c = m["provenance"]["counts"]
print(c["input_edges"], c["stored_edges"], c["undirected_edges"], m["num_nodes"], c["duplicate_entries_removed"], c["self_loops_removed"])
EOF
)
rate="$(awk -v e="$input_edges" -v s="$seconds" 'BEGIN { printf "%.2f", e / s / 1e6 }')"
cpu_rate="$(awk -v e="$input_edges" -v s="$cpu_s" 'BEGIN { printf "%.2f", e / s / 1e6 }')"
rss_gib="$(awk -v k="$rss_kib" 'BEGIN { printf "%.2f", k / 1048576 }')"
gz_mib="$(du -m "$input" | cut -f1)"
cpu="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"

cat > "$result" <<EOF
# Edge-list import benchmark

\`bench/bench_import.sh\` ($(date -u +%Y-%m-%d), $(nproc) cores: $cpu, OMP_NUM_THREADS=$threads)

Input: \`make_edgelist\` with $nodes nodes, $edges edges, seed $seed: gzip SNAP text, sparse
64-bit ids (10^12 + i*4096 + r), ${gz_mib} MiB compressed.
Command: \`loom import edgelist INPUT -o STORE --overwrite\` (defaults: symmetric, duplicates and
self-loops removed, ids remapped in sorted order with orig_id.npy).
The machine is shared: when the load average exceeds the core count, the wall time measures the
contention and the CPU time is the figure to compare.

| measure | value |
|---|---|
| wall time | ${seconds} s |
| input edges/s (wall) | ${rate} M |
| CPU time (user + system) | ${cpu_s} s (${cpu_pct} of one core) |
| input edges per CPU second | ${cpu_rate} M |
| load average before the run | ${load_before} |
| peak RSS | ${rss_gib} GiB (${rss_kib} KiB) |
| nodes | ${num_nodes} |
| input edges | ${input_edges} |
| undirected edges stored | ${undirected} (${stored} directed entries) |
| duplicate entries removed | ${dups} |
| self-loops removed | ${loops} |
EOF
cat "$result"
