# Sourced by the fault tests (after setting loom=): a scratch $dir removed on exit, with the
# background mpirun $job (when set) killed; make_parts NODES K FEATURES: an SBM graph in $dir/g
# partitioned K ways into $dir/parts; rank_pid R: the pid of rank R of $job (mpirun's children,
# by their OMPI_COMM_WORLD_RANK), empty while it has not started.
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
    tr '\0' '\n' < "/proc/$pid/environ" 2> /dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && { echo "$pid"; return; }
  done
}
