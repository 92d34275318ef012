#!/usr/bin/env bash
# The Python front end against `loom train` in the same run (issue 22): GraphSAGE on Facebook,
# 3 layers, hidden 256, fanouts 15,10,5, batch 1024, lr 0.003, dropout 0.5, 10 epochs, 2 threads.
#   loom    loom train --model sage (the CLI)
#   python  examples/python/sage_custom_model.py --model sage: a Python training loop over
#           loom.Loader with loom.nn.GraphSAGE (Loom's layers), PyTorch's Adam, exact test inference
# SEEDS seeds each, interleaved (loom, python, loom, ...), so that both see the same machine.
# Then 4 ranks on the METIS parts with a VIP cache (alpha 0.2) and lookahead prefetch: the remote
# rows per epoch of both, which must be equal (same options and seed).
# Writes bench/results/python.md. Env: SEEDS (3), EPOCHS (10), LOOM_DATA, WORK, LOOM, LOOM_PYTHON (bench/lib.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=${WORK:-bench/work/python}
seeds=${SEEDS:-3}
epochs=${EPOCHS:-10}
export PYTHONPATH=$PWD/build/python OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
require_loom || exit 1
require_data "$data/graphs/facebook" || exit 0
require_python_modules torch numpy || exit 0
"$python" -c "import loom" 2> /dev/null ||
  { echo "bench_python: the Python package is not built (scripts/setup)"; exit 1; }
mkdir -p "$work/runs" bench/results
[ -d "$work/facebook" ] || "$loom" --log-level warn import ogb "$data/graphs/facebook" -o "$work/facebook"
[ -d "$work/facebook-4" ] || "$loom" --log-level warn partition "$work/facebook" -k 4 --method metis \
  -o "$work/facebook-4" > /dev/null
recipe=(--fanouts 15,10,5 --batch-size 1024 --hidden 256 --lr 0.003 --dropout 0.5)

for ((s = 0; s < seeds; s++)); do
  echo "== seed $s"
  "$loom" --log-level warn train "$work/facebook" --model sage --layers 3 "${recipe[@]}" --epochs "$epochs" \
    --threads 2 --seed "$s" --eval-every 0 --quiet --overwrite --metrics "$work/runs/loom.$s.jsonl"
  "$python" examples/python/sage_custom_model.py "$work/facebook" --model sage "${recipe[@]}" --epochs "$epochs" \
    --threads 2 --seed "$s" --metrics "$work/runs/python.$s.jsonl" > /dev/null
done

echo "== 4 ranks, VIP cache alpha 0.2, lookahead prefetch"
four=(--fanouts 15,10,5 --batch-size 256 --hidden 256 --cache vip --alpha 0.2 --controller lookahead --threads 1)
mpirun -np 4 --oversubscribe --bind-to none -q "$loom" --log-level warn train "$work/facebook-4" --model sage \
  --layers 3 "${four[@]}" --epochs 2 --seed 0 --eval-every 0 --quiet --overwrite --metrics "$work/runs/loom.np4.jsonl"
mpirun -np 4 --oversubscribe --bind-to none -q -x PYTHONPATH "$python" examples/python/sage_custom_model.py \
  "$work/facebook-4" --model sage "${four[@]}" --epochs 2 --seed 0 --metrics "$work/runs/python.np4.jsonl" \
  > /dev/null 2>&1

"$python" - "$work/runs" "$seeds" "$(cut -d' ' -f1-3 /proc/loadavg)" > bench/results/python.md <<'PY'
import json, statistics, sys
runs, seeds, load = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def read(name):
    records = [json.loads(line) for line in open(f"{runs}/{name}.jsonl")]
    epochs = [r for r in records if "epoch_seconds" in r and "event" not in r]
    final = [r for r in records if r.get("event") == "exact_eval"][-1]
    return epochs, final

rows, loom_epoch, python_epoch, loom_acc, python_acc = [], [], [], [], []
for s in range(seeds):
    le, lf = read(f"loom.{s}")
    pe, pf = read(f"python.{s}")
    l_med = statistics.median(r["epoch_seconds"] for r in le[1:])
    p_med = statistics.median(r["epoch_seconds"] for r in pe[1:])
    loom_epoch.append(l_med); python_epoch.append(p_med)
    loom_acc.append(lf["test_accuracy"]); python_acc.append(pf["test_accuracy"])
    rows.append(f"| {s} | {l_med:.2f} | {p_med:.2f} | {p_med / l_med:.2f}x | {lf['test_accuracy']:.4f} | "
                f"{pf['test_accuracy']:.4f} |")
mean = statistics.mean
ratio = mean(python_epoch) / mean(loom_epoch)
gap = 100 * (mean(loom_acc) - mean(python_acc))
le4, _ = read("loom.np4")
pe4, _ = read("python.np4")
print(f"""# Python front end vs `loom train` (bench/bench_python.sh)

Facebook, 3-layer GraphSAGE, hidden 256, fanouts 15,10,5, batch 1024, Adam lr 0.003, dropout 0.5,
{len(le)} epochs, 2 threads, one process; the Python side is `examples/python/sage_custom_model.py
--model sage` (loom.Loader + loom.nn.GraphSAGE + torch.optim.Adam, a plain Python loop). Epoch time:
median over epochs 2..{len(le)}; test accuracy by exact inference after the last epoch. Runs
interleaved, load average at the end {load}. The example imports loom before torch, so that LibTorch
computes with the OpenMP OpenBLAS as the `loom` binary does (python/loom/_blas.py); with torch
imported first it gets Debian's default pthreads OpenBLAS, whose threads fight OpenMP's, and the
Python epoch took 1.41-1.51x `loom train`'s (measured 2026-11-25; loom warns when that happens).

| seed | loom train s/epoch | Python s/epoch | ratio | loom train test | Python test |
|---|---|---|---|---|---|
""" + "\n".join(rows) + f"""
| mean | {mean(loom_epoch):.2f} | {mean(python_epoch):.2f} | **{ratio:.2f}x** | {mean(loom_acc):.4f} | {mean(python_acc):.4f} |

Targets: Python epoch within 1.2x of `loom train`: **{"met" if ratio <= 1.2 else "not met"}** ({ratio:.2f}x);
test accuracy within 0.5 point: **{"met" if abs(gap) <= 0.5 else "not met"}** ({-gap:+.2f} points).

## 4 ranks (METIS parts), VIP cache alpha 0.2, lookahead prefetch, batch 256 per rank, seed 0

| epoch | loom train remote rows | Python remote rows | loom train cached | Python cached | feature MiB loom / Python |
|---|---|---|---|---|---|
""" + "\n".join(
    f"| {a['epoch']} | {a['rows_remote']:,} | {b['rows_remote']:,} | {a['rows_cached']:,} | {b['rows_cached']:,} | "
    f"{a['comm']['sum']['features']['bytes_received'] / 2**20:.1f} / {b['comm']['sum']['features']['bytes_received'] / 2**20:.1f} |"
    for a, b in zip(le4, pe4)) + f"""

Same remote rows per epoch: **{"met" if all(a['rows_remote'] == b['rows_remote'] for a, b in zip(le4, pe4)) else "not met"}**.
""")
PY
# PyG's own idiom (bench/bench_pyg_port.sh: NeighborLoader against loom.Loader in the same script,
# the mpirun port, the crash reproducers), as that bench last wrote it.
if [ -f bench/results/python-pyg.md ]; then
  { echo; echo "<!-- bench_pyg_port -->"; sed 's/^# /## /' bench/results/python-pyg.md; } >> bench/results/python.md
fi
cat bench/results/python.md
