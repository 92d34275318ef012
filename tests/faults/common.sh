# Sourced by the fault tests (after setting loom=): a scratch $dir removed on exit, with the
# background mpirun $job (when set) killed; make_parts NODES K FEATURES: an SBM graph in $dir/g
# partitioned K ways into $dir/parts; rank_pid R: the pid of rank R of $job (mpirun's children,
# by their OMPI_COMM_WORLD_RANK), empty (never a failure) while it has not started; stop_job
# SIGNAL PID: sends SIGNAL to PID, waits for $job and fails (printing $dir/err) unless it ended
# with 128 + SIGNAL; sets status and took (seconds from the signal to the job's end).
dir=$(mktemp -d)
job=
cleanup() { [[ -n "$job" ]] && kill -9 "$job" 2> /dev/null; rm -rf "$dir"; }
trap cleanup EXIT
make_parts() {
  "$loom" --log-level warn generate sbm --nodes "$1" --classes 4 --avg-degree 10 --feat-dim "${3:-32}" --seed 3 \
    -o "$dir/g" > /dev/null
  "$loom" --log-level warn partition "$dir/g" -k "$2" --method metis -o "$dir/parts" > /dev/null
}
rank_pid() {
  for pid in $(pgrep -P "$job"); do
    # grep -z reads the environment's NUL-separated entries itself: a pipe into grep -q could end
    # with SIGPIPE in the writer, which pipefail counts as no match.
    grep -qxz "OMPI_COMM_WORLD_RANK=$1" "/proc/$pid/environ" 2> /dev/null && { echo "$pid"; return 0; }
  done
  return 0
}
stop_job() {
  local signal=$1 sent expected
  kill -"$signal" "$2"
  sent=$(date +%s.%N)
  status=0
  wait "$job" || status=$?
  job=
  took=$(python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.2f}')" "$sent")
  expected=$((128 + $(kill -l "$signal")))
  [[ $status == "$expected" ]] || { echo "SIG$signal: exit status $status, expected $expected" >&2; cat "$dir/err" >&2; exit 1; }
}
