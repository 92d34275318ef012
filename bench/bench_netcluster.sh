#!/usr/bin/env bash
# Real network vs link emulation (issue 23 item 4b): Facebook on 4 METIS parts, 3-layer SAGE,
# fanouts 15,10,5, batch 256 per rank, no cache, 4 epochs, 1 thread per rank, run three ways in one
# go: over shared memory (no network), across 4 network namespaces over TCP on veth links shaped by
# tc to RATE and, for the delay rows, DELAY each way (scripts/netcluster: netem, or where the kernel
# has none a relay through a TUN device), and over shared memory with link emulation: the wire alone
# (`--net-bandwidth RATE [--net-latency DELAY]`), and the wire plus the host's cost per message and
# per byte (`--net-host-latency`, `--net-host-bandwidth`), measured first, apart from the training
# runs: bench_comm's all-to-all and all-reduce of 64 KiB..4 MiB over TCP between unshaped namespaces
# minus the same over shared memory, both under the load the training run puts on the cores (the
# mean number of its threads runnable over shared memory's epochs 2-4, bench/thread_load.py:
# bench_comm's ranks plus spinning processes for the rest), each size the median of three runs,
# fitted by least squares; for the delay rows measured again on
# their path (through the relay, with a 1 us delay), so the relay's own CPU is counted as the
# host's. Reports epoch and fetch seconds (mean over ranks of the fetch phase, median of epochs 2-4) and
# each emulation's error against the shaped network. Each cell runs ROUNDS times, its three runs
# interleaved round by round (a slower minute of the machine then lands on all three): one epoch's
# fetch phase moves by up to 20% from the next, so a single run cannot tell a model off by 20% from
# noise; errors are of the medians over all rounds' epochs 2-4, with the range of the rounds' own
# errors beside them. Needs root.
# Env: RATES ("1gbit 10gbit"), DELAYS ("0.1ms 1ms"), ROUNDS (3), LOOM_DATA, WORK (bench/work/python), LOOM,
# BENCH_COMM (build/bench/bench_comm). Writes bench/results/netcluster.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=${WORK:-bench/work/python}
bench_comm=${BENCH_COMM:-./build/bench/bench_comm}
rates=${RATES:-1gbit 10gbit}
delays=${DELAYS:-0.1ms 1ms}
rounds=${ROUNDS:-3}
require_loom || exit 1
require_data "$data/graphs/facebook" || exit 0
require_python_modules numpy || exit 0
mkdir -p "$work/net" bench/results
[ -d "$work/facebook" ] || "$loom" --log-level warn import ogb "$data/graphs/facebook" -o "$work/facebook"
[ -d "$work/facebook-4" ] || "$loom" --log-level warn partition "$work/facebook" -k 4 \
  --method metis -o "$work/facebook-4" > /dev/null
args=(train "$work/facebook-4" --model sage --layers 3 --fanouts 15,10,5 --batch-size 256 --hidden 256 --epochs 4
      --threads 1 --eval-every 0 --no-exact-eval --quiet)
shm=(mpirun -np 4 --oversubscribe --allow-run-as-root --bind-to none -q --mca btl self,vader)
trap 'scripts/netcluster down' EXIT
scripts/netcluster down

# host_cost NAME [SHAPE...]: the host's cost of TCP on the path SHAPE gives (netcluster up options):
# all-to-all and all-reduce over links of 100 Gbit/s, minus the same over shared memory, fitted by
# least squares; sets host=(--net-host-latency T [--net-host-bandwidth B]).
# Both under the load training puts on the cores, so that the host's work (the kernel's, a relay's)
# and each rank's turn on a core wait as long as they do in an epoch: the training run over shared
# memory keeps `load` threads runnable on average (measured below), bench_comm's ranks are runnable
# throughout its loop, and spinning processes make up the rest (the last one spinning that fraction
# of every 10 ms). Each size: the median of three runs.
sizes=65536,262144,1048576,4194304 ranks=4
spin_fraction='
import sys, time
duty = float(sys.argv[1])
while True:
    start = time.monotonic()
    while time.monotonic() - start < duty * 0.01:
        pass
    time.sleep((1 - duty) * 0.01)'
