#!/usr/bin/env python3
"""Peer for bench/bench_train.sh: GraphSAGE mini-batch training in plain PyTorch (Debian's
python3-torch), written the way PyG's NeighborLoader + SAGEConv run it: node-wise sampling
without replacement per hop (all neighbours when degree <= fanout), mean aggregation with a root
weight, ReLU + dropout between layers, Adam, cross-entropy. It reads the same Loom graph store
(.npy arrays) and prints one JSON line per epoch plus a final line with test accuracy.
"""
import argparse
import json
import os
import time

import numpy as np
import torch
import torch.nn.functional as F


def load(store):
    a = lambda name: np.load(os.path.join(store, name + ".npy"), mmap_mode="r")
    return (np.asarray(a("indptr")), np.asarray(a("indices")).astype(np.int64), torch.from_numpy(np.array(a("feat"), dtype=np.float32)),
            torch.from_numpy(np.array(a("label"), dtype=np.int64)), np.array(a("train_idx")), np.array(a("valid_idx")),
            np.array(a("test_idx")))


def sample_hop(indptr, indices, nodes, fanout, rng):
    """Returns (rows, cols) of sampled edges: rows index `nodes`, cols are global neighbour ids."""
    deg = indptr[nodes + 1] - indptr[nodes]
    rows, cols = [], []
    for i, (v, d) in enumerate(zip(nodes, deg)):
        start = indptr[v]
        if d <= fanout:
            pick = indices[start:start + d]
        else:
            pick = indices[start + rng.choice(d, fanout, replace=False)]
        rows.append(np.full(len(pick), i, dtype=np.int64))
        cols.append(pick)
    return np.concatenate(rows) if rows else np.zeros(0, np.int64), np.concatenate(cols) if cols else np.zeros(0, np.int64)


def sample_blocks(indptr, indices, seeds, fanouts, rng):
    """PyG order: fanouts[0] is the hop from the seeds. Returns input node ids and blocks (input layer first)."""
    nodes = seeds
    blocks = []
    for fanout in fanouts:
        rows, cols = sample_hop(indptr, indices, nodes, fanout, rng)
        # Local ids: destinations first, then new sources in order of appearance.
        uniq, inv = np.unique(cols, return_inverse=True)
        is_dst = np.isin(uniq, nodes)
        position = {int(v): i for i, v in enumerate(nodes)}
        new = uniq[~is_dst]
        mapping = np.empty(len(uniq), np.int64)
        mapping[is_dst] = [position[int(v)] for v in uniq[is_dst]]
        mapping[~is_dst] = len(nodes) + np.arange(len(new))
        src_local = mapping[inv]
        blocks.append((torch.from_numpy(rows), torch.from_numpy(src_local), len(nodes)))
        nodes = np.concatenate([nodes, new])
    return nodes, blocks[::-1]


class Sage(torch.nn.Module):
    def __init__(self, dims, dropout):
        super().__init__()
        self.lin_l = torch.nn.ModuleList([torch.nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:])])
        self.lin_r = torch.nn.ModuleList([torch.nn.Linear(a, b, bias=False) for a, b in zip(dims[:-1], dims[1:])])
        self.dropout = dropout

    def forward(self, x, blocks):
        for i, (dst, src, num_dst) in enumerate(blocks):
            agg = torch.zeros(num_dst, x.size(1)).index_add_(0, dst, x[src])
            count = torch.bincount(dst, minlength=num_dst).clamp(min=1).unsqueeze(1)
            x = self.lin_l[i](agg / count) + self.lin_r[i](x[:num_dst])
            if i + 1 < len(blocks):
                x = F.dropout(F.relu(x), self.dropout, self.training)
        return x


def main():
    p = argparse.ArgumentParser()
    p.add_argument("store")
    p.add_argument("--fanouts", default="15,10,5")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=0.003)
    p.add_argument("--dropout", type=float, default=0.5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    indptr, indices, x, y, train, valid, test = load(a.store)
    fanouts = [int(f) for f in a.fanouts.split(",")]
    model = Sage([x.size(1)] + [a.hidden] * (len(fanouts) - 1) + [int(y.max()) + 1], a.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    for epoch in range(a.epochs):
        model.train()
        t0 = time.time()
        sample_time = 0.0
        order = rng.permutation(train)
        for b in range(0, len(order), a.batch_size):
            seeds = order[b:b + a.batch_size]
            s0 = time.time()
            nodes, blocks = sample_blocks(indptr, indices, seeds, fanouts, rng)
            sample_time += time.time() - s0
            opt.zero_grad()
            loss = F.cross_entropy(model(x[torch.from_numpy(nodes)], blocks), y[torch.from_numpy(seeds)])
            loss.backward()
            opt.step()
        print(json.dumps({"epoch": epoch + 1, "epoch_seconds": time.time() - t0, "sample_seconds": sample_time,
                          "loss": float(loss)}), flush=True)
    model.eval()
    correct = 0
    with torch.no_grad():
        for b in range(0, len(test), 4096):
            seeds = test[b:b + 4096]
            nodes, blocks = sample_blocks(indptr, indices, seeds, [20] * len(fanouts), rng)
            correct += int((model(x[torch.from_numpy(nodes)], blocks).argmax(1) == y[torch.from_numpy(seeds)]).sum())
    print(json.dumps({"final": True, "test_accuracy": correct / len(test)}), flush=True)


if __name__ == "__main__":
    main()
