#!/usr/bin/env bash
# PyG's mini-batch idiom on PyG's loader and on Loom's (issue 39), in the same run: the GraphSAGE
# script examples/python/pyg_sage_neighbor_loader.py (NeighborLoader, fanouts 25,10, batch 256,
# hidden 256, Adam lr 0.01, dropout 0.5) and its port examples/python/pyg_sage_loom.py (only the
# loader lines changed), on Cora and Facebook, SEEDS seeds each, interleaved; test accuracy (full
# graph, after the last epoch) and seconds per epoch; Cora (140 training nodes, 1,000 test nodes)
# gets more seeds than Facebook, its accuracy varying more from seed to seed. Then the mpirun port
# (pyg_sage_loom_mpi.py) on 2 METIS parts of each graph, and the lines each port changes. Then the
# exit and differing-parameters reproducers of issue 39, RUNS times each, counting crashes.
# Writes bench/results/python-pyg.md. Env: CORA_SEEDS (30), FACEBOOK_SEEDS (3), EPOCHS (10), RUNS (200),
# LOOM_DATA, WORK, LOOM, LOOM_PYTHON (bench/lib.sh),
# LOOM_PYG (default ../shared/peers/pyg).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=${WORK:-bench/work/pyg_port}
pyg=${LOOM_PYG:-../shared/peers/pyg}
declare -A seeds=([cora]=${CORA_SEEDS:-30} [facebook]=${FACEBOOK_SEEDS:-3})
epochs=${EPOCHS:-10} runs=${RUNS:-200}
export PYTHONPATH=$PWD/build/python:$(cd "$pyg" 2> /dev/null && pwd || echo "$pyg")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
require_loom || exit 1
[ -d "$pyg/torch_geometric" ] || { echo "bench_pyg_port: no PyG at $pyg (LOOM_PYG): skipping"; exit 0; }
require_python_modules torch numpy || exit 0
"$python" -c "import loom" 2> /dev/null ||
  { echo "bench_pyg_port: the Python package is not built (scripts/setup)"; exit 1; }
mkdir -p "$work" bench/results
# One file of results per graph and one for the reproducers: a part run with 0 seeds or runs
# keeps the file of an earlier run.
for graph in cora facebook; do
  require_data "$data/graphs/$graph" || continue
  ((${seeds[$graph]} > 0)) || continue
  rows=$work/rows-$graph.txt
  : > "$rows"
  [ -d "$work/$graph" ] || "$loom" --log-level warn import ogb "$data/graphs/$graph" -o "$work/$graph" \
    $([ $graph = cora ] && echo --split planetoid)
  [ -d "$work/$graph-2" ] || "$loom" --log-level warn partition "$work/$graph" -k 2 \
    --method metis -o "$work/$graph-2" > /dev/null
  for ((s = 0; s < ${seeds[$graph]}; s++)); do
    for script in pyg_sage_neighbor_loader pyg_sage_loom; do
      echo "== $graph seed $s $script"
      "$python" examples/python/$script.py "$work/$graph" --epochs "$epochs" --seed "$s" | tail -1 |
        sed "s/^/$graph $s $script /" >> "$rows"
    done
  done
  echo "== $graph mpirun -np 2"
  mpirun -np 2 --oversubscribe --bind-to none -q -x PYTHONPATH "$python" examples/python/pyg_sage_loom_mpi.py \
    "$work/$graph-2" --epochs "$epochs" --seed 0 | tail -1 | sed "s/^/$graph 0 pyg_sage_loom_mpi /" >> "$rows"
done

# Crash reproducers (RUNS times): an epoch left early then exit, and parameters that differ between 2 ranks.
[ -d "$work/cora" ] || "$loom" --log-level warn generate sbm -o "$work/cora" --nodes 2000 --classes 7 --feat-dim 32
early=0 mismatch=0
for ((r = 0; r < runs; r++)); do
  "$python" -c "import loom, sys
it = loom.Loader('$work/cora', fanouts=[10, 5], batch_size=64).epoch(0)
next(it)
sys.exit(0)" > /dev/null 2>&1 || early=$((early + 1))
  status=0
  mpirun -np 2 --oversubscribe --bind-to none -q -x PYTHONPATH "$python" -c "import loom, torch
loom.comm.GradientSync(list(torch.nn.Linear(4 + loom.comm.rank(), 2).parameters()))" > "$work/mismatch.out" 2>&1 ||
    status=$?
  { [[ $status == 1 ]] && grep -q "the parameters differ between ranks" "$work/mismatch.out"; } || mismatch=$((mismatch + 1))
