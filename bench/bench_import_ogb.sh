#!/usr/bin/env bash
# `loom import ogb` on OGB's binary layout at scale (issue 49): a synthetic graph of a quarter of
# ogbn-papers100M (default 28M nodes, 400M edges, 128 float32 features, 1.3% labelled) written by
# bench/write_ogb_binary.py in raw/data.npz as np.savez writes it (stored) and as
# np.savez_compressed does (deflated), each imported in turn; records per layout the archive's
# size, the import's wall time, its peak resident memory (the import reads with pread and writes
# with fwrite, so that is its anonymous memory) and the --build-memory it chose, in
# bench/results/import_ogb.md. The target: each at most 15 minutes and 4 GiB.
# The peer, OGB's own loader (bench/peers/ogb_binary_load.py: every array of the npz decompressed
# whole into memory, then a symmetrised CSR built with numpy), runs on the same input where that
# (about 4x the arrays' bytes) fits in half the host's memory, and is named as skipped where not.
# Env: NODES, EDGES, FEAT_DIM, LAYOUTS (default "stored deflated"), COMPRESS_LEVEL (zlib level of
# the deflated archive, default 1: level 6, np.savez_compressed's, writes random data at about
# 10 MB/s here; the reader is the same), WORK (scratch, default bench/work/import-ogb; each input
# is removed after its import, the stores too), RESULT (default bench/results/import_ogb.md).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
nodes=${NODES:-28000000}
edges=${EDGES:-400000000}
dim=${FEAT_DIM:-128}
layouts=${LAYOUTS:-stored deflated}
level=${COMPRESS_LEVEL:-1}
work=${WORK:-bench/work/import-ogb}
result=${RESULT:-bench/results/import_ogb.md}
require_loom || exit 1
[[ -x /usr/bin/time ]] || { echo "$bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
mkdir -p "$work" bench/results

rows=()
for layout in $layouts; do
  input=$work/$layout store=$work/$layout.store
  rm -rf "$input" "$store"
  SECONDS=0
  "$python" bench/write_ogb_binary.py "$input" --nodes "$nodes" --edges "$edges" --feat-dim "$dim" \
    $([[ $layout == deflated ]] && echo --compressed --compress-level "$level")
  written=$SECONDS
  npz_gib=$(du -sb "$input/raw" | awk '{ printf "%.1f", $1 / 2^30 }')
  /usr/bin/time -v "$loom" import ogb "$input" -o "$store" 2> "$work/$layout.log" ||
    { tail -20 "$work/$layout.log" >&2; exit 1; }
  field() { grep -F "$1" "$work/$layout.log" | tail -1 | sed 's/.*: //'; }
  seconds=$(field 'Elapsed (wall clock) time' | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  peak_gib=$(awk -v kb="$(field 'Maximum resident set size')" 'BEGIN { printf "%.2f", kb / 2^20 }')
  stored=$("$python" -c "import json, sys; print(json.load(open(sys.argv[1]))['num_edges'])" "$store/meta.json")
  echo "$layout: ${npz_gib} GiB of npz written in ${written} s; imported in ${seconds} s, peak ${peak_gib} GiB, $stored stored edges"
  # The peer holds every array whole: raw bytes (edges, features) plus the CSR's working arrays.
  raw_bytes=$(( edges * 16 + nodes * (dim * 4 + 16) ))
  host=$(awk '/MemTotal/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
  if (( raw_bytes * 4 < host / 2 )); then
    /usr/bin/time -v "$python" bench/peers/ogb_binary_load.py "$input" > "$work/$layout.peer.out" 2> "$work/$layout.peer.log"
    peer_seconds=$(grep -F 'Elapsed (wall clock)' "$work/$layout.peer.log" | sed 's/.*: //' |
      awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    peer_gib=$(awk -v kb="$(grep -F 'Maximum resident set size' "$work/$layout.peer.log" | sed 's/.*: //')" 'BEGIN { printf "%.2f", kb / 2^20 }')
    peer="$peer_seconds s, $peer_gib GiB ($(awk -v a="$peer_seconds" -v b="$seconds" 'BEGIN { printf "%.2fx", a / b }') Loom's time)"
  else
    peer="skipped: holds about $(awk -v b="$raw_bytes" 'BEGIN { printf "%.0f", 4 * b / 2^30 }') GiB whole, over half the host's $(awk -v b="$host" 'BEGIN { printf "%.0f", b / 2^30 }') GiB"
  fi
  echo "$layout: OGB's loader: $peer"
  rows+=("| $layout | $npz_gib | $written | $seconds | $(awk -v s="$seconds" 'BEGIN { printf "%.1f", s / 60 }') | $peak_gib | $stored | $peer |")
  rm -rf "$input" "$store"
done

{
  echo "# Importing OGB's binary layout (bench/bench_import_ogb.sh, $(date -u +%Y-%m-%d))"
  echo
  echo "A synthetic graph of $nodes nodes, $edges edges (random ends) and $dim float32 features in"
  echo "raw/data.npz + raw/node-label.npz (bench/write_ogb_binary.py, as np.savez / np.savez_compressed"
  echo "write them; deflated at zlib level $level), imported by \`loom import ogb\` on this host ($(nproc) cores, $(awk '/MemTotal/ { printf "%.0f", $2 / 2^20 }' /proc/meminfo) GiB;"
  echo "--build-memory at its default, a tenth of the memory available). Peak: the import's maximum"
  echo "resident set (it reads with pread and writes with fwrite: its anonymous memory). Target: 15"
  echo "minutes and 4 GiB each."
  echo
  echo "| layout | npz GiB | written (s) | import (s) | import (min) | peak GiB | stored edges | OGB's loader + numpy CSR |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} > "$result"
cat "$result"
