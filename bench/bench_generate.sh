#!/usr/bin/env bash
# Times the graph generators at benchmark scale and records wall time, peak RSS (GNU time -v)
# and stored edges per second in bench/results/generate.md:
#   sbm products-like (2.5M nodes, avg degree 25, 100 features, 47 classes),
#   rmat at scale 21 and 22 (edge factor 16),
#   sbm Reddit-dense (120k nodes, avg degree 400, 100 features, 41 classes),
#   the exact 10-NN Fashion-MNIST import (70,000 x 784, Debian dataset-fashion-mnist).
# Usage: bench/bench_generate.sh [BUILD_DIR] (runs BUILD_DIR/loom; default $LOOM, else build/loom).
# Environment: THREADS (--threads, default 2), WORK (scratch, default /tmp/loom-bench-generate;
# each store is removed after it is measured), FASHION (default /usr/share/datasets/fashion-mnist),
# ONLY (space-separated subset of: sbm-products rmat-21 rmat-22 sbm-reddit fashion-mnist).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
use_build_dir "${1:-}"
threads="${THREADS:-2}"
work="${WORK:-/tmp/loom-bench-generate}"
fashion="${FASHION:-/usr/share/datasets/fashion-mnist}"
only="${ONLY:-sbm-products rmat-21 rmat-22 sbm-reddit fashion-mnist}"
result=bench/results/generate.md

[[ -x /usr/bin/time ]] || { echo "bench_generate: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
require_loom || exit 1
mkdir -p "$work" bench/results

declare -A commands=(
  [sbm-products]="generate sbm --nodes 2500000 --avg-degree 25 --feat-dim 100 --classes 47"
  [rmat-21]="generate rmat --scale 21 --edge-factor 16"
  [rmat-22]="generate rmat --scale 22 --edge-factor 16"
  [sbm-reddit]="generate sbm --nodes 120000 --avg-degree 400 --feat-dim 100 --classes 41"
  [fashion-mnist]="import fashion-mnist $fashion --k 10"
)

rows=""
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
for name in $only; do
  args="${commands[$name]:?unknown benchmark $name}"
  store="$work/$name"
  echo "bench_generate: loom $args" >&2
  /usr/bin/time -v "$loom" $args -o "$store" --overwrite --threads "$threads" 2> "$work/time.txt" \
    || { cat "$work/time.txt" >&2; exit 1; }
  field() { grep -F "$1" "$work/time.txt" | sed 's/.*: //'; }
  seconds="$(field 'Elapsed (wall clock) time' | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')"
  rss_gib="$(field 'Maximum resident set size' | awk '{ printf "%.2f", $1 / 1048576 }')"
  cpu_pct="$(field 'Percent of CPU this job got')"
  cpu_s="$(awk -v u="$(field 'User time (seconds)')" -v k="$(field 'System time (seconds)')" 'BEGIN { printf "%.1f", u + k }')"
  read -r nodes edges < <("$python" -c \
    'import json,sys; m=json.load(open(sys.argv[1])); print(m["num_nodes"], m["num_edges"])' "$store/meta.json")
  rate="$(awk -v e="$edges" -v s="$seconds" 'BEGIN { printf "%.3f", e / s / 1e6 }')"
  size_mib="$(du -sm "$store" | cut -f1)"
  rows+="| $name | \`loom $args\` | $nodes | $edges | $seconds | $cpu_s | $rate | $rss_gib | $cpu_pct | $size_mib |"$'\n'
  rm -rf "$store"
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
cpu="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"

cat > "$result" <<EOF
# Generator benchmark

\`bench/bench_generate.sh\` ($(date -u +%Y-%m-%d), $(nproc) cores: $cpu, \`--threads $threads\`,
$(free -g | awk '/Mem:/ { print $2 }') GiB RAM). The machine is shared with other work: load average
$load_before before and $load_after after the run, so wall times are upper bounds: "CPU s" (user +
system) and "CPU share" (200% = both cores for the whole run) show how much of the machine the job got.

Stored edges are directed CSR entries (each undirected edge twice, after removing duplicates and
self-loops); edges/s = stored edges / wall time, including writing the store.

| name | command | nodes | stored edges | wall s | CPU s | M edges/s (wall) | peak RSS GiB | CPU share | store MiB |
|---|---|---|---|---|---|---|---|---|---|
${rows}
EOF
cat "$result"