done
((runs == 0)) || echo "reproducers $runs $early $mismatch" > "$work/rows-reproducers.txt"

cat "$work"/rows-*.txt > "$work/rows.txt"
link_section=$(sed -n '/^<!-- bench_link_pyg -->$/,$p' bench/results/python-pyg.md 2> /dev/null || true)
"$python" - "$work/rows.txt" "$epochs" <<'PY' > bench/results/python-pyg.md
import collections, difflib, statistics, sys
rows, epochs = sys.argv[1], sys.argv[2]
def changed(a, b):
    a, b = open(a).read().splitlines(), open(b).read().splitlines()
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")
runs = collections.defaultdict(list)
reproducers = None
for line in open(rows):
    f = line.split()
    if f[0] == "reproducers":
        reproducers = f[1:]
        continue
    graph, seed, script = f[:3]
    seconds = float(line.split("seconds per epoch ")[1].split()[0])
    accuracy = float(line.split("final test accuracy ")[1].split()[0])
    runs[(graph, script)].append((seconds, accuracy))
ex = "examples/python/"
print("# PyG's mini-batch idiom on PyG's loader and on Loom's (bench/bench_pyg_port.sh)\n")
print(f"`{ex}pyg_sage_neighbor_loader.py` (PyG 2.4's NeighborLoader; GraphSAGE of PyG's SAGEConv, 2 layers, "
      f"fanouts 25,10, batch 256, hidden 256, Adam lr 0.01, dropout 0.5, {epochs} epochs) and its port "
      f"`{ex}pyg_sage_loom.py` (loom.Loader), which changes "
      f"{changed(ex + 'pyg_sage_neighbor_loader.py', ex + 'pyg_sage_loom.py')} lines; its mpirun version "
      f"`{ex}pyg_sage_loom_mpi.py` changes {changed(ex + 'pyg_sage_loom.py', ex + 'pyg_sage_loom_mpi.py')} more "
      "(lines counted per diff hunk: the larger of removed and added). Test accuracy on the full graph after the "
      "last epoch (the mpirun version: loader.evaluate, sampled), mean over seeds; seconds per epoch include the "
      "full-graph test after each epoch.\n")
print("| graph | loader | seeds | test accuracy (sd) | s/epoch |")
print("|---|---|---|---|---|")
for (graph, script), values in sorted(runs.items()):
    sd = statistics.stdev(a for _, a in values) if len(values) > 1 else 0
    print(f"| {graph} | {script} | {len(values)} | {statistics.mean(a for _, a in values):.4f} ({sd:.4f}) | "
          f"{statistics.mean(s for s, _ in values):.3f} |")
for graph in sorted({g for g, _ in runs}):
    a, b = runs.get((graph, "pyg_sage_neighbor_loader")), runs.get((graph, "pyg_sage_loom"))
    if a and b:
        gap = 100 * (statistics.mean(x for _, x in b) - statistics.mean(x for _, x in a))
        pairs = [100 * (y[1] - x[1]) for x, y in zip(a, b)]  # the same seed on both loaders
        error = statistics.stdev(pairs) / len(pairs) ** 0.5 if len(pairs) > 1 else float("nan")
        speed = statistics.mean(s for s, _ in a) / statistics.mean(s for s, _ in b)
        print(f"\n{graph}: Loom's loader {gap:+.2f} points against PyG's (standard error of the paired "
              f"difference {error:.2f}; {'within' if abs(gap) <= 0.5 else 'NOT within'} 0.5 point); "
              f"epoch {speed:.2f}x as fast.", end="")
print("\n")
if reproducers:
    n, early, mismatch = reproducers
    print(f"Reproducers, {n} runs each: an epoch left early then `sys.exit(0)`: {early} crashes; "
          f"GradientSync over parameters that differ between 2 ranks: {mismatch} runs without the one clear "
          "error (status 1).")
PY
[ -z "$link_section" ] || echo "$link_section" >> bench/results/python-pyg.md  # bench_link_pyg.sh's
# The same section at the end of bench/results/python.md (bench_python.sh adds it when it writes that file).
if [ -f bench/results/python.md ]; then
  sed -i '/^<!-- bench_pyg_port -->$/,$d' bench/results/python.md
  { echo "<!-- bench_pyg_port -->"; sed 's/^# /## /' bench/results/python-pyg.md; } >> bench/results/python.md
fi
cat bench/results/python-pyg.md
