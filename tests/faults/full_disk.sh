#!/usr/bin/env bash
# A full disk while writing checkpoints and outputs: LOOM. On a 64 KiB tmpfs, training with a
# checkpoint per epoch runs out of space at the second checkpoint: the run fails with an error
# naming the file and "No space left on device", the first checkpoint stays intact (a resume
# loads it), and no temporary file or directory is left; the same for the checkpoints of `loom embed`
# (two weight matrices of 16 KB each); writing `-o OUT` to a nearly full disk fails the same way
# and leaves no OUT. Skips (77) where tmpfs cannot be mounted (not root).
set -euo pipefail
loom=$1
dir=$(mktemp -d)
disk="$dir/disk"
mkdir -p "$disk"
cleanup() { umount "$disk" 2> /dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
mount -t tmpfs -o size=64k tmpfs "$disk" 2> /dev/null || { echo "skip: cannot mount a tmpfs here (needs root)"; exit 77; }
"$loom" --log-level warn generate sbm --nodes 600 --classes 4 --avg-degree 10 --feat-dim 16 --seed 3 -o "$dir/g" > /dev/null
train=(train "$dir/g" --layers 2 --fanouts 10,5 --hidden 64 --threads 1 --eval-every 0 --quiet)
leftovers() { find "$disk" -name '*tmp-*' | grep . && { echo "temporary files left behind" >&2; exit 1; } || true; }

if "$loom" --log-level warn "${train[@]}" --epochs 3 --checkpoint-every 1 --checkpoint-dir "$disk/ck" 2> "$dir/err"; then
  echo "training should fail when the disk is full" >&2; exit 1
fi
grep -q "loom: error: $disk/ck/epoch-2.*: write failed: No space left on device" "$dir/err" ||
  { echo "expected a clear error:" >&2; cat "$dir/err" >&2; exit 1; }
[[ $(wc -l < "$dir/err") == 1 ]] || { echo "expected one line:" >&2; cat "$dir/err" >&2; exit 1; }
leftovers
[[ -f "$disk/ck/epoch-1/state.json" && ! -e "$disk/ck/epoch-2" ]] || { ls -R "$disk" >&2; exit 1; }
cp -r "$disk/ck" "$dir/ck"  # the checkpoint left on the full disk resumes the run elsewhere
"$loom" "${train[@]}" --epochs 2 --checkpoint-dir "$dir/ck" --resume > "$dir/out" 2>&1
grep -q "resumed from $dir/ck after epoch 1" "$dir/out" || { echo "the first checkpoint did not resume:" >&2; cat "$dir/out" >&2; exit 1; }
grep -q "damaged" "$dir/out" && { echo "an intact checkpoint was reported damaged" >&2; exit 1; }

umount "$disk" && mount -t tmpfs -o size=64k tmpfs "$disk"
"$loom" --log-level warn generate sbm --nodes 250 --classes 4 --avg-degree 10 --feat-dim 4 --seed 3 -o "$dir/g250" > /dev/null
embed=(embed deepwalk "$dir/g250" --walks 2 --length 20 --dim 8 --epochs 3 --threads 1 --quiet)
if "$loom" --log-level warn "${embed[@]}" -o "$disk/emb.txt" --checkpoint-every 1 --checkpoint-dir "$disk/ck" 2> "$dir/err"; then
  echo "embedding should fail when the disk is full" >&2; exit 1
fi
grep -q "loom: error: $disk/ck/epoch-2.*: write failed: No space left on device" "$dir/err" ||
  { echo "expected a clear error:" >&2; cat "$dir/err" >&2; exit 1; }
leftovers
[[ -f "$disk/ck/epoch-1/state.json" && ! -e "$disk/ck/epoch-2" && ! -e "$disk/emb.txt" ]] || { ls -R "$disk" >&2; exit 1; }
rm -rf "$dir/ck" && cp -r "$disk/ck" "$dir/ck"
"$loom" "${embed[@]}" -o "$dir/emb.txt" --checkpoint-dir "$dir/ck" --resume > "$dir/out" 2>&1
grep -q "resumed from $dir/ck/epoch-1" "$dir/out" || { echo "the embed checkpoint did not resume:" >&2; cat "$dir/out" >&2; exit 1; }

umount "$disk" && mount -t tmpfs -o size=64k tmpfs "$disk"
head -c 60000 /dev/zero > "$disk/fill"
if "$loom" --log-level warn "${train[@]}" --epochs 1 -o "$disk/out" 2> "$dir/err"; then
  echo "writing outputs to a full disk should fail" >&2; exit 1
fi
grep -q "No space left on device" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
[[ ! -e "$disk/out" ]] || { echo "a partial output was left" >&2; exit 1; }
leftovers
echo ok
