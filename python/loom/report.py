"""HTML report of Loom runs: `python3 -m loom.report RUN.jsonl [RUN2.jsonl ...] -o report.html`,
or of a plan: `python3 -m loom.report --plan PLAN.json -o plan.html`.

Reads the JSON-lines metrics that `loom train --metrics` and `loom fullgraph --metrics` write (one
record per epoch, plus setup / cache / prefetch / exact_eval events) and draws, with matplotlib,
what people look at instead of reading them: loss and accuracy per epoch, the epoch-time
breakdown, bytes per channel, and (mini-batch runs) where feature rows came from and the prefetch
hit rate. Several runs are drawn side by side (cache policies, controllers, graph vs pipe), each
named by its file name unless NAME=PATH is given. The page is one self-contained HTML file: the
figures are inline PNGs, nothing is fetched.

A plan (`loom plan --json`) is drawn as the predicted epoch time against the number of hosts, one
line per regime (hollow markers where a regime does not fit a host's memory), the phases the model
waits for in the fastest regime that fits at each host count, and a table of those choices. A
full-graph plan (`loom plan fullgraph --json`) the same way, one line per mode, and the compute,
exchange, bubble and all-reduce of the fastest mode at each host count.
"""
import argparse
import base64
import html
import io
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PHASES = ("sample", "fetch", "copy", "wait", "compute", "allreduce")


class Run:
    """One metrics file: its epoch records and its events."""

    def __init__(self, name, path):
        self.name, self.path = name, path
        self.epochs, self.events = [], []
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as e:
                    raise SystemExit(f"{path}:{number}: not a JSON record ({e.msg})")
                (self.epochs if "epoch" in record and "event" not in record else self.events).append(record)
        if not self.epochs:
            raise SystemExit(f"{path}: no epoch records (is it a `--metrics` file of loom train or fullgraph?)")
        # A resumed run appends; a repeated epoch counts once (the latest).
        by_epoch = {r["epoch"]: r for r in self.epochs}
        self.epochs = [by_epoch[e] for e in sorted(by_epoch)]

    def series(self, key):
        xs = [r["epoch"] for r in self.epochs if key in r]
        return xs, [r[key] for r in self.epochs if key in r]

    def score_keys(self):
        keys = []
        for r in self.epochs:
            for k in r:
                if k.split("_")[0] in ("train", "valid", "test") and k not in keys and k != "valid_loss":
                    keys.append(k)
        return keys

    def mean(self, get):
        values = [v for v in (get(r) for r in self.epochs) if v is not None]
        return sum(values) / len(values) if values else None

    def phase_seconds(self):
        """Mean seconds per epoch of each phase: mini-batch phases, or full-graph bubble / exchange / compute."""
        if any("phases_seconds" in r for r in self.epochs):
            return {p: self.mean(lambda r, p=p: r.get("phases_seconds", {}).get(p)) or 0.0 for p in PHASES}
        bubble = self.mean(lambda r: r.get("bubble_seconds")) or 0.0
        exchange = self.mean(lambda r: r.get("exchange_seconds")) or 0.0
        total = self.mean(lambda r: r.get("epoch_seconds")) or 0.0
        return {"bubble": bubble, "exchange": exchange, "compute": max(0.0, total - bubble - exchange)}

    def channel_bytes(self):
        """Mean bytes sent per epoch on each channel, summed over ranks."""
        channels = {}
        for r in self.epochs:
            for name, stats in r.get("comm", {}).get("sum", {}).items():
                if name != "total":
                    channels.setdefault(name, []).append(stats.get("bytes_sent", 0))
        return {c: sum(v) / len(v) for c, v in channels.items() if any(v)}

    def final_event(self):
        return next((e for e in reversed(self.events) if e.get("event") == "exact_eval"), None)


