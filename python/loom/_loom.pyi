"""Type stubs of loom._loom, written by scripts/python_stubs.py from pybind11's signatures."""
import os
import typing

import torch

__version__: str

class AgreedError(Error):
    ...

class Batch:
    """One prepared mini-batch: inputs, labels, ids and blocks"""
    def __repr__(self: Batch) -> str: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def blocks(self) -> list[Block]: ...
    @property
    def edge_index(self) -> torch.Tensor: ...
    @property
    def edge_label(self) -> torch.Tensor: ...
    @property
    def edge_label_index(self) -> torch.Tensor: ...
    @property
    def input_nodes(self) -> torch.Tensor: ...
    @property
    def n_id(self) -> torch.Tensor: ...
    @property
    def num_sampled_edges(self) -> list[int]: ...
    @property
    def num_sampled_nodes(self) -> list[int]: ...
    @property
    def num_seeds(self) -> int: ...
    @property
    def original_ids(self) -> object: ...
    @property
    def seeds(self) -> torch.Tensor: ...
    def to(self: Batch, device: object) -> Batch: ...  # the batch with every tensor and block on `device` (a torch.device or its name)
    def to_pyg(self: Batch) -> object: ...  # a torch_geometric.data.Data as NeighborLoader yields (x, edge_index, y of the seeds, n_id, batch_size, num_sampled_nodes, num_sampled_edges); needs PyG
    @property
    def x(self) -> torch.Tensor: ...
    @property
    def y(self) -> torch.Tensor: ...

class Block:
    """One layer's message-flow graph: num_dst destinations (the first num_dst sources) aggregating from num_src sources along a CSR over the destinations"""
    def __init__(self: Block, indptr: torch.Tensor, indices: torch.Tensor, num_src: int) -> None: ...
    def __repr__(self: Block) -> str: ...
    def edge_index(self: Block) -> torch.Tensor: ...  # int64 [2, num_edges] (local source, local destination): PyG's layout for a bipartite layer (x = (x_src, x_src[:num_dst]))
    @property
    def indices(self) -> torch.Tensor: ...
    @property
    def indptr(self) -> torch.Tensor: ...
    @property
    def num_dst(self) -> int: ...
    @property
    def num_edges(self) -> int: ...
    @property
    def num_src(self) -> int: ...
    def to(self: Block, device: str) -> Block: ...

class Error(RuntimeError):
    ...

class GraphStore:
    """A Loom graph store (what `loom import` / `generate` write), memory-mapped"""
    def __init__(self: GraphStore, path: os.PathLike[str] | str, *, verify: bool = True) -> None: ...  # verify: check every file against the digests the store records before any is read (as every `loom` command does; reads the whole store once), and meta.json against its seal
    def __repr__(self: GraphStore) -> str: ...
    @property
    def directed(self) -> bool: ...
    def edge_index(self: GraphStore) -> torch.Tensor: ...  # int64 [2, num_edges] (source, destination), PyG's layout (a copy)
    @property
    def edge_weight(self) -> object: ...
    @property
    def feat_dim(self) -> int: ...
    @property
    def features(self) -> object: ...
    @property
    def indices(self) -> torch.Tensor: ...
    @property
    def indptr(self) -> torch.Tensor: ...
    @property
    def labels(self) -> object: ...
    @property
    def multi_label(self) -> bool: ...
    @property
    def num_classes(self) -> int: ...
    @property
    def num_edges(self) -> int: ...
    @property
    def num_nodes(self) -> int: ...
    @property
    def original_ids(self) -> object: ...
    @property
    def path(self) -> str: ...
    def split(self: GraphStore, name: str) -> torch.Tensor: ...  # int64 row ids of a split ('train', 'valid', 'test')
    @property
    def splits(self) -> list[str]: ...

class LinkPairs:
    """This rank's share of labelled node pairs (Loader.local_pairs)"""
    def __len__(self: LinkPairs) -> int: ...
    @property
    def positives(self) -> int: ...

