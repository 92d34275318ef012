#!/usr/bin/env bash
# `loom partition --method ptscotch` under mpirun: MPIRUN NP LOOM. NP ranks split a 3000-node SBM
# into 4 parts: the store passes `loom check`, every part is within the balance caps, the edge
# cut is within 15% of METIS's and far below random's, the same seed gives the same store, and
# the partition channel counts the part ids gathered. A directed store (reverse edges exchanged)
# partitions too. Bad rank counts: more ranks than nodes stops every rank with one message, and a
# one-process method started on NP ranks stops with a message.
set -euo pipefail
mpirun="$1" np="$2" loom="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=("$mpirun" -np "$np" --oversubscribe --allow-run-as-root --bind-to none -q "$loom" --log-level warn)
"$loom" --log-level warn generate sbm --nodes 3000 --classes 6 --avg-degree 12 --homophily 0.9 --feat-dim 4 --seed 5 \
  -o "$dir/g" > /dev/null
if "${run[@]}" partition "$dir/g" -k 4 --method ptscotch -o "$dir/pt" > "$dir/pt.out" 2> "$dir/pt.err"; then :; else
  if grep -q "built without PT-Scotch" "$dir/pt.err"; then echo "SKIPPED: built without PT-Scotch" >&2; exit 77; fi
  cat "$dir/pt.err" >&2; exit 1
fi
"$loom" --log-level warn check "$dir/pt" > /dev/null
"${run[@]}" partition "$dir/g" -k 4 --method ptscotch -o "$dir/pt2" > /dev/null
cmp "$dir/pt/new_to_source.npy" "$dir/pt2/new_to_source.npy" || { echo "same seed, other parts" >&2; exit 1; }
for method in metis random; do "$loom" --log-level warn partition "$dir/g" -k 4 --method "$method" -o "$dir/$method" > /dev/null; done
grep -q '^partition channel, all ranks' "$dir/pt.out" || { cat "$dir/pt.out" >&2; exit 1; }
python3 - "$dir" "$np" <<'PY'
import json, math, sys
d, np = sys.argv[1], int(sys.argv[2])
q = {m: json.load(open(f"{d}/{m}/meta.json"))["quality"] for m in ("pt", "metis", "random")}
cut = {m: q[m]["edge_cut"] for m in q}
print("edge cut", cut)
assert cut["pt"] <= 1.15 * cut["metis"], cut
assert 3 * cut["pt"] < cut["random"], cut
for key, slack in (("nodes", 1.05), ("edges", 1.05), ("train_nodes", 1.05)):
    values = [p[key] for p in q["pt"]["parts"]]
    total = sum(values)
    assert max(values) <= math.ceil(slack * total / 4) + 1, (key, values)  # the caps of balance.hpp
line = [l for l in open(f"{d}/pt.out") if l.startswith("partition channel")][0]
traffic = json.loads(line.split(": ", 1)[1])
assert (traffic["bytes_sent"] > 0) == (np > 1), traffic  # the part ids gathered to rank 0
PY
# A directed store (its reverse edges travel on the partition channel): two directed triangles
# joined by one edge fall into two parts.
printf '0 1\n1 2\n2 0\n2 3\n3 4\n4 5\n5 3\n' > "$dir/cycle.txt"
"$loom" --log-level warn import edgelist "$dir/cycle.txt" --directed -o "$dir/d" > /dev/null
"${run[@]}" partition "$dir/d" -k 2 --method ptscotch -o "$dir/dpt" > "$dir/dpt.out"
"$loom" --log-level warn check "$dir/dpt" > /dev/null
python3 - "$dir" <<'PY'
import json, sys
q = json.load(open(f"{sys.argv[1]}/dpt/meta.json"))["quality"]
assert q["edge_cut"] == 1, q  # the two triangles apart, only 2 -> 3 cut
PY

# More ranks than nodes: every rank stops, one message, non-zero status.
printf '0 1\n' > "$dir/tiny.txt"
"$loom" --log-level warn import edgelist "$dir/tiny.txt" -o "$dir/tiny" > /dev/null
if (( np > 2 )); then
  if "${run[@]}" partition "$dir/tiny" -k 1 --method ptscotch -o "$dir/tp" > /dev/null 2> "$dir/err"; then
    echo "ptscotch with more ranks than nodes should fail" >&2; exit 1
  fi
  grep -q "ranks for a graph of 2 nodes" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
  [[ $(grep -c "loom: error" "$dir/err") == 1 ]] || { cat "$dir/err" >&2; exit 1; }
  [[ ! -e "$dir/tp" ]] || { echo "half-written output left behind" >&2; exit 1; }
fi
# A one-process method under mpirun: every rank stops before reading anything (mpirun may end the
# others before they print, once the first has exited).
if "${run[@]}" partition "$dir/g" -k 2 --method metis -o "$dir/m2" > /dev/null 2> "$dir/err"; then
  echo "metis under mpirun -np $np should fail" >&2; exit 1
fi
grep -q "metis runs in one process, but mpirun started $np" "$dir/err" || { cat "$dir/err" >&2; exit 1; }
[[ ! -e "$dir/m2" ]] || { echo "output written by a refused run" >&2; exit 1; }
echo "ptscotch under $np ranks: ok"
