// Relabelling after partitioning: new global ids such that part p owns the contiguous range
// [offset(p), offset(p+1)) of the PartitionBook, keeping the source's relative order of the
// nodes within each part (stable). relabel_rows() produces CSR rows of the source graph in
// the new id space (rows in new order, neighbours as new global ids, each row sorted, edge
// weights carried along), for the whole graph or for one part's range.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/graph/store.hpp"
#include "loom/partition/partition_book.hpp"

namespace loom::partition {

struct Relabelling {
  PartitionBook book;
  std::vector<std::int64_t> new_to_source;  // new global id -> source dense id
  std::vector<std::int64_t> source_to_new;  // source dense id -> new global id
};

// `parts` holds a part id in [0, num_parts) per source node; throws Error otherwise.
Relabelling relabel_by_part(std::span<const std::int32_t> parts, int num_parts);

// Fills out.indptr, out.indices (new global ids) and out.edge_weight for the new ids `rows`.
void relabel_rows(const graph::GraphStore& source, const Relabelling& relabelling, IdRange rows, graph::GraphData& out);

}  // namespace loom::partition