class Loader:
    """Loom's mini-batch data path (what `loom train` runs) for a Python model"""
    def __init__(self: Loader, store: os.PathLike[str] | str, fanouts: list[int], input_nodes: typing.Optional[typing.Union[str, torch.Tensor, list[str]]] = None, sampling: dict = {}, data_path: dict = {}, cache: dict = {}, prefetch: dict = {}, link: dict = {}) -> None: ...  # the keywords of each option group as a dict (loom.Loader sorts them): sampling (batch_size, seed, threads, shuffle, eval_fanouts, device), data_path (pipeline_depth, superbatch, wire_dtype, normalize_features, gcn_norm, net_bandwidth, net_latency, net_host_bandwidth, net_host_latency), cache (cache, alpha, cache_dtype), prefetch (controller, prefetch, lookahead), link (task, edge_label_index, edge_label, neg_sampling_ratio, neg_sampling, drop_target_edges)
    def count(self: Loader, logits: torch.Tensor, labels: torch.Tensor) -> list: ...  # loom train's score counts of one batch (add them up over batches, then score())
    def epoch_stats(self: Loader) -> dict: ...  # rows local / cached / remote, feature bytes, seconds per phase, bytes and messages per channel, over all ranks, for the epoch just iterated
    def eval_batch(self: Loader, ids: torch.Tensor, step: int, batch_size: int, seed: int = 0) -> Batch: ...  # batch `step` of this rank's ids (from local_nodes) with the evaluation fanouts (collective)
    def eval_steps(self: Loader, ids: torch.Tensor, batch_size: int) -> int: ...  # steps of evaluating this rank's ids (from local_nodes; the most any rank needs; collective)
    @property
    def feat_dim(self) -> int: ...
    def link_eval_batch(self: Loader, pairs: LinkPairs, step: int, batch_size: int, seed: int = 0) -> Batch: ...  # batch `step` of the pairs with the evaluation fanouts, edge_label_index and edge_label set (collective)
    def link_eval_steps(self: Loader, pairs: LinkPairs, batch_size: int) -> int: ...  # steps of evaluating this rank's pairs (the most any rank needs; collective)
    def link_metrics(self: Loader, positive: torch.Tensor, negative: torch.Tensor, hits_at: list[int] = [20, 50, 100]) -> dict: ...  # AUC, Hits@K and MRR (OGB's) of this rank's positive and negative pair scores, over all ranks (collective)
    @property
    def links(self) -> bool: ...
    def local_nodes(self: Loader, nodes: typing.Union[str, torch.Tensor, list[str]]) -> torch.Tensor: ...  # this rank's share of a node set (a split name, a boolean mask, original ids or names) as global ids, in the order given (collective)
    def local_pairs(self: Loader, edge_label_index: torch.Tensor, edge_label: typing.Optional[torch.Tensor] = None) -> LinkPairs: ...  # this rank's share of labelled pairs (edge_label_index: [2, E] node ids; edge_label: 1 or 0 each, default 1) for link_eval_batch (collective)
    @property
    def multi_label(self) -> bool: ...
    def next_batch(self: Loader) -> typing.Optional[Batch]: ...  # the next batch of the started epoch, or None after the last
    @property
    def num_classes(self) -> int: ...
    @property
    def num_nodes(self) -> int: ...
    def score(self: Loader, counts: list[float]) -> dict: ...  # accuracy (or micro_f1), mean loss and nodes of summed counts, over all ranks (collective)
    def start_epoch(self: Loader, epoch: int) -> None: ...
    def steps(self: Loader, epoch: int = 0) -> int: ...  # steps of an epoch (the same on every rank)
    def stop_epoch(self: Loader) -> None: ...  # ends the epoch being iterated before its last batch (every rank at the same step); closing an epoch's iterator calls it

class PartitionedStore:
    """A partitioned store (what `loom partition` writes)"""
    def __init__(self: PartitionedStore, path: os.PathLike[str] | str, *, verify: bool = True) -> None: ...  # verify: check every file of the store and its parts against their digests first, and meta.json against its seal
    @property
    def new_to_source(self) -> torch.Tensor: ...
    @property
    def node_offsets(self) -> torch.Tensor: ...
    @property
    def num_nodes(self) -> int: ...
    @property
    def num_parts(self) -> int: ...
    def part(self: PartitionedStore, k: int) -> GraphStore: ...  # part k's own store: its rows, their features, labels and local splits
    @property
    def path(self) -> str: ...
    @property
    def topology(self) -> GraphStore: ...

def run(args: list[str], option_names: str = 'cli') -> int: ...  # runs `loom ARGS...` in this process (e.g. ['generate', 'sbm', '-o', 'g', '--nodes', '1000']) and returns its exit status; a usage error or a failure raises loom.Error with the CLI's message (options named --like-this, or like_this with option_names='python')

def set_log_level(level: str) -> None: ...  # trace|debug|info (default)|warn|error|off; under mpirun ranks > 0 log warnings only

class comm:  # submodule loom.comm
    """Ranks, collectives and the per-channel communication counters"""
    class GradientSync:
        """Averages parameter gradients over all ranks in flat buckets (gradients channel)"""
        def __init__(self: comm.GradientSync, parameters: list[torch.Tensor]) -> None: ...
        def all_reduce(self: comm.GradientSync) -> None: ...  # after backward(): every rank's gradients become their mean over the ranks
    @staticmethod
    def abort(message: str) -> None: ...  # prints the message and ends every rank of the job
    @staticmethod
    def allreduce_sum(values: list[float]) -> list[float]: ...  # element-wise sum over all ranks (control channel)
    @staticmethod
    def barrier() -> None: ...
    @staticmethod
    def global_stats() -> object: ...  # collective: the counters summed and maxed over all ranks (and per rank on rank 0)
    @staticmethod
    def rank() -> int: ...
    @staticmethod
    def set_timeout(seconds: float) -> None: ...  # `loom --comm-timeout`: how long a rank waits for a silent peer, in a collective some rank has not joined (a loop left or stalled on one rank), or at exit for the others, before it ends the job with a message naming the ranks and their steps (default 300; 0: forever). Collective once MPI has started.
    @staticmethod
    def size() -> int: ...
    @staticmethod
    def stats() -> object: ...  # this rank's bytes and messages sent and received per channel since start

