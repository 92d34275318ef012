"""loom.Loader: Loom's mini-batch data path for a Python model (see loom._loom.Loader for every
option; they are `loom train`'s). loader.epoch(E) iterates the epoch's batches; every rank must
take all of them (the fetches are collective); loader.epoch_stats() then reports the epoch."""
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
