#!/usr/bin/env python3
"""Markdown report of bench/bench_scale.sh. Reads WORK/rows.jsonl (one
row per command, the latest run of each kept), the partitions' meta.json copies, `loom analyze
cache` logs and the training metrics, and writes the tables of bench/results/scale.md."""
import argparse
import json
import os
import re

GiB = 2**30
SIZES = ["products", "25m", "papers"]


def gib(b):
    return f"{b / GiB:.2f}"


CLIPPED = 2**31 - 1  # what the samplers' awk printf "%d" wrote for larger values (before 2026-11-28)


def sampled(b):
    """A sampled byte count in GiB, marked where the sampler clipped it at 2 GiB."""
    return f">= {gib(b)} (clipped)" if b == CLIPPED else gib(b)


def anonymous(r):
    """Peak anonymous memory of the loom processes (summed), '-' for rows measured before it was;
    marked * where it was measured on another run of the command (see the notes under the table)."""
    if not r.get("peak_anonymous_bytes"):
        return "-"
    return sampled(r["peak_anonymous_bytes"]) + (" *" if r.get("anonymous_note") else "")


def load_rows(work):
    rows = {}
    for line in open(os.path.join(work, "rows.jsonl")):
        r = json.loads(line)
        rows[(r["size"], r["stage"], r["name"])] = r
    return rows


def remote_rows(work, size, method):
    path = os.path.join(work, f"{size}-quality-{method}.log")
    if not os.path.exists(path):
        return None
    m = re.search(r"remote rows per epoch without a cache ([0-9.e+]+)", open(path).read())
    return float(m.group(1)) if m else None


