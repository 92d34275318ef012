#!/usr/bin/env bash
# Mini-batch training benchmark (issue 3): Loom vs a plain-PyTorch GraphSAGE peer
# (bench/peers/pytorch_sage.py) on Facebook, same store, same settings (3-layer SAGE, hidden 256,
# fanouts 15,10,5, batch 1024, 10 epochs, 2 threads), then Loom on 4 ranks with and without link
# emulation at 10 Gbit/s. Prints epoch times, the speed ratio and test accuracy; writes
# bench/results/train.md. The peer needs python3-torch (installed here as root, else skipped).
# Env: LOOM, LOOM_DATA, LOOM_PYTHON (bench/lib.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=bench/work/train
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
require_loom || exit 1
require_data "$data/graphs/facebook" || exit 0
mkdir -p "$work" bench/results
[ -d "$work/facebook" ] || "$loom" import ogb "$data/graphs/facebook" -o "$work/facebook"
[ -d "$work/facebook-4" ] || "$loom" partition "$work/facebook" -k 4 --method metis -o "$work/facebook-4"
common=(--model sage --layers 3 --hidden 256 --fanouts 15,10,5 --epochs 10 --lr 0.003 --dropout 0.5)
load=$(cut -d' ' -f1-3 /proc/loadavg)

mean_epoch() {
  "$python" - "$1" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if "epoch_seconds" in l]
t = [x["epoch_seconds"] for x in r[1:]] or [r[0]["epoch_seconds"]]
print(f"{sum(t) / len(t):.3f}")
PY
}
last_field() {
  "$python" - "$1" "$2" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
print(f"{[x for x in r if sys.argv[2] in x][-1][sys.argv[2]]:.4f}")
PY
}

"$loom" --log-level warn train "$work/facebook" "${common[@]}" --batch-size 1024 --threads 2 \
  --overwrite --metrics "$work/loom-1.jsonl"
loom_epoch=$(mean_epoch "$work/loom-1.jsonl")
loom_acc=$(last_field "$work/loom-1.jsonl" test_accuracy)

peer_epoch=NA; peer_acc=NA; ratio=NA; peer_omp_epoch=NA; peer_omp_acc=NA; ratio_omp=NA
if require_python_modules torch numpy; then
  "$python" bench/peers/pytorch_sage.py "$work/facebook" --threads 2 > "$work/peer.jsonl"
  peer_epoch=$(mean_epoch "$work/peer.jsonl")
  peer_acc=$(last_field "$work/peer.jsonl" test_accuracy)
  ratio=$("$python" -c "print(f'{$peer_epoch/$loom_epoch:.2f}')")
  # The peer again with the BLAS flavour Loom loads (OpenMP OpenBLAS), so the ratio is not a BLAS choice.
  omp_blas=/usr/lib/x86_64-linux-gnu/openblas-openmp
  if [ -d "$omp_blas" ]; then
    LD_LIBRARY_PATH=$omp_blas "$python" bench/peers/pytorch_sage.py "$work/facebook" --threads 2 \
      > "$work/peer-omp.jsonl"
    peer_omp_epoch=$(mean_epoch "$work/peer-omp.jsonl")
    peer_omp_acc=$(last_field "$work/peer-omp.jsonl" test_accuracy)
    ratio_omp=$("$python" -c "print(f'{$peer_omp_epoch/$loom_epoch:.2f}')")
  fi
fi

runs4=""
for link in "" "--net-bandwidth 10Gbit --net-latency 20us"; do
  for depth in 0 4; do
    out="$work/loom-4-d$depth${link:+-link}.jsonl"
    mpirun -np 4 --oversubscribe --allow-run-as-root --bind-to none "$loom" --log-level warn train "$work/facebook-4" \
      "${common[@]}" --batch-size 256 --threads 1 --pipeline-depth $depth $link --overwrite --metrics "$out"
    summary=$("$python" - "$out" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
ep = [x for x in r if 'epoch_seconds' in x]
t = ep[1:] or ep
mean = lambda k: sum(x['phases_seconds'][k] for x in t) / len(t)
print(f"{sum(x['epoch_seconds'] for x in t)/len(t):.3f} | {mean('sample'):.3f} | {mean('fetch'):.3f} | {mean('wait'):.3f} | "
      f"{mean('compute'):.3f} | {mean('allreduce'):.3f} | {t[-1]['rows_remote']:,} | {t[-1]['feature_bytes']/2**20:.1f} MiB | "
      f"{sum(x['pipeline_hidden_fraction'] for x in t)/len(t):.2f} | {[x for x in r if 'test_accuracy' in x][-1]['test_accuracy']:.4f}")
PY
)
    runs4+="| 4 ranks, depth $depth${link:+, 10 Gbit/s + 20 us} | $summary |"$'\n'
  done
done

cat > bench/results/train.md <<MD
# Mini-batch training (issue 3)

Facebook (22,470 nodes, 128 features, 4 classes, 60/20/20 split), 3-layer GraphSAGE, hidden 256,
fanouts 15,10,5, batch 1024, 10 epochs, Adam lr 0.003, dropout 0.5. Mean epoch time over epochs 2-10.
Machine load when the run started: $load. Command: \`bench/bench_train.sh\`.

| system | threads | epoch (s) | test accuracy |
|---|---|---|---|
| Loom, 1 process | 2 | $loom_epoch | $loom_acc (exact layer-wise) |
| plain PyTorch peer (bench/peers/pytorch_sage.py), Debian's default BLAS (pthread OpenBLAS) | 2 | $peer_epoch | $peer_acc (sampled 20,20,20) |
| the same peer with the OpenMP OpenBLAS that Loom loads | 2 | $peer_omp_epoch | $peer_omp_acc (sampled 20,20,20) |

Speed ratio peer/Loom: **$ratio x** (peer with the OpenMP BLAS: **$ratio_omp x**). For reference, PyG 2.4 + pyg-lib on this machine type takes about
7.3 s per epoch (issue 3), test accuracy 0.935.

4 ranks (METIS, 4 parts, one thread each, \`mpirun -np 4\`), batch 256 per rank (the same global batch of 1024
and steps per epoch as one process): per-epoch means; fetch = time the producer spent
fetching, wait = time training waited for a batch; hidden = share of sample+fetch time the pipeline hid.

| run | epoch (s) | sample | fetch | wait | compute | allreduce | remote rows | feature bytes | hidden | test acc |
|---|---|---|---|---|---|---|---|---|---|---|
$runs4
MD
cat bench/results/train.md
