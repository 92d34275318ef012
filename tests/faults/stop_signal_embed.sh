#!/usr/bin/env bash
# SIGTERM or SIGINT on one rank of `loom embed deepwalk` (NP ranks; NP 1: loom alone, no mpirun):
# every rank stops at the next step boundary (a synchronisation round; an epoch in one process),
# rank 0 saves a checkpoint of it, the job exits with 128 + the signal and writes no output, and
# `--resume` writes embeddings byte-identical to those of an uninterrupted run.
# MPIRUN LOOM SIGNAL NP RANK.
set -euo pipefail
mpirun=$1 loom=$2 signal=$3 np=$4 rank=$5
source "$(dirname "$0")/common.sh"
make_parts 2000 2
launch=("$loom")
(( np == 1 )) || launch=("$mpirun" -np "$np" --oversubscribe --allow-run-as-root --bind-to none -q "$loom")
args=(--log-level warn embed deepwalk "$dir/g" --walks 5 --length 40 --dim 32 --epochs 10 --rounds 8 --threads 1 --quiet)

"${launch[@]}" "${args[@]}" -o "$dir/full.txt"
"${launch[@]}" "${args[@]}" -o "$dir/emb.txt" --checkpoint-dir "$dir/ck" --checkpoint-every 1 2> "$dir/err" &
job=$!
for _ in $(seq 300); do [[ -d "$dir/ck/epoch-2" ]] && break; sleep 0.05; done
[[ -d "$dir/ck/epoch-2" ]] || { echo "no checkpoint of epoch 2 after 15 s" >&2; cat "$dir/err" >&2; exit 1; }
if (( np == 1 )); then target=$job; else target=$(rank_pid "$rank"); fi
[[ -n "$target" ]] || { echo "rank $rank not found" >&2; exit 1; }
stop_job "$signal" "$target"
[[ -z "$(find "$dir" -maxdepth 1 -name 'emb.txt*')" ]] || { echo "output written by the stopped run" >&2; exit 1; }
stopped_at=$(cat "$dir/ck/latest")
grep -q "stopped by signal $(kill -l "$signal") after $stopped_at" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
[[ -f "$dir/ck/$stopped_at/state.json" ]] || { echo "no checkpoint $stopped_at" >&2; ls -R "$dir/ck" >&2; exit 1; }
"${launch[@]}" "${args[@]}" -o "$dir/emb.txt" --checkpoint-dir "$dir/ck" --resume
cmp -s "$dir/full.txt" "$dir/emb.txt" || { echo "embeddings after the stop and resume differ from the uninterrupted run's" >&2; exit 1; }
echo "SIG$signal on rank $rank of $np: stopped after $stopped_at of 10 epochs with a checkpoint (status $status after $took s); resumed to byte-identical embeddings"
