#!/usr/bin/env bash
# SIGTERM or SIGINT on one rank of `loom fullgraph` (2 ranks, pipe): every rank stops at the next
# step boundary, a checkpoint of it is written on every rank, the job exits with 128 + the signal,
# and `--resume` reaches the bit-identical final loss of an uninterrupted run. MPIRUN LOOM SIGNAL.
set -euo pipefail
mpirun=$1 loom=$2 signal=${3:-TERM}
source "$(dirname "$0")/common.sh"
make_parts 2000 2
two=("$mpirun" -np 2 --oversubscribe --allow-run-as-root --bind-to none -q "$loom" --log-level warn)
args=(fullgraph "$dir/parts" --mode pipe --model gcnii --layers 8 --hidden 32 --dropout 0.3 --threads 1 --eval-every 0
      --quiet --epochs 150)
last_loss() { python3 -c "import json,sys; print([json.loads(l)['loss'] for l in open(sys.argv[1]) if '\"loss\"' in l][-1])" "$1"; }
epochs_done() { python3 -c "import json,sys; print(sum('\"loss\"' in l for l in open(sys.argv[1])))" "$1"; }

"${two[@]}" "${args[@]}" --metrics "$dir/full.jsonl"
"${two[@]}" "${args[@]}" --checkpoint-dir "$dir/ck" --metrics "$dir/part.jsonl" 2> "$dir/err" &
job=$!
for _ in $(seq 600); do [[ -s "$dir/part.jsonl" ]] && [[ $(epochs_done "$dir/part.jsonl") -ge 3 ]] && break; sleep 0.1; done
rank1=$(rank_pid 1)
[[ -n "$rank1" ]] || { echo "rank 1 not found" >&2; exit 1; }
stop_job "$signal" "$rank1"
done_at=$(epochs_done "$dir/part.jsonl")
(( done_at < 150 )) || { echo "the run was not stopped early" >&2; exit 1; }
for r in 0 1; do
  [[ -f "$dir/ck/rank-$r/epoch-$done_at/state.json" ]] || { echo "no checkpoint of epoch $done_at on rank $r" >&2; ls -R "$dir/ck" >&2; exit 1; }
done
grep -q "stopped by signal $(kill -l "$signal") after epoch $done_at" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
"${two[@]}" "${args[@]}" --checkpoint-dir "$dir/ck" --resume --metrics "$dir/resumed.jsonl"
full=$(last_loss "$dir/full.jsonl") resumed=$(last_loss "$dir/resumed.jsonl")
[[ "$full" == "$resumed" ]] || { echo "final loss $resumed after the stop and resume, $full uninterrupted" >&2; exit 1; }
echo "SIG$signal on rank 1: every rank stopped after epoch $done_at of 150 with a checkpoint (status $status, $took s after the signal); resumed to the same final loss $full"
