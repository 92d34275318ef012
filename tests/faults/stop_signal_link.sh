#!/usr/bin/env bash
# SIGTERM on one rank of link-prediction `loom train --task link` (2 ranks) in the middle of an
# epoch: every rank stops after the same step (the signal rides in that step's gradient
# all-reduce), says where (link prediction keeps no checkpoints: nothing saved), and the job exits
# with 143 within the grace, its metrics log holding whole records only. MPIRUN LOOM.
set -euo pipefail
mpirun=$1 loom=$2
source "$(dirname "$0")/common.sh"
make_parts 20000 2
"$mpirun" -np 2 --oversubscribe --allow-run-as-root --bind-to none -q "$loom" train "$dir/parts" --task link \
  --epochs 200 --batch-size 64 --fanouts 10,5 --layers 2 --hidden 32 --threads 1 --eval-every 0 \
  --metrics "$dir/m.jsonl" 2> "$dir/err" &
job=$!
epochs_done() { python3 -c "import json,sys; print(sum('\"loss\"' in l for l in open(sys.argv[1])))" "$1" 2> /dev/null || echo 0; }
for _ in $(seq 900); do [[ -s "$dir/m.jsonl" ]] && [[ $(epochs_done "$dir/m.jsonl") -ge 1 ]] && break; sleep 0.1; done
[[ $(epochs_done "$dir/m.jsonl") -ge 1 ]] || { echo "no epoch finished" >&2; cat "$dir/err" >&2; exit 1; }
rank1=$(rank_pid 1)
[[ -n "$rank1" ]] || { echo "rank 1 not found" >&2; exit 1; }
stop_job TERM "$rank1"
grep -qE "stopped by signal 15 after (step [0-9]+ of )?epoch [0-9]+: nothing saved" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$dir/m.jsonl"
done_at=$(epochs_done "$dir/m.jsonl")
(( done_at < 200 )) || { echo "the run was not stopped early" >&2; exit 1; }
echo "SIGTERM on rank 1 of link training: every rank stopped after epoch $done_at of 200 (status $status, $took s after the signal)"
