#!/usr/bin/env bash
# Sparse feature layout against the dense one (issue 60), same sitting, same seeds: Cora and PubMed
# (LOOM_DATA) and a generated SBM graph with binary bag-of-words rows (SPARSE_NODES nodes, default
# 200000; SPARSE_DIM columns, default 5000; SPARSE_WORDS words a row, default 15). For each graph and
# layout: the store's feature bytes, a 3-layer SAGE run in one process on 2 threads (epoch time:
# median after the first; test accuracy of exact inference; 3 seeds on the real graphs; the run's
# peak memory, resident and private, from its memory_peak record), the same recipe in PyG 2.4
# (NeighborLoader + SAGEConv on the dense rows, bench/peers/pyg_neighbor_sage.py; skipped with a
# message where ../shared/peers/pyg is absent), and the remote feature bytes an epoch on 4 METIS
# parts (4 ranks). Writes bench/results/sparse.md.
# The generated graph's single-process runs (Loom's both layouts and PyG) take GEN_EPOCHS epochs
# (default 2) of GEN_MAX_STEPS steps (default 4; 0 = all), each epoch's time projected from its
# steps (`--max-steps`): a full dense epoch there is minutes on 2 cores; its 4-rank runs take
# batches of GEN_PARTS_BATCH seeds (default 128) without a pipeline, so that four ranks' dense
# batches fit in this machine's memory (the remote bytes a row costs do not depend on the batch).
# Every run keeps --pipeline-depth 1 (a dense batch of the generated graph is 3.7 GiB).
# Env: LOOM, LOOM_DATA, LOOM_PYTHON (bench/lib.sh); EPOCHS (default 5); LOOM_PYG (default
# ../shared/peers/pyg); GEN_EPOCHS, GEN_MAX_STEPS; BENCH_REUSE=1 keeps every run whose record is
# already in bench/work/sparse (to finish a sitting that stopped part way).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=bench/work/sparse
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
require_loom || exit 1
mkdir -p "$work" bench/results
epochs=${EPOCHS:-5}
pyg=${LOOM_PYG:-../shared/peers/pyg}
have_pyg=1
[ -d "$pyg/torch_geometric" ] || { have_pyg=0; echo "bench_sparse: no PyG at $pyg (LOOM_PYG): its columns are left out"; }
nodes=${SPARSE_NODES:-200000} dim=${SPARSE_DIM:-5000} words=${SPARSE_WORDS:-15}
mpirun=(mpirun -np 4 --oversubscribe --bind-to none -q)
train=(--model sage --layers 3 --hidden 256 --fanouts 15,10,5 --lr 0.003 --eval-every 0 --quiet)

feature_bytes() { du -cb "$1"/feat*.npy | tail -1 | cut -f1; }
# summary FILE: median epoch seconds after the first, exact test accuracy, the last epoch's remote
# feature bytes, the last loss, the peak resident and private MiB
summary() {
  "$python" - "$1" << 'PY'
import json, statistics, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ep = [r for r in recs if "loss" in r]
seconds = statistics.median(r.get("projected_epoch_seconds", r["epoch_seconds"]) for r in (ep[1:] or ep))
acc = next((r.get("test_accuracy") for r in recs if r.get("event") == "exact_eval"), float("nan"))
peak = next((r for r in recs if r.get("event") == "memory_peak"), {})
mib = lambda b: b / 2**20
print(f"{seconds:.3f} {acc:.4f} {ep[-1].get('feature_bytes', 0)} {ep[-1]['loss']:.6f} "
      f"{mib(peak.get('peak_bytes', 0)):.0f} {mib(max(peak.get('private_peak_bytes_per_rank', [0]))):.0f}")
PY
}
# pyg_run STORE SEED EPOCHS MAX_STEPS: PyG's epoch seconds and test accuracy on the dense rows ("- -" without PyG)
pyg_run() {
  if ((have_pyg)); then
    PYTHONPATH="$pyg" "$python" bench/peers/pyg_neighbor_sage.py "$1" --epochs "$3" --max-steps "$4" --seed "$2" \
      --threads 2 | tee "$work/pyg-$(basename "$1")-$2.json" |
      "$python" -c "import json,sys; r=json.loads(sys.stdin.readlines()[-1]); print(f\"{r['epoch_seconds']:.3f} {r['test_accuracy']:.4f}\")"
  else
    echo "- -"
  fi
}
ratio() { "$python" -c "import sys; a, b = sys.argv[1:]; print('-' if '-' in (a, b) else f'{float(a) / max(float(b), 1e-9):.2f}')" "$1" "$2"; }

# reused FILE: whether BENCH_REUSE=1 and FILE holds a run's record already
reused() { [[ ${BENCH_REUSE:-0} == 1 && -s "$1" ]]; }

