#!/usr/bin/env bash
# Link prediction in PyG's idiom on PyG's loader and on Loom's (issue 50), in the same run: the
# script examples/python/pyg_link_neighbor_loader.py (RandomLinkSplit 5/10%, LinkNeighborLoader
# with fanouts 10,10, batch 256, 1 uniform negative per positive; GraphSAGE of PyG's SAGEConv, 2
# layers, 128 wide, dot-product decoder, Adam lr 0.005) and its port examples/python/pyg_link_loom.py
# (loom.LinkLoader and Loom's GraphSAGE on the batch's blocks), on the Facebook page graph (SNAP's
# musae-facebook, 128 features), SEEDS seeds each, interleaved: each seed's split is the same for
# both. Test AUC and Hits@50 (OGB's definition) from the full graph after the last epoch, and
# training seconds per epoch. Then `loom train --task link` on the same graph (its own split) for
# reference. Writes bench/results/link-pyg.md and its section of bench/results/python-pyg.md.
# Env: SEEDS (5), FIRST_SEED (0; more: add seeds to the last run's), EPOCHS (5), REPORT_ONLY (1: only
# redraw the report from the last run's rows), LOOM_DATA, WORK, LOOM, LOOM_PYTHON (bench/lib.sh), LOOM_PYG (../shared/peers/pyg).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=${WORK:-bench/work/link_pyg}
pyg=${LOOM_PYG:-../shared/peers/pyg}
seeds=${SEEDS:-5} first=${FIRST_SEED:-0} epochs=${EPOCHS:-5}
export PYTHONPATH=$PWD/build/python:$(cd "$pyg" 2> /dev/null && pwd || echo "$pyg")
require_loom || exit 1
[ -d "$pyg/torch_geometric" ] || { echo "bench_link_pyg: no PyG at $pyg (LOOM_PYG): skipping"; exit 0; }
require_python_modules torch numpy || exit 0
require_data "$data/graphs/facebook" || exit 0
"$python" -c "import loom" 2> /dev/null || { echo "bench_link_pyg: the Python package is not built (scripts/setup)"; exit 1; }
mkdir -p "$work" bench/results
[ -d "$work/facebook" ] || "$loom" --log-level warn import ogb "$data/graphs/facebook" -o "$work/facebook"
rows=$work/rows.txt
# REPORT_ONLY=1: redraw the report from the last rows; FIRST_SEED > 0: add seeds to them.
if [[ ${REPORT_ONLY:-0} == 1 ]]; then seeds=0; elif ((first == 0)); then : > "$rows"; fi
for ((s = first; s < first + seeds; s++)); do
  for script in pyg_link_neighbor_loader pyg_link_loom; do
    echo "== facebook seed $s $script"
    "$python" examples/python/$script.py "$work/facebook" --epochs "$epochs" --seed "$s" --work "$work" 2> /dev/null |
      tail -1 | sed "s/^/$s $script /" >> "$rows"
  done
done
[[ ${REPORT_ONLY:-0} == 1 || $first -gt 0 ]] || "$loom" --log-level warn train "$work/facebook" --task link --layers 2 --fanouts 10,10 --hidden 128 --dropout 0.2 \
  --batch-size 256 --lr 0.005 --epochs "$epochs" --eval-fanouts -1 --hits-at 50 --quiet --metrics "$work/cli.jsonl" --overwrite
"$python" - "$rows" "$epochs" "$work/cli.jsonl" <<'PY' > bench/results/link-pyg.md
import difflib, json, statistics, sys
rows, epochs, cli = sys.argv[1], sys.argv[2], sys.argv[3]
def changed(a, b):
    a, b = open(a).read().splitlines(), open(b).read().splitlines()
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")
runs = {}
for line in open(rows):
    seed, script = line.split()[:2]
    seconds = float(line.split("seconds per epoch ")[1].split()[0])
    auc = float(line.split("final test auc ")[1].split()[0])
    hits = float(line.split("hits@50 ")[1].split()[0])
    runs.setdefault(script, []).append((seconds, auc, hits))
ex = "examples/python/"
print("# Link prediction: PyG's LinkNeighborLoader and loom.LinkLoader (bench/bench_link_pyg.sh)\n")
print(f"`{ex}pyg_link_neighbor_loader.py` (PyG 2.4's RandomLinkSplit 5%/10% and LinkNeighborLoader, fanouts "
      f"10,10, batch 256 positives + 256 uniform negatives; GraphSAGE of SAGEConv, 2 layers, 128 wide, dropout 0.2, "
      f"dot-product decoder, Adam lr 0.005, {epochs} epochs) and its port `{ex}pyg_link_loom.py`, which changes "
      f"{changed(ex + 'pyg_link_neighbor_loader.py', ex + 'pyg_link_loom.py')} lines (loom.LinkLoader over "
      "the training graph written with from_pyg, and Loom's GraphSAGE run on the batch's blocks). Facebook page "
      "graph (22,470 nodes, 170,823 edges, 128 features); each seed's split is the same for both. Test AUC and "
      "Hits@50 (OGB: positives above the 50th highest negative) from the full graph after the last epoch, mean "
      "over seeds; seconds per epoch of training only.\n")
print("| loader | seeds | test AUC (sd) | test Hits@50 (sd) | s/epoch |")
print("|---|---|---|---|---|")
for script, values in sorted(runs.items()):
    sd = lambda i: statistics.stdev(v[i] for v in values) if len(values) > 1 else 0
    print(f"| {script} | {len(values)} | {statistics.mean(v[1] for v in values):.4f} ({sd(1):.4f}) | "
          f"{statistics.mean(v[2] for v in values):.4f} ({sd(2):.4f}) | {statistics.mean(v[0] for v in values):.2f} |")
a, b = runs.get("pyg_link_neighbor_loader"), runs.get("pyg_link_loom")
if a and b:
    gap = lambda i: 100 * (statistics.mean(v[i] for v in b) - statistics.mean(v[i] for v in a))
    speed = statistics.mean(v[0] for v in a) / statistics.mean(v[0] for v in b)
    paired = lambda i: [100 * (y[i] - x[i]) for x, y in zip(a, b)]  # the same seed (and split) on both
    error = lambda i: statistics.stdev(paired(i)) / len(paired(i)) ** 0.5 if len(paired(i)) > 1 else float("nan")
    print(f"\nLoom against PyG: test AUC {gap(1):+.2f} points (standard error of the paired difference "
          f"{error(1):.2f}), Hits@50 {gap(2):+.2f} points ({error(2):.2f}); "
          f"{'within' if abs(gap(1)) <= 1 and abs(gap(2)) <= 1 else 'NOT within'} 1 point; "
          f"epoch {speed:.2f}x as fast.")
last = [json.loads(l) for l in open(cli) if '"test_auc"' in l][-1]
print(f"\n`loom train --task link` on the same graph (the same model and batches, its own split: 5%/10% held "
      f"out by hash, 1 negative per held-out edge; exact evaluation): test AUC {last['test_auc']:.4f}, Hits@50 "
      f"{last['test_hits@50']:.4f}, MRR {last['test_mrr']:.4f}, {last['epoch_seconds']:.2f} s per epoch.")
PY
# The section of bench/results/python-pyg.md (bench_pyg_port.sh keeps it when it rewrites that file).
if [ -f bench/results/python-pyg.md ]; then
  sed -i '/^<!-- bench_link_pyg -->$/,$d' bench/results/python-pyg.md
  { echo "<!-- bench_link_pyg -->"; sed 's/^# /## /' bench/results/link-pyg.md; } >> bench/results/python-pyg.md
fi
cat bench/results/link-pyg.md
