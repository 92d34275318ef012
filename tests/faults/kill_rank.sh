#!/usr/bin/env bash
# SIGKILL of one rank mid-run: MPIRUN LOOM REGIME (train | fullgraph | embed). Starts 3 ranks,
# waits until they are working, sends rank 1 SIGKILL, and checks that the job ends with a
# non-zero status within 10 s, that none of its processes is left behind and that no output (nor
# a temporary of one) was written.
set -euo pipefail
mpirun=$1 loom=$2 regime=$3
source "$(dirname "$0")/common.sh"
make_parts 3000 3
case $regime in
  train) args=(train "$dir/parts" --layers 2 --fanouts 10,5 --batch-size 32 --epochs 1000 --threads 1 --eval-every 0) ;;
  fullgraph) args=(fullgraph "$dir/parts" --mode pipe --layers 6 --hidden 32 --epochs 100000 --threads 1 --eval-every 0) ;;
  embed) args=(embed deepwalk "$dir/g" -o "$dir/emb.txt" --walks 200 --length 80 --epochs 50 --threads 1 --rounds 64) ;;
  *) echo "unknown regime $regime" >&2; exit 2 ;;
esac
"$mpirun" -np 3 --oversubscribe --allow-run-as-root --bind-to none "$loom" --log-level warn "${args[@]}" \
  > "$dir/out" 2>&1 &
job=$!

for _ in $(seq 100); do  # the ranks start, then work for a while (at most 10 s)
  [[ -n "$(rank_pid 1)" && -n "$(rank_pid 0)" && -n "$(rank_pid 2)" ]] && break
  sleep 0.1
done
pids=("$(rank_pid 0)" "$(rank_pid 1)" "$(rank_pid 2)")
[[ -n "${pids[0]}" && -n "${pids[1]}" && -n "${pids[2]}" ]] || { echo "the ranks did not start" >&2; cat "$dir/out" >&2; exit 1; }
sleep 2
kill -0 "$job" 2> /dev/null || { echo "the job ended before the kill:" >&2; cat "$dir/out" >&2; exit 1; }
start=$(date +%s.%N)
kill -KILL "${pids[1]}"
status=0
for _ in $(seq 200); do kill -0 "$job" 2> /dev/null || break; sleep 0.05; done
if kill -0 "$job" 2> /dev/null; then echo "$regime: the job still runs 10 s after SIGKILL to a rank" >&2; exit 1; fi
wait "$job" || status=$?
job=
seconds=$(python3 -c "print(f'{$(date +%s.%N) - $start:.2f}')")
[[ $status != 0 ]] || { echo "$regime: the job exited 0 after SIGKILL to a rank" >&2; exit 1; }
written=$(find "$dir" -maxdepth 1 -name 'emb.txt*')
[[ -z "$written" ]] || { echo "$regime: output left behind after SIGKILL: $written" >&2; exit 1; }
# alive PID: the process still runs (an exited one waiting for its parent to reap it does not).
alive() { [[ -r /proc/$1/status ]] && ! grep -q "^State:.*Z" "/proc/$1/status" 2> /dev/null; }
for pid in "${pids[@]}"; do
  if alive "$pid"; then
    echo "$regime: rank process $pid was left behind: $(tr '\0' ' ' < "/proc/$pid/cmdline")" >&2; exit 1
  fi
done
echo "$regime: SIGKILL to rank 1; the job ended with status $status after $seconds s, no process or output left"
