#!/usr/bin/env python3
"""Markdown report of bench/bench_gpu.sh. Reads each run's JSON-lines
metrics in WORK (Loom's --metrics, the peer's output), facts.txt and skipped.txt, and writes the
tables of bench/results/gpu.md with the issue's targets checked against the numbers."""
import argparse
import json
import os

GiB = 2**30


def records(work, name):
    path = os.path.join(work, name + ".jsonl")
    if not os.path.exists(path):
        return None
    recs = [json.loads(line) for line in open(path) if line.strip().startswith("{")]
    return recs or None


def epochs_of(recs):
    return [r for r in recs if "epoch_seconds" in r and "event" not in r]


def mean_epoch(recs):
    """Mean epoch time over epochs 2.. (the first holds start-up costs); projected where cut short."""
    eps = epochs_of(recs)
    later = eps[1:] or eps
    key = "projected_epoch_seconds" if "projected_epoch_seconds" in later[0] else "epoch_seconds"
    return sum(r[key] for r in later) / len(later)


def test_accuracy(recs):
    exact = [r for r in recs if r.get("event") == "exact_eval"]
    final = [r for r in recs if "test_accuracy" in r]
    return (exact or final or [{}])[-1].get("test_accuracy")


def fmt(value, pattern="{:.3f}"):
    return "n/a" if value is None else pattern.format(value)


def ratio(a, b):
    return a / b if a is not None and b else None


def event(recs, name):
    return next((r for r in recs if r.get("event") == name), {})


def speed_targets(what, epoch, prefix):
    """The two speed targets of a workload: the GPU epoch against Loom's on the CPU cores (5x) and
    against the plain-PyTorch peer's on the GPU (1x); `epoch` maps run names to epoch seconds."""
    gpu = epoch[f"{prefix}-loom-gpu"]
    targets = []
    for text, other, least, pattern in (
        ("at least 5x faster than Loom on the CPU cores", "loom-cpu", 5, "{:.1f}x"),
        ("no slower than plain PyTorch on the GPU", "peer-gpu", 1, "{:.2f}x"),
    ):
        value = ratio(epoch.get(f"{prefix}-{other}"), gpu)
        targets.append((f"{what}: GPU epoch {text}", value, value is not None and value >= least, pattern))
    return targets


def step_breakdown(runs, labels):
    """Milliseconds per step of each Loom run's phases (issue 47): sample = one batch's sampling on
    its worker thread, gather = the producer's gather of the rows, copy = the producer queueing the
    batch's copies to the device, compute = training, wait = the training thread waiting for a batch."""
    phases = ("sample", "fetch", "copy", "compute", "wait")
    rows = []
    for name, recs in runs.items():
        if recs is None or "peer" in name:
            continue
        last = epochs_of(recs)[-1]
        seconds = last.get("phases_seconds", {})
        per_step = [fmt(1000 * seconds[k] / last["steps"] if k in seconds else None, "{:.1f}") for k in phases]
        step = 1000 * last["epoch_seconds"] / last["steps"]
        rows.append(f"| {labels[name][0]} | {labels[name][1]} | {step:.1f} | " + " | ".join(per_step) + " |")
    if not rows:
        return []
    return [
        "Per step, ms (the same runs): step = epoch / steps; sample = one batch's sampling on its worker "
        "thread (the workers sample several at once); gather = the producer's gather of the rows; copy = the "
        "producer queueing the batch's copies to the device; compute = training; wait = the training thread "
        "waiting for a batch.",
        "",
        "| system | device | step | sample | gather | copy | compute | wait |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
    ]


