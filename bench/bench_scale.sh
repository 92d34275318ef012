#!/usr/bin/env bash
# The scale benchmark (issue 38): each stage of Loom on graphs of growing size, on this one host.
# For every size in SIZES:
#   generate  `loom generate sbm` out of core (--build-memory), float16 features beyond products;
#   check     `loom check` (digests and invariants) and `loom info` (the open-time range check);
#   partition K=8 with every method in PARTITION_<size> (METIS only where it fits in memory):
#             time, peak RSS, disk, edge cut, balance, and remote rows per epoch (`loom analyze
#             cache`, no cache, one epoch);
#   train     `mpirun -np 8 loom train` on the stream partition from disk (3-layer SAGE, hidden 256,
#             fanouts 15,10,5, batch 1024 per rank, --max-steps STEPS_<size>, TRAIN_OPTS_<size>): seconds per step,
#             remote rows and bytes per step, each rank's peak RSS beside its estimate, the host's
#             used memory at its peak, and the projected epoch.
# Every command runs under /usr/bin/time -v (peak RSS, which counts the mapped store's pages in the
# page cache) beside a sampler of the loom processes' anonymous memory; results go to $WORK/rows.jsonl and, through
# bench/scale_report.py, to bench/results/scale.md. Sizes:
#   products  2.5M nodes, avg degree 25 (62.5M stored edges), 100 float32 features, 47 classes
#   25m       25M nodes, avg degree 16 (400M stored edges, an eighth of papers100M's), 128 float16, 172 classes
#   papers    ogbn-papers100M's shape: 111M nodes, 3.2B stored edges, 128 float16 features, 172
#             classes, 1.2M training nodes (about 43 GB of source store; needs the disk for it)
# Environment: SIZES (default "products 25m"), WORK (default bench/work/scale), LOOM (default
# build/loom), BUILD_MEMORY (default 4G), KEEP (1 keeps the stores), REUSE (1 partitions and
# trains a store kept by KEEP=1 instead of generating it again; its generate row stays), TRAIN (0
# skips training),
# TRAIN_ON (default stream: the partition trained on), MAX_STEPS (steps to train instead of STEPS_<size>), PTSCOTCH_RANKS (default 4: the mpirun
# ranks `--method ptscotch` runs on), METHODS (partition only with these, e.g. "stream", where the
# others' rows are kept from an earlier run; " " for none), QUALITY (0 skips `loom analyze cache`,
# keeping an earlier run's remote rows).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
require_loom || exit 1
work=${WORK:-bench/work/scale}
sizes=${SIZES:-"products 25m"}
build_memory=${BUILD_MEMORY:-4G}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$work" bench/results
rows=$work/rows.jsonl
[[ -x /usr/bin/time ]] || { echo "bench_scale: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

declare -A GENERATE=(
  [products]="--nodes 2500000 --avg-degree 25 --feat-dim 100 --classes 47"
  [25m]="--nodes 25000000 --avg-degree 16 --feat-dim 128 --feat-dtype float16 --classes 172"
  [papers]="--nodes 111000000 --avg-degree 28.8 --feat-dim 128 --feat-dtype float16 --classes 172 --train 0.0108 --valid 0.0012"
)
declare -A PARTITION=([products]="stream random metis ptscotch" [25m]="stream random" [papers]="stream")
declare -A STEPS=([products]=40 [25m]=20 [papers]=100)
# papers: parts map the source's features (source and copied parts would not fit the disk
# together); beyond products, one batch in flight per rank so that 8 ranks fit the host's memory;
# papers: a superbatch of 2, so that one sweep of the mapped feature file (ranks in step) serves two steps.
declare -A PARTITION_OPTS=([products]="" [25m]="" [papers]="--features map")
declare -A TRAIN_OPTS=([products]="" [25m]="--pipeline-depth 0" [papers]="--pipeline-depth 0 --superbatch 2")
# Seconds a rank may go without a neighbour's heartbeat (loom --comm-timeout): a disk-bound step of
# the papers shape starves the ranks' heartbeat threads of memory for minutes.
declare -A COMM_TIMEOUT=([products]=300 [25m]=300 [papers]=3600)

# record SIZE STAGE NAME COMMAND...: runs COMMAND under /usr/bin/time, appends a row of what it
# measured (and DISK_OF's size when set) to rows.jsonl; returns the command's status.
record() {
  local size=$1 stage=$2 name=$3
  shift 3
  echo "bench_scale: $size $stage $name: $*" >&2
  touch "$work/anonymous.run"
  watch_anonymous_memory "$work/anonymous.run" "$work/anonymous.txt" &
  /usr/bin/time -v -o "$work/time.txt" "$@" > "$work/$size-$name.log" 2>&1
  local status=$?
  rm -f "$work/anonymous.run"
  wait $!
  "$python" - "$work/time.txt" "$size" "$stage" "$name" "$status" "${DISK_OF:-}" "$*" "$(cat "$work/anonymous.txt")" >> "$rows" <<'PY'
import json, os, sys
path, size, stage, name, status, disk_of, command, anonymous = sys.argv[1:9]
t = {}
for line in open(path):
    if ":" in line:
        k, v = line.rsplit(":", 1) if "Elapsed" not in line else (line.split(": ")[0], line.split(": ")[-1])
        t[k.strip()] = v.strip()
wall = 0.0
for part in t.get("Elapsed (wall clock) time (h:mm:ss or m:ss)", "0").split(":"):
    wall = wall * 60 + float(part)
def du(p):
    total = 0
    for root, _, files in os.walk(p):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total
row = {"size": size, "stage": stage, "name": name, "status": int(status), "wall_s": wall,
       "cpu_s": float(t.get("User time (seconds)", 0)) + float(t.get("System time (seconds)", 0)),
       "peak_rss_bytes": int(t.get("Maximum resident set size (kbytes)", 0)) * 1024,
       "peak_anonymous_bytes": int(anonymous), "command": command}
if disk_of:
    row["disk_bytes"] = du(disk_of)
print(json.dumps(row))
PY
  return $status
}

# The loom processes' anonymous resident memory (RssAnon: heap and stacks, not the pages of mapped
# files, which the kernel can drop and read again), summed over them, at its highest while FLAG
# exists, into FILE. Sampled every second.
watch_anonymous_memory() {
  local flag=$1 file=$2 peak=0 sum
  while [[ -e $flag ]]; do
    sum=$(for pid in $(pgrep -x loom); do awk '/^RssAnon/ {print $2}' "/proc/$pid/status" 2> /dev/null; done |
      awk '{s += $1} END {printf "%.0f\n", s * 1024}')
    ((sum > peak)) && peak=$sum
    sleep 1
  done
  echo "$peak" > "$file"
}

# The host's used memory (MemTotal - MemAvailable) at its highest while PID runs, into FILE.
watch_host_memory() {
  local pid=$1 file=$2 peak=0 used
  while kill -0 "$pid" 2> /dev/null; do
    used=$(awk '/MemTotal/ {t = $2} /MemAvailable/ {a = $2} END {printf "%.0f\n", (t - a) * 1024}' /proc/meminfo)
    ((used > peak)) && peak=$used
    sleep 1
  done
  echo "$peak" > "$file"
}

for size in $sizes; do
  src=$work/$size
  if [[ ${REUSE:-0} == 1 && -f $src/meta.json ]]; then
    echo "bench_scale: $size: reusing $src" >&2
  else
    DISK_OF=$src record "$size" generate sbm "$loom" generate sbm ${GENERATE[$size]} --seed 1 --build-memory "$build_memory" \
      -o "$src" --overwrite || { echo "bench_scale: $size: generate failed ($work/$size-sbm.log)" >&2; continue; }
  fi
  DISK_OF= record "$size" check check "$loom" check "$src"
  DISK_OF= record "$size" check info "$loom" info "$src"
  for method in ${METHODS:-${PARTITION[$size]}}; do
    parts=$src-$method-8
    launcher=()
    [[ $method == ptscotch ]] && launcher=(mpirun -np "${PTSCOTCH_RANKS:-4}" --oversubscribe --bind-to none -q)
    DISK_OF=$parts record "$size" partition "$method" "${launcher[@]}" "$loom" partition "$src" -k 8 --method "$method" \
      ${PARTITION_OPTS[$size]} --build-memory "$build_memory" -o "$parts" --overwrite || continue
    [[ ${QUALITY:-1} == 0 ]] ||
      DISK_OF= record "$size" quality "quality-$method" "$loom" analyze cache "$parts" --fanouts 15,10,5 --batch-size 1024 \
        --alpha 0 --policies vip --epochs 1
    cp "$parts/meta.json" "$work/$size-$method-meta.json"
  done
  train_on=${TRAIN_ON:-stream}
  parts=$src-$train_on-8
  if [[ ${TRAIN:-1} == 1 && -d $parts ]]; then
    rm -f "$work/$size-train.jsonl"
    (
      sleep 1
      watch_host_memory "$(pgrep -n -f "loom.*train $parts" || echo 0)" "$work/$size-host-memory.txt"
    ) &
    DISK_OF= record "$size" train "train-$train_on" mpirun -np 8 --oversubscribe --bind-to none -q "$loom" \
      --comm-timeout "${COMM_TIMEOUT[$size]}" train "$parts" --layers 3 \
      --hidden 256 --fanouts 15,10,5 --batch-size 1024 --epochs 1 --max-steps "${MAX_STEPS:-${STEPS[$size]}}" --eval-every 0 \
      --no-exact-eval --threads 1 ${TRAIN_OPTS[$size]} --overwrite --metrics "$work/$size-train.jsonl"
    wait
  fi
  [[ ${KEEP:-0} == 1 ]] || rm -rf "$src" "$src"-*-8
done

"$python" bench/scale_report.py "$work" bench/results/scale.md
