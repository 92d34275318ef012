#!/usr/bin/env bash
# Full-graph training benchmark (issue 7): graph parallelism vs GNNPipe pipelining vs hybrid
# (2 ways) on 4 ranks, 32-layer GCNII and GCN, hidden 100, link emulation at 10 Gbit/s, on the
# same METIS partition of each graph (4 parts: one per rank for graph mode, one per chunk for
# pipe, two chunks per way for hybrid). Prints and records epoch time, bytes per epoch by
# channel next to the cost formulas, and test accuracy; then a depth sweep (8-64 layers) of
# bytes per epoch for graph and pipe. Writes bench/results/fullgraph.md.
#   GRAPHS   graphs to run (default "facebook fmnist dense"); dense = SBM with 100k nodes and
#            average degree 400 (Reddit-like); dense20k = the same generator and density, 20k nodes
#   MODELS   models of the main runs (default "gcnii gcn")
#   EPOCHS_<graph>  epochs per run (facebook 100, fmnist 12, dense 4)
#   PIPE_CHUNKS_<graph>  extra GCNII pipe runs on partitions into these chunk counts (dense: "8")
#   SWEEP    graphs for the depth sweep (default "facebook fmnist dense"; bytes only, no evaluation)
#   LONG     "graph:epochs ..." extra GCNII runs for convergence (e.g. facebook:200), of the modes in
#            LONG_MODES (default "graph pipe hybrid"; "pipe:stale" = pipe with --cross-grad stale);
#            LR sets the learning rate (default 0.005)
#   EVAL_EVERY  evaluate every N epochs (default: after the last one only)
#   LR_SCHEDULE  --lr-schedule of every run (default none); long runs are tagged with it
#   CHECKPOINTS  if set, the long runs checkpoint every epoch under $work/ckpt/<run> and a rerun
#            continues each from where it stopped (a run longer than one sitting)
#   THREADS  threads per rank (default 0: Loom's choice, the cores shared among the ranks, and a
#            pipeline stage that computes while the others wait takes their cores)
#   WORK     scratch (default bench/work/fullgraph); LOOM, LOOM_DATA, LOOM_PYTHON: see bench/lib.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=${WORK:-bench/work/fullgraph}
require_loom || exit 1
mkdir -p "$work/runs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun -np 4 --oversubscribe --bind-to none -q)
graphs=${GRAPHS-"facebook fmnist dense"}
sweep=${SWEEP-"facebook fmnist dense"}

prepare() {  # graph parts -> $work/<graph>-<parts>
  local g=$1 k=$2
  [[ -f "$work/$g-$k/meta.json" ]] && return
  if [[ ! -f "$work/$g/meta.json" ]]; then
    case $g in
      facebook) "$loom" --log-level warn import ogb "$data/graphs/facebook" -o "$work/facebook" --overwrite ;;
      fmnist) "$loom" --log-level warn import fashion-mnist /usr/share/datasets/fashion-mnist -o "$work/fmnist" \
        --k 10 --overwrite ;;
      dense | dense20k)
        local nodes=100000
        [[ $g == dense20k ]] && nodes=20000
        "$loom" --log-level warn generate sbm --nodes $nodes --classes 10 --avg-degree 400 --homophily 0.3 \
          --feat-dim 64 --feat-noise 1.0 --train 0.3 --valid 0.1 --seed 7 -o "$work/$g" --overwrite ;;
    esac
  fi
  "$loom" --log-level warn partition "$work/$g" -k "$k" --method metis -o "$work/$g-$k" --overwrite > /dev/null
}

# graph model mode[:cross-grad] layers epochs tag parts [eval-every]
#   -> $work/runs/<graph>-<tag>-<model>-<mode><variant>-L<layers>.jsonl
run() {
  local g=$1 model=$2 spec=$3 layers=$4 epochs=$5 tag=$6 parts=$7 eval_every=${8:-${EVAL_EVERY:-$5}}
  local mode=${spec%%:*} variant="" extra=()
  [[ $spec == *:* ]] && extra+=(--cross-grad "${spec##*:}") && variant+="_${spec##*:}"
  [[ $mode == hybrid ]] && extra+=(--ways 2)
  [[ $parts != 4 ]] && variant+="_c$parts"
  prepare "$g" "$parts"
  local name="$g-$tag-$model-$mode$variant-L$layers"
  local out="$work/runs/$name.jsonl"
  if [[ -n ${CHECKPOINTS:-} && $tag == long* ]]; then
    [[ -d $work/ckpt/$name ]] || rm -f "$out"  # a fresh run; else continue it and its metrics
    extra+=(--checkpoint-dir "$work/ckpt/$name" --checkpoint-every 1 --keep-checkpoints 1 --resume)
  else
    rm -f "$out"
  fi
  "${mpirun[@]}" "$loom" --log-level warn fullgraph "$work/$g-$parts" --mode "$mode" --model "$model" \
    --layers "$layers" --hidden 100 --epochs "$epochs" --eval-every "$eval_every" --lr "${LR:-0.005}" \
    --lr-schedule "${LR_SCHEDULE:-none}" --dropout 0.5 --threads "${THREADS:-0}" --net-bandwidth 10Gbit \
    --overwrite --metrics "$out" "${extra[@]}"
  "$python" - "$out" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
s, e = recs[0], list({r["epoch"]: r for r in recs[1:] if "epoch" in r}.values())
t = sorted(r["epoch_seconds"] for r in e[1:] or e)[len(e[1:] or e) // 2]
b = e[-1]["bytes"]
print(f'  {s["mode"]:6} {s["model"]:6} L={s["layers"]:2} chunks/way={s["chunks_per_way"]} {s.get("cross_grad", "")}: '
      f'{t:7.2f} s/epoch, {b["total"]/2**20:9.1f} MiB/epoch (act {b["activations"]/2**20:.1f}, '
      f'grad {b["gradients"]/2**20:.1f}, halo {b["halo"]/2**20:.1f}, weights {b["weights"]/2**20:.1f}), '
      f'test {e[-1].get("test_accuracy", float("nan")):.4f}')
PY
}

for g in $graphs; do
  eval "epochs=\${EPOCHS_$g:-}"
  [[ -z $epochs ]] && case $g in facebook) epochs=100 ;; fmnist) epochs=12 ;; *) epochs=4 ;; esac
  eval "pipe_chunks=\${PIPE_CHUNKS_$g-}"
  [[ $g == dense && -z ${PIPE_CHUNKS_dense+x} ]] && pipe_chunks=8
  echo "== $g ($epochs epochs)"
  for model in ${MODELS:-gcnii gcn}; do
    for mode in graph pipe hybrid; do run "$g" "$model" "$mode" 32 "$epochs" main 4; done
    if [[ $model == gcnii ]]; then
      for k in $pipe_chunks; do run "$g" "$model" pipe 32 "$epochs" main "$k"; done
    fi
  done
done
for spec in ${LONG:-}; do
  g=${spec%%:*} epochs=${spec##*:}
  echo "== $g, GCNII, $epochs epochs"
  for mode in ${LONG_MODES:-graph pipe hybrid}; do run "$g" gcnii "$mode" 32 "$epochs" "long$epochs${LR_SCHEDULE:+$LR_SCHEDULE}" 4; done
done
for g in $sweep; do
  echo "== depth sweep on $g (1 epoch, bytes only)"
  for layers in 8 16 32 64; do
    for mode in graph pipe; do run "$g" gcnii "$mode" "$layers" 1 sweep 4 -1; done
  done
done
"$python" bench/fullgraph_report.py "$work/runs" > bench/results/fullgraph.md
echo "wrote bench/results/fullgraph.md"
