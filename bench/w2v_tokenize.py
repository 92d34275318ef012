"""Prepares the Word2Vec benchmark corpus: lowercases ASCII, keeps runs of letters a-z (the same
rule as `loom embed text --tokenize lower-letters`), and writes one paragraph (lines up to a blank
line) per output line, so that word2vec.c, gensim and Loom read the same tokens and sentences.
Also writes a word2vec.c vocabulary file ("</s>" first, then "word count") so word2vec.c can skip
its own counting pass (-read-vocab) and be timed on training alone.
"""
import argparse
import collections
import gzip
import re

WORD = re.compile(rb"[a-z]+")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("src", metavar="INPUT", help="the raw text (gzip if it ends in .gz)")
    parser.add_argument("out_path", metavar="OUTPUT_TXT", help="the tokenised text to write, one paragraph per line")
    parser.add_argument("vocab_path", metavar="OUTPUT_VOCAB", help="the word2vec.c vocabulary file to write")
    args = parser.parse_args()
    src, out_path, vocab_path = args.src, args.out_path, args.vocab_path
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
