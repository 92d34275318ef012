"""loom.Loader: Loom's mini-batch data path for a Python model (see loom._loom.Loader for every
option; they are `loom train`'s). loader.epoch(E) iterates the epoch's batches; every rank must
take all of them (the fetches are collective); loader.epoch_stats() then reports the epoch.
loader.evaluate(model, "test") scores a model on a split as `loom train` does, over all ranks."""
import torch

from . import _loom


class Loader(_loom.Loader):
    def epoch(self, epoch):
        """The batches of epoch `epoch` (0-based), prepared ahead on a producer thread."""
        self.start_epoch(epoch)
        while True:
            batch = self.next_batch()
            if batch is None:
                return
            yield batch

    def eval_batches(self, split, batch_size=4096, seed=0):
        """Batches of this rank's nodes of `split` ("train", "valid" or "test") sampled with the
        loader's eval_fanouts (-1: every neighbour, i.e. exact inference). Collective: every rank
        iterates to the end; a rank with fewer nodes gets empty batches (num_seeds == 0)."""
        for step in range(self.eval_steps(split, batch_size)):
            yield self.eval_batch(split, step, batch_size, seed)

    def evaluate(self, model, split, batch_size=4096, seed=0):
        """{"accuracy" (or "micro_f1" on multi-label graphs), "loss", "nodes"} of model(x, blocks)
        on `split`, over all ranks (collective), in eval mode and without gradients."""
        was_training = model.training
        model.eval()
        counts = []
        with torch.no_grad():
            for batch in self.eval_batches(split, batch_size, seed):
                if batch.num_seeds:
                    batch_counts = self.count(model(batch.x, batch.blocks), batch.y)
                    counts = [a + b for a, b in zip(counts, batch_counts)] if counts else batch_counts
        model.train(was_training)
        return self.score(counts)
