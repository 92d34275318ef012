#!/usr/bin/env bash
# A link cut mid-run (issue 23 item 4d): 4 ranks train across 4 network namespaces over TCP; once
# training runs, rank 2's link goes down (nothing passes either way). Open MPI's TCP transport
# would wait for the kernel's timeouts (many minutes); Loom's watchdog (--comm-timeout 5) must end
# every rank within 30 s, with an error naming rank 2 from its neighbours. LOOM. Skips (77) where
# namespaces cannot be made (not root) or a netcluster is already up.
set -euo pipefail
loom=$1
source "$(dirname "$0")/common.sh"
trap '[ -n "${job:-}" ] && kill -9 "$job" 2> /dev/null; net_cleanup' EXIT
"$netcluster" mpirun -q "$loom" --log-level warn --comm-timeout 5 train "$dir/parts" --layers 2 --fanouts 10,5 \
  --batch-size 64 --hidden 16 --epochs 100000 --threads 1 --eval-every 0 --quiet --metrics "$dir/m.jsonl" \
  > "$dir/out.txt" 2>&1 &
job=$!
for ((i = 0; i < 600; i++)); do [ -s "$dir/m.jsonl" ] && grep -q '"epoch"' "$dir/m.jsonl" && break; sleep 0.1; done
grep -q '"epoch"' "$dir/m.jsonl" || { cat "$dir/out.txt" >&2; echo "training did not start" >&2; exit 1; }
"$netcluster" cut 2
start=$(date +%s%N)
left=4
for ((i = 0; i < 300 && left > 0; i++)); do
  left=0
  for ns in loomnet0 loomnet1 loomnet2 loomnet3; do
    left=$((left + $(ip netns pids "$ns" | xargs -r ps -o comm= -p 2> /dev/null | grep -cE '^loom(-torch)?$' || true)))
  done
  [ $left -gt 0 ] && sleep 0.1
done
milliseconds=$((($(date +%s%N) - start) / 1000000))
seconds=$((milliseconds / 1000)).$(printf %03d $((milliseconds % 1000)))
cat "$dir/out.txt"
[ $left -eq 0 ] || { echo "$left rank(s) still running ${seconds} s after the cut" >&2; exit 1; }
grep -q 'no heartbeat from rank 2' "$dir/out.txt" || { echo "no error names rank 2" >&2; exit 1; }
echo "link of rank 2 cut: every rank ended ${seconds} s later, the error names rank 2"
