// How a graph's node labels are scored, decided once from its metadata (score_kind_of): accuracy
// where each node has one label, micro-F1 where it has several (multi-label). The names are the
// scores' keys in the records (train_accuracy, valid_micro_f1...) and in Python's score dicts.
#pragma once

#include <string>

#include "loom/core/enum_names.hpp"

namespace loom::scores {

enum class ScoreKind { kAccuracy, kMicroF1 };
inline constexpr core::EnumNames<ScoreKind, 2> kScoreKindNames{
    {{"accuracy", ScoreKind::kAccuracy}, {"micro_f1", ScoreKind::kMicroF1}}};
inline ScoreKind score_kind_of(bool several_labels_per_node) {
  return several_labels_per_node ? ScoreKind::kMicroF1 : ScoreKind::kAccuracy;
}
inline std::string score_name(ScoreKind kind) { return core::enum_name(kScoreKindNames, kind); }

}  // namespace loom::scores
