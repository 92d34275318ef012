"""pyg-lib's neighbour sampler on a Loom graph store: the peer of bench_sampler's throughput rows.

Samples the same number of batches (fanouts 15,10,5, batch 1024, seeds a shuffled prefix of the
nodes) with torch.ops.pyg.neighbor_sample, as PyG's NeighborLoader calls it (without
replacement, directed, no edge ids), at each thread count given, and prints one markdown row per
count in bench_sampler's columns. Run with ../shared/peers/pyg on PYTHONPATH.
"""

import argparse
import os
import time

import numpy as np
import torch


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("store", help="a Loom graph store (indptr.npy, indices.npy)")
    parser.add_argument("--threads", default="1,2", help="comma-separated torch thread counts")
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--fanouts", default="15,10,5")
    args = parser.parse_args()

    import pyg_lib  # noqa: F401  (registers torch.ops.pyg)

    indptr = torch.from_numpy(np.load(os.path.join(args.store, "indptr.npy")).astype(np.int64))
    indices = torch.from_numpy(np.load(os.path.join(args.store, "indices.npy")).astype(np.int64))
    num_nodes = indptr.numel() - 1
    fanouts = [int(f) for f in args.fanouts.split(",")]
    generator = torch.Generator().manual_seed(7)
    seeds = torch.randperm(num_nodes, generator=generator)[: args.batches * args.batch_size]
    torch.manual_seed(1)
    for threads in (int(t) for t in args.threads.split(",")):
        torch.set_num_threads(threads)
        edges = 0
        batches = 0
        wall = time.perf_counter()
        cpu = time.process_time()
        for start in range(0, seeds.numel(), args.batch_size):
            out = torch.ops.pyg.neighbor_sample(
                indptr,
                indices,
                seeds[start : start + args.batch_size],
                fanouts,
                None,
                None,
                True,
                False,
                True,
                False,
                "uniform",
                False,
            )
            edges += out[0].numel()
            batches += 1
        wall = time.perf_counter() - wall
        cpu = time.process_time() - cpu
        print(
            f"| pyg-lib {pyg_lib.__version__} | {num_nodes} | {indices.numel()} | {threads} | {batches} | "
            f"{1e3 * wall / batches:.2f} ({1e3 * cpu / batches:.2f}) | {edges / wall / 1e6:.1f} |"
        )


if __name__ == "__main__":
    main()