def figure_png(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def lines_figure(runs, keys, title, ylabel):
    fig, ax = plt.subplots(figsize=(7, 3.6))
    drawn = 0
    for run in runs:
        for key in keys(run):
            xs, ys = run.series(key)
            if xs:
                ax.plot(
                    xs, ys, marker="o" if len(xs) < 30 else None, label=f"{run.name}: {key}" if len(runs) > 1 else key
                )
                drawn += 1
    if not drawn:
        plt.close(fig)
        return None
    ax.set(title=title, xlabel="epoch", ylabel=ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return figure_png(fig)


def bars_figure(runs, values, title, ylabel, stacked):
    """values(run) -> {label: number}; one bar (stacked) or one group of bars per run."""
    data = [values(run) for run in runs]
    labels = []
    for d in data:
        labels += [k for k in d if k not in labels]
    if not labels:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.6))
    names = [run.name for run in runs]
    if stacked:
        bottom = [0.0] * len(runs)
        for label in labels:
            heights = [d.get(label, 0.0) for d in data]
            ax.bar(names, heights, bottom=bottom, label=label)
            bottom = [b + h for b, h in zip(bottom, heights)]
    else:
        width = 0.8 / len(runs)
        for i, (name, d) in enumerate(zip(names, data)):
            ax.bar(
                [j + i * width for j in range(len(labels))], [d.get(label, 0.0) for label in labels], width, label=name
            )
        ax.set_xticks([j + width * (len(runs) - 1) / 2 for j in range(len(labels))], labels)
    ax.set(title=title, ylabel=ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    return figure_png(fig)


def summary_table(runs):
    rows = [
        "<table><tr><th>run</th><th>epochs</th><th>mean epoch s</th><th>last loss</th>"
        "<th>final valid</th><th>final test</th><th>bytes per epoch</th></tr>"
    ]
    for run in runs:
        final = run.final_event() or run.epochs[-1]
        score = lambda prefix: next(
            (f"{v:.4f}" for k, v in final.items() if k.startswith(prefix) and "topk" not in k and isinstance(v, float)),
            "-",
        )
        bytes_per_epoch = sum(run.channel_bytes().values())
        rows.append(
            f"<tr><td>{html.escape(run.name)}</td><td>{len(run.epochs)}</td>"
            f"<td>{run.mean(lambda r: r.get('epoch_seconds')) or 0:.3f}</td>"
            f"<td>{run.epochs[-1].get('loss', float('nan')):.4f}</td><td>{score('valid_')}</td>"
            f"<td>{score('test_')}</td><td>{bytes_per_epoch / 2**20:.1f} MiB</td></tr>"
        )
    rows.append("</table>")
    return "\n".join(rows)


def build_report(runs, title):
    figures = [
        ("Loss per epoch", lines_figure(runs, lambda r: ["loss"], "loss", "loss")),
        ("Accuracy per epoch", lines_figure(runs, Run.score_keys, "scores", "score")),
        ("Epoch time by phase", bars_figure(runs, Run.phase_seconds, "mean seconds per epoch", "seconds", True)),
        (
            "Bytes per channel",
            bars_figure(
                runs,
                lambda r: {c: b / 2**20 for c, b in r.channel_bytes().items()},
                "mean MiB sent per epoch, all ranks",
                "MiB",
                False,
            ),
        ),
        (
            "Where feature rows came from",
            bars_figure(
                runs,
                lambda r: {
                    k: r.mean(lambda e, k=k: e.get(f"rows_{k}")) or 0.0
                    for k in ("local", "cached", "remote")
                    if any(f"rows_{k}" in e for e in r.epochs)
                },
                "mean rows per epoch, all ranks",
                "rows",
                True,
            ),
        ),
        (
            "Prefetch hit rate",
            lines_figure(
                runs,
                lambda r: ["prefetch_hit_rate"] if any("prefetch" in e for e in r.epochs) else [],
                "prefetch buffer hit rate",
                "hit rate",
            ),
        ),
    ]
    sections = [
        f'<section><h2>{html.escape(name)}</h2><img alt="{html.escape(name)}" '
        f'src="data:image/png;base64,{png}"></section>'
        for name, png in figures
        if png
    ]
    return (
        f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:0.2em 0.6em;text-align:right}td:first-child{text-align:left}"
        "img{max-width:100%}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{summary_table(runs)}\n" + "\n".join(sections) + "</body></html>\n"
    )


