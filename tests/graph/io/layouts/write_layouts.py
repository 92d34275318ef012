"""Tiny datasets in the layouts their publishers ship, written with numpy and torch exactly as they
do, so that every reader of `loom import` is tested without a download:

  ogb-csv/        OGB's CSV layout (raw/*.csv.gz, split/time/*.csv.gz): the small datasets
  ogb-stored/     OGB's binary layout (raw/data.npz by np.savez, raw/node-label.npz), CSV splits
  ogb-deflated/   the same by np.savez_compressed, the split as split/time/split_dict.pt (tensors)
  mag240m/        OGB-LSC MAG240M's (processed/paper/*.npy with float16 features,
                  processed/paper___cites___paper/edge_index.npy, split_dict.pt of numpy arrays)

All four hold one graph: the same edges, features, labels (NaN or -1 = unlabelled) and splits.
Usage: write_layouts.py OUT [--nodes N] [--seed S]
"""
import argparse
import gzip
import os

import numpy as np


def graph(nodes, seed):
    rng = np.random.default_rng(seed)
    edges = nodes * 4
    src = rng.integers(0, nodes, edges)
    dst = (src + rng.integers(1, nodes, edges)) % nodes  # no self-loops
    feat = rng.standard_normal((nodes, 8)).astype(np.float32)
    feat = feat.astype(np.float16).astype(np.float32)  # exact in float16 too (MAG240M's dtype)
    label = rng.integers(0, 5, nodes).astype(np.float64)
    label[rng.random(nodes) < 0.3] = np.nan
    year = rng.integers(1990, 2021, nodes)
    labelled = np.flatnonzero(~np.isnan(label))
    order = rng.permutation(labelled)
    train, valid, test = np.split(order, [len(order) // 2, 3 * len(order) // 4])
    return dict(
        edge_index=np.stack([src, dst]).astype(np.int64),
        feat=feat,
        label=label,
        year=year,
        train=np.sort(train),
        valid=np.sort(valid),
        test=np.sort(test),
    )


def write_csv_gz(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with gzip.open(path, "wt") as f:
        f.writelines(rows)


def write_csv_splits(split_dir, g):
    for name in ("train", "valid", "test"):
        write_csv_gz(os.path.join(split_dir, name + ".csv.gz"), [f"{i}\n" for i in g[name]])


def write_ogb_csv(out, g):
    raw = os.path.join(out, "raw")
    nodes = len(g["label"])
    write_csv_gz(os.path.join(raw, "edge.csv.gz"), [f"{s},{d}\n" for s, d in g["edge_index"].T])
    write_csv_gz(os.path.join(raw, "num-node-list.csv.gz"), [f"{nodes}\n"])
    write_csv_gz(os.path.join(raw, "num-edge-list.csv.gz"), [f"{g['edge_index'].shape[1]}\n"])
    write_csv_gz(os.path.join(raw, "node-feat.csv.gz"), [",".join(f"{v:.9g}" for v in row) + "\n" for row in g["feat"]])
    write_csv_gz(
        os.path.join(raw, "node-label.csv.gz"), ["nan\n" if np.isnan(y) else f"{int(y)}\n" for y in g["label"]]
    )
    write_csv_splits(os.path.join(out, "split", "time"), g)


def write_ogb_binary(out, g, compressed):
    """As OGB's DatasetSaver does: np.savez(_compressed) of the graph dict and of the labels."""
    raw = os.path.join(out, "raw")
    os.makedirs(raw, exist_ok=True)
    save = np.savez_compressed if compressed else np.savez
    nodes = len(g["label"])
    save(
        os.path.join(raw, "data.npz"),
        edge_index=g["edge_index"],
        node_feat=g["feat"],
        node_year=g["year"].reshape(-1, 1),
        num_nodes_list=np.array([nodes], dtype=np.int64),
        num_edges_list=np.array([g["edge_index"].shape[1]], dtype=np.int64),
    )
    save(os.path.join(raw, "node-label.npz"), node_label=g["label"].reshape(-1, 1))
    split_dir = os.path.join(out, "split", "time")
    if compressed:
        import torch

        os.makedirs(split_dir, exist_ok=True)
        torch.save(
            {name: torch.from_numpy(g[name]) for name in ("train", "valid", "test")},
            os.path.join(split_dir, "split_dict.pt"),
        )
    else:
        write_csv_splits(split_dir, g)


def write_mag240m(out, g):
    """As OGB-LSC's MAG240MDataset lays it out: float16 features, float labels with NaN, and a
    torch.save'd dict of numpy index arrays (test-dev standing for the test split)."""
    import torch

    paper = os.path.join(out, "processed", "paper")
    cites = os.path.join(out, "processed", "paper___cites___paper")
    os.makedirs(paper, exist_ok=True)
    os.makedirs(cites, exist_ok=True)
    np.save(os.path.join(paper, "node_feat.npy"), g["feat"].astype(np.float16))
    np.save(os.path.join(paper, "node_label.npy"), g["label"].astype(np.float32))
    np.save(os.path.join(paper, "node_year.npy"), g["year"])
    np.save(os.path.join(cites, "edge_index.npy"), g["edge_index"])
    torch.save(
        {"train": g["train"], "valid": g["valid"], "test-dev": g["test"], "test-challenge": g["test"][:2]},
        os.path.join(out, "split_dict.pt"),
    )


def main_into(out, nodes=200, seed=7):
    g = graph(nodes, seed)
    write_ogb_csv(os.path.join(out, "ogb-csv"), g)
    write_ogb_binary(os.path.join(out, "ogb-stored"), g, compressed=False)
    write_ogb_binary(os.path.join(out, "ogb-deflated"), g, compressed=True)
    write_mag240m(os.path.join(out, "mag240m"), g)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    main_into(args.out, args.nodes, args.seed)


if __name__ == "__main__":
    main()
