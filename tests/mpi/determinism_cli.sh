#!/usr/bin/env bash
# Determinism audit under mpirun: MPIRUN NP LOOM. In every regime (mini-batch training with the
# pipeline, a VIP cache and lookahead prefetch; full-graph graph and pipe parallelism; distributed
# DeepWalk with the gc combiner) the same seed and rank count give bit-identical outputs and losses
# across two runs, and another seed gives other ones (the seed is really used).
set -euo pipefail
mpirun="$1" np="$2" loom="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run=("$mpirun" -np "$np" --oversubscribe --allow-run-as-root --bind-to none -q "$loom" --log-level warn)
"$loom" --log-level warn generate sbm --nodes 600 --classes 4 --avg-degree 10 --feat-dim 16 --seed 3 -o "$dir/g" > /dev/null
"$loom" --log-level warn partition "$dir/g" -k "$np" --method metis -o "$dir/parts" > /dev/null

# losses FILE: the loss of every epoch record of a metrics file, as written (no timing fields).
losses() { python3 -c "import json,sys; print([json.loads(l)['loss'] for l in open(sys.argv[1]) if '\"loss\"' in l])" "$1"; }
# same A B WHAT: A and B hold the same bytes.
same() { cmp -s "$1" "$2" || { echo "$3: runs with the same seed differ ($1 vs $2)" >&2; exit 1; }; }
differ() { ! cmp -s "$1" "$2" || { echo "$3: another seed gave the same output" >&2; exit 1; }; }

train=(train "$dir/parts" --layers 2 --fanouts 10,5 --batch-size 64 --hidden 16 --dropout 0.5 --epochs 2 --threads 1
       --pipeline-depth 2 --cache vip --alpha 0.2 --controller lookahead --eval-every 0 --quiet)
for r in a b; do "${run[@]}" "${train[@]}" --seed 5 -o "$dir/train.$r" --metrics "$dir/train.$r.jsonl"; done
"${run[@]}" "${train[@]}" --seed 6 -o "$dir/train.c"
same "$dir/train.a/predictions.npy" "$dir/train.b/predictions.npy" "train"
[[ "$(losses "$dir/train.a.jsonl")" == "$(losses "$dir/train.b.jsonl")" ]] || { echo "train: losses differ" >&2; exit 1; }
differ "$dir/train.a/predictions.npy" "$dir/train.c/predictions.npy" "train"

for mode in graph pipe; do
  full=(fullgraph "$dir/parts" --mode "$mode" --model gcnii --layers 4 --hidden 16 --dropout 0.3 --epochs 3 --threads 1
        --eval-every 0 --quiet)
  for r in a b; do "${run[@]}" "${full[@]}" --seed 5 -o "$dir/$mode.$r" --metrics "$dir/$mode.$r.jsonl"; done
  "${run[@]}" "${full[@]}" --seed 6 -o "$dir/$mode.c"
  same "$dir/$mode.a/predictions.npy" "$dir/$mode.b/predictions.npy" "fullgraph $mode"
  [[ "$(losses "$dir/$mode.a.jsonl")" == "$(losses "$dir/$mode.b.jsonl")" ]] || { echo "fullgraph $mode: losses differ" >&2; exit 1; }
  differ "$dir/$mode.a/predictions.npy" "$dir/$mode.c/predictions.npy" "fullgraph $mode"
done

embed=(embed deepwalk "$dir/g" --dim 8 --walks 2 --length 10 --window 3 --epochs 2 --threads 1 --quiet --combiner gc
       --rounds 4)
for r in a b; do "${run[@]}" "${embed[@]}" --seed 5 -o "$dir/emb.$r.txt" > /dev/null; done
"${run[@]}" "${embed[@]}" --seed 6 -o "$dir/emb.c.txt" > /dev/null
same "$dir/emb.a.txt" "$dir/emb.b.txt" "embed deepwalk"
differ "$dir/emb.a.txt" "$dir/emb.c.txt" "embed deepwalk"
echo ok
