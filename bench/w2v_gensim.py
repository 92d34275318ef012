"""gensim 4 side of bench_word2vec.sh: trains skip-gram in corpus_file mode and saves word2vec
binary vectors; prints a JSON line with the training seconds (build_vocab excluded).
Also `check EMB QUESTIONS WORDSIM`: gensim's own analogy (restrict_vocab=30000) and wordsim353
evaluation of any word2vec binary file, to cross-check `loom eval`.

usage: w2v_gensim.py train CORPUS OUT.bin THREADS [SEED] | check EMB.bin QUESTIONS WORDSIM
"""
import json
import logging
import sys
import time


def train(corpus, out, threads, seed=1):
    from gensim.models import Word2Vec
    model = Word2Vec(vector_size=100, window=5, negative=5, sample=1e-4, min_count=5, sg=1, hs=0,
                     workers=threads, epochs=5, alpha=0.025, seed=seed)
    t0 = time.time()
    model.build_vocab(corpus_file=corpus)
    vocab_seconds = time.time() - t0
    t0 = time.time()
    model.train(corpus_file=corpus, total_words=model.corpus_total_words, epochs=5)
    seconds = time.time() - t0
    model.wv.save_word2vec_format(out, binary=True)
    print(json.dumps({"tool": "gensim", "train_seconds": seconds, "vocab_seconds": vocab_seconds,
                      "vocab_size": len(model.wv)}))


def check(emb, questions, wordsim):
    from gensim.models import KeyedVectors
    kv = KeyedVectors.load_word2vec_format(emb, binary=True)
    score, _ = kv.evaluate_word_analogies(questions, restrict_vocab=30000)
    pearson, spearman, oov = kv.evaluate_word_pairs(wordsim, restrict_vocab=10**9)
    print(json.dumps({"gensim_analogy": score, "gensim_wordsim_spearman": spearman[0]}))


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    if sys.argv[1] == "train":
        train(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4])
