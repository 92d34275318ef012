#!/usr/bin/env bash
# 4 ranks in 4 network namespaces, over TCP through veth links shaped to 1 Gbit/s
# (scripts/netcluster), train to the bit-identical loss, predictions and per-channel bytes of 4
# ranks over shared memory: mini-batch training with a VIP cache, and full-graph pipe parallelism;
# then the same with 1% of the packets of every link dropped (TCP retransmits them), with 1 ms of
# delay each way (the round trip checked), and with both. LOOM. Skips (77) where namespaces cannot
# be made (not root) or a netcluster is already up.
set -euo pipefail
loom=$1
source "$(dirname "$0")/common.sh"
addresses=$("$netcluster" mpirun -q sh -c 'ip -4 -o addr show dev eth0' | grep -o '10\.77\.0\.[0-9]*' | sort -u | wc -l)
[[ $addresses == 4 ]] || { echo "the ranks did not start in 4 namespaces ($addresses addresses)" >&2; exit 1; }
shm=(mpirun -np 4 --oversubscribe --allow-run-as-root --bind-to none -q --mca btl self,vader)
net=("$netcluster" mpirun -q)
compare() {  # compare NAME HOW: losses and feature/halo bytes per epoch, and the predictions, are identical
  python3 - "$dir/$1.shm.jsonl" "$dir/$1.$2.jsonl" <<'PY'
import json, sys
def epochs(path):
    return [(r["loss"], {k: v["bytes_sent"] for k, v in r["comm"]["sum"].items() if k != "control"})
            for r in map(json.loads, open(path)) if "loss" in r]
a, b = epochs(sys.argv[1]), epochs(sys.argv[2])
assert a and a == b, (a, b)
PY
  cmp "$dir/$1.shm/predictions.npy" "$dir/$1.$2/predictions.npy" || { echo "$1 ($2): predictions differ" >&2; exit 1; }
}
train=(train "$dir/parts" --layers 2 --fanouts 10,5 --batch-size 64 --hidden 16 --epochs 2 --threads 1 --seed 5
       --cache vip --alpha 0.2 --eval-every 0 --quiet)
full=(fullgraph "$dir/parts" --mode pipe --model gcnii --layers 4 --hidden 16 --epochs 3 --threads 1 --seed 5
      --eval-every 0 --quiet)
run_both() {  # run_both HOW LAUNCHER...
  local how=$1; shift
  "$@" "$loom" --log-level warn "${train[@]}" -o "$dir/train.$how" --metrics "$dir/train.$how.jsonl"
  "$@" "$loom" --log-level warn "${full[@]}" -o "$dir/full.$how" --metrics "$dir/full.$how.jsonl"
}
run_both shm "${shm[@]}"
run_both net "${net[@]}"
compare train net
compare full net
echo "4 ranks over TCP between namespaces: the same losses, bytes and predictions as over shared memory"
if ! "$netcluster" shape --rate 1gbit --loss 1%; then
  echo "skip: 1% packet loss cannot be shaped here (the reason is above)"
  exit 0
fi
run_both loss "${net[@]}"
compare train loss
compare full loss
echo "the same with 1% packet loss on every link"
if ! "$netcluster" shape --rate 1gbit --delay 1ms; then
  echo "skip: a delay cannot be shaped here (the reason is above)"
  exit 0
fi
rtt=$("$netcluster" rtt)
awk -v r="$rtt" 'BEGIN { exit !(r >= 2.0 && r < 4.0) }' || { echo "1 ms each way gave a round trip of $rtt ms" >&2; exit 1; }
run_both delay "${net[@]}"
compare train delay
compare full delay
echo "the same with 1 ms delay each way (round trip $rtt ms)"
# Both at once: without netem the relay then passes packets one by one (no segmentation offload),
# so that the classifier drops single packets.
"$netcluster" shape --rate 1gbit --delay 1ms --loss 1%
run_both delay-loss "${net[@]}"
compare train delay-loss
compare full delay-loss
echo "the same with 1 ms delay each way and 1% packet loss"
