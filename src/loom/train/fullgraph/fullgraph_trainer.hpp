// Full-graph training of deep GNNs over MPI ranks (`loom fullgraph`): graph parallelism (every
// layer exchanges the halo), GNNPipe's pipelined layer-wise model parallelism (stages own
// contiguous layer ranges balanced by counted costs; chunks flow through the stages; historical
// embeddings for cross-chunk neighbours) and their hybrid (fullgraph_layout.hpp,
// stage_engine.hpp). One optimizer step per epoch; weight gradients are summed within a stage
// (and, for the input part that several stages run, over all ranks) on comm::Channel::weights.
// Every epoch reports time, loss, accuracy, pipeline bubble time and bytes/messages per channel;
// the setup record gives the layer split and the bytes the cost formulas predict. With an
// output directory, the last epoch's exact inference is written as predictions (and
// embeddings) keyed by original id (training_outputs.hpp).
// run_fullgraph is collective over `world`; bad options or data fail on every rank together.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/comm/communicator.hpp"
#include "loom/train/epoch_driver.hpp"
#include "loom/train/fullgraph/fullgraph_options.hpp"
#include "loom/scores/score_kind.hpp"

namespace loom::train {

// The run's epochs, memory and stop (TrainingReport; a signal stops it at an epoch boundary), its
// setup record and its scores.
struct FullGraphReport : TrainingReport {
  nlohmann::json setup;
  double final_train = 0, final_valid = 0, final_test = 0;
  scores::ScoreKind scoring = scores::ScoreKind::kAccuracy;  // what the scores are
};

FullGraphReport run_fullgraph(const FullGraphOptions& options, comm::Communicator& world);

}  // namespace loom::train
