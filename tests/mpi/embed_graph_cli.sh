#!/usr/bin/env bash
# Multi-rank `loom embed deepwalk` end to end: MPIRUN NP LOOM. Every rank walks from its share of
# the start nodes, the ranks synchronise with the gc combiner, rank 0 writes one vector per node;
# the vectors classify the planted communities, and the exchanged bytes are reported.
set -euo pipefail
mpirun="$1" np="$2" loom="$3"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$loom" --log-level warn generate sbm --nodes 400 --classes 2 --avg-degree 10 --homophily 0.95 --feat-dim 2 \
  --seed 3 -o "$dir/g" > /dev/null
json=$("$mpirun" -np "$np" --oversubscribe --allow-run-as-root --bind-to none "$loom" --log-level warn embed deepwalk \
  "$dir/g" -o "$dir/emb.txt" --dim 16 --walks 5 --length 20 --window 4 --epochs 5 --threads 1 --quiet --json --combiner gc \
  --rounds 8 --half-updates | tail -1)
echo "$json"
read -r count dim < "$dir/emb.txt"
[[ "$count" == 400 && "$dim" == 16 ]] || { echo "expected 400 vectors of 16, got '$count $dim'" >&2; exit 1; }
[[ "$json" == *'"embeddings_bytes_sent":'* ]] || { echo "no exchanged bytes reported" >&2; exit 1; }
micro=$("$loom" --log-level warn eval nodeclass "$dir/emb.txt" --store "$dir/g" --ratios 0.5 --repeats 2 --json |
  python3 -c "import json,sys; print(json.load(sys.stdin)['ratios'][0]['micro_f1'])")
echo "micro-F1 $micro"
python3 -c "import sys; sys.exit(0 if float('$micro') > 0.85 else 1)" || { echo "micro-F1 $micro <= 0.85" >&2; exit 1; }
