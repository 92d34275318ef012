#!/usr/bin/env bash
# `loom plan fullgraph` against measured epochs of `loom fullgraph` (issue 58): Facebook on K = 2
# and 4 METIS parts, GCNII with 16 layers of hidden 64, graph and pipe modes (and hybrid, 2 ways, on 4), each rank on its share
# of this host's cores over shared memory with Loom's link emulation at 1 and 10 Gbit/s (wire + the
# host's TCP cost of bench_netcluster.sh). Measured: median epoch of epochs 2..EPOCHS and every
# channel's bytes of epoch 1 (all ranks, sent). Predicted: `loom plan fullgraph` with the profile
# `loom plan calibrate` writes here, its cores set to each rank's share and its network to the link.
# Prints each cell's error and writes bench/results/plan-fullgraph.md.
# Env: LOOM_DATA, WORK (bench/work/plan), LOOM, EPOCHS (4), HOSTS ("2 4"), RATES ("1gbit 10gbit").
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=${WORK:-bench/work/plan}
epochs=${EPOCHS:-4}
hosts_list=${HOSTS:-2 4}
rates=${RATES:-1gbit 10gbit}
require_loom || exit 1
require_data "$data/graphs/facebook" || exit 0
mkdir -p "$work" bench/results
cores=$(nproc)
host_cost=(--net-host-latency 2809us --net-host-bandwidth 1.41GB/s)
model=(--model gcnii --layers 16 --hidden 64 --seed 0)
started=$(date +%s)
"$loom" --log-level warn plan calibrate -o "$work/here.toml" --overwrite --name "this host" "${host_cost[@]}" \
  | tee "$work/calibrate.txt"
[ -d "$work/facebook" ] || "$loom" --log-level warn import ogb "$data/graphs/facebook" -o "$work/facebook"
rows=()
for k in $hosts_list; do
  [ -d "$work/facebook-$k" ] || "$loom" --log-level warn partition "$work/facebook" -k "$k" --method metis \
    -o "$work/facebook-$k" > /dev/null
  share=$(/usr/bin/python3 -c "print(min(1.0, $cores / $k))")
  threads=$(( cores / k > 0 ? cores / k : 1 ))
  for rate in $rates; do
    sed -e "s/^cores = .*/cores = $share/" -e "s/^bandwidth = .*/bandwidth = \"$rate\"/" \
      -e "s/^latency = .*/latency = \"0s\"/" "$work/here.toml" > "$work/fg-k$k-$rate.toml"
    modes=(graph pipe)
    ((k >= 4)) && modes+=(hybrid)  # 2 ways of k/2 stages
    "$loom" --log-level warn plan fullgraph "$work/facebook-$k" "${model[@]}" --cluster "$work/fg-k$k-$rate.toml" \
      --hosts "$k" --modes "$(IFS=,; echo "${modes[*]}")" --ways 2 --json "$work/fg-plan-k$k-$rate.json" --overwrite > /dev/null
    for mode in "${modes[@]}"; do
      metrics="$work/fg-run-k$k-$rate-$mode.jsonl"
      rm -f "$metrics"
      mpirun -np "$k" --oversubscribe --allow-run-as-root --bind-to none -q --mca btl self,vader \
        "$loom" --log-level warn fullgraph "$work/facebook-$k" --mode "$mode" --ways 2 "${model[@]}" --epochs "$epochs" \
        --threads "$threads" --eval-every 0 --quiet --net-bandwidth "$rate" "${host_cost[@]}" --metrics "$metrics"
      rows+=("$k|$rate|$mode|$metrics|$work/fg-plan-k$k-$rate.json")
    done
  done
done
seconds=$(( $(date +%s) - started ))
/usr/bin/python3 - "$work" "$seconds" "$cores" "${rows[@]}" <<'PY'
import json, statistics, sys
work, seconds, cores, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
out = ["# `loom plan fullgraph` against measured epochs (bench/bench_plan_fullgraph.sh)", "",
       f"One sitting, {seconds} s, {cores} cores. Facebook, GCNII 16 layers x 64, METIS parts; each rank on its "
       "share of this host's cores, link emulation (wire + host cost); profile: `loom plan calibrate` here "
       "(bench/results/plan.md). Measured: median epoch of epochs 2.., bytes of epoch 1 (all ranks, sent).", "",
       "| hosts | link | mode | predicted s | measured s | error | channel bytes predicted = counted |",
       "|---|---|---|---|---|---|---|"]
for row in rows:
    k, rate, mode, metrics, plan = row.split("|")
    epochs = [r for r in map(json.loads, open(metrics)) if "epoch_seconds" in r and "bytes" in r]
    measured = statistics.median(r["epoch_seconds"] for r in epochs[1:])
    p = {m["mode"]: m for m in json.load(open(plan))["hosts"][0]["modes"]}[mode]
    counted = epochs[0]["bytes"]
    same = all(counted[c] == p["bytes"][c] for c in ("halo", "activations", "gradients", "weights"))
    err = p["epoch_seconds"] / measured - 1
    out.append(f"| {k} | {rate} | {mode} | {p['epoch_seconds']:.3f} | {measured:.3f} | {err:+.1%} | "
               f"{'yes' if same else 'NO'} |")
out.append("")
open("bench/results/plan-fullgraph.md", "w").write("\n".join(out))
print("\n".join(out))
PY