def plan_figures(plan):
    """(epoch time against hosts per regime, phases of each host count's choice) as PNGs."""
    fig, ax = plt.subplots(figsize=(7, 4))
    names = []
    for h in plan["hosts"]:
        for r in h["regimes"]:
            if r["regime"] not in names:
                names.append(r["regime"])
    for name in names:
        points = [
            (h["hosts"], r["epoch"]["epoch_seconds"], r["fits"])
            for h in plan["hosts"]
            for r in h["regimes"]
            if r["regime"] == name
        ]
        (line,) = ax.plot([p[0] for p in points], [p[1] for p in points], "-", label=name)
        for k, seconds, fits in points:
            ax.plot([k], [seconds], "o", color=line.get_color(), fillstyle="full" if fits else "none")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("hosts")
    ax.set_ylabel("predicted seconds per epoch")
    ax.set_title("epoch time against hosts (hollow: does not fit a host's memory)")
    ax.legend(fontsize="small")
    curve = figure_png(fig)
    chosen = {
        str(h["hosts"]): next(r for r in h["regimes"] if r["regime"] == h["fastest_fitting"])
        for h in plan["hosts"]
        if h["fastest_fitting"] is not None
    }
    phases = ("sample", "gather", "fetch", "copy", "compute", "allreduce")
    return curve, stacked_bars(
        {k: [r["epoch"]["exposed_seconds"][p] for p in phases] for k, r in chosen.items()},
        phases,
        "seconds the model waits for each phase",
        "the fastest regime that fits, by phase",
    )


def stacked_bars(columns, parts, ylabel, title):
    """A PNG of one stacked bar per host count: `columns` maps its label to a value per part."""
    fig, ax = plt.subplots(figsize=(7, 4))
    bottom = [0.0] * len(columns)
    for i, part in enumerate(parts):
        values = [v[i] for v in columns.values()]
        ax.bar(list(columns), values, bottom=bottom, label=part)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xlabel("hosts")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small")
    return figure_png(fig)


def build_plan_report(plan, title):
    curve, phases = plan_figures(plan)
    rows = [
        "<table><tr><th>hosts</th><th>fastest that fits</th><th>epoch s</th><th>features MiB</th>"
        "<th>host GiB</th></tr>"
    ]
    for h in plan["hosts"]:
        r = next((r for r in h["regimes"] if r["regime"] == h["fastest_fitting"]), None)
        rows.append(
            f"<tr><td>{h['hosts']}</td><td>{html.escape(h['fastest_fitting'] or 'none fits')}</td>"
            + (
                f"<td>{r['epoch']['epoch_seconds']:.3f}</td><td>{r['bytes']['features'] / 2**20:.1f}</td>"
                f"<td>{r['memory_per_host']['host_total'] / 2**30:.2f}</td>"
                if r
                else "<td></td><td></td><td></td>"
            )
            + "</tr>"
        )
    rows.append("</table>")
    return page_with_figures(
        title,
        f"{plan['graph']} on {plan['cluster']}",
        rows,
        [("Epoch time against hosts", curve), ("Phases of each choice", phases)],
    )


def fullgraph_plan_figures(plan):
    """(epoch time against hosts per mode, the parts of each host count's fastest mode) as PNGs."""
    fig, ax = plt.subplots(figsize=(7, 4))
    modes = sorted({m["mode"] for h in plan["hosts"] for m in h["modes"]})
    for mode in modes:
        points = [(h["hosts"], m["epoch_seconds"]) for h in plan["hosts"] for m in h["modes"] if m["mode"] == mode]
        ax.plot([p[0] for p in points], [p[1] for p in points], "o-", label=mode)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("hosts")
    ax.set_ylabel("predicted seconds per epoch")
    ax.set_title("full-graph epoch time against hosts")
    ax.legend(fontsize="small")
    curve = figure_png(fig)
    chosen = {str(h["hosts"]): next(m for m in h["modes"] if m["mode"] == h["fastest"]) for h in plan["hosts"]}
    parts = ("compute", "exchange", "bubble", "allreduce")
    return curve, stacked_bars(
        {k: [m[p] for p in parts] for k, m in chosen.items()},
        parts,
        "seconds (the slowest rank's)",
        "the fastest mode, by part",
    )


