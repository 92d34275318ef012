#!/usr/bin/env bash
# The batch producer's work per step (issue 47): what the pipeline's producer spends preparing one
# batch of the products-scale SBM (bench_sampler.sh's store; fanouts 15,10,5, batch 1024, 3-layer
# SAGE, hidden 64) on this host's cores, from `loom train --pipeline-depth 0 --max-steps STEPS`
# (synchronous, so each phase is timed alone): sample = the batch's sampling, fetch = the gather of
# its input rows, copy = building the batch on the "device" (on the CPU: the tier's rows gathered
# there). --device-rows 0 gathers every own row on the host (what a GPU run does with the features
# pinned on the host); --device-rows 1 leaves them to the device tier, so fetch is only the split of
# the batch between tier and host (what the GPU run's producer does with the features in GPU
# memory). With BEFORE (a loom binary from before a change) both binaries run, interleaved, ROUNDS
# times each, and the table gives the mean of each.
# Env: LOOM, LOOM_PYTHON (bench/lib.sh); BEFORE; NODES (default 2500000); STEPS (default 30); ROUNDS
# (default 2); THREADS (default 2); OUT (default bench/work/producer/producer.md).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=bench/work/producer
nodes=${NODES:-2500000}
store=bench/work/sampler/sbm-$nodes
steps=${STEPS:-30}
rounds=${ROUNDS:-2}
threads=${THREADS:-2}
out=${OUT:-$work/producer.md}
require_loom || exit 1
binaries=("$loom")
if [[ -n ${BEFORE:-} ]]; then
  [[ -x $BEFORE ]] || { echo "$bench: BEFORE=$BEFORE is not an executable" >&2; exit 1; }
  binaries=("$(realpath "$BEFORE")" "$loom")
fi
mkdir -p "$work" && rm -f "$work"/*.jsonl
[ -d "$store" ] || "$loom" --log-level warn generate sbm --nodes "$nodes" --avg-degree 25 --feat-dim 100 --classes 47 \
  --seed 1 -o "$store"

for round in $(seq "$rounds"); do
  for b in "${!binaries[@]}"; do
    for rows in 0 1; do
      "${binaries[$b]}" train "$store" --layers 3 --hidden 64 --fanouts 15,10,5 --batch-size 1024 --epochs 1 \
        --max-steps "$steps" --threads "$threads" --device-rows "$rows" --eval-every 0 --no-exact-eval --quiet \
        --pipeline-depth 0 --metrics "$work/binary$b-rows$rows-round$round.jsonl" > /dev/null
    done
  done
done

"$python" - "$work" "${#binaries[@]}" "$threads" "$steps" "$(cut -d' ' -f1-3 /proc/loadavg)" > "$out" << 'EOF'
import glob, json, statistics, sys
work, count, threads, steps, load = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
names = ["before", "after"] if count == 2 else ["loom"]
print(f"{threads} threads, {steps} steps per run, pipeline depth 0; load average at the end: {load}.")
print()
print("| binary | --device-rows | runs | sample ms/step | fetch ms/step | copy ms/step |")
print("|---|---|---|---|---|---|")
means = {}
for b, name in enumerate(names):
    for rows in (0, 1):
        per_step = {"sample": [], "fetch": [], "copy": []}
        for path in sorted(glob.glob(f"{work}/binary{b}-rows{rows}-round*.jsonl")):
            epoch = [r for r in map(json.loads, open(path)) if "epoch_seconds" in r][-1]
            for phase in per_step:
                per_step[phase].append(1000 * epoch["phases_seconds"].get(phase, 0.0) / epoch["steps"])
        mean = {phase: statistics.mean(v) for phase, v in per_step.items()}
        means[(name, rows)] = mean
        print(f"| {name} | {rows} | {len(per_step['fetch'])} | {mean['sample']:.1f} | {mean['fetch']:.1f} | "
              f"{mean['copy']:.1f} |")
if count == 2:
    print()
    for rows in (0, 1):
        ratio = means[("before", rows)]["fetch"] / means[("after", rows)]["fetch"]
        print(f"- --device-rows {rows}: fetch per step {ratio:.2f}x faster after")
EOF
cat "$out"
