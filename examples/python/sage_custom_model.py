"""GraphSAGE on Loom's data path with a model written in Python, one process or `mpirun -np K` on a
K-way partitioned store, with a VIP cache of remote rows and lookahead prefetching.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/sage_custom_model.py STORE --epochs 3
    mpirun -np 4 --oversubscribe --allow-run-as-root -x PYTHONPATH /usr/bin/python3 \\
        examples/python/sage_custom_model.py PARTS-4 --cache vip --alpha 0.2 --controller lookahead

--model custom (default) trains MySage below: Loom's SAGE layers with layer norm; --model sage
trains loom.nn.GraphSAGE, the model of `loom train --model sage`, with its defaults (SALIENT's
recipe: 3 layers, hidden 256, fanouts 15,10,5, batch 1024, lr 0.003, dropout 0.5). After the last
epoch the test nodes are scored by exact inference (every neighbour, eval_fanouts -1), as
`loom train` does. Each rank-0 epoch goes as one JSON line (loss, seconds, rows, bytes per
channel) to --metrics, which `python3 -m loom.report` draws.
"""
import argparse
import json
import time

import loom  # first: it picks the OpenMP OpenBLAS before torch loads one (loom/_blas.py)
import torch


class MySage(torch.nn.Module):
    """A model of one's own: Loom's SAGE layers with layer norm after each hidden layer."""

    def __init__(self, in_features, hidden, classes, layers, dropout):
        super().__init__()
        widths = [in_features] + [hidden] * (layers - 1)
        self.convs = torch.nn.ModuleList(loom.nn.SAGEConv(a, b) for a, b in zip(widths[:-1], widths[1:]))
        self.norms = torch.nn.ModuleList(torch.nn.LayerNorm(hidden) for _ in widths[1:])
        self.out = loom.nn.SAGEConv(widths[-1], classes)
        self.dropout = dropout

    def forward(self, x, blocks):
        for conv, norm, block in zip(self.convs, self.norms, blocks):
            x = torch.nn.functional.dropout(torch.relu(norm(conv(block, x))), self.dropout, self.training)
        return self.out(blocks[-1], x)


def parse_arguments():
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("store", help="a graph store, or under mpirun a partitioned store with one part per rank")
    a.add_argument("--model", choices=["custom", "sage"], default="custom")
    a.add_argument("--epochs", type=int, default=3)
    a.add_argument("--fanouts", default="15,10,5")
    a.add_argument("--batch-size", type=int, default=1024)
    a.add_argument("--hidden", type=int, default=256)
    a.add_argument("--lr", type=float, default=0.003)
    a.add_argument("--dropout", type=float, default=0.5)
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--cache", default="none", help="static cache policy of remote rows (vip, degree, ...)")
    a.add_argument("--alpha", type=float, default=0.0, help="cache rows per rank = alpha * N / K")
    a.add_argument("--controller", default="none", help="prefetch controller (periodic, rule, lookahead, ...)")
    a.add_argument("--prefetch", type=float, default=0.25, help="prefetch buffer, as a fraction of the halo")
    a.add_argument("--lookahead", type=int, default=0)
    a.add_argument("--threads", type=int, default=0)
    a.add_argument("--metrics", default="", help="JSON lines per epoch (rank 0)")
    return a.parse_args()


def make_model(args, loader, layers):
    torch.manual_seed(args.seed)
    if args.model == "sage":
        return loom.nn.GraphSAGE(loader.feat_dim, args.hidden, loader.num_classes, layers, args.dropout)
    return MySage(loader.feat_dim, args.hidden, loader.num_classes, layers, args.dropout)


def train_epoch(model, loader, optimizer, gradients, epoch):
    """One epoch; the loader's statistics plus the loss and this script's compute and all-reduce time."""
    model.train()
    start, loss_sum, steps, compute, allreduce = time.perf_counter(), 0.0, 0, 0.0, 0.0
    for batch in loader.epoch(epoch):
        t0 = time.perf_counter()
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(batch.x, batch.blocks), batch.y)
        loss.backward()
        t1 = time.perf_counter()
        gradients.all_reduce()
        t2 = time.perf_counter()
        optimizer.step()
        loss_sum, steps = loss_sum + loss.item(), steps + 1
        compute, allreduce = compute + (t1 - t0) + (time.perf_counter() - t2), allreduce + (t2 - t1)
    seconds = time.perf_counter() - start
    stats = loader.epoch_stats()
    stats["phases_seconds"].update(compute=compute, allreduce=allreduce)
    stats.update(epoch_seconds=seconds, loss=loss_sum / max(1, steps))
    return stats


def log_epoch(stats, log):
    features = stats["comm"]["sum"].get("features", {}).get("bytes_received", 0)
    print(
        f"epoch {stats['epoch']}: {stats['epoch_seconds']:.2f}s loss {stats['loss']:.4f} "
        f"remote rows {stats['rows_remote']} cached {stats['rows_cached']} features {features / 2**20:.1f} MiB",
        flush=True,
    )
    if log:
        log.write(json.dumps(stats) + "\n")


def main():
    args = parse_arguments()
    fanouts = [int(f) for f in args.fanouts.split(",")]
    loader = loom.Loader(
        args.store,
        fanouts=fanouts,
        batch_size=args.batch_size,
        seed=args.seed,
        cache=args.cache,
        alpha=args.alpha,
        controller=args.controller,
        prefetch=args.prefetch,
        lookahead=args.lookahead,
        threads=args.threads,
        eval_fanouts=[-1],
    )
    model = make_model(args, loader, len(fanouts))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    gradients = loom.comm.GradientSync(list(model.parameters()))
    rank = loom.comm.rank()
    log = open(args.metrics, "w") if args.metrics and rank == 0 else None
    for epoch in range(args.epochs):
        stats = train_epoch(model, loader, optimizer, gradients, epoch)
        if rank == 0:
            log_epoch(stats, log)
    score = "micro_f1" if loader.multi_label else "accuracy"
    valid, test = (loader.evaluate(model, split)[score] for split in ("valid", "test"))
    if rank == 0:
        print(f"exact inference: valid {score} {valid:.4f} | test {score} {test:.4f}", flush=True)
        if log:  # the record `loom train` writes, so that loom.report shows the final scores
            log.write(json.dumps({"event": "exact_eval", f"valid_{score}": valid, f"test_{score}": test}) + "\n")
            log.close()


if __name__ == "__main__":
    main()