def main(work, out):
    rows = load_rows(work)
    sizes = [s for s in SIZES if any(k[0] == s for k in rows)]
    lines = [
        "# Scale (issue 38)",
        "",
        "`bench/bench_scale.sh` on this host (2 cores, 24 GiB). Peak RSS from `/usr/bin/time -v`: it counts the "
        "pages of mapped store files resident at the time, which the kernel drops and reads again under pressure. "
        "Anonymous: the loom processes' RssAnon summed, sampled every second (what must fit in memory; '-' where "
        "measured before the sampler). Disk = bytes of the store written.",
        "",
    ]
    lines += [
        "## Stages",
        "",
        "| size | stage | wall s | CPU s | peak RSS GiB | anonymous GiB | disk GiB | throughput | status |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for size in sizes:
        edges = None
        log = os.path.join(work, f"{size}-sbm.log")
        if os.path.exists(log):
            m = re.search(r"(\d+) edges drawn", open(log).read())
            edges = int(m.group(1)) * 2 if m else None
        for (s, stage, name), r in sorted(
            rows.items(), key=lambda kv: ["generate", "check", "partition", "quality", "train"].index(kv[0][1])
        ):
            if s != size or stage == "quality":
                continue
            rate = ""
            if stage == "generate" and edges:
                rate = f"{edges / max(r['wall_s'], 1e-9) / 1e6:.2f} M stored edges/s"
            disk = gib(r["disk_bytes"]) if "disk_bytes" in r else "-"
            lines.append(
                f"| {size} | {stage} {name}{' **' if r.get('note') else ''} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {gib(r['peak_rss_bytes'])} | {anonymous(r)} | {disk} | "
                f"{rate} | {'ok' if r['status'] == 0 else 'failed ' + str(r['status'])} |"
            )
    lines.append("")
    for (s, stage, name), r in sorted(rows.items()):
        if r.get("anonymous_note"):
            lines.append(f"\\* {s} {stage} {name}: anonymous memory {r['anonymous_note']}.")
        if r.get("note"):
            lines.append(f"\\** {s} {stage} {name}: {r['note']}.")
    lines.append("")

    lines += [
        "## Partitions, K = 8",
        "",
        "Remote rows per epoch: `loom analyze cache --alpha 0 --epochs 1` (fanouts 15,10,5, batch 1024 per rank, no cache).",
        "ptscotch runs under mpirun on this host (ranks in its method column); its peak RSS is its largest rank's "
        "(`/usr/bin/time` over mpirun).",
        "",
        "| size | method | edge cut | balance nodes / edges / train | remote rows per epoch | vs random | time s | peak RSS GiB | anonymous GiB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for size in sizes:
        random_rows = remote_rows(work, size, "random")
        for method in ["stream", "ptscotch", "metis", "random"]:
            meta_path = os.path.join(work, f"{size}-{method}-meta.json")
            r = rows.get((size, "partition", method))
            if not os.path.exists(meta_path) or r is None:
                continue
            q = json.load(open(meta_path))["quality"]
            b = q["balance"]
            remote = remote_rows(work, size, method)
            ranks = re.search(r"mpirun -np (\d+)", r["command"])
            label = f"{method} ({ranks.group(1)} ranks)" if ranks else method
            ratio = f"{remote / random_rows:.2f}x" if remote and random_rows else "-"
            lines.append(
                f"| {size} | {label} | {100 * q['edge_cut_fraction']:.1f}% | {b['nodes']:.3f} / {b['edges']:.3f} / "
                f"{b.get('train_nodes', 0):.3f} | {remote:.3g} | {ratio} | {r['wall_s']:.1f} | {gib(r['peak_rss_bytes'])} | {anonymous(r)} |"
                if remote
                else f"| {size} | {label} | {100 * q['edge_cut_fraction']:.1f}% | {b['nodes']:.3f} / {b['edges']:.3f} / "
                f"{b.get('train_nodes', 0):.3f} | - | - | {r['wall_s']:.1f} | {gib(r['peak_rss_bytes'])} | {anonymous(r)} |"
            )
    lines.append("")

    lines += [
        "## Training from disk: 8 ranks",
        "",
        "3-layer SAGE, hidden 256, fanouts 15,10,5, batch 1024 per rank, 1 thread per rank (8 ranks on 2 cores), "
        "--max-steps; the epoch is projected from the steps run. Host memory: MemTotal - MemAvailable at its highest. "
        "Peak RSS (VmHWM) counts the mapped file pages a rank touched, which the page cache shares, against an estimate "
        "that counts the whole mapped files; the private peak (RssAnon, sampled every 50 ms) is a rank's own memory, "
        "against the plan's resident part.",
        "",
        "| size | partition | steps | s per step | projected epoch s | remote rows per step | feature bytes per step | "
        "peak RSS per rank GiB (max) | estimate GiB (max) | error | private peak GiB (max) | resident estimate GiB "
        "(max) | private error | host used GiB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in sizes:
        trained_on = next((k[2] for k in rows if k[0] == size and k[1] == "train"), "stream").removeprefix("train-")
        path = os.path.join(work, f"{size}-train.jsonl")
        if not os.path.exists(path):
            continue
        recs = [json.loads(l) for l in open(path)]
        epochs = [r for r in recs if "epoch" in r and "event" not in r]
        peak = next((r for r in recs if r.get("event") == "memory_peak"), {})
        plan = next((r for r in recs if r.get("event") == "memory"), {})
        if not epochs:
            continue
        e = epochs[-1]
        steps = e["steps"]
        host = os.path.join(work, f"{size}-host-memory.txt")
        host_used = sampled(int(open(host).read().strip() or 0)) if os.path.exists(host) else "-"
        est = plan.get("estimate_bytes_per_rank", [plan.get("estimate_bytes_max", 0)])
        peaks = peak.get("peak_bytes_per_rank", [peak.get("peak_bytes", 0)])
        errors = [abs(a - p) / p for a, p in zip(est, peaks) if p] if len(est) == len(peaks) else []
        private = peak.get("private_peak_bytes_per_rank", [])
        resident = peak.get("resident_estimate_bytes_per_rank", [])
        private_errors = [abs(a - p) / p for a, p in zip(resident, private) if p]
        private_cells = (
            f"{gib(max(private))} | {gib(max(resident))} | {100 * max(private_errors):.0f}% at most"
            if private_errors
            else "- | - | -"
        )
        lines.append(
            f"| {size} | {trained_on} | {steps} of {e.get('full_steps', steps)} | {e['epoch_seconds'] / steps:.2f} | "
            f"{e.get('projected_epoch_seconds', e['epoch_seconds']):.0f} | {e['rows_remote'] / steps:.3g} | "
            f"{e['feature_bytes'] / steps / 2**20:.1f} MiB | {gib(max(peaks))} | {gib(max(est))} | "
            + (f"{100 * max(errors):.0f}% at most" if errors else "-")
            + f" | {private_cells} | {host_used} |"
        )
    lines.append("")
    open(out, "w").write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "work", metavar="WORK", help="bench_scale.sh's WORK folder (rows.jsonl, the partitions' meta, logs, metrics)"
    )
    parser.add_argument("out", metavar="OUT.md", help="the Markdown file to write (bench/results/scale.md)")
    args = parser.parse_args()
    main(args.work, args.out)
