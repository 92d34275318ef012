"""Splits the Gutenberg corpus by book into two halves for the held-out Word2Vec benchmark: a book
starts at its "*** START OF" line (what precedes the first one belongs to the first book);
even-numbered books (0, 2, ...) go to half A, odd-numbered ones to half B, so both halves mix the
authors and genres of the file's order. Writes the two raw texts and prints the book and line
counts as JSON.
"""
import argparse
import gzip
import json


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("src", metavar="GUTENBERG", help="the Gutenberg corpus (gzip if it ends in .gz)")
    parser.add_argument("out_a", metavar="HALF_A.txt", help="half A: the even-numbered books")
    parser.add_argument("out_b", metavar="HALF_B.txt", help="half B: the odd-numbered books")
    args = parser.parse_args()
    src, out_a, out_b = args.src, args.out_a, args.out_b
    opener = gzip.open if src.endswith(".gz") else open
    books, lines = -1, [0, 0]
    with opener(src, "rb") as f, open(out_a, "wb") as a, open(out_b, "wb") as b:
        outs = (a, b)
        for line in f:
            if line.startswith(b"*** START OF"):
                books += 1
            half = max(books, 0) % 2
            outs[half].write(line)
            lines[half] += 1
    print(json.dumps({"books": books + 1, "lines_a": lines[0], "lines_b": lines[1]}))


if __name__ == "__main__":
    main()