busy() {  # busy COMMAND...: runs it beside `extra` spinning processes
  local spinners=() status=0 whole=${extra%.*} fraction=0.${extra#*.}
  for ((i = 0; i < whole; i++)); do (while :; do :; done) & spinners+=($!); done
  [ "$fraction" = 0.00 ] || { "$python" -c "$spin_fraction" "$fraction" & spinners+=($!); }
  "$@" || status=$?
  if [ ${#spinners[@]} -gt 0 ]; then
    kill "${spinners[@]}"
    wait "${spinners[@]}" 2> /dev/null || true
  fi
  return $status
}
host_cost() {
  local name=$1 latency bandwidth; shift
  scripts/netcluster up 4 --rate 100gbit "$@" > /dev/null
  for run in 1 2 3; do busy scripts/netcluster mpirun -q $bench_comm --sizes $sizes 2> /dev/null; done > "$work/net/comm-$name.txt"
  scripts/netcluster down
  read -r latency bandwidth < <("$python" - "$work/net" "$name" <<'PY'
import sys
import numpy as np
d, name = sys.argv[1:]
def rows(name):  # bytes per peer -> (all-to-all seconds, all-reduce seconds), medians of the runs
    runs = {}
    for line in open(f"{d}/comm-{name}.txt"):
        f = line.split()
        if f and f[0].isdigit():
            runs.setdefault(int(f[0]), []).append((float(f[1]) * 1e-6, float(f[3]) * 1e-6))
    return {s: tuple(np.median(np.array(r), axis=0)) for s, r in runs.items()}
tcp, shm, p = rows(name), rows("shm"), 4
a, y = [], []
for s in tcp:
    a.append([2 * (p - 1), 2 * (p - 1) * s]); y.append(tcp[s][0] - shm[s][0])  # messages, bytes (out + in)
    a.append([4 * (p - 1), 4 * (p - 1) / p * s]); y.append(tcp[s][1] - shm[s][1])
(per_message, per_byte), *_ = np.linalg.lstsq(np.array(a, float), np.array(y), rcond=None)
print(f"{max(per_message, 0) * 1e6:.0f}us", f"{1e-9 / per_byte:.2f}GB/s" if per_byte > 0 else "")  # none: no byte term
PY
  )
  host=(--net-host-latency "$latency")
  [ -z "$bandwidth" ] || host+=(--net-host-bandwidth "$bandwidth")
  echo "bench_netcluster: host cost ($name) ${host[*]}"
}
# compare NAME RATE [DELAY]: the run over TCP links shaped so, and its two emulations.
compare() {
  local name=$1 rate=$2 delay=${3:-} bandwidth wire
  bandwidth=$(sed 's/gbit/Gbit/; s/mbit/Mbit/' <<< "$rate")
  wire=(--net-bandwidth "$bandwidth")
  [ -z "$delay" ] || wire+=(--net-latency "$delay")
  for ((round = 1; round <= rounds; round++)); do
    scripts/netcluster up 4 --rate "$rate" ${delay:+--delay "$delay"} > /dev/null
    [ -z "$delay" ] || ((round > 1)) || scripts/netcluster rtt > "$work/net/rtt-$name.txt"
    scripts/netcluster mpirun -q "$loom" --log-level warn "${args[@]}" \
      --overwrite --metrics "$work/net/tcp-$name-r$round.jsonl" 2> /dev/null
    scripts/netcluster down
    "${shm[@]}" "$loom" --log-level warn "${args[@]}" "${wire[@]}" --overwrite --metrics "$work/net/emulated-$name-r$round.jsonl"
    "${shm[@]}" "$loom" --log-level warn "${args[@]}" "${wire[@]}" "${host[@]}" \
      --overwrite --metrics "$work/net/emulated-host-$name-r$round.jsonl"
  done
}

rm -f "$work"/net/*.jsonl
"$python" bench/thread_load.py loom-torch "$work/net/shm-r1.jsonl" > "$work/net/load.txt" &
"${shm[@]}" "$loom" --log-level warn "${args[@]}" --overwrite --metrics "$work/net/shm-r1.jsonl"
wait $!
load=$(< "$work/net/load.txt")
extra=$("$python" -c "print(f'{max(0.0, $load - $ranks):.2f}')")
echo "bench_netcluster: training keeps $load threads runnable; calibrating beside $extra spinning"
for run in 1 2 3; do busy "${shm[@]}" $bench_comm --sizes $sizes; done > "$work/net/comm-shm.txt"
host_cost tcp
plain_host="${host[*]}"
for rate in $rates; do compare "$rate" "$rate"; done
host_cost relay --delay 1us
relay_host="${host[*]}"
for rate in $rates; do
  for delay in 1us $delays; do compare "$rate-$delay" "$rate" "$delay"; done  # 1 us: the delay's path alone
done
# 1% of the packets of every link dropped (netem, or netcluster's BPF classifier without it).
first_rate=${rates%% *}
loss_rows=
if scripts/netcluster up 4 --rate "$first_rate" --loss 1% > /dev/null; then
  scripts/netcluster mpirun -q "$loom" --log-level warn "${args[@]}" \
    --overwrite --metrics "$work/net/tcp-loss-$first_rate-r1.jsonl"
  loss_rows=$first_rate
fi
scripts/netcluster down
"$python" - "$work/net" "$rates" "$delays" "$plain_host" "$relay_host" "$loss_rows" "$rounds" "$load" "$extra" \
  > bench/results/netcluster.md <<'PY'
import glob, json, statistics, sys
d, rates, delays, plain_host, relay_host, loss_rates = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), *sys.argv[4:6], sys.argv[6].split()
rounds, load, extra = int(sys.argv[7]), *sys.argv[8:10]
def steady_epochs(name, round=None):
    """Medians over the epochs after the first of every round (or of one round); the last epoch's
    loss and bytes, which must be the same in every round."""
    r, ends = [], set()
    for k in [round] if round else range(1, 1 + len(glob.glob(f"{d}/{name}-r*.jsonl"))):
        epochs = [json.loads(l) for l in open(f"{d}/{name}-r{k}.jsonl") if '"epoch_seconds"' in l]
        r += epochs[1:]
        ends.add((epochs[-1]["loss"], epochs[-1]["comm"]["sum"]["features"]["bytes_sent"]))
    assert len(ends) == 1, f"{name}: the rounds end with different losses or bytes: {ends}"
    phase = lambda key: statistics.median([e["phases_seconds"][key] for e in r])
    return (statistics.median([e["epoch_seconds"] for e in r]), phase("fetch"), phase("compute"), phase("allreduce"),
            *ends.pop())
def errors(name, against, round=None):  # epoch and fetch errors, percent
    e, f, *_ = steady_epochs(name, round)
    et, ft, *_ = steady_epochs(against, round)
    return 100 * (e - et) / et, 100 * (f - ft) / max(ft, 1e-9)
def row(what, name, against=None):
    e, f, c, a, l, b = steady_epochs(name)
    error = "-"
    if against:
        epoch, fetch = errors(name, against)
        error = f"epoch {epoch:+.0f}%, fetch {fetch:+.0f}%"
        if rounds > 1:
            each = [errors(name, against, k) for k in range(1, rounds + 1)]
            error += (f" (rounds: epoch {min(x for x, _ in each):+.0f}..{max(x for x, _ in each):+.0f}%, "
                      f"fetch {min(y for _, y in each):+.0f}..{max(y for _, y in each):+.0f}%)")
    return f"| {what} | {e:.2f} | {f:.2f} | {c:.2f} | {a:.2f} | {error} | {l:.6f} | {b / 2**20:.1f} |"
def compared(name, link, wire, host):
    return [row(f"TCP between namespaces, {link}", f"tcp-{name}"),
            row(f"shared memory + `{wire}` (wire only)", f"emulated-{name}", f"tcp-{name}"),
            row(f"shared memory + `{wire} {host}` (wire + host)", f"emulated-host-{name}", f"tcp-{name}")]
rows = [row("shared memory, no emulation", "shm")]
for rate in rates:
    rows += compared(rate, f"tc tbf {rate}", f"--net-bandwidth {rate}", plain_host)
def epoch(name):
    return steady_epochs(name)[0]
effects = []
for rate in rates:
    for delay in ["1us"] + delays:
        rtt = open(f"{d}/rtt-{rate}-{delay}.txt").read().strip()
        rows += compared(f"{rate}-{delay}", f"tc tbf {rate}, delay {delay} (round trip {rtt} ms)",
                         f"--net-bandwidth {rate} --net-latency {delay}", relay_host)
        if delay != "1us":  # what the delay itself adds to an epoch, beside what the emulation adds
            effects.append(f"| {rate} | {delay} | {epoch(f'tcp-{rate}-{delay}') - epoch(f'tcp-{rate}-1us'):+.2f} | "
                           f"{epoch(f'emulated-host-{rate}-{delay}') - epoch(f'emulated-host-{rate}-1us'):+.2f} |")
for rate in loss_rates:
    rows.append(row(f"TCP between namespaces, tc tbf {rate}, 1% packet loss", f"tcp-loss-{rate}"))
print(f"""# Real network vs link emulation (bench/bench_netcluster.sh)

Facebook, 4 METIS parts, 3-layer SAGE, fanouts 15,10,5, batch 256 per rank, no cache, 1 thread per
rank, 4 ranks on 2 cores; {rounds} rounds of each cell, its runs interleaved; epochs 2-4 of every round (medians
over all rounds; the first epoch warms up; the errors of each round alone beside them). TCP rows: ranks in 4 network namespaces on veth links
shaped by tc (scripts/netcluster), MTU 1500; emulated rows: shared memory with Loom's link model,
the wire alone or with the host's cost, measured with bench_comm (all-to-all and all-reduce of
64 KiB..4 MiB per peer over TCP at 100 Gbit/s minus shared memory, both under the training run's
load: it keeps {load} threads runnable on average over shared memory's epochs 2-4 (bench/thread_load.py), so
bench_comm's 4 ranks ran beside {extra} spinning processes; median of three runs; least squares; not
fitted to these runs): {plain_host} on the plain links, {relay_host} on the delay path. Delays are each
way, on every link's egress: netem where the kernel has it, else (this host) scripts/netcluster's
relay through a TUN device (with TCP segmentation offload: one read and one send per up to 64 KiB),
whose own CPU is part of the host's cost on that path (the 1 us rows: the same path with no delay
to speak of). Round trip: median of 200 one-byte TCP round
trips between two namespaces. Error: the emulation against the shaped network. Phases are means over
ranks: fetch on the pipeline's thread, compute and all-reduce on the model's.

| run | epoch s | fetch s (mean over ranks) | compute s | all-reduce s | emulation error | loss | feature MiB sent |
|---|---|---|---|---|---|---|---|
""" + "\n".join(rows) + """

What the delay itself adds to an epoch (its row minus the 1 us row of the same rate), over
TCP and in the emulation (wire + host):

| rate | delay | TCP s | emulated s |
|---|---|---|---|
""" + "\n".join(effects))
PY
cat bench/results/netcluster.md
