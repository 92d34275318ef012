"""loom.Loader: Loom's mini-batch data path for a Python model (see loom._loom.Loader for every
option; they are `loom train`'s). `for batch in loader` (after loader.set_epoch(E)) or
loader.epoch(E) iterates the epoch's batches; every rank must take as many (the fetches are
collective); loader.epoch_stats() then reports the epoch ("epoch": E + 1, as `loom train` numbers
its records; "compute" is the time the caller held the batches, less GradientSync's all-reduce).
loader.evaluate(model, "test") scores a model on a split as `loom train` does, over all ranks."""
import inspect

import torch

from . import _loom


def forward(model, batch):
    """The logits of the batch's seeds: model(x, edge_index)[:batch_size] for a PyG-style model
    (its forward's second parameter is named edge_index, as in torch_geometric.nn), else Loom's
    layer order model(x, blocks)."""
    try:
        names = list(inspect.signature(model.forward if hasattr(model, "forward") else model).parameters)
    except (TypeError, ValueError):
        names = []
    if len(names) >= 2 and names[1] == "edge_index":
        return model(batch.x, batch.edge_index)[: batch.batch_size]
    return model(batch.x, batch.blocks)


class Loader(_loom.Loader):
    """Loom's mini-batch data path over a graph store (one process) or, under mpirun, over this
    rank's part of a partitioned store: neighbour sampling, input rows from the rank's own rows,
    its static cache, its prefetch buffer or their owners, prepared `pipeline_depth` batches ahead.

        loader = loom.Loader(store, fanouts=[15, 10, 5], batch_size=1024, seed=0)
        for batch in loader:              # the next epoch's batches (or loader.epoch(e))
            out = model(batch.x, batch.blocks)                           # Loom's layers, or
            out = pyg_model(batch.x, batch.edge_index)[:batch.batch_size]  # a PyG model

    Keywords are `loom train`'s options: store (str or os.PathLike), fanouts (PyG order: the
    seeds' hop first), batch_size, seed, threads, pipeline_depth, cache ("none", "vip", "degree")
    and alpha, cache_dtype, controller and prefetch / lookahead (remote-row prefetching),
    wire_dtype, net_bandwidth / net_latency (link emulation), normalize_features, gcn_norm,
    device, eval_fanouts (-1: exact inference), superbatch (batches whose rows are fetched in one
    gather: features on disk read in one sweep for that many steps). Batches: x, y (the seeds'), seeds, input_nodes
    (n_id), blocks, edge_index, batch_size, num_sampled_nodes / num_sampled_edges, to(device),
    to_pyg()."""

    _epoch = 0

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

    def eval_batches(self, split, batch_size=4096, seed=0):
        """Batches of this rank's nodes of `split` ("train", "valid" or "test") sampled with the
        loader's eval_fanouts (-1: every neighbour, i.e. exact inference). Collective: every rank
        iterates to the end; a rank with fewer nodes gets empty batches (num_seeds == 0)."""
        for step in range(self.eval_steps(split, batch_size)):
            yield self.eval_batch(split, step, batch_size, seed)

    def evaluate(self, model, split, batch_size=4096, seed=0):
        """{"accuracy" (or "micro_f1" on multi-label graphs), "loss", "nodes"} of the model on
        `split` (model(x, blocks), or model(x, edge_index)[:batch_size] for a PyG model: see
        loom.loader.forward), over all ranks (collective), in eval mode and without gradients."""
        was_training = model.training
        model.eval()
        counts = []
        with torch.no_grad():
            for batch in self.eval_batches(split, batch_size, seed):
                if batch.num_seeds:
                    batch_counts = self.count(forward(model, batch), batch.y)
                    counts = [a + b for a, b in zip(counts, batch_counts)] if counts else batch_counts
        model.train(was_training)
        return self.score(counts)
