"""loom.Loader: Loom's mini-batch data path for a Python model (Loader's docstring lists every
option; they are `loom train`'s). `for batch in loader` (after loader.set_epoch(E)) or
loader.epoch(E) iterates the epoch's batches; every rank must take as many (the fetches are
collective); loader.epoch_stats() then reports the epoch ("epoch": E + 1, as `loom train` numbers
its records; "compute" is the time the caller held the batches, less GradientSync's all-reduce).
loader.evaluate(model, "test") scores a model on a split (or any node set) as `loom train` does,
over all ranks. loom.LinkLoader is the same data path for link prediction (PyG's
LinkNeighborLoader): link batches, negatives, and OGB's metrics."""
import difflib
import os

import torch

from . import _loom

_INT, _FLOAT, _STR, _BOOL = "an int", "a float", "a str", "a bool"
_ARGUMENT_TYPES = {
    "batch_size": _INT, "seed": _INT, "threads": _INT, "pipeline_depth": _INT, "lookahead": _INT, "superbatch": _INT,
    "alpha": _FLOAT, "prefetch": _FLOAT,
    "cache": _STR, "cache_dtype": _STR, "cache_memory": _STR, "controller": _STR, "wire_dtype": _STR, "net_bandwidth": _STR,
    "net_latency": _STR, "net_host_bandwidth": _STR, "net_host_latency": _STR, "normalize_features": _STR,
    "gcn_norm": _BOOL, "shuffle": _BOOL,
}  # fmt: skip
# The option group of each keyword, as the binding takes them (one dict per group).
_GROUPS = {
    "sampling": ("batch_size", "seed", "threads", "shuffle", "eval_fanouts", "device"),
    "data_path": ("pipeline_depth", "superbatch", "wire_dtype", "normalize_features", "gcn_norm", "net_bandwidth",
                  "net_latency", "net_host_bandwidth", "net_host_latency"),
    "cache": ("cache", "alpha", "cache_memory", "cache_dtype"),
    "prefetch": ("controller", "prefetch", "lookahead"),
    "link": ("task", "edge_label_index", "edge_label", "neg_sampling_ratio", "neg_sampling", "drop_target_edges"),
}  # fmt: skip
_GROUP_OF = {keyword: group for group, keywords in _GROUPS.items() for keyword in keywords}


def _is_int(value):
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        or (isinstance(value, torch.Tensor) and value.dim() == 0 and not value.is_floating_point())
    )


def _check_type(name, value, expected):
    ok = {
        _INT: _is_int(value),
        _FLOAT: _is_int(value) or isinstance(value, float),
        _STR: isinstance(value, str),
        _BOOL: isinstance(value, bool),
    }[expected]
    if not ok:
        raise TypeError(f"loom.Loader: {name} must be {expected}, got {type(value).__name__} {value!r}")


# PyG's NeighborLoader keywords and Loom's names for what they ask.
_PYG_NAMES = {"num_neighbors": "fanouts"}


