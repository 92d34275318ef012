#!/usr/bin/env bash
# SIGTERM or SIGINT during `loom import` and `loom partition` (commands with no step boundary to
# stop at): the command ends at once with 128 + the signal, says so on stderr, removes the
# temporary output it was writing (OUT.tmp-HOST-PID-N), and leaves an existing output as it was.
# MPIRUN LOOM SIGNAL.
set -euo pipefail
mpirun=$1 loom=$2 signal=${3:-TERM}
source "$(dirname "$0")/common.sh"
# An edge list big enough that its import runs for seconds: 3M edges of a 200k-node ring-and-chords.
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    n = 200000
    for i in range(3000000):
        f.write(f'{i % n} {(i * 7919 + 1) % n}\n')
" "$dir/edges.txt"
mkdir -p "$dir/out" && echo "the old output" > "$dir/out/keep"

# stopped SIGNAL ARGS...: runs `loom ARGS` in the background, signals it once its temporary output
# exists, and checks what it left.
stopped() {
  "$loom" "${@:2}" 2> "$dir/err" &
  job=$!
  for _ in $(seq 400); do compgen -G "$dir/$1.tmp-*" > /dev/null && break; sleep 0.025; done
  compgen -G "$dir/$1.tmp-*" > /dev/null || { echo "no temporary output of $1 appeared" >&2; cat "$dir/err" >&2; exit 1; }
  stop_job "$signal" "$job"
  ! compgen -G "$dir/$1.tmp-*" > /dev/null || { echo "temporaries left: $(ls -d "$dir/$1".tmp-*)" >&2; exit 1; }
  grep -q "stopped by SIG$signal" "$dir/err" || { echo "no message" >&2; cat "$dir/err" >&2; exit 1; }
}
stopped out import edgelist "$dir/edges.txt" -o "$dir/out" --overwrite --build-memory 16M
[[ "$(cat "$dir/out/keep")" == "the old output" ]] || { echo "the old output was changed" >&2; exit 1; }
import_took=$took
"$loom" --log-level warn import edgelist "$dir/edges.txt" -o "$dir/g" > /dev/null
stopped parts partition "$dir/g" -k 4 --method metis -o "$dir/parts"
[[ ! -e "$dir/parts" ]] || { echo "a partial partitioned store was left" >&2; exit 1; }
echo "SIG$signal: import ended $import_took s and partition $took s after the signal, status $status, temporaries removed, old output kept"
