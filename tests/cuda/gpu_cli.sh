#!/usr/bin/env bash
# `loom train` and `loom fullgraph` with --device cuda end to end, 2 ranks sharing one GPU: MPIRUN
# LOOM. On one METIS partition of a generated graph: mini-batch training on the GPU reaches the
# CPU's accuracy and counts its copies to the device, which the device tier lowers; full-graph
# graph, pipe and hybrid modes train a 6-layer GCNII on the GPU; a GPU that does not exist and a
# device plan over --device-memory-limit stop every rank with one clear error. Where this build has
# no CUDA or the machine no GPU, --device cuda must be that one clear error, and the rest is
# skipped (exit 77).
set -euo pipefail
mpirun="$1" loom="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=("$mpirun" -np 2 --oversubscribe --allow-run-as-root --bind-to none -q "$loom" --log-level warn)
"$loom" --log-level warn generate sbm --nodes 4000 --classes 4 --avg-degree 12 --homophily 0.85 --feat-dim 32 \
  --feat-noise 0.8 --train 0.3 --valid 0.2 --seed 3 -o "$dir/g" > /dev/null
"$loom" --log-level warn partition "$dir/g" -k 2 --method metis -o "$dir/parts" > /dev/null
train=(train "$dir/parts" --layers 2 --hidden 64 --fanouts 10,5 --batch-size 256 --epochs 4 --lr 0.01 --threads 1
       --quiet --eval-every 4)

# one_error FILE PATTERN: the run failed with exactly one error of loom's, matching PATTERN (an MPI
# library may add warnings of its own).
one_error() {
  grep -q -- "$2" "$1" || { echo "expected an error matching '$2':" >&2; cat "$1" >&2; exit 1; }
  [[ $(grep -c "^loom: error" "$1") == 1 ]] || { echo "expected one error line:" >&2; cat "$1" >&2; exit 1; }
}

if ! "${run[@]}" "${train[@]}" --device cuda --metrics "$dir/cuda.jsonl" 2> "$dir/err"; then
  one_error "$dir/err" "argument --device"
  echo "skipped: no GPU here ($(head -1 "$dir/err"))"
  exit 77
fi
"${run[@]}" "${train[@]}" --device cpu --metrics "$dir/cpu.jsonl"
"${run[@]}" "${train[@]}" --device cuda --device-rows 1 --metrics "$dir/tier.jsonl"
for mode in graph pipe hybrid; do
  "${run[@]}" fullgraph "$dir/parts" --device cuda --mode "$mode" --ways 2 --model gcnii --layers 6 --hidden 16 \
    --dropout 0.2 --lr 0.02 --epochs 60 --eval-every 20 --threads 1 --quiet --metrics "$dir/full-$mode.jsonl"
done
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
def records(name):
    return [json.loads(line) for line in open(f"{d}/{name}.jsonl")]
def final_test(name):
    recs = records(name)
    exact = [r for r in recs if r.get("event") == "exact_eval"]
    return (exact or [r for r in recs if "test_accuracy" in r])[-1]["test_accuracy"]
def device_bytes(name):
    return [r for r in records(name) if "epoch" in r and "event" not in r][-1]["comm"]["sum"]["device"]["bytes_sent"]
cpu, cuda, tier = final_test("cpu"), final_test("cuda"), final_test("tier")
print(f"train test accuracy: cpu {cpu:.4f}, cuda {cuda:.4f}, cuda with every own row on the device {tier:.4f}")
print(f"bytes to the device in the last epoch: {device_bytes('cuda')}, with --device-rows 1: {device_bytes('tier')}")
assert abs(cuda - cpu) <= 0.02 and abs(tier - cpu) <= 0.02, (cpu, cuda, tier)
assert device_bytes("cpu") == 0 < device_bytes("tier") < device_bytes("cuda")
memory = [r for r in records("cuda") if r.get("event") == "device_memory"]
assert memory and memory[0]["ranks_per_device"] == 2 and memory[0]["estimate_bytes"] > 0, memory
for mode in ("graph", "pipe", "hybrid"):
    last = [r for r in records(f"full-{mode}") if "epoch" in r and "event" not in r][-1]
    to_device = last["comm"]["sum"]["device"]["bytes_sent"]
    print(f"fullgraph {mode} on cuda: epoch {last['epoch']}, test accuracy {last['test_accuracy']:.4f}, "
          f"{to_device} bytes to the device in the last epoch")
    assert last["epoch"] == 60 and last["test_accuracy"] > 0.6 and to_device > 0, last
PY
if "${run[@]}" "${train[@]}" --device cuda:64 2> "$dir/err"; then echo "cuda:64 should fail" >&2; exit 1; fi
one_error "$dir/err" "argument --device: 'cuda:64': no such GPU"
if "${run[@]}" "${train[@]}" --device cuda --device-rows 1 --device-memory-limit 64K 2> "$dir/err"; then
  echo "a 64 KiB device limit should fail" >&2; exit 1
fi
one_error "$dir/err" "argument --device-memory-limit"
echo ok
