#!/usr/bin/env python3
"""Writes bench/results/prefetch.md from bench_prefetch.sh's metrics files.

Per run: mean epoch time (epochs after the first), remote rows and feature bytes per epoch, buffer
hit rate, decisions and evictions per epoch, test accuracy at the end; then, per scenario and
fraction, the best adaptive controller against none and never (the issue's targets); then, from
WORK/bound-*.json (`loom analyze prefetch`), the fewest remote rows any buffer of each size could
leave (best static choice, Belady's MIN).
"""
import argparse
import datetime
import glob
import json
import os

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("work", metavar="WORK_DIR", help="bench_prefetch.sh's WORK folder (run-*.jsonl, bound-*.json)")
parser.add_argument("output", metavar="OUTPUT.md", help="the Markdown file to write (bench/results/prefetch.md)")
args = parser.parse_args()
work, output = args.work, args.output
rows = {}
for path in sorted(glob.glob(os.path.join(work, "run-*.jsonl"))):
    name = os.path.basename(path)[4:-6]
    scenario, fraction, controller = name.split("-", 2)
    epochs = [json.loads(l) for l in open(path) if '"epoch"' in l]
    epochs = [e for e in epochs if "epoch_seconds" in e]
    if not epochs:
        continue
    timed = epochs[1:] or epochs
    mean = lambda key: sum(e[key] for e in epochs) / len(epochs)
    pre = [e.get("prefetch", {}) for e in epochs]
    lookups = sum(p.get("lookups", 0) for p in pre)
    rows[(scenario, fraction, controller)] = {
        "epoch_s": sum(e["epoch_seconds"] for e in timed) / len(timed),
        "remote": mean("rows_remote"),
        "bytes": mean("feature_bytes"),
        "hit": sum(p.get("hits", 0) for p in pre) / lookups if lookups else 0.0,
        "decisions": sum(p.get("decisions", 0) for p in pre) / len(epochs),
        "evictions": sum(p.get("evictions", 0) for p in pre) / len(epochs),
        "fallbacks": sum(p.get("fallbacks", 0) for p in pre),
        "acc": epochs[-1].get("test_accuracy", float("nan")),
    }

lines = [
    "# Adaptive prefetching benchmark (Rudder)",
    "",
    f"`bench/bench_prefetch.sh` ({datetime.date.today()}, 2 cores): 4 ranks on Facebook (METIS K = 4), link emulation",
    "10 Gbit/s + 20 us, 3-layer SAGE hidden 256, fanouts 15,10,5, batch 128 per rank, 1 thread per rank (4 ranks on",
    "2 cores). `change`: from epoch 4 on, fanouts 10,10,10, batch 256, half of each rank's training nodes.",
    "`products`: the products-scale SBM (2.5M nodes, K = 4), hidden 64, batch 1024 per rank, one epoch.",
    "`lookahead`: `--controller lookahead` (= never with `--prefetch-lookahead 4`: the pipeline samples 4",
    "minibatches ahead of their fetch; the buffer keeps the fetched rows they use, soonest first).",
    "Per epoch, summed over ranks; hit rate = buffer hits / remote rows looked up in the buffer.",
    "",
    "| scenario | fraction | controller | epoch s | remote rows | feature MB | hit rate | decisions | evictions | test acc |",
    "|---|---|---|---|---|---|---|---|---|---|",
]
adaptive_names = ("periodic", "rules", "logistic", "llm", "lookahead")
order = ["none", "never", *adaptive_names]
scenarios = ["steady", "change", "products"]
for (scenario, fraction, controller), r in sorted(
    rows.items(),
    key=lambda kv: (
        scenarios.index(kv[0][0]) if kv[0][0] in scenarios else 9,
        kv[0][1],
        order.index(kv[0][2]) if kv[0][2] in order else 99,
    ),
):
    lines.append(
        f"| {scenario} | {fraction} | {controller} | {r['epoch_s']:.2f} | {r['remote']:,.0f} | {r['bytes'] / 1e6:,.1f} "
        f"| {r['hit']:.3f} | {r['decisions']:.1f} | {r['evictions']:.1f} | {r['acc']:.4f} |"
    )
lines += [
    "",
    "| scenario | fraction | best adaptive | remote rows vs none | vs never | epoch s vs none | vs never |",
    "|---|---|---|---|---|---|---|",
]
for scenario in ("steady", "change", "products"):
    none = rows.get((scenario, "0.05", "none")) or rows.get((scenario, "0.25", "none"))
    for fraction in ("0.05", "0.25"):
        never = rows.get((scenario, fraction, "never"))
        adaptive = {c: rows[(scenario, fraction, c)] for c in adaptive_names if (scenario, fraction, c) in rows}
        if not (none and never and adaptive):
            continue
        best, r = min(adaptive.items(), key=lambda kv: kv[1]["remote"])
        lines.append(
            f"| {scenario} | {fraction} | {best} | {100 * (r['remote'] / none['remote'] - 1):+.1f}% | "
            f"{100 * (r['remote'] / never['remote'] - 1):+.1f}% | {100 * (r['epoch_s'] / none['epoch_s'] - 1):+.1f}% | "
            f"{100 * (r['epoch_s'] / never['epoch_s'] - 1):+.1f}% |"
        )
bounds = sorted(glob.glob(os.path.join(work, "bound-*.json")))
if bounds:
    lines += [
        "",
        "Bound on any controller (`loom analyze prefetch`, the same sampled minibatches as the runs): remote rows",
        "per epoch a buffer of F x halo rows per rank leaves with the best static contents (clairvoyant) and with",
        "Belady's MIN replacement (clairvoyant, optimal: no controller can fetch fewer rows), and the rows the",
        "online lookahead policy leaves in the same replay (4 minibatches in sight, VIP initial fill).",
        "",
        "| scenario | fraction | buffer rows (all ranks) | none | best static | Belady bound | lookahead 4 (replay) | best adaptive measured |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for path in bounds:
        scenario = os.path.basename(path)[6:-5]
        b = json.load(open(path))
        none = b["remote_rows_per_epoch_no_buffer"]
        for i, fraction in enumerate(b["fractions"]):
            measured = [
                r["remote"]
                for (sc, fr, c), r in rows.items()
                if sc == scenario and float(fr) == fraction and c in adaptive_names
            ]
            cell = lambda rows_left: f"{rows_left:,.0f} ({100 * (rows_left / none - 1):+.1f}%)"
            best = cell(min(measured)) if measured else "-"
            online = b.get("remote_rows_per_epoch_lookahead")
            lines.append(
                f"| {scenario} | {fraction:g} | {b['buffer_rows_all_ranks'][i]:,} | {none:,.0f} | "
                f"{cell(b['remote_rows_per_epoch_best_static'][i])} | {cell(b['remote_rows_per_epoch_belady'][i])} | "
                f"{cell(online[i]) if online else '-'} | {best} |"
            )
open(output, "w").write("\n".join(lines) + "\n")
