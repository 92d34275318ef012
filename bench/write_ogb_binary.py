"""A synthetic graph written in OGB's binary layout, at any size, the way np.savez and
np.savez_compressed write it (a zip64 archive of .npy members, stored or deflated at zlib's default
level) but array by array in chunks, so a quarter of ogbn-papers100M (28M nodes, 400M edges) is
written on a 24 GiB host. Random edges (uniform ends, no self-loops), float32 features, labels with
NaN for unlabelled nodes, node_year, and split/time/{train,valid,test}.csv.gz.
Usage: write_ogb_binary.py OUT --nodes N --edges E [--feat-dim 128] [--classes 172] [--compressed
       [--compress-level L]]  (L: zlib's level, default 6 as np.savez_compressed; the archive reads
       the same at any level, and level 1 writes random data several times faster)
"""
import argparse
import gzip
import os
import zipfile

import numpy as np

CHUNK = 1 << 22


def add_array(archive, key, dtype, shape, chunks):
    """One .npy member of shape `shape`, its values from `chunks` (arrays in C order)."""
    with archive.open(key + ".npy", "w", force_zip64=True) as f:
        # the header np.save writes (version 1.0 where it fits, padded to 64 bytes)
        np.lib.format._write_array_header(
            f, {"descr": np.dtype(dtype).str, "fortran_order": False, "shape": tuple(shape)}, None
        )
        for chunk in chunks:
            f.write(np.ascontiguousarray(chunk, dtype=dtype).tobytes())


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--nodes", type=int, required=True)
    p.add_argument("--edges", type=int, required=True)
    p.add_argument("--feat-dim", type=int, default=128)
    p.add_argument("--classes", type=int, default=172)
    p.add_argument("--compressed", action="store_true")
    p.add_argument("--compress-level", type=int, default=6)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    n, e = a.nodes, a.edges
    raw = os.path.join(a.out, "raw")
    os.makedirs(raw, exist_ok=True)
    method = zipfile.ZIP_DEFLATED if a.compressed else zipfile.ZIP_STORED

    def rows(count, make):
        for first in range(0, count, CHUNK):
            yield make(first, min(CHUNK, count - first))

    level = a.compress_level if a.compressed else None
    with zipfile.ZipFile(
        os.path.join(raw, "data.npz"), "w", compression=method, compresslevel=level, allowZip64=True
    ) as z:
        # edge_index [2, E]: row 0 the sources, row 1 the targets, drawn again from the same seed.
        def sources(first, count):
            return np.random.default_rng([a.seed, first]).integers(0, n, count)

        def targets(first, count):
            offset = np.random.default_rng([a.seed, first, 1]).integers(1, n, count)
            return (sources(first, count) + offset) % n

        add_array(z, "edge_index", np.int64, (2, e), [*rows(e, sources), *rows(e, targets)])
        dim = a.feat_dim
        feat_rows = max(1, CHUNK // dim)

        def features():
            for first in range(0, n, feat_rows):
                count = min(feat_rows, n - first)
                yield np.random.default_rng([a.seed, first, 2]).standard_normal((count, dim), dtype=np.float32)

        add_array(z, "node_feat", np.float32, (n, dim), features())
        add_array(
            z,
            "node_year",
            np.int64,
            (n, 1),
            rows(n, lambda f, c: np.random.default_rng([a.seed, f, 3]).integers(1990, 2021, (c, 1))),
        )
        add_array(z, "num_nodes_list", np.int64, (1,), [np.array([n])])
        add_array(z, "num_edges_list", np.int64, (1,), [np.array([e])])
    labelled = np.random.default_rng([a.seed, 4]).random(n) < 0.013  # papers100M: 1.4% of nodes labelled
    with zipfile.ZipFile(
        os.path.join(raw, "node-label.npz"), "w", compression=method, compresslevel=level, allowZip64=True
    ) as z:

        def labels(first, count):
            y = np.random.default_rng([a.seed, first, 5]).integers(0, a.classes, count).astype(np.float64)
            y[~labelled[first : first + count]] = np.nan
            return y.reshape(-1, 1)

        add_array(z, "node_label", np.float64, (n, 1), rows(n, labels))
    ids = np.flatnonzero(labelled)
    np.random.default_rng([a.seed, 6]).shuffle(ids)
    train, valid, test = np.split(ids, [int(0.78 * len(ids)), int(0.86 * len(ids))])
    split = os.path.join(a.out, "split", "time")
    os.makedirs(split, exist_ok=True)
    for name, part in (("train", train), ("valid", valid), ("test", test)):
        with gzip.open(os.path.join(split, name + ".csv.gz"), "wt") as f:
            f.write("\n".join(map(str, np.sort(part))) + "\n")


if __name__ == "__main__":
    main()
