// One epoch of full-graph training as `loom fullgraph` records it: a typed record with one
// to_json() (the metrics line and the checkpoint's history) and one console line. Scores are
// accuracy or micro-F1 (`scoring`); the exact-inference fields are set only on the epochs
// that --eval-every evaluates.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "loom/comm/stats.hpp"
#include "loom/scores/score_kind.hpp"

namespace loom::train {

struct FullGraphEpoch {
  int epoch = 0;  // 1-based
  double seconds = 0, lr = 0;
  double loss = 0, grad_norm = 0;  // the summed loss and the whole model's gradient norm
  double bubble_seconds = 0;       // the slowest rank's wait for its neighbouring stages
  double exchange_seconds = 0;     // the slowest rank's time in mirror exchanges
  comm::GlobalCommStats traffic;   // the epoch's messages, every rank
  double train_score = 0;          // on the training nodes, during the epoch's forward pass
  // Exact inference after the epoch:
  bool evaluated = false;
  double eval_train_score = 0, valid_score = 0, test_score = 0, eval_seconds = 0;
  std::uint64_t eval_bytes = 0;

  nlohmann::json to_json(scores::ScoreKind scoring) const;
  void log() const;  // the console line
};

}  // namespace loom::train
