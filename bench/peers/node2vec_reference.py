"""Reference node2vec / DeepWalk, written from the paper (Grover & Leskovec, "node2vec: Scalable
Feature Learning for Networks", KDD 2016, Algorithm 1 and Section 3.2) the way its authors'
released code does it: the graph in networkx; alias tables precomputed for the first step of a
walk (per node) and for every second-order step (per directed edge t -> v: weight 1/p back to t,
1 to neighbours of t, 1/q elsewhere, normalised); `walks` rounds over the nodes in a shuffled order,
walks of `length` nodes; then gensim's skip-gram with negative sampling (Word2Vec sg=1) over the
walks as sentences. DeepWalk is p = q = 1 of the same procedure: as in the authors' code, the edge
tables are built and used for it too (their weights are then all equal).

Reads a Loom graph store (indptr.npy / indices.npy, orig_id.npy), writes the embeddings in word2vec
text format keyed by the store's original node ids (what `loom embed` writes and `loom eval
nodeclass` reads), and prints one JSON line per seed: preprocess (the graph and the alias tables,
built once for all seeds), walk and train seconds.

Usage: /usr/bin/python3 bench/peers/node2vec_reference.py STORE -o OUT-{seed}.emb --p 0.25 --q 0.25 \
           [--dim 128 --walks 10 --length 80 --window 10 --negative 5 --epochs 1 --workers 2 --seeds 1,2,3]
"""
import argparse
import json
import os
import random
import sys
import time

try:
    import networkx as nx
    import numpy as np
    from gensim.models import Word2Vec
except ImportError as e:  # bench_graph_embed.sh checks first; run alone, say what is missing
    sys.exit(f"node2vec_reference.py: skipped, python module {e.name} missing (apt-get install python3-{e.name})")


def read_graph(store):
    indptr = np.load(os.path.join(store, "indptr.npy"))
    indices = np.load(os.path.join(store, "indices.npy"))
    ids_path = os.path.join(store, "orig_id.npy")
    names = np.load(ids_path) if os.path.exists(ids_path) else np.arange(len(indptr) - 1)
    g = nx.Graph()
    g.add_nodes_from(range(len(indptr) - 1))
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    g.add_edges_from(zip(rows.tolist(), indices.tolist()), weight=1.0)
    return g, [str(int(n)) for n in names]


def alias_setup(probs):
    """Walker's alias method (Vose's variant), as in the authors' code: O(K) set-up, O(1) draws."""
    k = len(probs)
    q = np.zeros(k)
    j = np.zeros(k, dtype=np.int64)
    smaller, larger = [], []
    for kk, prob in enumerate(probs):
        q[kk] = k * prob
        (smaller if q[kk] < 1.0 else larger).append(kk)
    while smaller and larger:
        small, large = smaller.pop(), larger.pop()
        j[small] = large
        q[large] = q[large] + q[small] - 1.0
        (smaller if q[large] < 1.0 else larger).append(large)
    return j, q


def alias_draw(j, q):
    kk = int(np.floor(np.random.rand() * len(j)))
    return kk if np.random.rand() < q[kk] else j[kk]


class Node2Vec:
    def __init__(self, g, p, q):
        self.g, self.p, self.q = g, p, q
        self.neighbors = {v: sorted(g.neighbors(v)) for v in g.nodes()}

    def edge_alias(self, t, v):
        """Alias table of the step after t -> v (the paper's unnormalised pi_vx = alpha_pq(t, x))."""
        w = [1.0 / self.p if x == t else (1.0 if self.g.has_edge(x, t) else 1.0 / self.q) for x in self.neighbors[v]]
        total = sum(w)
        return alias_setup([x / total for x in w])

    def preprocess(self):
        self.alias_nodes = {}
        for v in self.g.nodes():
            deg = len(self.neighbors[v])
            if deg:
                self.alias_nodes[v] = alias_setup([1.0 / deg] * deg)
        self.alias_edges = {}
        for t, v in self.g.edges():
            self.alias_edges[(t, v)] = self.edge_alias(t, v)
            self.alias_edges[(v, t)] = self.edge_alias(v, t)

    def walk(self, length, start):
        walk = [start]
        while len(walk) < length:
            cur = walk[-1]
            nbrs = self.neighbors[cur]
            if not nbrs:
                break
            if len(walk) == 1:
                walk.append(nbrs[alias_draw(*self.alias_nodes[cur])])
            else:
                walk.append(nbrs[alias_draw(*self.alias_edges[(walk[-2], cur)])])
        return walk

    def simulate(self, walks, length):
        nodes = list(self.g.nodes())
        out = []
        for _ in range(walks):
            random.shuffle(nodes)
            out.extend(self.walk(length, v) for v in nodes)
        return out


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("store")
    a.add_argument("-o", "--output", required=True)
    a.add_argument("--p", type=float, default=1.0)
    a.add_argument("--q", type=float, default=1.0)
    a.add_argument("--dim", type=int, default=128)
    a.add_argument("--walks", type=int, default=10)
    a.add_argument("--length", type=int, default=80)
    a.add_argument("--window", type=int, default=10)
    a.add_argument("--negative", type=int, default=5)
    a.add_argument("--epochs", type=int, default=1)
    a.add_argument("--workers", type=int, default=2)
    a.add_argument("--seeds", default="1", help="comma-separated; {seed} in --output is replaced by each")
    args = a.parse_args()

    t0 = time.perf_counter()
    g, names = read_graph(args.store)
    model = Node2Vec(g, args.p, args.q)
    model.preprocess()
    preprocess = time.perf_counter() - t0
    for seed in (int(s) for s in args.seeds.split(",")):
        random.seed(seed)
        np.random.seed(seed)
        t1 = time.perf_counter()
        walks = model.simulate(args.walks, args.length)
        t2 = time.perf_counter()
        sentences = [[names[v] for v in w] for w in walks]
        w2v = Word2Vec(
            sentences,
            vector_size=args.dim,
            window=args.window,
            min_count=0,
            sg=1,
            negative=args.negative,
            workers=args.workers,
            epochs=args.epochs,
            seed=seed,
        )
        t3 = time.perf_counter()
        output = args.output.replace("{seed}", str(seed))
        w2v.wv.save_word2vec_format(output)
        print(
            json.dumps(
                {
                    "seed": seed,
                    "output": output,
                    "preprocess_seconds": preprocess,
                    "walk_seconds": t2 - t1,
                    "train_seconds": t3 - t2,
                    "total_seconds": preprocess + t3 - t1,
                    "walks": len(walks),
                    "steps": sum(len(w) - 1 for w in walks),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
