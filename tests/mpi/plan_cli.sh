#!/usr/bin/env bash
# `loom plan` against `loom train` on the same partitioned store: MPIRUN NP LOOM. For NP hosts, the
# bytes and messages `loom plan` predicts for an epoch on the features and gradients channels
# equal, exactly, the counters the run reports (without a cache and with a VIP cache), and the
# same options come from the same --config file. Bad profiles and options are refused by name.
set -euo pipefail
mpirun="$1" np="$2" loom="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=("$mpirun" -np "$np" --oversubscribe --allow-run-as-root --bind-to none -q "$loom" --log-level warn)
"$loom" --log-level warn generate sbm --nodes 3000 --classes 4 --avg-degree 12 --feat-dim 24 --seed 5 -o "$dir/g" > /dev/null
"$loom" --log-level warn partition "$dir/g" -k "$np" -o "$dir/parts" > /dev/null
cat > "$dir/run.toml" <<'TOML'
layers = 2
fanouts = "10,5"
hidden = 16
batch-size = 40
epochs = 1
eval-every = 0
threads = 1
seed = 7
TOML
cat > "$dir/cluster.toml" <<'TOML'
name = "test hosts"
[host]
cores = 4
memory = "16G"
sampled_edges_per_core_second = 1e7
gathered_bytes_per_core_second = 2e9
[compute]
flops = 2.5e10
values = 2e9
step_overhead = "1ms"
[network]
bandwidth = "10Gbit"
latency = "50us"
host_bandwidth = "1.4GB/s"
host_latency = "2.8ms"
TOML
"${run[@]}" train "$dir/parts" --config "$dir/run.toml" --no-exact-eval --quiet --metrics "$dir/none.jsonl"
"${run[@]}" train "$dir/parts" --config "$dir/run.toml" --no-exact-eval --quiet --cache vip --alpha 0.1 \
  --metrics "$dir/vip.jsonl"
"$loom" --log-level warn plan "$dir/parts" --config "$dir/run.toml" --cluster "$dir/cluster.toml" --hosts "$np" \
  --regimes pipelined,cache --policies vip --alphas 0.1 --json "$dir/plan.json" > "$dir/plan.txt"
grep -q "fastest that fits" "$dir/plan.txt"
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
plan = json.load(open(f"{d}/plan.json"))["hosts"][0]
by_kind = {r["kind"]: r for r in plan["regimes"]}
for name, kind in (("none", "pipelined"), ("vip", "cache")):
    epoch = [r for r in map(json.loads, open(f"{d}/{name}.jsonl")) if "epoch_seconds" in r and "comm" in r][0]
    sent = epoch["comm"]["sum"]
    predicted = by_kind[kind]
    for channel in ("features", "gradients"):
        assert sent[channel]["bytes_sent"] == predicted["bytes"][channel], (name, channel, sent[channel], predicted["bytes"])
        assert sent[channel]["messages_sent"] == predicted["messages"][channel], (name, channel, sent[channel], predicted["messages"])
    assert epoch["rows_remote"] == predicted["remote_rows"], (name, epoch["rows_remote"], predicted["remote_rows"])
    assert epoch["steps"] == plan["steps_per_epoch"], (epoch["steps"], plan["steps_per_epoch"])
assert by_kind["cache"]["bytes"]["features"] < by_kind["pipelined"]["bytes"]["features"]
PY
# The first plan kept its counts in the store: the same plan again reads them and answers the
# same; --recount counts afresh to the same answer; another alpha is another count.
plan_again() {  # plan_again LOG JSON ARGS...
  "$loom" --log-level info plan "$dir/parts" --config "$dir/run.toml" --cluster "$dir/cluster.toml" --hosts "$np" \
    --regimes pipelined,cache --policies vip --json "$2" "${@:3}" > /dev/null 2> "$1"
}
plan_again "$dir/again.log" "$dir/again.json" --alphas 0.1
grep -q "counts read from $dir/parts/plan-counts/" "$dir/again.log"
cmp "$dir/plan.json" "$dir/again.json"
plan_again "$dir/recount.log" "$dir/recount.json" --alphas 0.1 --recount
if grep -q "counts read from" "$dir/recount.log"; then echo "--recount read kept counts" >&2; exit 1; fi
cmp "$dir/plan.json" "$dir/recount.json"
plan_again "$dir/other.log" "$dir/other.json" --alphas 0.2
if grep -q "counts read from" "$dir/other.log"; then echo "another alpha read kept counts" >&2; exit 1; fi

