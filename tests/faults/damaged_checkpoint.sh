#!/usr/bin/env bash
# A truncated or corrupted newest checkpoint: MPIRUN LOOM. `--resume` reports it by name, falls back
# to the newest intact checkpoint and reaches the bit-identical final loss of an uninterrupted run:
# mini-batch training (one process: truncated model.pt; 2 ranks: a flipped byte, same size) and
# full-graph pipe training on 2 ranks (one rank's newest damaged: every rank goes back together).
set -euo pipefail
mpirun=$1 loom=$2
source "$(dirname "$0")/common.sh"
two=("$mpirun" -np 2 --oversubscribe --allow-run-as-root --bind-to none -q)
make_parts 600 2 16
last_loss() { python3 -c "import json,sys; print([json.loads(l)['loss'] for l in open(sys.argv[1]) if '\"loss\"' in l][-1])" "$1"; }
truncate_file() { truncate -s $(( $(stat -c %s "$1") / 2 )) "$1"; }
flip_byte() { python3 -c "
import sys
data = bytearray(open(sys.argv[1], 'rb').read()); data[len(data) // 2] ^= 0xFF
open(sys.argv[1], 'wb').write(data)" "$1"; }

# check NAME LAUNCH... -- ARGS: uninterrupted 4 epochs vs 3 epochs + damage epoch 3 + resume to 4.
check() {
  local name=$1 damage=$2 victim=$3; shift 3
  local launch=() args=()
  while [[ $1 != -- ]]; do launch+=("$1"); shift; done
  shift
  args=("$@" --checkpoint-every 1 --quiet)
  "${launch[@]}" "$loom" --log-level warn "${args[@]}" --epochs 4 --checkpoint-dir "$dir/$name.full" \
    --metrics "$dir/$name.full.jsonl"
  "${launch[@]}" "$loom" --log-level warn "${args[@]}" --epochs 3 --checkpoint-dir "$dir/$name.ck" > /dev/null
  $damage "$dir/$name.ck/$victim"
  "${launch[@]}" "$loom" --log-level warn "${args[@]}" --epochs 4 --checkpoint-dir "$dir/$name.ck" --resume \
    --metrics "$dir/$name.resumed.jsonl" 2> "$dir/$name.err"
  grep -q "checkpoint $dir/$name.ck/.*epoch-3 is damaged" "$dir/$name.err" ||
    { echo "$name: the damaged checkpoint was not reported:" >&2; cat "$dir/$name.err" >&2; exit 1; }
  local full resumed
  full=$(last_loss "$dir/$name.full.jsonl") resumed=$(last_loss "$dir/$name.resumed.jsonl")
  [[ "$full" == "$resumed" ]] || { echo "$name: final loss $resumed after resuming, $full uninterrupted" >&2; exit 1; }
  echo "$name: $(grep -o 'damaged ([^)]*)' "$dir/$name.err" | head -1); final loss $resumed as uninterrupted"
}
train=(train --layers 2 --fanouts 10,5 --batch-size 64 --hidden 16 --dropout 0.5 --threads 1 --eval-every 0)
check train-1 truncate_file epoch-3/model.pt env -- "${train[@]:0:1}" "$dir/g" "${train[@]:1}"
check train-2 flip_byte epoch-3/optimizer.pt "${two[@]}" -- "${train[@]:0:1}" "$dir/parts" "${train[@]:1}"
check fullgraph flip_byte rank-1/epoch-3/model.pt "${two[@]}" -- fullgraph "$dir/parts" --mode pipe --model gcnii \
  --layers 4 --hidden 16 --dropout 0.3 --threads 1 --eval-every 0

# Nothing intact at all: a clear error naming the newest damaged checkpoint, not a fresh start.
rm -rf "$dir/train-1.ck/epoch-1" "$dir/train-1.ck/epoch-2" "$dir/train-1.ck/epoch-4"
truncate_file "$dir/train-1.ck/epoch-3/model.pt"
if "$loom" --log-level warn train "$dir/g" "${train[@]:1}" --epochs 4 --checkpoint-dir "$dir/train-1.ck" --resume \
  2> "$dir/none.err"; then
  echo "resuming from only damaged checkpoints should fail" >&2; exit 1
fi
grep -q "argument --resume: no intact checkpoint in $dir/train-1.ck" "$dir/none.err" || { cat "$dir/none.err" >&2; exit 1; }
echo ok
