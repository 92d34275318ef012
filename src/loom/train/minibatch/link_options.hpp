// Options of link-prediction training (`loom train --task link`, loom.LinkLoader): the decoder,
// the training negatives, the held-out edges Loom splits off, and the Hits@K reported.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/core/enum_names.hpp"
#include "loom/nn/link_decoder.hpp"
#include "loom/loader/link_batches.hpp"
#include "loom/loader/link_split.hpp"

namespace loom::train {

// What `loom train` learns: node labels, or links (edges against non-edges).
enum class Task { kNode, kLink };
inline constexpr core::EnumNames<Task, 2> kTaskNames{{{"node", Task::kNode}, {"link", Task::kLink}}};

struct LinkOptions {
  nn::LinkDecoderKind decoder = nn::LinkDecoderKind::kDot;
  loader::NegativeSampling negatives = loader::NegativeSampling::kUniform;
  double negative_ratio = 1.0;       // training negatives per positive
  bool drop_positive_edges = false;  // leave each batch's positives out of its message graph
  loader::LinkSplitOptions split;
  std::vector<int> hits_at{20, 50, 100};
};

// Throws Error naming the option (--link-valid, --negative-ratio, --hits-at, ...) when out of range.
void check_link_options(const LinkOptions& options);

}  // namespace loom::train
