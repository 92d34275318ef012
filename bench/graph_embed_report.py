"""Node-classification table of bench/bench_graph_embed.sh: Loom and the reference node2vec/DeepWalk
(bench/peers/node2vec_reference.py) side by side, macro/micro-F1 at 50% training (mean +- sd over
seeds), seconds per run, and issue 21's targets: Loom's macro-F1 no lower than the reference's minus
0.005, and at least 10x faster end to end (walks + training; the reference's alias tables included).
The table goes to standard output.
"""
import argparse
import json
import statistics

PAPER = {
    ("blogcatalog", "deepwalk"): 0.2110,
    ("blogcatalog", "node2vec"): 0.2581,
    ("ppi", "deepwalk"): 0.1768,
    ("ppi", "node2vec"): 0.1791,
}


def mean_sd(values):
    return statistics.mean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "runs", metavar="RUNS.jsonl", help="bench_graph_embed.sh's nodeclass-runs.jsonl, one JSON line per run"
    )
    args = parser.parse_args()
    rows = [json.loads(l) for l in open(args.runs) if l.strip()]
    keys = []
    for r in rows:
        if (r["graph"], r["method"]) not in keys:
            keys.append((r["graph"], r["method"]))
    out = [
        "| graph | method | Loom macro-F1 | reference macro-F1 | Loom - ref | paper | Loom micro-F1 | ref micro-F1 | "
        "Loom s (walk + train) | ref s (tables + walk + train) | speed-up | Loom hogwild macro-F1, s | targets |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    met = total = 0
    for graph, method in keys:
        loom = [r for r in rows if (r["graph"], r["method"], r["system"]) == (graph, method, "loom")]
        ref = [r for r in rows if (r["graph"], r["method"], r["system"]) == (graph, method, "reference")]
        hogwild = [r for r in rows if (r["graph"], r["method"], r["system"]) == (graph, method, "loom-hogwild")]
        hog = (
            (
                f"{statistics.mean(r['macro_f1'] for r in hogwild):.4f}, "
                f"{statistics.mean(r['total_seconds'] for r in hogwild):.1f}"
            )
            if hogwild
            else "-"
        )
        lm, ls = mean_sd([r["macro_f1"] for r in loom])
        lmi = statistics.mean(r["micro_f1"] for r in loom)
        lt = statistics.mean(r["total_seconds"] for r in loom)
        lw = statistics.mean(r["walk_seconds"] for r in loom)
        paper = PAPER.get((graph, method.split()[0]), float("nan"))
        if ref:
            rm, rs = mean_sd([r["macro_f1"] for r in ref])
            rmi = statistics.mean(r["micro_f1"] for r in ref)
            # One run of the reference: its alias tables (built once) plus one seed's walks and training.
            rt = statistics.mean(r["preprocess_seconds"] + r["walk_seconds"] + r["train_seconds"] for r in ref)
            parts = " + ".join(
                f"{statistics.mean(r[k] for r in ref):.1f}"
                for k in ("preprocess_seconds", "walk_seconds", "train_seconds")
            )
            quality, speed = lm >= rm - 0.005, rt >= 10 * lt
            met += quality + speed
            total += 2
            checks = f"F1 >= ref - 0.005: {'met' if quality else 'NOT met'}; 10x: {'met' if speed else 'NOT met'}"
            out.append(
                f"| {graph} | {method} | {lm:.4f} ± {ls:.4f} | {rm:.4f} ± {rs:.4f} | {lm - rm:+.4f} | {paper:.4f} | "
                f"{lmi:.4f} | {rmi:.4f} | {lt:.2f} ({lw:.2f} + {lt - lw:.2f}) | {rt:.1f} ({parts}) | {rt / lt:.1f}x | {hog} | {checks} |"
            )
        else:
            out.append(
                f"| {graph} | {method} | {lm:.4f} ± {ls:.4f} | - | - | {paper:.4f} | {lmi:.4f} | - | {lt:.2f} | - | - | {hog} | - |"
            )
    out.append("")
    seeds = max(sum(1 for r in rows if (r["graph"], r["method"], r["system"]) == (g, m, "loom")) for g, m in keys)
    out.append(f"Targets met: {met} of {total} (seeds per cell: {seeds}).")
    print("\n".join(out))


if __name__ == "__main__":
    main()
