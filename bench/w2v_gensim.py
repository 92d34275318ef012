"""gensim 4 side of bench_word2vec.sh: trains skip-gram in corpus_file mode and saves word2vec
binary vectors; prints a JSON line with the training seconds (build_vocab excluded).
Also `check EMB QUESTIONS WORDSIM`: gensim's own analogy (restrict_vocab=30000) and wordsim353
evaluation of any word2vec binary file, to cross-check `loom eval`.
"""
import argparse
import json
import logging
import time


def train(corpus, out, threads, seed=1):
    from gensim.models import Word2Vec

    model = Word2Vec(
        vector_size=100,
        window=5,
        negative=5,
        sample=1e-4,
        min_count=5,
        sg=1,
        hs=0,
        workers=threads,
        epochs=5,
        alpha=0.025,
        seed=seed,
    )
    t0 = time.time()
    model.build_vocab(corpus_file=corpus)
    vocab_seconds = time.time() - t0
    t0 = time.time()
    model.train(corpus_file=corpus, total_words=model.corpus_total_words, epochs=5)
    seconds = time.time() - t0
    model.wv.save_word2vec_format(out, binary=True)
    print(
        json.dumps(
            {"tool": "gensim", "train_seconds": seconds, "vocab_seconds": vocab_seconds, "vocab_size": len(model.wv)}
        )
    )


def check(emb, questions, wordsim):
    from gensim.models import KeyedVectors

    kv = KeyedVectors.load_word2vec_format(emb, binary=True)
    score, _ = kv.evaluate_word_analogies(questions, restrict_vocab=30000)
    pearson, spearman, oov = kv.evaluate_word_pairs(wordsim, restrict_vocab=10**9)
    print(json.dumps({"gensim_analogy": score, "gensim_wordsim_spearman": spearman[0]}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("train", help="train skip-gram on CORPUS, save OUT, print the seconds as JSON")
    p.add_argument("corpus", metavar="CORPUS", help="tokenised corpus, one sentence per line")
    p.add_argument("out", metavar="OUT.bin", help="the word2vec binary file to write")
    p.add_argument("threads", metavar="THREADS", type=int, help="gensim's workers")
    p.add_argument("seed", metavar="SEED", type=int, nargs="?", default=1, help="gensim's seed (default 1)")
    p = commands.add_parser("check", help="gensim's analogy and wordsim353 scores of EMB, as JSON")
    p.add_argument("emb", metavar="EMB.bin", help="a word2vec binary file")
    p.add_argument("questions", metavar="QUESTIONS", help="questions-words.txt")
    p.add_argument("wordsim", metavar="WORDSIM", help="wordsim353.tsv")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.command == "train":
        train(args.corpus, args.out, args.threads, args.seed)
    else:
        check(args.emb, args.questions, args.wordsim)
