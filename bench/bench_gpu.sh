#!/usr/bin/env bash
# The GPU benchmark (issue 40), side by side in one run on a machine with an NVIDIA GPU (run by
# scripts/device-check; works from a normal build too):
#   1. Facebook, the SAGE recipe of bench_train.sh (3 layers, hidden 256, fanouts 15,10,5, batch
#      1024, 10 epochs, seed 0): Loom on the GPU, Loom on all the machine's CPU cores, and the
#      plain-PyTorch peer (bench/peers/pytorch_sage.py, its tensor sampler on the GPU) on the GPU;
#   2. full-graph training, 32-layer GCNII on Facebook, graph vs pipe, 2 ranks sharing the GPU;
#   3. the products-scale epoch, on an SBM generated here (2.5M nodes, 62.5M stored edges, 100
#      features, 47 classes): Loom on the GPU with the features in GPU memory (--device-rows 1, as
#      the peer keeps them; whole epoch), Loom on the CPU cores and the peer on the GPU (--max-steps
#      each, the epoch projected);
#   4. SALIENT++'s storage tiers on it: --device-rows 0 (every row pinned on the host) to 1, and
#      every row pinned on the host and read by the GPU in place (--host-reads mapped);
#   5. sampling workers (--sample-workers 4 and 16 beside the default, 8 on 16 cores): where the GPU
#      epoch's time goes;
#   6. the sampler alone (build/bench/bench_sampler where it was built, on the SBM): one thread's batch
#      time and batches per second at 1, 2, 4, 8 and 16 workers of one thread each.
# Writes $OUT_DIR/gpu.md (bench/gpu_report.py; default bench/results) and keeps every run's log
# and metrics in $WORK. Sections run in the order BENCH_SECTIONS names them (default "facebook
# fullgraph products tiers workers sampler") while LOOM_BENCH_SECONDS last (default 1800); a run with no time
# left is named in the report, not run.
#   LOOM         the loom binary (default build/loom)      LOOM_PYTHON  Python with torch (default /usr/bin/python3)
#   LOOM_DATA    data folder with graphs/facebook (else .device/data/facebook)
#   LOOM_BENCH_OUT  where gpu.md goes                      WORK         run folder (default bench/work/gpu)
#   CPU_THREADS  threads of Loom's CPU rows (default nproc)  PRODUCTS_NODES  (default 2500000)
#   BENCH_SAMPLER  the bench_sampler binary (default bench/bench_sampler beside $LOOM's folder)
set -uo pipefail
source "$(dirname "$0")/lib.sh"
start=$SECONDS
budget=${LOOM_BENCH_SECONDS:-1800}
out=${LOOM_BENCH_OUT:-bench/results}
work=${WORK:-bench/work/gpu}
cpu_threads=${CPU_THREADS:-$(nproc)}
products_nodes=${PRODUCTS_NODES:-2500000}
sections=${BENCH_SECTIONS:-facebook fullgraph products tiers workers sampler}
bench_sampler=${BENCH_SAMPLER:-$(dirname "$loom")/bench/bench_sampler}
facebook=$data/graphs/facebook
[ -d "$facebook" ] || facebook=.device/data/facebook
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun -np 2 --oversubscribe --allow-run-as-root --bind-to none -q)
require_loom || exit 1
mkdir -p "$work" "$out"
rm -f "$work"/*.jsonl "$work"/skipped.txt

left() { echo $((budget - (SECONDS - start))); }
# run NAME SECONDS COMMAND...: runs COMMAND (output in $WORK/NAME.log) when SECONDS are left,
# else notes NAME as skipped; a run past what is left is stopped.
run() {
  local name=$1 need=$2
  shift 2
  if (($(left) < need)); then
    echo "$name: not run, $(left) s left of $budget" | tee -a "$work/skipped.txt"
    return 1
  fi
  echo "bench_gpu [$((SECONDS - start)) s]: $name"
  timeout "$(left)" "$@" > "$work/$name.log" 2>&1 || { echo "$name: failed, $(tail -1 "$work/$name.log")" | tee -a "$work/skipped.txt"; return 1; }
}

# The peer's Python runs without the library path a relocated build may need (scripts/device-check).
py=(env -u LD_LIBRARY_PATH "$python")
gpu=$("${py[@]}" -c 'import torch; print(int(torch.cuda.is_available()))' 2>/dev/null || echo 0)
[[ $gpu == 1 ]] || echo "bench_gpu: no GPU for $python torch: the GPU rows are skipped" | tee -a "$work/skipped.txt"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  "${py[@]}" -c 'import torch; print("peer torch:", torch.__version__)' 2>/dev/null
  echo "loom cpu threads: $cpu_threads"
  echo "default sample workers: $(( $(nproc) / 2 > 8 ? 8 : ($(nproc) / 2 < 1 ? 1 : $(nproc) / 2) ))"
  echo "products nodes: $products_nodes"
} > "$work/facts.txt"

recipe=(--model sage --layers 3 --hidden 256 --fanouts 15,10,5 --batch-size 1024 --lr 0.003 --dropout 0.5 --seed 0)
products=(--model sage --layers 3 --hidden 256 --fanouts 15,10,5 --batch-size 1024 --epochs 1 --eval-every 0
          --no-exact-eval --seed 0)
sbm=$work/sbm-$products_nodes

# The store a section needs, made once: Facebook imported (and split in 2 for full-graph), the SBM.
imported=0 generated=0
facebook_store() {
  ((imported)) && return
  [ -d "$facebook/raw" ] || { echo "facebook: not run, no $facebook (set LOOM_DATA or run scripts/device-prepare)" |
                              tee -a "$work/skipped.txt"; return 1; }
  "$loom" --log-level warn import ogb "$facebook" -o "$work/facebook" --overwrite > "$work/import.log" 2>&1 && imported=1
}
sbm_store() {
  ((generated)) && return
  run sbm-generate 40 "$loom" generate sbm --nodes "$products_nodes" --avg-degree 25 --feat-dim 100 --classes 47 \
    --seed 1 -o "$sbm" --overwrite && generated=1
}

facebook_section() {
  facebook_store || return
  if [[ $gpu == 1 ]]; then
    run fb-loom-gpu 30 "$loom" train "$work/facebook" "${recipe[@]}" --epochs 10 --device cuda --metrics "$work/fb-loom-gpu.jsonl"
  fi
  run fb-loom-cpu 60 "$loom" train "$work/facebook" "${recipe[@]}" --epochs 10 --threads "$cpu_threads" \
    --metrics "$work/fb-loom-cpu.jsonl"
  if [[ $gpu == 1 ]]; then
    run fb-peer-gpu 40 sh -c "${py[*]} bench/peers/pytorch_sage.py '$work/facebook' --device cuda --sampler torch \
      --epochs 10 > '$work/fb-peer-gpu.jsonl'"
  fi
}

fullgraph_section() {
  [[ $gpu == 1 ]] && facebook_store || return
  "$loom" --log-level warn partition "$work/facebook" -k 2 --method metis -o "$work/facebook-2" --overwrite > /dev/null 2>&1
  for mode in graph pipe; do
    run "fg-$mode" 40 "${mpirun[@]}" "$loom" fullgraph "$work/facebook-2" --device cuda --mode "$mode" --model gcnii \
      --layers 32 --hidden 100 --epochs 100 --eval-every 100 --metrics "$work/fg-$mode.jsonl"
  done
}

products_section() {
  sbm_store || return
  if [[ $gpu == 1 ]]; then
    run sbm-loom-gpu 90 "$loom" train "$sbm" "${products[@]}" --device cuda --device-rows 1 \
      --metrics "$work/sbm-loom-gpu.jsonl"
    run sbm-peer-gpu 60 sh -c "${py[*]} bench/peers/pytorch_sage.py '$sbm' --device cuda --sampler torch --epochs 1 \
      --max-steps 60 --no-test > '$work/sbm-peer-gpu.jsonl'"
  fi
  run sbm-loom-cpu 90 "$loom" train "$sbm" "${products[@]}" --threads "$cpu_threads" --max-steps 10 \
    --metrics "$work/sbm-loom-cpu.jsonl"
}

tiers_section() {
  [[ $gpu == 1 ]] && sbm_store || return
  for rows in 0 0.25 1; do
    run "tier-$rows" 45 "$loom" train "$sbm" "${products[@]}" --device cuda --device-rows "$rows" --max-steps 40 \
      --metrics "$work/tier-$rows.jsonl"
  done
  # Every row pinned on the host and read by the GPU in place (issue 47), against tier-0's staging.
  run tier-0-mapped 45 "$loom" train "$sbm" "${products[@]}" --device cuda --device-rows 0 --host-reads mapped \
    --max-steps 40 --metrics "$work/tier-0-mapped.jsonl"
}

# Sampling workers on the GPU (the default, half the cores and at most 8, is sbm-loom-gpu): where the
# epoch's time goes.
workers_section() {
  [[ $gpu == 1 ]] && sbm_store || return
  for workers in 4 16; do
    run "workers-$workers" 45 "$loom" train "$sbm" "${products[@]}" --device cuda --device-rows 1 --max-steps 60 \
      --sample-workers "$workers" --metrics "$work/workers-$workers.jsonl"
  done
}

# The sampler alone on the SBM, on the host's cores (no GPU needed): bench_sampler's throughput rows and
# its workers section at 1 to 16 workers of one thread each.
sampler_section() {
  [[ -x $bench_sampler ]] || { echo "sampler: not run, no $bench_sampler (build the bench_sampler target)" |
                                tee -a "$work/skipped.txt"; return; }
  sbm_store || return
  run sampler 60 env LOOM_BENCH_STORE="$sbm" LOOM_BENCH_RMAT_SCALE=0 LOOM_BENCH_STEP=0 LOOM_BENCH_THREADS=1 \
    LOOM_BENCH_WORKERS=1,2,4,8,16 "$bench_sampler"
}

for section in $sections; do
  case "$section" in
    facebook | fullgraph | products | tiers | workers | sampler) "${section}_section" ;;
    *) echo "bench_gpu: unknown section '$section' in BENCH_SECTIONS (facebook fullgraph products tiers workers sampler)" >&2
       exit 2 ;;
  esac
done

"${py[@]}" bench/gpu_report.py "$work" "$out/gpu.md"
echo "bench_gpu: $out/gpu.md in $((SECONDS - start)) s"
