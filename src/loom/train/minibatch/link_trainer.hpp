// Link prediction by sampled mini-batch training (`loom train --task link`), SALIENT++'s data
// path with PyG's LinkNeighborLoader recipe: Loom holds out validation and test edges itself
// (link_split.hpp), each rank trains on the positive edges it owns plus sampled negatives
// (link_batches.hpp), their endpoints' neighbourhoods sampled on the message graph and their
// feature rows served by the same caches, prefetch buffer and remote fetches as node
// classification; a GNN embeds the endpoints, a decoder (dot or MLP) scores the pairs, binary
// cross-entropy trains both, and gradients are averaged over the ranks each step. Every
// --eval-every epochs the held-out pairs are scored (evaluation fanouts) and OGB's AUC, Hits@K and
// MRR computed over all ranks; each epoch's record has the loss, the time per phase, the rows and
// the bytes per channel, as `loom train` reports. Collective over `world`; checkpoints, model
// selection and outputs are node-task options and refused here by name. SIGTERM / SIGINT on any
// rank stops every rank after the same step (report.stopped_by; nothing is saved).
#pragma once

#include "loom/comm/communicator.hpp"
#include "loom/train/epoch_driver.hpp"
#include "loom/scores/link_metrics.hpp"
#include "loom/train/minibatch/minibatch_options.hpp"

namespace loom::train {

// The run's epochs and stop (TrainingReport), and its held-out metrics.
struct LinkReport : TrainingReport {
  scores::LinkMetrics valid, test;  // of the last evaluation
};

LinkReport run_link_prediction(const MinibatchOptions& options, comm::Communicator& world);

// Throws Error naming the first --task node option set with --task link.
void check_link_task_options(const MinibatchOptions& options);

}  // namespace loom::train
