#!/usr/bin/env bash
# SIGTERM in the middle of a step that runs for a long time: 2 ranks of 4 threads each (8 on the
# machine's cores), the step's feature fetch slowed to 200 Kbit/s by link emulation, so the next
# step boundary, where a stop is agreed, is about half a minute away. Every rank still ends within
# core::kStopGraceSeconds (10 s) of the signal, with status 143, as a scheduler's preemption needs.
# MPIRUN LOOM.
set -euo pipefail
mpirun=$1 loom=$2
source "$(dirname "$0")/common.sh"
make_parts 2000 2 64
"$mpirun" -np 2 --oversubscribe --allow-run-as-root --bind-to none -q "$loom" train "$dir/parts" --epochs 1 \
  --max-steps 1 --net-bandwidth 200Kbit --threads 4 --eval-every 0 --no-exact-eval 2> "$dir/err" &
job=$!
for _ in $(seq 600); do grep -q "training sage" "$dir/err" 2> /dev/null && break; sleep 0.1; done
grep -q "training sage" "$dir/err" || { echo "training did not start" >&2; cat "$dir/err" >&2; exit 1; }
sleep 2  # inside the slow step
rank0=$(rank_pid 0) rank1=$(rank_pid 1)
kill -TERM "$rank0"
stop_job TERM "$rank1"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 16 else 1)" "$took" ||
  { echo "SIGTERM: the job ended $took s after the signal (the grace is 10 s)" >&2; cat "$dir/err" >&2; exit 1; }
echo "SIGTERM mid-step (a slow fetch, 8 threads): every rank ended $took s after the signal, status $status"
