#!/usr/bin/env bash
# ctest's python.mpi.np2: the same epoch through `loom train` and through the Python loader, each
# on 2 ranks of a 2-way partitioned store (mpi_loader_check.py compares them); then a failure on one
# rank and a collective failure, each ending the job with its message; then a rank that stalls in a
# step or leaves the epoch alone, each ending the job within the comm timeout with a message.
# usage: mpi_loader.sh MPIRUN LOOM PYTHON
set -euo pipefail
mpirun=$1 loom=$2 python=$3
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=("$mpirun" -np 2 --oversubscribe --allow-run-as-root --bind-to none --mca btl self,vader)
"$loom" --log-level warn generate sbm -o "$dir/sbm" --nodes 1200 --classes 4 --avg-degree 12 --feat-dim 16 --seed 3
"$loom" --log-level warn partition "$dir/sbm" -k 2 -o "$dir/parts"
"${run[@]}" "$loom" --log-level warn train "$dir/parts" --layers 2 --fanouts 10,5 --batch-size 64 --epochs 1 --seed 7 \
  --threads 1 --eval-every 0 --no-exact-eval --metrics "$dir/train.jsonl"
LOOM_TEST_PARTS="$dir/parts" LOOM_TEST_SOURCE="$dir/sbm" LOOM_TEST_METRICS="$dir/train.jsonl" \
  "${run[@]}" -x LOOM_TEST_PARTS -x LOOM_TEST_SOURCE -x LOOM_TEST_METRICS -x PYTHONPATH \
  "$python" -m pytest -q -p no:cacheprovider "$here/mpi_loader_check.py"

# A failure on one rank ends every rank with its message, as the CLI does: rank 1 raises while
# rank 0 waits in a barrier; the job must end (non-zero) and name the error.
fail="$dir/fail.out"
status=0
timeout 60 "${run[@]}" -x PYTHONPATH "$python" -c "
import loom
if loom.comm.rank() == 1:
    raise ValueError('rank one gives up')
loom.comm.barrier()
" > "$fail" 2>&1 || status=$?
[[ $status != 0 ]] || { echo "a rank's exception should end the job with a non-zero status" >&2; exit 1; }
[[ $status != 124 ]] || { echo "the job hung after a rank's exception" >&2; exit 1; }
grep -q "ValueError: rank one gives up" "$fail" || { echo "the message is missing:" >&2; cat "$fail" >&2; exit 1; }
# A collective failure (every rank raises loom.AgreedError) prints once, from rank 0.
if "${run[@]}" -x PYTHONPATH "$python" -c "import loom; loom.Loader('$dir/parts', fanouts=[10, 0])" > "$fail" 2>&1; then
  echo "a bad fanout should fail" >&2; exit 1
fi
[[ $(grep -c "loom: error: .*fanout 0 is invalid" "$fail") == 1 ]] || { echo "expected the error once:" >&2; cat "$fail" >&2; exit 1; }

# Leaving an epoch early on every rank at the same step ends the job cleanly (its producer threads
# stop before MPI is finalised); run many times: the crash it guards against came one run in two.
for attempt in $(seq 10); do
  timeout 120 "${run[@]}" -x PYTHONPATH "$python" -c "
import loom, sys
loader = loom.Loader('$dir/parts', fanouts=[10, 5], batch_size=64, seed=1, threads=1)
it = loader.epoch(0)
next(it)
sys.exit(0)
" > "$fail" 2>&1 || { echo "run $attempt of leaving an epoch early failed ($?):" >&2; cat "$fail" >&2; exit 1; }
done
# Parameters that differ between ranks: one error on every rank, printed once, never a crash.
for attempt in $(seq 10); do
  status=0
  timeout 120 "${run[@]}" -x PYTHONPATH "$python" -c "
import loom, torch
model = torch.nn.Linear(4 + loom.comm.rank(), 2)
loom.comm.GradientSync(list(model.parameters()))
" > "$fail" 2>&1 || status=$?
  [[ $status == 1 ]] || { echo "run $attempt of differing parameters: status $status, want 1:" >&2; cat "$fail" >&2; exit 1; }
  [[ $(grep -c "loom: error: .*the parameters differ between ranks" "$fail") == 1 ]] ||
    { echo "expected the parameters error once:" >&2; cat "$fail" >&2; exit 1; }
done
# A collective called by some ranks only (evaluate() on rank 0) ends the job with a message within
# the comm timeout instead of hanging.
status=0
timeout 120 "${run[@]}" -x PYTHONPATH "$python" -c "
import loom
loom.comm.set_timeout(5)
loader = loom.Loader('$dir/parts', fanouts=[10, 5], batch_size=64, threads=1)
if loom.comm.rank() == 0:
    loader.evaluate(loom.nn.GraphSAGE(loader.feat_dim, 8, loader.num_classes, num_layers=2), 'test')
" > "$fail" 2>&1 || status=$?
[[ $status != 0 && $status != 124 ]] || { echo "a collective on one rank: status $status (124: a hang)" >&2; cat "$fail" >&2; exit 1; }
grep -qE "at exit for the other ranks|in a collective .* that some rank has not joined" "$fail" ||
  { echo "the message is missing:" >&2; cat "$fail" >&2; exit 1; }

# A rank that stops taking part while the other waits in a collective (it stalls inside a step, or
# leaves the epoch and goes on alone) ends the job within the comm timeout, naming the ranks and
# their steps, instead of hanging with no message.
for how in stall leave; do
  status=0
  start=$SECONDS
  timeout 120 "${run[@]}" -x PYTHONPATH "$python" -c "
import loom, time
loader = loom.Loader('$dir/parts', fanouts=[10, 5], batch_size=8, threads=1, pipeline_depth=1)
model = loom.nn.GraphSAGE(loader.feat_dim, 8, loader.num_classes, num_layers=2)
sync = loom.comm.GradientSync(list(model.parameters()))
loom.comm.set_timeout(8)  # collective: from here the ranks are in step (a slow start is not a stall)
for step, batch in enumerate(loader.epoch(0)):
    if loom.comm.rank() == 1 and step == 2:
        if '$how' == 'stall':
            time.sleep(100)
        break
    model(batch.x, batch.blocks).sum().backward()
    sync.all_reduce()
loom.comm.barrier()
" > "$fail" 2>&1 || status=$?
  took=$((SECONDS - start))
  [[ $status != 0 && $status != 124 ]] || { echo "$how: status $status (124: a hang)" >&2; cat "$fail" >&2; exit 1; }
  ((took < 60)) || { echo "$how: the job took $took s to end (timeout 8 s)" >&2; cat "$fail" >&2; exit 1; }
  grep -qE "rank [01]: waited [0-9]+ s at epoch 0, step [0-9]+ in a collective" "$fail" ||
    { echo "$how: the message naming the rank and its step is missing:" >&2; cat "$fail" >&2; exit 1; }
  if [[ $how == stall ]]; then
    grep -q "rank 1 (epoch 0, step 2) is not in a collective" "$fail" ||
      { echo "stall: rank 1 is not named as the one that stopped:" >&2; cat "$fail" >&2; exit 1; }
  fi
done
