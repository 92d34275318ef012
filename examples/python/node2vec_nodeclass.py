"""node2vec embeddings of a labelled graph, scored by node classification and link prediction, from
Python: the vectors come back as a tensor whose row i is node i's (the store's row), with the
nodes' original ids beside it, so they can feed a model of one's own as well as Loom's evaluations.

    loom import ogb ../shared/data/graphs/blogcatalog -o blogcatalog
    PYTHONPATH=build/python /usr/bin/python3 examples/python/node2vec_nodeclass.py blogcatalog --p 0.25 --q 0.25

Defaults are node2vec's (Grover & Leskovec 2016): 10 walks of 80 steps per node, window 10,
128 dimensions; macro/micro-F1 of one-vs-rest logistic regression at the given training ratios.
"""
import argparse
import time

import loom  # first: it picks the OpenMP OpenBLAS before torch loads one (loom/_blas.py)
import torch


def parse_arguments():
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("store", help="a graph store with node labels")
    a.add_argument("--p", type=float, default=1.0, help="return parameter")
    a.add_argument("--q", type=float, default=1.0, help="in-out parameter")
    a.add_argument("--walks", type=int, default=10)
    a.add_argument("--length", type=int, default=80)
    a.add_argument("--dim", type=int, default=128)
    a.add_argument("--ratios", default="0.1,0.5,0.9")
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--linkpred", action="store_true", help="also run the link prediction protocol")
    return a.parse_args()


def main():
    args = parse_arguments()
    start = time.perf_counter()
    # The walks and training of both runs below (embedding, and link prediction's own embedding).
    walk_options = dict(
        p=args.p, q=args.q, walks=args.walks, length=args.length, dim=args.dim, threads=args.threads, seed=args.seed
    )
    ids, vectors = loom.embed.node2vec(args.store, **walk_options)
    print(
        f"node2vec: {len(ids)} nodes x {vectors.shape[1]} in {time.perf_counter() - start:.1f}s; "
        f"mean vector norm {vectors.norm(dim=1).mean():.3f}"
    )
    ratios = [float(r) for r in args.ratios.split(",")]
    scores = loom.eval.nodeclass(ids, vectors, args.store, ratios=ratios, seed=args.seed)
    for row in scores["ratios"]:
        print(f"train ratio {row['train_ratio']:.0%}: macro-F1 {row['macro_f1']:.4f} micro-F1 {row['micro_f1']:.4f}")
    if args.linkpred:
        result = loom.eval.linkpred(args.store, **walk_options, operators=["hadamard", "average", "l1", "l2"])
        for name, figures in result["auc"].items():
            print(f"link prediction, {name}: ROC-AUC {figures['auc']:.4f}")
    # vectors[i] is node i's (the store's row; ids[i] its original id): e.g. the nearest node to
    # the first one by cosine.
    unit = torch.nn.functional.normalize(vectors, dim=1)
    nearest = (unit[1:] @ unit[0]).argmax().item() + 1
    print(f"nearest node to {ids[0]}: {ids[nearest]}")


if __name__ == "__main__":
    main()
