"""PyG peer of `loom train` with Loom's mini-batch recipe (3-layer SAGE, hidden 256, fanouts
15,10,5, batch 1024, Adam lr 0.003, dropout 0.5) on a Loom graph store with dense rows (feat.npy):
PyG's NeighborLoader and SAGEConv as PyG's own examples write them, with PyG's faster sparse
adjacency (ToSparseTensor: adj_t, a sparse-dense product, no [edges, features] message tensor,
which on wide rows would not fit in memory), the rows dense as PyG holds a bag of words. Test accuracy by PyG's layer-wise inference (every neighbour, layer by layer, as
its reddit example's `inference`). Prints one JSON line: the epoch seconds (median after the
first; with --max-steps, the epoch's time projected from the steps run, as `loom train
--max-steps` reports it), the test accuracy after the last epoch, the final training loss.

Usage (Debian's python3, PyG from ../shared/peers/pyg):
  PYTHONPATH=../shared/peers/pyg /usr/bin/python3 bench/peers/pyg_neighbor_sage.py STORE \
      --epochs 5 --seed 1 --threads 2
"""
import argparse
import json
import statistics
import time

import torch
import torch.nn.functional as F
import torch_geometric.transforms as T
from torch_geometric.data import Data
from torch_geometric.loader import NeighborLoader
from torch_geometric.nn import SAGEConv

from pyg_recipe import load_store  # the same arrays, read the same way (this script's folder)


class SAGE(torch.nn.Module):
    def __init__(self, widths):
        super().__init__()
        self.convs = torch.nn.ModuleList(SAGEConv(a, b) for a, b in zip(widths[:-1], widths[1:]))

    def forward(self, x, adj_t):
        for i, conv in enumerate(self.convs):
            x = conv(x, adj_t)
            if i + 1 < len(self.convs):
                x = F.dropout(x.relu(), p=0.5, training=self.training)
        return x

    @torch.no_grad()
    def inference(self, x_all, loader):
        for i, conv in enumerate(self.convs):
            out = []
            for batch in loader:
                h = conv(x_all[batch.n_id], batch.adj_t)[: batch.batch_size]
                out.append(h.relu() if i + 1 < len(self.convs) else h)
            x_all = torch.cat(out)
        return x_all


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-steps", type=int, default=0, help="steps per epoch at most (0 = all)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    edge_index, x, y, split = load_store(args.store)
    data = Data(x=x, edge_index=edge_index, y=y, num_nodes=x.size(0))
    classes = int(data.y.max()) + 1
    train_loader = NeighborLoader(
        data,
        input_nodes=split["train"],
        num_neighbors=[15, 10, 5],
        batch_size=1024,
        shuffle=True,
        transform=T.ToSparseTensor(),
    )
    model = SAGE([data.num_features, 256, 256, classes])
    optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
    seconds, loss = [], float("nan")
    for _ in range(args.epochs):
        model.train()
        start, steps = time.perf_counter(), 0
        for batch in train_loader:
            if args.max_steps and steps == args.max_steps:
                break
            steps += 1
            optimizer.zero_grad()
            out = model(batch.x, batch.adj_t)[: batch.batch_size]
            step_loss = F.cross_entropy(out, batch.y[: batch.batch_size])
            step_loss.backward()
            optimizer.step()
            loss = float(step_loss)
        seconds.append((time.perf_counter() - start) * len(train_loader) / steps)
    model.eval()
    every = NeighborLoader(data, num_neighbors=[-1], batch_size=4096, shuffle=False, transform=T.ToSparseTensor())
    predicted = model.inference(data.x, every).argmax(-1)
    test = split["test"]
    accuracy = float((predicted[test] == data.y[test]).float().mean())
    print(
        json.dumps(
            {"epoch_seconds": statistics.median(seconds[1:] or seconds), "test_accuracy": accuracy, "loss": loss}
        )
    )


if __name__ == "__main__":
    main()
