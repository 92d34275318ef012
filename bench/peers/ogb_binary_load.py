"""The peer of `loom import ogb` on OGB's binary layout: what OGB's own loader does with it
(ogb.io.read_graph_raw.read_binary_graph_raw: dict(np.load(raw/data.npz)), and
np.load(raw/node-label.npz)['node_label']), every array
decompressed whole into memory, then the CSR of the symmetrised graph built with numpy (what a
PyG/DGL user does next: to_undirected + a sorted adjacency). Prints seconds; run it under
/usr/bin/time -v for its peak memory.
Usage: ogb_binary_load.py DIR
"""
import sys
import time

import numpy as np


def main():
    root = sys.argv[1]
    start = time.perf_counter()
    graph = dict(np.load(f"{root}/raw/data.npz"))
    label = np.load(f"{root}/raw/node-label.npz")["node_label"]
    loaded = time.perf_counter()
    n = int(graph["num_nodes_list"][0])
    src, dst = graph["edge_index"]
    rows = np.concatenate([src, dst])
    cols = np.concatenate([dst, src])
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    keep = np.ones(len(rows), dtype=bool)
    keep[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    keep &= rows != cols
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=indptr[1:])
    built = time.perf_counter()
    print(
        f"loaded {len(graph)} arrays and {len(label)} labels in {loaded - start:.2f} s; "
        f"CSR of {int(keep.sum())} entries in {built - loaded:.2f} s; total {built - start:.2f} s"
    )


if __name__ == "__main__":
    main()