def build_fullgraph_plan_report(plan, title):
    curve, parts = fullgraph_plan_figures(plan)
    rows = ["<table><tr><th>hosts</th><th>mode</th><th>epoch s</th><th>halo MiB</th><th>activations MiB</th></tr>"]
    for h in plan["hosts"]:
        for m in h["modes"]:
            fastest = " (fastest)" if m["mode"] == h["fastest"] else ""
            rows.append(
                f"<tr><td>{h['hosts']}</td><td>{html.escape(m['mode'] + fastest)}</td><td>{m['epoch_seconds']:.3f}</td>"
                f"<td>{m['bytes']['halo'] / 2**20:.1f}</td><td>{m['bytes']['activations'] / 2**20:.1f}</td></tr>"
            )
    rows.append("</table>")
    return page_with_figures(
        title,
        f"{plan['graph']} ({plan['model']}) on {plan['cluster']}",
        rows,
        [("Epoch time against hosts", curve), ("Parts of the fastest mode", parts)],
    )


def page_with_figures(title, subtitle, rows, figures):
    return (
        f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>"
        "body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:0.2em 0.6em;text-align:right}td:first-child{text-align:left}"
        "img{max-width:100%}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(subtitle)}</p>"
        + "\n".join(rows)
        + "".join(
            f'<section><h2>{html.escape(name)}</h2><img alt="{html.escape(name)}" src="data:image/png;base64,{png}"></section>'
            for name, png in figures
        )
        + "</body></html>\n"
    )


def write_page(path, page):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(page)
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m loom.report", description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", metavar="[NAME=]RUN.jsonl")
    parser.add_argument("--plan", metavar="PLAN.json", help="draw a plan (`loom plan --json`) instead of runs")
    parser.add_argument("-o", "--output", required=True, help="HTML file to write")
    parser.add_argument("--title", default=None)
    args = parser.parse_args(argv)
    if args.plan:
        if args.runs:
            raise SystemExit("loom.report: --plan draws a plan alone; give the runs in another report")
        try:
            with open(args.plan) as f:
                plan = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            raise SystemExit(f"loom.report: --plan {args.plan}: {e}")
        if not isinstance(plan, dict) or "hosts" not in plan:
            raise SystemExit(f"loom.report: --plan {args.plan}: not a plan (`loom plan --json` writes one)")
        full_graph = bool(plan["hosts"]) and "modes" in plan["hosts"][0]  # `loom plan fullgraph --json`
        build = build_fullgraph_plan_report if full_graph else build_plan_report
        write_page(args.output, build(plan, args.title or "Loom plan"))
        print(f"loom.report: wrote {args.output} (plan for {len(plan['hosts'])} host counts)")
        return 0
    if not args.runs:
        raise SystemExit("loom.report: give metrics files (RUN.jsonl) or --plan PLAN.json")
    runs = []
    for spec in args.runs:
        name, _, path = spec.rpartition("=") if "=" in spec and not os.path.exists(spec) else ("", "", spec)
        if not os.path.exists(path):
            raise SystemExit(f"loom.report: {path}: no such file")
        runs.append(Run(name or os.path.splitext(os.path.basename(path))[0], path))
    for run in runs:  # prefetch hit rate as a flat series
        for e in run.epochs:
            if "prefetch" in e:
                e["prefetch_hit_rate"] = e["prefetch"].get("hit_rate", 0.0)
    write_page(args.output, build_report(runs, args.title or "Loom runs"))
    print(f"loom.report: wrote {args.output} ({len(runs)} runs)")


if __name__ == "__main__":
    sys.exit(main())
