#!/usr/bin/env bash
# SIGTERM or SIGINT on one rank of mini-batch `loom train` (2 ranks, pipeline depth 2, VIP cache,
# lookahead prefetch controller) in the middle of an epoch: every rank stops after the same step,
# a checkpoint of that step is written (DIR/epoch-E-step-S), the job exits with 128 + the signal,
# and `--resume` reaches bit-identical losses (the interrupted epoch's included) and predictions
# of an uninterrupted run. MPIRUN LOOM SIGNAL RANK.
set -euo pipefail
mpirun=$1 loom=$2 signal=${3:-TERM} target=${4:-1}
source "$(dirname "$0")/common.sh"
make_parts 50000 2
two=("$mpirun" -np 2 --oversubscribe --allow-run-as-root --bind-to none -q "$loom" --log-level warn)
args=(train "$dir/parts" --layers 2 --fanouts 10,5 --batch-size 2 --hidden 32 --dropout 0.5 --epochs 3 --threads 1
      --pipeline-depth 2 --cache vip --alpha 0.2 --controller lookahead --eval-every 1 --quiet)
# The losses of the epoch records of a metrics file, from the FIRST-th.
losses() { python3 -c "import json,sys; print([json.loads(l)['loss'] for l in open(sys.argv[1]) if '\"loss\"' in l][int(sys.argv[2]):])" "$1" "$2"; }
epochs_done() { python3 -c "import json,sys; print(sum('\"loss\"' in l for l in open(sys.argv[1])))" "$1"; }

"${two[@]}" "${args[@]}" --metrics "$dir/full.jsonl" -o "$dir/full"
"${two[@]}" "${args[@]}" --checkpoint-dir "$dir/ck" --checkpoint-every 1 --metrics "$dir/part.jsonl" 2> "$dir/err" &
job=$!
for _ in $(seq 600); do [[ -s "$dir/part.jsonl" ]] && [[ $(epochs_done "$dir/part.jsonl") -ge 1 ]] && break; sleep 0.1; done
# Into epoch 2, past its start (where a signal would stop the ranks at the epoch boundary): the
# epochs are about 1,000 steps, 2 s, so the signal lands well inside one even on a loaded machine.
sleep 0.3
pid_of_rank=$(rank_pid "$target")
[[ -n "$pid_of_rank" ]] || { echo "rank $target not found" >&2; exit 1; }
stop_job "$signal" "$pid_of_rank"
checkpoint=$(cat "$dir/ck/latest")
[[ "$checkpoint" =~ ^epoch-1-step-[0-9]+$ ]] || { echo "newest checkpoint $checkpoint, expected one inside epoch 2" >&2; ls "$dir/ck" >&2; exit 1; }
step=${checkpoint##*-}
grep -q "stopped by signal $(kill -l "$signal") after step $step of epoch 2" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
"${two[@]}" "${args[@]}" --checkpoint-dir "$dir/ck" --resume --metrics "$dir/resumed.jsonl" -o "$dir/resumed"
# The resumed run records epochs 2 and 3: the interrupted one, then the next.
full=$(losses "$dir/full.jsonl" 1) resumed=$(losses "$dir/resumed.jsonl" 0)
[[ "$full" == "$resumed" ]] || { echo "losses $resumed after the stop and resume, $full uninterrupted" >&2; exit 1; }
cmp "$dir/full/predictions.npy" "$dir/resumed/predictions.npy" || { echo "predictions differ" >&2; exit 1; }
echo "SIG$signal on rank $target: every rank stopped after step $step of epoch 2 with a checkpoint (status $status, $took s after the signal); resumed to the same losses $full and predictions"