class embed:  # submodule loom.embed
    """Word2Vec, DeepWalk and node2vec (skip-gram with negative sampling)"""
    @staticmethod
    def deepwalk(store: os.PathLike[str] | str, walks: int = 10, length: int = 80, dim: int = 128, window: int = 10, negative: int = 5, sample: float = 0.001, epochs: int = 1, threads: int = 2, seed: int = 1, kernel: str = 'shared') -> tuple: ...  # (ids, vectors) of DeepWalk on a graph store: uniform random walks + skip-gram; vectors[i] is node i's (the store's row), ids its original ids (an int64 tensor, or str names)
    @staticmethod
    def node2vec(store: os.PathLike[str] | str, p: float = 1.0, q: float = 1.0, walks: int = 10, length: int = 80, dim: int = 128, window: int = 10, negative: int = 5, sample: float = 0.001, epochs: int = 1, threads: int = 2, seed: int = 1, kernel: str = 'shared') -> tuple: ...  # (ids, vectors) of node2vec on a graph store: second-order walks (return p, in-out q) + skip-gram; vectors[i] is node i's (the store's row), ids its original ids (an int64 tensor, or str names)
    @staticmethod
    def word2vec(corpus: os.PathLike[str] | str, dim: int = 100, window: int = 5, negative: int = 5, sample: float = 0.0001, epochs: int = 5, min_count: int = 5, threads: int = 2, seed: int = 1, kernel: str = 'batched', cbow: bool = False, tokenize: str = 'lower-letters') -> tuple: ...  # (words, vectors [len(words), dim]) trained on a text corpus, one sentence per line (gzip or plain)

class eval:  # submodule loom.eval
    """The evaluations of `loom eval`, returning their figures"""
    @staticmethod
    def analogy(words: list[str], vectors: torch.Tensor, questions: os.PathLike[str] | str, top: int = 30000) -> object: ...  # word analogy accuracy (questions-words.txt format), overall and per section
    @staticmethod
    def linkpred(store: os.PathLike[str] | str, p: float = 1.0, q: float = 1.0, walks: int = 10, length: int = 80, dim: int = 128, window: int = 10, negative: int = 5, sample: float = 0.001, epochs: int = 1, threads: int = 2, seed: int = 1, kernel: str = 'shared', operators: list[str] = ['hadamard'], remove_fraction: float = 0.5) -> object: ...  # node2vec's link prediction protocol (`loom eval linkpred`): hold out edges, embed the rest with node2vec (p = q = 1: DeepWalk), ROC-AUC per edge operator
    @staticmethod
    def nodeclass(keys: object, vectors: torch.Tensor, store: os.PathLike[str] | str, ratios: list[float] = [0.5], repeats: int = 5, seed: int = 1) -> object: ...  # node classification of the store's labels (one-vs-rest logistic regression; macro/micro-F1 per ratio)
    @staticmethod
    def similarity(words: list[str], vectors: torch.Tensor, pairs: os.PathLike[str] | str) -> object: ...  # Spearman and Pearson correlation with human scores

class ops:  # submodule loom.ops
    """Loom's aggregation kernels as autograd functions"""
    @staticmethod
    def aggregate(block: Block, x: torch.Tensor, kind: str) -> torch.Tensor: ...  # x [num_src, F] -> [num_dst, F]: 'sum', 'mean' or 'gcn' (D^-1/2 (A + I) D^-1/2 with the block's GCN norms: the whole graph's degrees for blocks a Loader built)
    @staticmethod
    def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor: ...  # torch.nn.functional.dropout with a 1-byte mask held for backward instead of a float one
    @staticmethod
    def gat_aggregate(block: Block, x: torch.Tensor, a_src: torch.Tensor, a_dst: torch.Tensor, negative_slope: float = 0.2, self_loops: bool = True, attention_dropout: float = 0.0, training: bool = False) -> torch.Tensor: ...  # GAT's fused edge softmax and weighted sum: x [num_src, H, F], a_src [num_src, H], a_dst [num_dst, H] -> [num_dst, H, F]
    @staticmethod
    def relu_dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor: ...
    @staticmethod
    def sparse_linear(x: torch.Tensor, weight: torch.Tensor, rows: int) -> torch.Tensor: ...  # x[:rows] @ weight.t() for a torch.sparse_csr x [n, in] (a sparse Batch.x) and a dense weight [out, in], never widening x: a threaded CPU kernel (cuSPARSE on a GPU); the gradient flows to the weight only
