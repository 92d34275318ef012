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
  // The bytes a vertex's row crosses the network as (the float32 wire): dim * 4 for dense rows;
  // in a sparse store, 4 + 4 per entry, + 4 per entry unless every value of the row is 1.
  std::int64_t dense_row_bytes = 0;
  std::vector<std::int32_t> sparse_row_bytes;  // per global vertex (sparse stores only)
  double row_bytes(std::int64_t v) const {
    return sparse_row_bytes.empty() ? static_cast<double>(dense_row_bytes) : sparse_row_bytes[v];
  }

  // Steps per epoch of the modelled run: every rank takes as many as the largest part needs.
  std::int64_t steps_per_epoch(std::int64_t batch_size) const;
};

AnalysisInput open_analysis_input(const std::string& path);

}  // namespace loom::feature