rows=()
run_graph() {  # NAME SEEDS EPOCHS MAX_STEPS PARTS-OPTIONS...: NAME's dense and sparse stores exist in $work
  local name=$1 seeds=$2 run_epochs=$3 max_steps=$4
  local parts_options=("${@:5}")
  for layout in dense sparse; do
    local store="$work/$name-$layout"
    [ -d "$store-4" ] || "$loom" --log-level warn partition "$store" -k 4 --method metis -o "$store-4" > /dev/null
  done
  local row="| $name"
  for layout in dense sparse; do
    row+=" | $(feature_bytes "$work/$name-$layout")"
  done
  local pyg_seconds=() pyg_accs=()
  for seed in $(seq 1 "$seeds"); do
    for layout in dense sparse; do
      reused "$work/$name-$layout-$seed.jsonl" && continue
      "$loom" --log-level warn train "$work/$name-$layout" "${train[@]}" --batch-size 1024 --pipeline-depth 1 \
        --epochs "$run_epochs" --threads 2 \
        --max-steps "$max_steps" --seed "$seed" --metrics "$work/$name-$layout-$seed.jsonl" --overwrite
    done
    if reused "$work/pyg-$name-dense-$seed.json"; then
      read -r p a <<< "$("$python" -c "import json,sys; r=json.load(open(sys.argv[1])); print(f\"{r['epoch_seconds']:.3f} {r['test_accuracy']:.4f}\")" "$work/pyg-$name-dense-$seed.json")"
    else
      read -r p a <<< "$(pyg_run "$work/$name-dense" "$seed" "$run_epochs" "$max_steps")"
    fi
    pyg_seconds+=("$p") pyg_accs+=("$a")
  done
  for layout in dense sparse; do
    reused "$work/$name-$layout-4.jsonl" && continue
    "${mpirun[@]}" "$loom" --log-level warn train "$work/$name-$layout-4" "${train[@]}" "${parts_options[@]}" \
      --threads 1 --epochs 1 --metrics "$work/$name-$layout-4.jsonl" --overwrite
  done
  local d s ds ss dpeak dprivate speak sprivate
  read -r ds _ _ _ dpeak dprivate <<< "$(summary "$work/$name-dense-1.jsonl")"
  read -r ss _ _ _ speak sprivate <<< "$(summary "$work/$name-sparse-1.jsonl")"
  local ps=${pyg_seconds[0]}
  local accs=""
  for layout in dense sparse; do
    local a=()
    for seed in $(seq 1 "$seeds"); do a+=("$(summary "$work/$name-$layout-$seed.jsonl" | cut -d' ' -f2)"); done
    accs+=" | ${a[*]}"
  done
  accs+=" | ${pyg_accs[*]}"
  read -r _ _ d _ <<< "$(summary "$work/$name-dense-4.jsonl")"
  read -r _ _ s _ <<< "$(summary "$work/$name-sparse-4.jsonl")"
  row+=" | $ds | $ss | $ps | $(ratio "$ds" "$ss") | $(ratio "$ps" "$ss")$accs"
  row+=" | $dpeak / $dprivate | $speak / $sprivate | $(ratio "$dpeak" "$speak") / $(ratio "$dprivate" "$sprivate")"
  row+=" | $d | $s | $(ratio "$d" "$s") |"
  rows+=("$row")
}

for name in cora pubmed; do
  if require_data "$data/graphs/$name"; then
    for layout in dense sparse; do
      [ -d "$work/$name-$layout" ] ||
        "$loom" --log-level warn import ogb "$data/graphs/$name" -o "$work/$name-$layout" --feature-layout "$layout"
    done
    run_graph "$name" 3 "$epochs" 0 --batch-size 1024 --pipeline-depth 1
  fi
done
gen="sbm-${nodes}-${dim}-${words}"
[ -d "$work/$gen-sparse" ] || "$loom" --log-level warn generate sbm --nodes "$nodes" --classes 20 --avg-degree 15 \
  --feat-dim "$dim" --words "$words" --seed 1 -o "$work/$gen-sparse" > /dev/null
[ -d "$work/$gen-dense" ] || "$loom" --log-level warn generate sbm --nodes "$nodes" --classes 20 --avg-degree 15 \
  --feat-dim "$dim" --words "$words" --words-layout dense --seed 1 -o "$work/$gen-dense" > /dev/null
run_graph "$gen" 1 "${GEN_EPOCHS:-2}" "${GEN_MAX_STEPS:-4}" --batch-size "${GEN_PARTS_BATCH:-128}" --pipeline-depth 0 \
  --no-exact-eval

{
  echo "# Sparse feature layout against dense (bench/bench_sparse.sh)"
  echo
  echo "3-layer SAGE (hidden 256, fanouts 15,10,5, batch 1024, lr 0.003), $epochs epochs in one process on 2 threads (the generated graph: ${GEN_EPOCHS:-2} epochs of ${GEN_MAX_STEPS:-4} steps, each epoch's time projected from its steps); epoch time the median after the first (seed 1's); test accuracy of exact (layer-wise) inference after the last epoch, one value per seed; PyG 2.4: NeighborLoader + SAGEConv with the same recipe on the dense rows (bench/peers/pyg_neighbor_sage.py); peak memory of seed 1's run in MiB, resident (mapped store pages included) / private; remote feature bytes of one epoch on 4 METIS parts (4 ranks; the generated graph: batches of ${GEN_PARTS_BATCH:-128}). Feature bytes: the store's feature files."
  echo
  echo "| graph | feature bytes dense | sparse | s/epoch dense | sparse | PyG | dense/sparse | PyG/sparse | test acc dense (seeds) | sparse (seeds) | PyG (seeds) | peak MiB dense | sparse | dense/sparse | remote bytes dense | sparse | dense/sparse |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} > bench/results/sparse.md
cat bench/results/sparse.md
