#!/usr/bin/env python3
"""Peer for bench/bench_train.sh and bench/bench_gpu.sh: GraphSAGE mini-batch training in plain
PyTorch, written the way PyG's NeighborLoader + SAGEConv run it: node-wise sampling without
replacement per hop (all neighbours when degree <= fanout), mean aggregation with a root weight,
ReLU + dropout between layers, Adam, cross-entropy. It reads the same Loom graph store (.npy
arrays) and prints one JSON line per epoch plus a final line with test accuracy.

--sampler python (default) samples node by node with NumPy on the CPU, as a hand-written loader
would; --sampler torch samples every hop at once with tensor ops on --device (a random key per
edge of the frontier, the `fanout` smallest keys of each node kept), as GPU samplers do (DGL's,
PyG's on CUDA), so that on a GPU the whole step runs there. --max-steps cuts each epoch short and
reports the time the whole epoch would take at that pace.
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
    return (
        np.asarray(a("indptr")),
        np.asarray(a("indices")).astype(np.int64),
        torch.from_numpy(np.array(a("feat"), dtype=np.float32)),
        torch.from_numpy(np.array(a("label"), dtype=np.int64)),
        np.array(a("train_idx")),
        np.array(a("valid_idx")),
        np.array(a("test_idx")),
    )


def sample_hop(indptr, indices, nodes, fanout, rng):
    """Returns (rows, cols) of sampled edges: rows index `nodes`, cols are global neighbour ids."""
    deg = indptr[nodes + 1] - indptr[nodes]
    rows, cols = [], []
    for i, (v, d) in enumerate(zip(nodes, deg)):
        start = indptr[v]
        if d <= fanout:
            pick = indices[start : start + d]
        else:
            pick = indices[start + rng.choice(d, fanout, replace=False)]
        rows.append(np.full(len(pick), i, dtype=np.int64))
        cols.append(pick)
    return np.concatenate(rows) if rows else np.zeros(0, np.int64), np.concatenate(cols) if cols else np.zeros(
        0, np.int64
    )


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


def sample_hop_torch(indptr, indices, nodes, fanout, generator):
    """Tensor version of sample_hop on the device of `indptr`: (rows, cols) of the sampled edges."""
    start, deg = indptr[nodes], indptr[nodes + 1] - indptr[nodes]
    total = int(deg.sum())
    if total == 0:
        empty = torch.zeros(0, dtype=torch.long, device=nodes.device)
        return empty, empty
    row = torch.repeat_interleave(torch.arange(len(nodes), device=nodes.device), deg)
    offset = torch.arange(total, device=nodes.device) - torch.repeat_interleave(torch.cumsum(deg, 0) - deg, deg)
    # Within each row, edges ordered by a random key; the first `fanout` are a uniform sample without replacement.
    key = torch.rand(total, generator=generator, device=nodes.device, dtype=torch.float64)
    order = torch.argsort(row.to(torch.float64) + key)
    rank = torch.empty_like(order)
    rank[order] = offset
    keep = rank < fanout
    return row[keep], indices[start[row[keep]] + offset[keep]]


def sample_blocks_torch(indptr, indices, seeds, fanouts, generator, mark):
    """sample_blocks with tensor ops; `mark` is a -1-filled int64 array of one slot per node (restored)."""
    nodes = seeds
    blocks = []
    for fanout in fanouts:
        rows, cols = sample_hop_torch(indptr, indices, nodes, fanout, generator)
        mark[nodes] = torch.arange(len(nodes), device=nodes.device)
        new = torch.unique(cols[mark[cols] < 0])
        mark[new] = len(nodes) + torch.arange(len(new), device=nodes.device)
        blocks.append((rows, mark[cols], len(nodes)))
        nodes = torch.cat([nodes, new])
        mark[nodes] = -1
    return nodes, blocks[::-1]


class Sage(torch.nn.Module):
    def __init__(self, dims, dropout):
        super().__init__()
        self.lin_l = torch.nn.ModuleList([torch.nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:])])
        self.lin_r = torch.nn.ModuleList([torch.nn.Linear(a, b, bias=False) for a, b in zip(dims[:-1], dims[1:])])
        self.dropout = dropout

    def forward(self, x, blocks):
        for i, (dst, src, num_dst) in enumerate(blocks):
            agg = torch.zeros(num_dst, x.size(1), device=x.device).index_add_(0, dst, x[src])
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
    p.add_argument("--device", default="cpu", help="cpu or cuda: where the model (and the torch sampler) run")
    p.add_argument("--sampler", choices=["python", "torch"], default="python")
    p.add_argument("--max-steps", type=int, default=0, help="steps per epoch at most (0 = all)")
    p.add_argument("--no-test", action="store_true", help="skip the test accuracy")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    device = torch.device(a.device)
    indptr, indices, x, y, train, valid, test = load(a.store)
    fanouts = [int(f) for f in a.fanouts.split(",")]
    model = Sage([x.size(1)] + [a.hidden] * (len(fanouts) - 1) + [int(y.max()) + 1], a.dropout).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    if a.sampler == "torch":  # the whole graph, features and labels on the device
        t_indptr, t_indices = torch.from_numpy(indptr).to(device), torch.from_numpy(indices).to(device)
        x_dev, y_dev = x.to(device), y.to(device)
        mark = torch.full((len(indptr) - 1,), -1, dtype=torch.long, device=device)
        generator = torch.Generator(device=device)
        generator.manual_seed(a.seed)

    def batch(seeds, fanouts):
        """(input features, blocks, labels) of a batch of seeds (a NumPy array), on the device."""
        if a.sampler == "torch":
            seeds_dev = torch.from_numpy(np.ascontiguousarray(seeds)).to(device)
            nodes, blocks = sample_blocks_torch(t_indptr, t_indices, seeds_dev, fanouts, generator, mark)
            return x_dev[nodes], blocks, y_dev[seeds_dev]
        nodes, blocks = sample_blocks(indptr, indices, seeds, fanouts, rng)
        blocks = [(dst.to(device), src.to(device), n) for dst, src, n in blocks]
        return x[torch.from_numpy(nodes)].to(device), blocks, y[torch.from_numpy(seeds)].to(device)

    full_steps = (len(train) + a.batch_size - 1) // a.batch_size
    steps = min(full_steps, a.max_steps) if a.max_steps > 0 else full_steps
    for epoch in range(a.epochs):
        model.train()
        sync()
        t0 = time.time()
        sample_time = 0.0
        order = rng.permutation(train)
        for step in range(steps):
            seeds = order[step * a.batch_size : (step + 1) * a.batch_size]
            s0 = time.time()
            inputs, blocks, labels = batch(seeds, fanouts)
            sample_time += time.time() - s0
            opt.zero_grad()
            loss = F.cross_entropy(model(inputs, blocks), labels)
            loss.backward()
            opt.step()
        sync()
        seconds = time.time() - t0
        record = {
            "epoch": epoch + 1,
            "epoch_seconds": seconds,
            "sample_seconds": sample_time,
            "loss": float(loss),
            "steps": steps,
        }
        if steps < full_steps:
            record.update(full_steps=full_steps, projected_epoch_seconds=seconds * full_steps / steps)
        print(json.dumps(record), flush=True)
    if a.no_test:
        return
    model.eval()
    correct = 0
    with torch.no_grad():
        for b in range(0, len(test), 4096):
            seeds = test[b : b + 4096]
            inputs, blocks, labels = batch(seeds, [20] * len(fanouts))
            correct += int((model(inputs, blocks).argmax(1) == labels).sum())
    print(json.dumps({"final": True, "test_accuracy": correct / len(test)}), flush=True)


if __name__ == "__main__":
    main()
