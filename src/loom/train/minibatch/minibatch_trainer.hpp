// Sampled mini-batch GNN training, single process or data-parallel over MPI ranks (DistDGL /
// SALIENT style). Each rank draws seeds from its own training nodes (all ranks run the same
// number of steps per epoch), samples on the replicated topology, fetches remote feature rows
// from their owners, and trains a replica of the model; gradients are averaged by all-reduce
// after every step. A producer thread prepares the next batches while the current one trains
// (options.data_path.pipeline_depth). Every epoch reports loss, accuracy, the time spent sampling, waiting
// for features, computing and all-reducing, the rows fetched, and bytes/messages per channel.
// run_minibatch is collective over `world`; errors in the options or data are raised on every
// rank together (comm::AgreedError). SIGTERM / SIGINT on any rank stops every rank after the same
// step (the signal rides in that step's gradient all-reduce) with a checkpoint of it, mid-epoch
// included (its step, and each rank's sums of the epoch so far); --resume continues to the
// bit-identical result of an uninterrupted run (dropout is seeded per step).
#pragma once

#include "loom/comm/communicator.hpp"
#include "loom/train/epoch_driver.hpp"
#include "loom/train/training_outputs.hpp"
#include "loom/train/minibatch/minibatch_options.hpp"
#include "loom/scores/score_kind.hpp"

namespace loom::train {

// The run's epochs, memory and stop (TrainingReport), and its scores.
struct MinibatchReport : TrainingReport {
  double final_valid = 0, final_test = 0;                    // exact (or last sampled) scores
  scores::ScoreKind scoring = scores::ScoreKind::kAccuracy;  // what the scores are
};

MinibatchReport run_minibatch(const MinibatchOptions& options, comm::Communicator& world);

// What a mini-batch run (node or link task) writes besides its outputs directory, on this rank
// of `world`: its --output, --metrics, checkpoints and --decision-log file.
TrainingOutputs minibatch_outputs(const MinibatchOptions& options, const comm::Communicator& world);

}  // namespace loom::train
