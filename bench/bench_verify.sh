#!/usr/bin/env bash
# What enforcing store digests costs (issue 48), side by side in one run on the products-scale SBM
# (`loom generate sbm --nodes 2500000 --avg-degree 25 --feat-dim 100 --classes 47 --seed 1`, made once
# in bench/work/sampler, as bench_sampler.sh makes it):
#   1. `loom partition -k 4 --method stream` with the source's digests verified (beside the
#      partitioning, joined before the output is committed) and with --no-verify;
#   2. `loom train` on the source, its first epoch's first STEPS steps (--max-steps), with the
#      digests verified in the background during the setup and with --no-verify: the difference
#      in time to the end of those steps is what the check adds to the first epoch.
# Each pair runs interleaved ROUNDS times (default 2); prints the mean times and the overhead,
# and the time `loom check` takes on the same store. Env: LOOM (bench/lib.sh), NODES, STEPS
# (default 20), ROUNDS.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=bench/work/sampler
nodes=${NODES:-2500000}
steps=${STEPS:-20}
rounds=${ROUNDS:-2}
store=$work/sbm-$nodes
require_loom || exit 1
mkdir -p "$work"
[ -d "$store" ] || "$loom" --log-level warn generate sbm --nodes "$nodes" --avg-degree 25 --feat-dim 100 --classes 47 \
  --seed 1 -o "$store"

seconds() { /usr/bin/time -f %e "$@" 2>&1 > /dev/null | tail -1; }
mean() { "$python" -c "import sys; v = [float(x) for x in sys.argv[1:]]; print(f'{sum(v) / len(v):.2f}')" "$@"; }

declare -A t
for round in $(seq "$rounds"); do
  for verify in "" "--no-verify"; do
    name=${verify:-verify}
    t[partition-$name]+=" $(seconds "$loom" --log-level error partition "$store" -k 4 --method stream \
      -o "$work/verify-parts" --overwrite $verify)"
    t[train-$name]+=" $(seconds "$loom" --log-level error train "$store" --epochs 1 --max-steps "$steps" --threads 2 \
      --eval-every 0 --no-exact-eval --quiet $verify)"
  done
done
rm -rf "$work/verify-parts"
check=$(seconds "$loom" --log-level error check "$store")
bytes=$(du -sb "$store" | cut -f1)

p_on=$(mean ${t[partition-verify]}) p_off=$(mean ${t[partition---no-verify]})
r_on=$(mean ${t[train-verify]}) r_off=$(mean ${t[train---no-verify]})
"$python" - "$p_on" "$p_off" "$r_on" "$r_off" "$check" "$bytes" "$steps" "$rounds" <<'PY'
import sys
p_on, p_off, r_on, r_off, check, size = map(float, sys.argv[1:7])
steps, rounds = sys.argv[7:9]
print(f"Store: {size / 2**30:.2f} GiB of digested files; `loom check` (every digest and invariant): {check:.1f} s.")
print(f"Means of {rounds} interleaved rounds.\n")
print("| command | digests verified (s) | --no-verify (s) | added |")
print("|---|---|---|---|")
print(f"| partition -k 4 --method stream | {p_on:.2f} | {p_off:.2f} | {100 * (p_on - p_off) / p_off:+.1f}% |")
print(f"| train, start to the end of {steps} steps of epoch 1 | {r_on:.2f} | {r_off:.2f} | "
      f"{100 * (r_on - r_off) / r_off:+.1f}% |")
PY
