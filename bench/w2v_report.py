"""Turns bench_word2vec.sh's runs.jsonl into the markdown table of bench/results/word2vec.md.
words/s = (corpus tokens kept by min-count 5, as counted by Loom) x 5 epochs / training seconds,
the same numerator for every tool, so the ratio is the ratio of training times.
The table goes to standard output.
"""
import argparse
import json
import statistics

NAMES = {"loom-batched": "loom-batched", "loom-hogwild": "loom-hogwild", "word2vec.c": "w2c", "gensim": "gensim"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "runs",
        metavar="RUNS.jsonl",
        help="bench_word2vec.sh's runs.jsonl (one JSON line per run and per quality check)",
    )
    parser.add_argument("before", metavar="UPTIME_BEFORE", help="uptime before the runs")
    parser.add_argument("after", metavar="UPTIME_AFTER", help="uptime after the runs")
    parser.add_argument("threads", metavar="THREADS", help="training threads of every tool")
    args = parser.parse_args()
    path, before, after, threads = args.runs, args.before, args.after, args.threads
    runs, quality = {}, {}
    tokens = None
    for line in open(path):
        rec = json.loads(line)
        if "quality" in rec:
            quality[rec["quality"]] = rec
            continue
        runs.setdefault(rec["tool"], []).append(rec["run"]["train_seconds"])
        if rec["tool"].startswith("loom"):
            tokens = rec["run"]["tokens"]
    words = tokens * 5
    rate = {tool: words / statistics.median(secs) for tool, secs in runs.items()}
    peer = max(rate["word2vec.c"], rate["gensim"])
    print("# Word2Vec: Loom vs word2vec.c vs gensim\n")
    print(
        f"Corpus: gutenberg.txt.gz tokenised by bench/w2v_tokenize.py (lowercase, letters only, one paragraph per "
        f"line), {tokens:,} tokens after min-count 5. Skip-gram, dim 100, window 5, negative 5, sample 1e-4, "
        f"5 epochs, {threads} threads. Training time only (vocabulary building excluded for every tool; "
        f"word2vec.c reads a prepared vocabulary). Median of {len(runs['gensim'])} run(s).\n"
    )
    print(f"Machine load (shared with other builds): before `{before.strip()}`, after `{after.strip()}`.\n")
    print(
        "| tool | train s | words/s | vs faster peer | analogy (loom eval) | covered | wordsim353 Spearman | "
        "gensim-check analogy | gensim-check Spearman |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for tool in [t for t in ["loom-batched", "loom-hogwild", "word2vec.c", "gensim"] if t in runs]:
        q = quality[NAMES[tool]]
        a = q["analogy"]["total"]
        s = q["similarity"][0]
        g = q["gensim_check"]
        print(
            f"| {tool} | {statistics.median(runs[tool]):.1f} | {rate[tool] / 1e6:.2f}M | {rate[tool] / peer:.2f}x | "
            f"{100 * a['accuracy']:.2f}% | {a['covered']} / {a['questions']} | {s['spearman']:.4f} | "
            f"{100 * g['gensim_analogy']:.2f}% | {g['gensim_wordsim_spearman']:.4f} |"
        )


if __name__ == "__main__":
    main()
