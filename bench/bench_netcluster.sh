#!/usr/bin/env bash
# Real network vs link emulation (issue 23 item 4b): Facebook on 4 METIS parts, 3-layer SAGE,
# fanouts 15,10,5, batch 256 per rank, no cache, 2 epochs, 1 thread per rank, run three ways in one
# go: over shared memory (no network), across 4 network namespaces over TCP on veth links shaped by
# tc to RATE (scripts/netcluster), and over shared memory with `--net-bandwidth RATE` emulation.
# Reports epoch and fetch seconds (mean over ranks of the fetch phase, second epoch) and the
# emulation's error against the shaped network. Delay shaping needs the kernel's sch_netem; where
# it is missing the delay rows are left out (this host: missing). Needs root.
# Env: RATES ("1gbit 10gbit"), LOOM_DATA, WORK (bench/work/python), LOOM. Writes bench/results/netcluster.md.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${LOOM_DATA:-../shared/data}
work=${WORK:-bench/work/python}
loom=${LOOM:-./build/loom}
rates=${RATES:-1gbit 10gbit}
[ -d "$data/graphs/facebook" ] || { echo "bench_netcluster: no $data/graphs/facebook: skipping"; exit 0; }
mkdir -p "$work/net" bench/results
[ -d "$work/facebook" ] || $loom --log-level warn import ogb "$data/graphs/facebook" -o "$work/facebook"
[ -d "$work/facebook-4" ] || $loom --log-level warn partition "$work/facebook" -k 4 --method metis -o "$work/facebook-4" > /dev/null
args=(train "$work/facebook-4" --model sage --layers 3 --fanouts 15,10,5 --batch-size 256 --hidden 256 --epochs 2
      --threads 1 --eval-every 0 --no-exact-eval --quiet)
shm=(mpirun -np 4 --oversubscribe --allow-run-as-root --bind-to none -q --mca btl self,vader)
trap 'scripts/netcluster down' EXIT
scripts/netcluster down
"${shm[@]}" $loom --log-level warn "${args[@]}" --metrics "$work/net/shm.jsonl"
for rate in $rates; do
  bandwidth=$(sed 's/gbit/Gbit/; s/mbit/Mbit/' <<< "$rate")
  scripts/netcluster up 4 --rate "$rate" > /dev/null
  scripts/netcluster mpirun -q $loom --log-level warn "${args[@]}" --metrics "$work/net/tcp-$rate.jsonl"
  scripts/netcluster down
  "${shm[@]}" $loom --log-level warn "${args[@]}" --net-bandwidth "$bandwidth" --metrics "$work/net/emulated-$rate.jsonl"
done
/usr/bin/python3 - "$work/net" "$rates" > bench/results/netcluster.md <<'PY'
import json, sys
d, rates = sys.argv[1], sys.argv[2].split()
def second_epoch(name):
    r = [json.loads(l) for l in open(f"{d}/{name}.jsonl") if '"epoch_seconds"' in l][-1]
    return r["epoch_seconds"], r["phases_seconds"]["fetch"], r["loss"], r["comm"]["sum"]["features"]["bytes_sent"]
e0, f0, l0, b0 = second_epoch("shm")
rows = [f"| shared memory, no emulation | {e0:.2f} | {f0:.2f} | - | {l0:.6f} | {b0 / 2**20:.1f} |"]
for rate in rates:
    et, ft, lt, bt = second_epoch(f"tcp-{rate}")
    ee, fe, le, be = second_epoch(f"emulated-{rate}")
    rows.append(f"| TCP between namespaces, tc tbf {rate} | {et:.2f} | {ft:.2f} | - | {lt:.6f} | {bt / 2**20:.1f} |")
    rows.append(f"| shared memory + `--net-bandwidth {rate}` emulation | {ee:.2f} | {fe:.2f} | "
                f"epoch {100 * (ee - et) / et:+.0f}%, fetch {100 * (fe - ft) / max(ft, 1e-9):+.0f}% | {le:.6f} | {be / 2**20:.1f} |")
print("""# Real network vs link emulation (bench/bench_netcluster.sh)

Facebook, 4 METIS parts, 3-layer SAGE, fanouts 15,10,5, batch 256 per rank, no cache, 1 thread per
rank, 4 ranks on 2 cores; second epoch. TCP rows: ranks in 4 network namespaces on veth links
shaped by tc (scripts/netcluster); emulated rows: shared memory with Loom's link model. Error: the
emulation against the shaped network. Delay shaping (netem) is missing from this host's kernel.

| run | epoch s | fetch s (mean over ranks) | emulation error | loss | feature MiB sent |
|---|---|---|---|---|---|
""" + "\n".join(rows))
PY
cat bench/results/netcluster.md
