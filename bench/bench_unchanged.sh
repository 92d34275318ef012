#!/usr/bin/env bash
# Behaviour unchanged by a refactoring (issue 41): the core runs of bench/results/train.md and
# fullgraph.md with two loom binaries, BEFORE (the tree before the change) and AFTER (build/loom),
# interleaved on the same stores: Facebook mini-batch training in one process (3-layer SAGE, hidden
# 256, fanouts 15,10,5, batch 1024, 2 threads) and on 4 METIS parts (batch 256 per rank, pipeline
# depth 0 and 4), and 32-layer GCNII full-graph training on 4 ranks in graph, pipe and hybrid mode
# (hidden 100, 10 Gbit/s link emulation). Same seeds, so losses, bytes and accuracies must agree
# exactly; epoch times within noise. Writes bench/results/unchanged.md.
#   BEFORE   the loom binary from before the change (required), e.g. a build of the base commit
#   EPOCHS   mini-batch epochs (default 5); FULL_EPOCHS full-graph epochs (default 20)
# Env: LOOM (the AFTER binary), LOOM_DATA, LOOM_PYTHON (bench/lib.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=bench/work/unchanged
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
require_loom || exit 1
[[ -x ${BEFORE:-} ]] || { echo "$bench: set BEFORE to the loom binary from before the change" >&2; exit 1; }
before=$(realpath "$BEFORE")
require_data "$data/graphs/facebook" || exit 0
mkdir -p "$work/runs" bench/results
rm -f "$work"/runs/*.jsonl
[ -d "$work/facebook" ] || "$loom" import ogb "$data/graphs/facebook" -o "$work/facebook"
[ -d "$work/facebook-4" ] || "$loom" partition "$work/facebook" -k 4 --method metis -o "$work/facebook-4"
epochs=${EPOCHS:-5}
full_epochs=${FULL_EPOCHS:-20}
sage=(--model sage --layers 3 --hidden 256 --fanouts 15,10,5 --epochs "$epochs" --lr 0.003 --dropout 0.5)
mpirun=(mpirun -np 4 --oversubscribe --bind-to none -q)
load=$(cut -d' ' -f1-3 /proc/loadavg)

run_both() {  # NAME COMMAND...: the command with each binary (the word LOOM stands for it)
  local name=$1 side binary
  shift
  for side in before after; do
    binary=$loom
    [[ $side == before ]] && binary=$before
    "${@/#LOOM/$binary}" --overwrite --metrics "$work/runs/$name-$side.jsonl" > /dev/null 2>&1 ||
      { echo "$bench: $name ($side) failed" >&2; return 1; }
  done
}

run_both train-1 LOOM --log-level warn train "$work/facebook" "${sage[@]}" --batch-size 1024 --threads 2
for depth in 0 4; do
  run_both "train-4-d$depth" "${mpirun[@]}" LOOM --log-level warn train "$work/facebook-4" "${sage[@]}" \
    --batch-size 256 --threads 1 --pipeline-depth "$depth"
done
for mode in graph pipe hybrid; do
  run_both "fullgraph-$mode" "${mpirun[@]}" LOOM --log-level warn fullgraph "$work/facebook-4" --mode "$mode" \
    --model gcnii --layers 32 --hidden 100 --epochs "$full_epochs" --eval-every "$full_epochs" --lr 0.005 --dropout 0.5 \
    --net-bandwidth 10Gbit
done

"$python" - "$work/runs" "$load" "$epochs" "$full_epochs" > bench/results/unchanged.md <<'PY'
import json, sys, os, statistics
runs, load, epochs, full_epochs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
def read(name, side):
    return [json.loads(l) for l in open(os.path.join(runs, f"{name}-{side}.jsonl"))]
def summary(recs):
    ep = [r for r in recs if "epoch_seconds" in r]
    seconds = statistics.median(r["epoch_seconds"] for r in (ep[1:] or ep))
    last = ep[-1]
    loss = last["loss"]
    bytes_ = last["bytes"]["total"] if "bytes" in last else last.get("feature_bytes", 0)
    score = next((r[k] for r in reversed(recs) for k in ("test_accuracy",) if k in r), float("nan"))
    return seconds, loss, bytes_, score
print("# Behaviour unchanged: before and after a refactoring, side by side (bench/bench_unchanged.sh)\n")
print(f"Facebook; mini-batch runs {epochs} epochs, full-graph runs {full_epochs}; the two binaries run "
      f"interleaved, run by run. Load average at the start: {load}. Epoch time: median after the first epoch. "
      "Bytes: the last epoch's (full-graph: all channels; mini-batch: remote feature rows). "
      "Test accuracy: exact inference after the last epoch.\n")
print("| run | s/epoch before | s/epoch after | after/before | last loss before | after | bytes before | after | test before | after | same results |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
names = sorted({f.rsplit("-", 1)[0] for f in os.listdir(runs)}, key=lambda n: (n.startswith("fullgraph"), n))
all_same = True
for name in names:
    b, a = summary(read(name, "before")), summary(read(name, "after"))
    same = b[1] == a[1] and b[2] == a[2] and b[3] == a[3]
    all_same &= same
    print(f"| {name} | {b[0]:.3f} | {a[0]:.3f} | {a[0] / b[0]:.2f} | {b[1]:.6f} | {a[1]:.6f} | {b[2]} | {a[2]} | "
          f"{b[3]:.4f} | {a[3]:.4f} | {'yes' if same else 'NO'} |")
print(f"\nLosses, bytes and accuracies identical in every run: **{'yes' if all_same else 'no'}**.")
PY
cat bench/results/unchanged.md