refused() {  # refused WHAT ARGS...: `loom plan` fails and names WHAT
  if "$loom" --log-level warn plan "${@:2}" > "$dir/err" 2>&1; then
    echo "loom plan ${*:2} should fail" >&2; exit 1
  fi
  grep -q -- "$1" "$dir/err" || { echo "expected '$1' in:" >&2; cat "$dir/err" >&2; exit 1; }
}
sed 's/^cores = 4/cores = 4\nsockets = 2/' "$dir/cluster.toml" > "$dir/bad.toml"
refused "sockets" "$dir/parts" --cluster "$dir/bad.toml"
sed 's/^latency = "50us"/latency = "soon"/' "$dir/cluster.toml" > "$dir/bad.toml"
refused "network.latency" "$dir/parts" --cluster "$dir/bad.toml"
refused "--cluster" "$dir/parts"
refused "--hosts" "$dir/parts" --cluster "$dir/cluster.toml" --hosts 0
refused "--alphas" "$dir/parts" --cluster "$dir/cluster.toml" --alphas -1
refused "--shape" --cluster "$dir/cluster.toml" --shape nodes=10M,edges=1G
refused "--hosts" "$dir/parts" --cluster "$dir/cluster.toml" --hosts 4000
refused "--task" "$dir/parts" --cluster "$dir/cluster.toml" --task link
refused "store" "$dir/parts" --cluster "$dir/cluster.toml" --shape nodes=1M,edges=10M,train=1K,feat-dim=8

# `loom plan fullgraph` against `loom fullgraph` on the same store: graph mode (NP parts, NP ranks),
# pipe mode (NP stages over the same parts) and hybrid mode (2 ways; on 4 ranks 2 stages); every
# channel's bytes exactly as counted.
cat > "$dir/deep.toml" <<'TOML'
model = "gcnii"
layers = 4
hidden = 16
epochs = 1
eval-every = 0
threads = 1
seed = 3
TOML
for mode in graph pipe hybrid; do
  "${run[@]}" fullgraph "$dir/parts" --mode "$mode" --ways 2 --config "$dir/deep.toml" --quiet \
    --metrics "$dir/fg-$mode.jsonl"
done
"$loom" --log-level warn plan fullgraph "$dir/parts" --config "$dir/deep.toml" --cluster "$dir/cluster.toml" \
  --hosts "$np" --modes graph,pipe,hybrid --ways 2 --json "$dir/fg-plan.json" > "$dir/fg-plan.txt"
grep -q "fastest: " "$dir/fg-plan.txt"
python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
plan = {m["mode"]: m for m in json.load(open(f"{d}/fg-plan.json"))["hosts"][0]["modes"]}
for mode in ("graph", "pipe", "hybrid"):
    epoch = [r for r in map(json.loads, open(f"{d}/fg-{mode}.jsonl")) if "epoch_seconds" in r and "bytes" in r][0]
    for channel in ("halo", "activations", "gradients", "weights"):
        assert epoch["bytes"][channel] == plan[mode]["bytes"][channel], (mode, channel, epoch["bytes"], plan[mode]["bytes"])
    assert plan[mode]["epoch_seconds"] > 0
PY
refused_fullgraph() {  # refused_fullgraph WHAT ARGS...: `loom plan fullgraph` fails and names WHAT
  if "$loom" --log-level warn plan fullgraph "${@:2}" > "$dir/err" 2>&1; then
    echo "loom plan fullgraph ${*:2} should fail" >&2; exit 1
  fi
  grep -q -- "$1" "$dir/err" || { echo "expected '$1' in:" >&2; cat "$dir/err" >&2; exit 1; }
}
refused_fullgraph "--ways" "$dir/parts" --cluster "$dir/cluster.toml" --hosts 4 --modes hybrid --ways 3
refused_fullgraph "--stale-halo" "$dir/parts" --cluster "$dir/cluster.toml" --stale-halo
refused_fullgraph "--hosts" "$dir/parts" --cluster "$dir/cluster.toml" --config "$dir/deep.toml" --hosts 8 --modes pipe
refused_fullgraph "--chunks" "$dir/parts" --cluster "$dir/cluster.toml" --hosts 2 --chunks 1 --modes pipe
refused_fullgraph "--cluster" "$dir/parts"
