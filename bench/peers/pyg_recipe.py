"""PyG peer of `loom train --config RECIPE` for full-batch recipes (configs/*.toml with
fanouts "-1,-1"): reads the same Loom graph store (the .npy arrays) and the same TOML recipe, builds
the PyG model the recipe names (GCNConv, GATConv or SAGEConv), trains it full-batch as PyG's
examples do, selects the epoch by validation score (ties: lower validation loss) with the recipe's
patience, and prints one JSON line per seed: test and validation accuracy at the selected epoch,
the epoch, and the time.

Usage (Debian's python3, PyG from ../shared/peers/pyg):
  PYTHONPATH=../shared/peers/pyg /usr/bin/python3 bench/peers/pyg_recipe.py STORE RECIPE.toml \
      --seeds 0,1,2 --threads 2
"""
import argparse
import json
import os
import sys
import time
import tomllib

import numpy as np
import torch
import torch.nn.functional as F
from torch_geometric.nn import GATConv, GCNConv, SAGEConv


def load_store(path):
    arr = lambda name: np.load(os.path.join(path, name), mmap_mode="r")
    indptr, indices = np.asarray(arr("indptr.npy")), np.asarray(arr("indices.npy")).astype(np.int64)
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    # Loom's CSR row i lists the neighbours j whose messages i aggregates: edges j -> i.
    edge_index = torch.from_numpy(np.stack([indices, rows]))
    x = torch.from_numpy(np.array(arr("feat.npy"), dtype=np.float32))
    y = torch.from_numpy(np.array(arr("label.npy"), dtype=np.int64))
    split = {k: torch.from_numpy(np.array(arr(f"{k}_idx.npy"), dtype=np.int64)) for k in ("train", "valid", "test")}
    return edge_index, x, y, split


def normalize(x, kind):
    if kind in (None, "none"):
        return x
    if kind == "row":  # each row by its L1 norm, as Loom's --normalize-features row
        norm = x.abs().sum(1, keepdim=True)
        return x / torch.where(norm > 0, norm, torch.ones_like(norm))
    if kind == "standard":
        raise SystemExit("pyg_recipe.py: standard normalisation needs the training split; not used by the recipes")
    raise SystemExit(f"pyg_recipe.py: unknown normalize-features '{kind}'")


class Net(torch.nn.Module):
    def __init__(self, r, in_dim, classes):
        super().__init__()
        kind, layers, hidden = r["model"], r.get("layers", 3), r.get("hidden", 256)
        self.act = F.elu if r.get("activation", "relu") == "elu" else F.relu
        self.dropout, self.input_dropout = r.get("dropout", 0.5), r.get("input-dropout", 0.0)
        self.convs = torch.nn.ModuleList()
        width = in_dim
        for l in range(layers):
            last = l + 1 == layers
            out = classes if last else hidden
            if kind == "gcn":
                conv = GCNConv(width, out, cached=True)
            elif kind == "sage":
                conv = SAGEConv(width, out, aggr="mean")
            elif kind == "gat":
                heads = r.get("heads", 4) or 4
                att = r.get("attention-dropout", 0.0)
                if last:
                    conv = GATConv(width, out, heads=r.get("output-heads", heads) or heads, concat=False, dropout=att)
                elif r.get("head-merge", "concat") == "concat":
                    conv = GATConv(width, out // heads, heads=heads, concat=True, dropout=att)
                else:
                    conv = GATConv(width, out, heads=heads, concat=False, dropout=att)
            else:
                raise SystemExit(f"pyg_recipe.py: unknown model '{kind}'")
            self.convs.append(conv)
            width = out

    def forward(self, x, edge_index):
        x = F.dropout(x, self.input_dropout, self.training)
        for l, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if l + 1 < len(self.convs):
                x = F.dropout(self.act(x), self.dropout, self.training)
        return x


def optimizer(model, r):
    lr, decay = r.get("lr", 0.003), r.get("weight-decay", 0.0)
    layers = r.get("weight-decay-layers")
    if not layers:
        return torch.optim.Adam(model.parameters(), lr=lr, weight_decay=decay)
    decayed = [p for l in layers for p in model.convs[l].parameters()]
    plain = [p for l, c in enumerate(model.convs) if l not in layers for p in c.parameters()]
    return torch.optim.Adam([dict(params=decayed, weight_decay=decay), dict(params=plain, weight_decay=0.0)], lr=lr)


def run(seed, r, data):
    edge_index, x, y, split = data
    torch.manual_seed(seed)
    model = Net(r, x.size(1), int(y.max()) + 1)
    opt = optimizer(model, r)
    epochs, patience = r.get("epochs", 10), r.get("patience", 0)
    best = (-1.0, float("inf"), 0, 0.0)  # valid accuracy, valid loss, epoch, test accuracy
    start = time.perf_counter()
    epoch = 0
    for epoch in range(1, epochs + 1):
        model.train()
        opt.zero_grad()
        out = model(x, edge_index)
        F.cross_entropy(out[split["train"]], y[split["train"]]).backward()
        opt.step()
        model.eval()
        with torch.no_grad():
            out = model(x, edge_index)
            acc = lambda k: (out[split[k]].argmax(1) == y[split[k]]).float().mean().item()
            valid, loss = acc("valid"), F.cross_entropy(out[split["valid"]], y[split["valid"]]).item()
            if valid > best[0] or (valid == best[0] and loss < best[1]):
                best = (valid, loss, epoch, acc("test"))
        if patience and epoch - best[2] >= patience:
            break
    seconds = time.perf_counter() - start
    return {
        "seed": seed,
        "valid_accuracy": best[0],
        "test_accuracy": best[3],
        "best_epoch": best[2],
        "epochs_run": epoch,
        "seconds": seconds,
        "epoch_seconds": seconds / max(1, epoch),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("store")
    p.add_argument("recipe")
    p.add_argument("--seeds", default="0")
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    with open(a.recipe, "rb") as f:
        r = {k.replace("_", "-"): v for k, v in tomllib.load(f).items()}
    fanouts = r.get("fanouts", "-1")
    fanouts = fanouts if isinstance(fanouts, list) else [int(f) for f in str(fanouts).split(",")]
    if any(f >= 0 for f in fanouts):
        sys.exit(f"pyg_recipe.py: {a.recipe} samples neighbourhoods; this peer trains full-batch recipes only")
    torch.set_num_threads(a.threads)
    edge_index, x, y, split = load_store(a.store)
    data = (edge_index, normalize(x, r.get("normalize-features")), y, split)
    for seed in (int(s) for s in a.seeds.split(",")):
        print(json.dumps(run(seed, r, data)), flush=True)


if __name__ == "__main__":
    main()
