"""Prepares the Word2Vec benchmark corpus: lowercases ASCII, keeps runs of letters a-z (the same
rule as `loom embed text --tokenize lower-letters`), and writes one paragraph (lines up to a blank
line) per output line, so that word2vec.c, gensim and Loom read the same tokens and sentences.
Also writes a word2vec.c vocabulary file ("</s>" first, then "word count") so word2vec.c can skip
its own counting pass (-read-vocab) and be timed on training alone.

usage: w2v_tokenize.py INPUT(.gz) OUTPUT_TXT OUTPUT_VOCAB
"""
import collections
import gzip
import re
import sys

WORD = re.compile(rb"[a-z]+")


def main():
    src, out_path, vocab_path = sys.argv[1:4]
    opener = gzip.open if src.endswith(".gz") else open
    counts = collections.Counter()
    lines = 0
    with opener(src, "rb") as f, open(out_path, "wb") as out:
        paragraph = []
        def flush():
            nonlocal lines
            if paragraph:
                out.write(b" ".join(paragraph) + b"\n")
                counts.update(paragraph)
                lines += 1
                paragraph.clear()
        for line in f:
            words = WORD.findall(line.lower())
            if not line.strip():
                flush()
            paragraph.extend(words)
        flush()
    with open(vocab_path, "wb") as v:
        v.write(b"</s> %d\n" % lines)
        for word, count in counts.most_common():
            v.write(word + b" %d\n" % count)
    print(f"{sum(counts.values())} tokens, {len(counts)} distinct words, {lines} lines")


if __name__ == "__main__":
    main()