def epoch_targets(facts, epoch):
    """Issue 47's epoch targets: features in GPU memory at most 1.2 s (H100) or 1.0 s (H200); with
    them pinned on the host, at most 2x that."""
    gpu = next((line for line in facts.splitlines() if line.startswith("gpu:")), "")
    limit = 1.0 if "H200" in gpu else 1.2
    device = epoch["sbm-loom-gpu"]
    targets = [
        (f"Products scale: epoch with features in GPU memory at most {limit} s", device, device <= limit, "{:.2f} s")
    ]
    pinned = [epoch[name] for name in ("tier-0", "tier-0-mapped") if name in epoch]
    if pinned:
        value = min(pinned) / device
        targets.append(
            (
                "Products scale: features pinned on the host (staged or mapped) at most 2x that",
                value,
                value <= 2,
                "{:.2f}x",
            )
        )
    return targets


def sampler_section(work):
    """bench_sampler's output on the SBM (its tables as they are) and the worker-scaling targets."""
    path = os.path.join(work, "sampler.log")
    if not os.path.exists(path):
        return [], []
    text = open(path).read()
    lines = ["## The sampler alone (bench/bench_sampler on the products-scale SBM, host cores)", ""]
    lines += [line for line in text.splitlines() if line.startswith(("|", "##")) or not line.strip()]
    lines.append("")
    rate = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        # | graph | workers | batches | batches/s | speed-up |
        if len(cells) == 5 and cells[1].isdigit():
            rate[int(cells[1])] = float(cells[3])
    targets = []
    for workers, least in ((8, 1.8), (16, 3.0)):
        value = rate[workers] / rate[4] if workers in rate and 4 in rate else None
        targets.append(
            (
                f"Sampling: batches per second at {workers} workers at least {least}x those at 4",
                value,
                value is not None and value >= least,
                "{:.2f}x",
            )
        )
    return lines, targets


