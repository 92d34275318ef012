// What the no-training analyses (`loom analyze cache|prefetch`) read from a store: the whole
// graph's topology, the partition book, and every part's training ids (global) and halo size. A
// plain graph store counts as one part with nothing remote. Throws Error naming the store when it
// has no training split or an unknown format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/graph/store.hpp"
#include "loom/partition/partition_book.hpp"

namespace loom::feature {

struct AnalysisInput {
  graph::GraphStore topology;
  partition::PartitionBook book;
  std::vector<std::vector<std::int64_t>> train_ids;  // per part, global ids
  std::vector<std::int64_t> halo_sizes;              // per part: remote neighbours of its nodes

  // Steps per epoch of the modelled run: every rank takes as many as the largest part needs.
  std::int64_t steps_per_epoch(std::int64_t batch_size) const;
};

AnalysisInput open_analysis_input(const std::string& path);

}  // namespace loom::feature
