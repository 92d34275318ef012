"""GraphSAGE with a user-defined model on Loom's data path, one process or `mpirun -np K` on a
K-way partitioned store, with a VIP cache of remote rows and lookahead prefetching.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/sage_custom_model.py STORE [--epochs 3]
    mpirun -np 4 --oversubscribe --allow-run-as-root -x PYTHONPATH \\
        /usr/bin/python3 examples/python/sage_custom_model.py PARTS-4 --cache vip --alpha 0.2 --controller lookahead

Writes one JSON line per epoch (loss, seconds, rows and bytes) to --metrics, which
`python3 -m loom.report` draws.
"""
import argparse
import json
import time

import torch

import loom


class MySage(torch.nn.Module):
    """A model of one's own: Loom's SAGE layers, a residual projection and layer norm."""

    def __init__(self, in_features, hidden, classes, layers, dropout):
        super().__init__()
        widths = [in_features] + [hidden] * (layers - 1)
        self.convs = torch.nn.ModuleList(loom.nn.SAGEConv(a, b) for a, b in zip(widths[:-1], widths[1:]))
        self.norms = torch.nn.ModuleList(torch.nn.LayerNorm(hidden) for _ in widths[1:])
        self.out = loom.nn.SAGEConv(hidden, classes)
        self.dropout = dropout

    def forward(self, x, blocks):
        for conv, norm, block in zip(self.convs, self.norms, blocks):
            x = torch.nn.functional.dropout(torch.relu(norm(conv(block, x))), self.dropout, self.training)
        return self.out(blocks[-1], x)


def main():
    a = argparse.ArgumentParser()
    a.add_argument("store")
    a.add_argument("--epochs", type=int, default=3)
    a.add_argument("--fanouts", default="15,10,5")
    a.add_argument("--batch-size", type=int, default=1024)
    a.add_argument("--hidden", type=int, default=256)
    a.add_argument("--cache", default="none")
    a.add_argument("--alpha", type=float, default=0.0)
    a.add_argument("--controller", default="none")
    a.add_argument("--threads", type=int, default=0)
    a.add_argument("--metrics", default="")
    args = a.parse_args()
    fanouts = [int(f) for f in args.fanouts.split(",")]

    loader = loom.Loader(args.store, fanouts=fanouts, batch_size=args.batch_size, cache=args.cache, alpha=args.alpha,
                         controller=args.controller, threads=args.threads)
    torch.manual_seed(0)
    model = MySage(loader.feat_dim, args.hidden, loader.num_classes, len(fanouts), dropout=0.5)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
    gradients = loom.comm.GradientSync(list(model.parameters()))
    rank = loom.comm.rank()
    log = open(args.metrics, "w") if args.metrics and rank == 0 else None
    for epoch in range(args.epochs):
        model.train()
        start, loss_sum, steps = time.perf_counter(), 0.0, 0
        for batch in loader.epoch(epoch):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(batch.x, batch.blocks), batch.y)
            loss.backward()
            gradients.all_reduce()
            optimizer.step()
            loss_sum, steps = loss_sum + loss.item(), steps + 1
        stats = loader.epoch_stats()
        stats.update(epoch_seconds=time.perf_counter() - start, loss=loss_sum / max(1, steps))
        if rank == 0:
            print(f"epoch {epoch + 1}: {stats['epoch_seconds']:.2f}s loss {stats['loss']:.4f} "
                  f"remote rows {stats['rows_remote']} cached {stats['rows_cached']} "
                  f"features {stats['comm']['sum']['features']['bytes_received'] / 2**20:.1f} MiB", flush=True)
            if log:
                log.write(json.dumps(stats) + "\n")
    if log:
        log.close()


if __name__ == "__main__":
    main()