def _check_keywords(call, given, accepted):
    """Raises TypeError naming each keyword `call` does not take in one short line, as Python does
    for a function, with the closest accepted one (or Loom's name for a PyG keyword)."""
    unknown = sorted(set(given) - set(accepted))
    if not unknown:
        return
    hints = []
    for name in unknown:
        close = [_PYG_NAMES[name]] if name in _PYG_NAMES else difflib.get_close_matches(name, sorted(accepted), n=1)
        hints.append(f"'{name}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
    plural = "s" if len(unknown) > 1 else ""
    raise TypeError(f"{call}() got unexpected keyword argument{plural} {', '.join(hints)}; see help({call})")


def _fanout_list(name, value):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(
            f"loom.Loader: {name} must be a list of ints (one per layer, e.g. [15, 10, 5]), got "
            f"{type(value).__name__} {value!r}"
        )
    fanouts = list(value)
    if not fanouts or not all(_is_int(f) for f in fanouts):
        raise TypeError(
            f"loom.Loader: {name} must be a non-empty list of ints (one per layer, e.g. [15, 10, 5]), got {value!r}"
        )
    return [int(f) for f in fanouts]


def node_set(nodes, name="input_nodes"):
    """A node set as Loom's Loader takes it: a split name (str), a list of node names (str), or a
    1-D tensor of node ids or a boolean mask (numpy arrays and lists of ints become tensors)."""
    if isinstance(nodes, str) or isinstance(nodes, torch.Tensor):
        return nodes
    if isinstance(nodes, (list, tuple)) and nodes and all(isinstance(n, str) for n in nodes):
        return list(nodes)
    try:
        tensor = torch.as_tensor(nodes)
    except (TypeError, ValueError, RuntimeError):
        tensor = None
    if tensor is None or tensor.dim() != 1:
        raise TypeError(
            f"loom.Loader: {name} must be a split name, a boolean mask, node ids or node names, got "
            f"{type(nodes).__name__} {nodes!r:.60}"
        )
    return tensor


FORWARDS = {
    "blocks": lambda model, batch: model(batch.x, batch.blocks),
    "edge_index": lambda model, batch: model(batch.x, batch.edge_index)[: batch.batch_size],
}


def seed_logits(model, batch, call="blocks"):
    """The logits of the batch's seeds, the model called as `call` says: "blocks" (Loom's layer
    order: model(x, blocks)), "edge_index" (a PyG model: model(x, edge_index)[:batch_size]), or a
    function (model, batch) -> the seeds' logits."""
    if callable(call):
        return call(model, batch)
    if call not in FORWARDS:
        raise ValueError(f"forward must be 'blocks', 'edge_index' or a function (model, batch) -> logits, got {call!r}")
    try:
        return FORWARDS[call](model, batch)
    except Exception as error:
        other = "edge_index" if call == "blocks" else "blocks"
        error.add_note(
            f"loom: evaluate called the model with forward={call!r}; pass forward={other!r} "
            "(or a function (model, batch) -> logits) if the model takes the other"
        )
        raise


class Loader(_loom.Loader):
    """Loom's mini-batch data path over a graph store (one process) or, under mpirun, over this
    rank's part of a partitioned store: neighbour sampling, input rows from the rank's own rows,
    its static cache, its prefetch buffer or their owners, prepared `pipeline_depth` batches ahead.

        loader = loom.Loader(store, fanouts=[15, 10, 5], batch_size=1024, seed=0)
        for batch in loader:              # the next epoch's batches (or loader.epoch(e))
            out = model(batch.x, batch.blocks)                           # Loom's layers, or
            out = pyg_model(batch.x, batch.edge_index)[:batch.batch_size]  # a PyG model

    input_nodes (PyG's): the training seeds, a split name, a boolean mask, node ids (the ids
    batch.original_ids gives) or names; default the store's "train" split, and a store without
    splits is taken when it is given. Under mpirun each rank trains on its share (the nodes its
    part owns). shuffle=False keeps their order (each batch's seeds are then sorted); every
    batch holds batch_size seeds, the last filled up from the first (as `loom train` does).
    The other keywords are `loom train`'s options: store (str or os.PathLike), fanouts (PyG order:
    the seeds' hop first; no default), batch_size, seed, threads, pipeline_depth, cache ("none", "vip", "simulation", "degree", "halo", "random", "oracle")
    and alpha (or cache_memory="512M"), cache_dtype, controller and prefetch / lookahead (remote-row prefetching),
    wire_dtype, net_bandwidth / net_latency (link emulation), normalize_features, gcn_norm,
    device, eval_fanouts (-1: exact inference), superbatch (batches whose rows are fetched in one
    gather: features on disk read in one sweep for that many steps). Batches: x, y (the seeds'), seeds, input_nodes
    (n_id), blocks, edge_index, batch_size, num_sampled_nodes / num_sampled_edges, to(device),
    to_pyg()."""

    _epoch = 0
    _KEYWORDS = frozenset(_GROUP_OF) - set(_GROUPS["link"]) | {"input_nodes"}
    _PASSED_ON = frozenset()  # keywords a subclass hands on to the binding as they are

    def __init__(self, store, fanouts, *, input_nodes=None, shuffle=True, eval_fanouts=(20,), device="cpu", **options):
        if not isinstance(store, (str, os.PathLike)):
            raise TypeError(f"loom.Loader: store must be a path (str or os.PathLike), got {type(store).__name__}")
        _check_keywords(f"loom.{type(self).__name__}", set(options) - self._PASSED_ON, self._KEYWORDS)
        for name, value in options.items():
            if name in _ARGUMENT_TYPES:
                _check_type(name, value, _ARGUMENT_TYPES[name])
        _check_type("shuffle", shuffle, _BOOL)
        options.update(shuffle=shuffle, eval_fanouts=_fanout_list("eval_fanouts", eval_fanouts), device=str(device))
        groups = {group: {} for group in _GROUPS}
        for name, value in options.items():
            groups[_GROUP_OF[name]][name] = int(value) if _ARGUMENT_TYPES.get(name) == _INT else value
        super().__init__(
            store,
            _fanout_list("fanouts", fanouts),
            input_nodes=None if input_nodes is None else node_set(input_nodes),
            **groups,
        )

    def set_epoch(self, epoch):
        """The epoch (0-based) that the next `for batch in loader` iterates (DistributedSampler's
        set_epoch). Without it each pass over the loader takes the next epoch (0, 1, ...), drawn
        afresh as PyG's loaders reshuffle on every pass."""
        self._epoch = int(epoch)

    def __iter__(self):
        """The batches of the next epoch (see set_epoch)."""
        epoch, self._epoch = self._epoch, self._epoch + 1
        return self.epoch(epoch)

    def __len__(self):
        """Steps (batches) of the next epoch: the same on every rank."""
        return self.steps(self._epoch)

    def epoch(self, epoch):
        """The batches of epoch `epoch` (0-based), prepared ahead on a producer thread. Leaving
        the loop early (break, an exception) ends the epoch there: under mpirun every rank must
        leave it at the same step. One epoch at a time: starting another while one is still being
        iterated raises loom.Error."""
        self.start_epoch(epoch)
        finished = False
        try:
            while True:
                batch = self.next_batch()
                if batch is None:
                    finished = True
                    return
                yield batch
        finally:
            if not finished:
                self.stop_epoch()

    def eval_batches(self, nodes="test", batch_size=4096, seed=0):
        """Batches of this rank's share of `nodes` (a split name, a boolean mask, node ids or
        names: what input_nodes takes) sampled with the loader's eval_fanouts (-1: every
        neighbour, i.e. exact inference). Collective: every rank iterates to the end; a rank with
        fewer nodes gets empty batches (num_seeds == 0)."""
        ids = self.local_nodes(node_set(nodes, "nodes"))
        for step in range(self.eval_steps(ids, batch_size)):
            yield self.eval_batch(ids, step, batch_size, seed)

    def evaluate(self, model, nodes="test", batch_size=4096, seed=0, forward="blocks"):
        """{"accuracy" (or "micro_f1" on multi-label graphs), "loss", "nodes"} of the model on
        `nodes` (a split name, a mask, ids or names), over all ranks (collective), in eval mode and
        without gradients. `forward` says how to call the model, as the training loop does:
        "blocks" (model(x, blocks)), "edge_index" (a PyG model: model(x, edge_index)[:batch_size])
        or a function (model, batch) -> the seeds' logits."""
        was_training = model.training
        model.eval()
        counts = []
        with torch.no_grad():
            for batch in self.eval_batches(nodes, batch_size, seed):
                if batch.num_seeds:
                    batch_counts = self.count(seed_logits(model, batch, forward), batch.y)
                    counts = [a + b for a, b in zip(counts, batch_counts)] if counts else batch_counts
        model.train(was_training)
        return self.score(counts)


def _dot(z_src, z_dst):
    return (z_src * z_dst).sum(-1)


class LinkLoader(Loader):
    """Link prediction's mini-batches (PyG's LinkNeighborLoader) over a graph store or, under
    mpirun, this rank's part of a partitioned store: each batch takes batch_size supervision
    pairs, adds neg_sampling_ratio negatives per pair (node pairs drawn uniformly, or with
    neg_sampling="degree" each endpoint in proportion to its degree), and samples the
    neighbourhoods of their distinct endpoints, which are the batch's seeds (its first rows).

        loader = loom.LinkLoader(store, fanouts=[10, 10], batch_size=256,
                                 edge_label_index=train_edges, neg_sampling_ratio=1.0)
        for batch in loader:
            z = model(batch.x, batch.edge_index)[:batch.batch_size]        # or model(batch.x, batch.blocks)
            out = (z[batch.edge_label_index[0]] * z[batch.edge_label_index[1]]).sum(-1)
            loss = F.binary_cross_entropy_with_logits(out, batch.edge_label)

    edge_label_index: an int tensor [2, E] of node ids (PyG's indices for a store written with
    from_pyg), default every edge of the graph (each undirected edge once); edge_label: 1 or 0
    per pair (default 1). Each rank trains on the pairs whose first node its part owns.
    drop_target_edges=True leaves each batch's positive pairs out of its sampled message graph.
    Batches are Loader's (x, blocks, edge_index, n_id, batch_size, ...) with edge_label_index
    (the pairs as rows of the seeds) and edge_label. The other keywords are Loader's."""

    _LINK_KEYWORDS = frozenset(_GROUPS["link"]) - {"task"}
    _KEYWORDS = Loader._KEYWORDS | _LINK_KEYWORDS
    _PASSED_ON = _LINK_KEYWORDS | {"task"}

    def __init__(
        self,
        store,
        fanouts,
        *,
        edge_label_index=None,
        edge_label=None,
        neg_sampling_ratio=1.0,
        neg_sampling="uniform",
        drop_target_edges=False,
        **options,
    ):
        _check_type("neg_sampling_ratio", neg_sampling_ratio, _FLOAT)
        _check_type("neg_sampling", neg_sampling, _STR)
        _check_type("drop_target_edges", drop_target_edges, _BOOL)
        super().__init__(
            store,
            fanouts,
            task="link",
            edge_label_index=_pair_tensor("edge_label_index", edge_label_index),
            edge_label=_pair_tensor("edge_label", edge_label),
            neg_sampling_ratio=float(neg_sampling_ratio),
            neg_sampling=neg_sampling,
            drop_target_edges=drop_target_edges,
            **options,
        )

    def eval_batches(self, edge_label_index, edge_label=None, batch_size=4096, seed=0):
        """Batches of this rank's share of the labelled pairs (edge_label_index [2, E], edge_label
        1 or 0 each, default 1), sampled with the loader's eval_fanouts; each batch's
        edge_label_index and edge_label hold its pairs. Collective: every rank iterates to the end
        (a rank with fewer pairs gets empty batches)."""
        pairs = self.local_pairs(
            _pair_tensor("edge_label_index", edge_label_index), _pair_tensor("edge_label", edge_label)
        )
        for step in range(self.link_eval_steps(pairs, batch_size)):
            yield self.link_eval_batch(pairs, step, batch_size, seed)

    def evaluate(
        self,
        model,
        edge_label_index,
        edge_label=None,
        batch_size=4096,
        seed=0,
        forward="blocks",
        decoder=_dot,
        hits_at=(20, 50, 100),
    ):
        """{"auc", "mrr", "hits@K"..., "positives", "negatives"} (OGB's metrics, as `loom train
        --task link` reports them) of the model on labelled pairs, over all ranks (collective), in
        eval mode without gradients. forward says how to call the model (as Loader.evaluate);
        decoder(z_src, z_dst) scores pairs from their embeddings (default: the dot product)."""
        was_training = model.training
        model.eval()
        positive, negative = [], []
        with torch.no_grad():
            for batch in self.eval_batches(edge_label_index, edge_label, batch_size, seed):
                if batch.num_seeds:
                    z = seed_logits(model, batch, forward)
                    scores = decoder(z[batch.edge_label_index[0]], z[batch.edge_label_index[1]]).flatten().cpu()
                    label = batch.edge_label.cpu() > 0.5
                    positive.append(scores[label])
                    negative.append(scores[~label])
        model.train(was_training)
        empty = torch.empty(0)
        return self.link_metrics(
            torch.cat(positive) if positive else empty, torch.cat(negative) if negative else empty, list(hits_at)
        )


def _pair_tensor(name, value):
    if value is None or isinstance(value, torch.Tensor):
        return value
    try:
        return torch.as_tensor(value)
    except (TypeError, ValueError, RuntimeError) as error:
        raise TypeError(f"loom.LinkLoader: {name} must be a tensor, got {type(value).__name__}") from error
