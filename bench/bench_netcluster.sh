#!/usr/bin/env bash
# Real network vs link emulation (issue 23 item 4b): Facebook on 4 METIS parts, 3-layer SAGE,
# fanouts 15,10,5, batch 256 per rank, no cache, 2 epochs, 1 thread per rank, run three ways in one
# go: over shared memory (no network), across 4 network namespaces over TCP on veth links shaped by
# tc to RATE (scripts/netcluster), and over shared memory with link emulation: the wire alone
# (`--net-bandwidth RATE`), and the wire plus the host's cost per message and per byte
# (`--net-host-latency`, `--net-host-bandwidth`), both measured first, apart from the training
# runs: bench_comm's all-to-all and all-reduce of 64 KiB..4 MiB over TCP between unshaped
# namespaces minus the same over shared memory, fitted by least squares. Reports epoch and fetch
# seconds (mean over ranks of the fetch phase, second epoch) and each emulation's error against the
# shaped network. Delay shaping needs the kernel's sch_netem; where it is missing the delay rows
# are left out (this host: missing). Needs root.
# Env: RATES ("1gbit 10gbit"), LOOM_DATA, WORK (bench/work/python), LOOM, BENCH_COMM
# (build/bench/bench_comm). Writes bench/results/netcluster.md.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${LOOM_DATA:-../shared/data}
work=${WORK:-bench/work/python}
loom=${LOOM:-./build/loom}
bench_comm=${BENCH_COMM:-./build/bench/bench_comm}
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

# The host's cost of TCP: all-to-all and all-reduce over unshaped links, and over shared memory.
sizes=65536,262144,1048576,4194304
scripts/netcluster up 4 --rate 100gbit > /dev/null
scripts/netcluster mpirun -q $bench_comm --sizes $sizes 2> /dev/null > "$work/net/comm-tcp.txt"
scripts/netcluster down
"${shm[@]}" $bench_comm --sizes $sizes > "$work/net/comm-shm.txt"
read -r host_latency host_bandwidth < <(/usr/bin/python3 - "$work/net" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
def rows(name):  # bytes per peer -> (all-to-all seconds, all-reduce seconds)
    out = {}
    for line in open(f"{d}/comm-{name}.txt"):
        f = line.split()
        if f and f[0].isdigit():
            out[int(f[0])] = (float(f[1]) * 1e-6, float(f[3]) * 1e-6)
    return out
tcp, shm, p = rows("tcp"), rows("shm"), 4
a, y = [], []
for s in tcp:
    a.append([2 * (p - 1), 2 * (p - 1) * s]); y.append(tcp[s][0] - shm[s][0])  # messages, bytes (out + in)
    a.append([4 * (p - 1), 4 * (p - 1) / p * s]); y.append(tcp[s][1] - shm[s][1])
(per_message, per_byte), *_ = np.linalg.lstsq(np.array(a, float), np.array(y), rcond=None)
print(f"{max(per_message, 0) * 1e6:.0f}us", f"{1e-9 / per_byte:.2f}GB/s" if per_byte > 0 else "")  # none: no byte term
PY
)
host=(--net-host-latency "$host_latency")
[ -z "$host_bandwidth" ] || host+=(--net-host-bandwidth "$host_bandwidth")
echo "bench_netcluster: host cost ${host[*]}"

"${shm[@]}" $loom --log-level warn "${args[@]}" --metrics "$work/net/shm.jsonl"
for rate in $rates; do
  bandwidth=$(sed 's/gbit/Gbit/; s/mbit/Mbit/' <<< "$rate")
  scripts/netcluster up 4 --rate "$rate" > /dev/null
  scripts/netcluster mpirun -q $loom --log-level warn "${args[@]}" --metrics "$work/net/tcp-$rate.jsonl"
  scripts/netcluster down
  "${shm[@]}" $loom --log-level warn "${args[@]}" --net-bandwidth "$bandwidth" --metrics "$work/net/emulated-$rate.jsonl"
  "${shm[@]}" $loom --log-level warn "${args[@]}" --net-bandwidth "$bandwidth" "${host[@]}" \
    --metrics "$work/net/emulated-host-$rate.jsonl"
done
# 1% of the packets of every link dropped (netem, or netcluster's BPF classifier without it).
first_rate=${rates%% *}
loss_rows=
if scripts/netcluster up 4 --rate "$first_rate" --loss 1% > /dev/null; then
  scripts/netcluster mpirun -q $loom --log-level warn "${args[@]}" --metrics "$work/net/tcp-loss-$first_rate.jsonl"
  loss_rows=$first_rate
fi
scripts/netcluster down
/usr/bin/python3 - "$work/net" "$rates" "${host[*]}" "$loss_rows" > bench/results/netcluster.md <<'PY'
import json, sys
d, rates, host, loss_rates = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4].split()
def second_epoch(name):
    r = [json.loads(l) for l in open(f"{d}/{name}.jsonl") if '"epoch_seconds"' in l][-1]
    return r["epoch_seconds"], r["phases_seconds"]["fetch"], r["loss"], r["comm"]["sum"]["features"]["bytes_sent"]
e0, f0, l0, b0 = second_epoch("shm")
rows = [f"| shared memory, no emulation | {e0:.2f} | {f0:.2f} | - | {l0:.6f} | {b0 / 2**20:.1f} |"]
for rate in rates:
    et, ft, lt, bt = second_epoch(f"tcp-{rate}")
    rows.append(f"| TCP between namespaces, tc tbf {rate} | {et:.2f} | {ft:.2f} | - | {lt:.6f} | {bt / 2**20:.1f} |")
    for name, what in ((f"emulated-{rate}", f"`--net-bandwidth {rate}` (wire only)"),
                       (f"emulated-host-{rate}", f"`--net-bandwidth {rate} {host}` (wire + host)")):
        ee, fe, le, be = second_epoch(name)
        rows.append(f"| shared memory + {what} | {ee:.2f} | {fe:.2f} | "
                    f"epoch {100 * (ee - et) / et:+.0f}%, fetch {100 * (fe - ft) / max(ft, 1e-9):+.0f}% | {le:.6f} | {be / 2**20:.1f} |")
for rate in loss_rates:
    el, fl, ll, bl = second_epoch(f"tcp-loss-{rate}")
    rows.append(f"| TCP between namespaces, tc tbf {rate}, 1% packet loss | {el:.2f} | {fl:.2f} | - | {ll:.6f} | {bl / 2**20:.1f} |")
print(f"""# Real network vs link emulation (bench/bench_netcluster.sh)

Facebook, 4 METIS parts, 3-layer SAGE, fanouts 15,10,5, batch 256 per rank, no cache, 1 thread per
rank, 4 ranks on 2 cores; second epoch. TCP rows: ranks in 4 network namespaces on veth links
shaped by tc (scripts/netcluster); emulated rows: shared memory with Loom's link model, the wire
alone or with the host's cost ({host}: measured with bench_comm, all-to-all and all-reduce of
64 KiB..4 MiB per peer over unshaped TCP minus shared memory, least squares; not fitted to these
runs). Error: the emulation against the shaped network. Delay shaping (netem) is missing from this
host's kernel.

| run | epoch s | fetch s (mean over ranks) | emulation error | loss | feature MiB sent |
|---|---|---|---|---|---|
""" + "\n".join(rows))
PY
cat bench/results/netcluster.md
