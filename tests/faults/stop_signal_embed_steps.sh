#!/usr/bin/env bash
# SIGTERM during a long epoch of `loom embed deepwalk` in one process: training stops at the next
# step (a block of about a million words) inside the epoch rather than at its end (or by the grace
# timer), with a log line and a checkpoint of that step (epoch-0-step-N, N < the epoch's 5 steps),
# and `--resume` writes embeddings byte-identical to those of an uninterrupted run (one thread).
# No wall-clock bound: how long a step takes depends on the machine's load. MPIRUN LOOM.
set -euo pipefail
mpirun=$1 loom=$2
source "$(dirname "$0")/common.sh"
"$loom" --log-level warn generate sbm --nodes 20000 --classes 4 --avg-degree 10 --feat-dim 4 --seed 3 -o "$dir/g" > /dev/null
# 20000 nodes x 6 walks x 40 = 4.8M words an epoch: 5 steps of 2^20 words.
args=(embed deepwalk "$dir/g" --walks 6 --length 40 --dim 16 --epochs 2 --threads 1 --quiet)

"$loom" "${args[@]}" -o "$dir/full.txt" 2> /dev/null
"$loom" "${args[@]}" -o "$dir/emb.txt" --checkpoint-dir "$dir/ck" 2> "$dir/err" &
job=$!
for _ in $(seq 600); do grep -q "walks: " "$dir/err" 2> /dev/null && break; sleep 0.05; done
sleep 1  # inside the first epoch
stop_job TERM "$job"
[[ -f "$dir/ck/latest" ]] || { echo "no checkpoint" >&2; cat "$dir/err" >&2; exit 1; }
stopped_at=$(cat "$dir/ck/latest")
[[ "$stopped_at" =~ ^epoch-0-step-[0-4]$ ]] ||
  { echo "SIGTERM in the first epoch: stopped at $stopped_at, not at a step inside it" >&2; cat "$dir/err" >&2; exit 1; }
grep -q "stopped by signal 15 after $stopped_at" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
"$loom" "${args[@]}" -o "$dir/emb.txt" --checkpoint-dir "$dir/ck" --resume 2> /dev/null
cmp -s "$dir/full.txt" "$dir/emb.txt" || { echo "embeddings after the stop and resume differ from the uninterrupted run's" >&2; exit 1; }
echo "SIGTERM in an epoch of deepwalk: stopped after $stopped_at, $took s after the signal; resumed to byte-identical embeddings"