def main(work, out):
    lines = ["# GPU (issue 40)", ""]
    facts = (
        open(os.path.join(work, "facts.txt")).read().strip() if os.path.exists(os.path.join(work, "facts.txt")) else ""
    )
    lines += [
        "Command: `bench/bench_gpu.sh` (run by `scripts/device-check` on the device machine).",
        "",
        "```",
        facts,
        "```",
        "",
    ]
    targets = []
    nodes = next((line.split(":")[1].strip() for line in facts.splitlines() if line.startswith("products nodes")), "?")

    fb = {name: records(work, name) for name in ("fb-loom-gpu", "fb-loom-cpu", "fb-peer-gpu")}
    lines += [
        "## Facebook, SAGE recipe (3 layers, hidden 256, fanouts 15,10,5, batch 1024, 10 epochs, seed 0)",
        "",
        "Mean epoch over epochs 2-10; test accuracy by exact layer-wise inference (Loom) or sampled 20,20,20 (peer).",
        "",
        "| system | device | epoch (s) | test accuracy |",
        "|---|---|---|---|",
    ]
    labels = {
        "fb-loom-gpu": ("Loom", "GPU"),
        "fb-loom-cpu": ("Loom", "all CPU cores"),
        "fb-peer-gpu": ("plain PyTorch peer, tensor sampler", "GPU"),
    }
    epoch, acc = {}, {}
    for name, recs in fb.items():
        if recs is None:
            continue
        epoch[name], acc[name] = mean_epoch(recs), test_accuracy(recs)
        lines.append(f"| {labels[name][0]} | {labels[name][1]} | {fmt(epoch[name])} | {fmt(acc[name], '{:.4f}')} |")
    lines.append("")
    if "fb-loom-gpu" in epoch:
        gap = None if acc.get("fb-loom-cpu") is None else abs(acc["fb-loom-gpu"] - acc["fb-loom-cpu"])
        targets += speed_targets("Facebook", epoch, "fb")
        targets += [
            (
                "Facebook: test accuracy on GPU within 0.5 point of CPU",
                None if gap is None else 100 * gap,
                gap is not None and gap <= 0.005,
                "{:.2f} points",
            ),
        ]

    fg = {mode: records(work, f"fg-{mode}") for mode in ("graph", "pipe")}
    if any(fg.values()):
        lines += [
            "## Full-graph 32-layer GCNII on Facebook, 2 ranks sharing the GPU",
            "",
            "METIS, 2 parts; hidden 100, 100 epochs; median epoch after the first; bytes per epoch between the ranks.",
            "",
            "| mode | epoch (s) | activations | gradients | halo | weights | test accuracy |",
            "|---|---|---|---|---|---|---|",
        ]
        for mode, recs in fg.items():
            if recs is None:
                continue
            eps = epochs_of(recs)
            times = sorted(r["epoch_seconds"] for r in (eps[1:] or eps))
            b = eps[-1]["bytes"]
            mib = lambda c: f"{b[c] / 2 ** 20:.1f} MiB"
            lines.append(
                f"| {mode} | {times[len(times) // 2]:.3f} | {mib('activations')} | {mib('gradients')} | {mib('halo')} | "
                f"{mib('weights')} | {fmt(test_accuracy(recs), '{:.4f}')} |"
            )
        lines.append("")

    tiers = [(rows, records(work, f"tier-{rows}")) for rows in ("0", "0-mapped", "0.25", "1")]
    tiers = [(rows, recs) for rows, recs in tiers if recs]
    if tiers:
        lines += [
            "## SALIENT++ storage tiers on the products-scale SBM (GPU, 1 rank, 40 steps, epoch projected)",
            "",
            "`--device-rows F`: the hottest F of the rows by VIP in GPU memory, the rest pinned on the host. "
            "Bytes copied to the device per epoch (Channel::device, projected from the steps run); "
            "read share = rows read from the tier / own rows read; VIP's share = the tier's share of the VIP scores "
            "(what VIP predicts the read share to be).",
            "",
            "| --device-rows | tier | epoch (s) | to device per epoch | read share | VIP's share |",
            "|---|---|---|---|---|---|",
        ]
        by_rows = {}
        for rows, recs in tiers:
            last = epochs_of(recs)[-1]
            scale = last.get("full_steps", last["steps"]) / last["steps"]
            to_device = last["comm"]["sum"]["device"]["bytes_sent"] * scale
            read = last["rows_device"] / max(1, last["rows_local"])  # rows_local counts the tier's rows too
            dev = event(recs, "device")
            if not rows.endswith("-mapped"):  # the tiers compared among themselves; mapped reads beside them
                by_rows[rows] = (mean_epoch(recs), to_device)
            shown = rows.replace("-mapped", ", own rows read in place (--host-reads mapped)")
            lines.append(
                f"| {shown} | {dev.get('tier_bytes', 0) / GiB:.2f} GiB | {mean_epoch(recs):.2f} | {to_device / GiB:.2f} GiB | "
                f"{read:.3f} | {dev.get('tier_vip_share', 0):.3f} |"
            )
        lines.append("")
        if "0" in by_rows and len(by_rows) > 1:
            falls = all(
                by_rows[a][1] > by_rows[b][1]
                for a, b in zip(sorted(by_rows, key=float), sorted(by_rows, key=float)[1:])
            )
            faster = min(v[0] for k, v in by_rows.items() if k != "0")
            targets += [
                ("Tiers: bytes to the device fall as --device-rows grows", None, falls, ""),
                (
                    "Tiers: an epoch with rows on the device faster than all rows pinned on the host",
                    ratio(by_rows["0"][0], faster),
                    faster < by_rows["0"][0],
                    "{:.2f}x",
                ),
            ]

    sbm = {
        name: records(work, name)
        for name in ("sbm-loom-gpu", "tier-0", "tier-0-mapped", "sbm-loom-cpu", "sbm-peer-gpu")
    }
    if any(sbm.values()):
        lines += [
            f"## Products-scale SBM epoch ({nodes} nodes, average stored degree 25, 100 features, 47 classes, 1 epoch)",
            "",
            "Same SAGE recipe. Loom on the GPU with every feature row in GPU memory (`--device-rows 1`, where "
            "the peer keeps them too) runs the whole epoch; the other runs take part of it (--max-steps) and "
            "project the epoch.",
            "",
            "| system | device | steps run | epoch (s) | loss (Loom: mean of the steps; peer: last step) |",
            "|---|---|---|---|---|",
        ]
        labels = {
            "sbm-loom-gpu": ("Loom, features in GPU memory", "GPU"),
            "tier-0": ("Loom, features pinned on the host", "GPU"),
            "tier-0-mapped": ("Loom, features pinned on the host, read in place (--host-reads mapped)", "GPU"),
            "sbm-loom-cpu": ("Loom", "all CPU cores"),
            "sbm-peer-gpu": ("plain PyTorch peer, tensor sampler, features in GPU memory", "GPU"),
        }
        sbm_epoch = {}
        for name, recs in sbm.items():
            if recs is None:
                continue
            last = epochs_of(recs)[-1]
            sbm_epoch[name] = mean_epoch(recs)
            lines.append(
                f"| {labels[name][0]} | {labels[name][1]} | {last['steps']} of {last.get('full_steps', last['steps'])} | "
                f"{sbm_epoch[name]:.2f} | {last['loss']:.3f} |"
            )
        lines.append("")
        lines += step_breakdown(sbm, labels)
        if "sbm-loom-gpu" in sbm_epoch:
            targets += speed_targets("Products scale", sbm_epoch, "sbm")
            targets += epoch_targets(facts, sbm_epoch)

    default_workers = next(
        (line.split(":")[1].strip() for line in facts.splitlines() if line.startswith("default sample workers")), "?"
    )
    workers = [(w, records(work, name)) for w, name in (("4", "workers-4"), (default_workers, "sbm-loom-gpu"))]
    workers.append(("16", records(work, "workers-16")))
    if sum(recs is not None for _, recs in workers) > 1:
        lines += [
            "## Sampling workers on the GPU (products-scale SBM, features in GPU memory)",
            "",
            f"`--sample-workers W` (default half the cores, at most 8: {default_workers} here): W threads of one "
            "thread each sample batches ahead; the producer (which gathers and queues the copies) computes on "
            "the cores left. Milliseconds per step: sample = one batch's sampling on its thread, fetch = the "
            "producer's gather, compute = training, wait = the training thread waiting for a batch.",
            "",
            "| W | steps run | epoch (s) | sample | fetch | copy | compute | wait |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for w, recs in workers:
            if recs is None:
                continue
            last = epochs_of(recs)[-1]
            phases = last.get("phases_seconds", {})
            lines.append(
                f"| {w} | {last['steps']} | {mean_epoch(recs):.2f} | "
                + " | ".join(
                    fmt(1000 * phases[k] / last["steps"] if k in phases else None, "{:.1f}")
                    for k in ("sample", "fetch", "copy", "compute", "wait")
                )
                + " |"
            )
        lines.append("")

    sampler_lines, sampler_targets = sampler_section(work)
    lines += sampler_lines
    targets += sampler_targets

    if targets:
        lines += ["## Targets", "", "| target | measured | met |", "|---|---|---|"]
        for text, value, met, pattern in targets:
            lines.append(f"| {text} | {fmt(value, pattern) if pattern else '-'} | {'yes' if met else '**no**'} |")
        lines.append("")
    skipped = os.path.join(work, "skipped.txt")
    if os.path.exists(skipped) and open(skipped).read().strip():
        lines += ["## Not run", ""] + [f"- {line.strip()}" for line in open(skipped) if line.strip()] + [""]
    open(out, "w").write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "work", metavar="WORK", help="bench_gpu.sh's run folder (its WORK: metrics, facts.txt, skipped.txt)"
    )
    parser.add_argument("out", metavar="OUT.md", help="the Markdown file to write (gpu.md)")
    args = parser.parse_args()
    main(args.work, args.out)
