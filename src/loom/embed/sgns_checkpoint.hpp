// Checkpoints and graceful stops of SGNS training (`loom embed text|deepwalk|node2vec
// --checkpoint-dir DIR [--checkpoint-every N] [--keep-checkpoints K] [--resume]`), in the
// directories of format/checkpoint_dir.hpp: input.npy and output.npy (the two weight matrices,
// rows x stride float32, each row padded with zeros as EmbeddingMatrix keeps it) and state.json
// with the fingerprint of what shapes the result (vocabulary and its counts, SGNS and
// synchronisation options, ranks). The weights are the same on every rank at a step boundary, so
// rank 0 writes DIR and every rank reads it (a directory every rank sees, as with `loom train`).
// train_sgns_checkpointed() is train_sgns_synced() with them: with `resume` it starts from the
// newest intact checkpoint of DIR (a damaged newer one is reported by name and skipped); it saves
// one at the end of every `every`-th epoch; and on SIGTERM / SIGINT on any rank
// (core::stop_signal(), agreed on by every rank at each step boundary: an epoch in one process, a
// synchronisation round across ranks) every rank stops there, rank 0 saves it, and the signal
// comes back in SgnsStats::stopped_by. With threads == 1 a resumed run reaches the weights of an
// uninterrupted one bit for bit. Collective.
#pragma once

#include <string>

#include "loom/embed/synced_sgns.hpp"

namespace loom::embed {

struct SgnsCheckpoints {
  std::string dir;  // empty: no checkpoints (a signal still stops training at a step boundary)
  int every = 0;    // epochs between checkpoints (0: only when stopped by a signal)
  int keep = 0;     // keep only the newest `keep` (0: all)
  bool resume = false;
  bool replace = false;  // without `resume`: an earlier run's checkpoints in `dir` go when training starts
};

// Throws Error naming --resume (without --checkpoint-dir), --checkpoint-every or --keep-checkpoints.
void check(const SgnsCheckpoints& checkpoints);

SgnsStats train_sgns_checkpointed(const Corpus& corpus, std::span<const std::int64_t> counts,
                                  const SgnsOptions& options, const SyncOptions& sync,
                                  const SgnsCheckpoints& checkpoints, SgnsModel& model,
                                  SyncStats* sync_stats = nullptr);

}  // namespace loom::embed
