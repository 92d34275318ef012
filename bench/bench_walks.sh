#!/usr/bin/env bash
# Random-walk generation throughput (steps/s) of `loom walk` for DeepWalk (uniform) and node2vec
# (p=0.25,q=4 and p=4,q=0.25), 10 walks of length 80 per node, on BlogCatalog and on a larger
# R-MAT graph (1 walk per node there), at 1 and THREADS threads; records bench/results/walks.md.
# Usage: bench/bench_walks.sh [BUILD_DIR] (runs BUILD_DIR/loom; default $LOOM, else build/loom).
# Environment: THREADS (default 2), RMAT_SCALE (default 20; 0 skips it), LOOM_DATA (or DATA; default
# ../shared/data), WORK (scratch, default /tmp/loom-bench-graphs; imported stores are reused).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
use_build_dir "${1:-}"
threads="${THREADS:-2}"
scale="${RMAT_SCALE:-20}"
work="${WORK:-/tmp/loom-bench-graphs}"
result=bench/results/walks.md
require_loom || exit 1
require_data "$data/graphs/blogcatalog" || exit 0
mkdir -p "$work" bench/results

if [[ ! -d "$work/blogcatalog" ]]; then
  "$loom" import ogb "$data/graphs/blogcatalog" -o "$work/blogcatalog" >/dev/null
fi
graphs=("blogcatalog:10")
if [[ "$scale" != 0 ]]; then
  if [[ ! -d "$work/rmat$scale" ]]; then
    "$loom" generate rmat --scale "$scale" --edge-factor 16 -o "$work/rmat$scale" >/dev/null
  fi
  graphs+=("rmat$scale:1")
fi

rows=""
for entry in "${graphs[@]}"; do
  name="${entry%%:*}"
  walks="${entry##*:}"
  read -r nodes edges < <("$python" -c \
    "import json,sys; m=json.load(open(sys.argv[1])); print(m['num_nodes'], m['num_edges'])" "$work/$name/meta.json")
  for pq in "1 1" "0.25 4" "4 0.25"; do
    read -r p q <<<"$pq"
    for t in 1 "$threads"; do
      json="$("$loom" walk "$work/$name" --walks "$walks" --length 80 --p "$p" --q "$q" --threads "$t" --json)"
      read -r steps seconds rate < <("$python" -c \
        "import json,sys; j=json.loads(sys.argv[1]); print(j['steps'], j['seconds'], j['steps_per_second'])" "$json")
      kind="node2vec p=$p q=$q"; [[ "$p $q" == "1 1" ]] && kind="deepwalk (uniform)"
      line="| $name | $nodes | $edges | $kind | $walks x 80 | $t | $steps | $(printf '%.3f' "$seconds") | $(awk -v r="$rate" 'BEGIN { printf "%.1f", r / 1e6 }') |"
      echo "$line"
      rows+="$line"$'\n'
    done
  done
done

cpu="$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
cat > "$result" <<EOF2
# Random-walk throughput

\`bench/bench_walks.sh\` ($(date -u +%Y-%m-%d), $(nproc) cores: $cpu). Command:
\`loom walk STORE --walks W --length 80 --p P --q Q --threads T --json\` (walks kept in memory,
not written). node2vec uses exact rejection sampling (uniform proposal, binary-search membership
test, KnightKing's folding of a large 1/p), no alias tables. BlogCatalog imported with
\`loom import ogb\`; R-MAT with \`loom generate rmat --scale $scale --edge-factor 16\`.

| graph | nodes | stored edges | walk | walks/node x length | threads | steps | seconds | M steps/s |
|---|---|---|---|---|---|---|---|---|
$rows
EOF2
echo "wrote $result"
