// Gathered sparse feature rows (feature::FeatureSource::gather_sparse, RowTable::gather_sparse) as
// what a model takes (sparse_linear.hpp): a [rows, dim] float32 sparse CSR tensor with int32 row
// offsets and columns (cuSPARSE's index type).
#pragma once

#include <cstdint>

#include <torch/torch.h>

#include "loom/graph/sparse_features.hpp"

namespace loom::nn {

// In pinned host memory where asked (the arrays copied there), else holding `rows`' arrays as
// they are. Error where the rows hold 2^31 entries or more.
torch::Tensor csr_tensor(graph::SparseRows rows, std::int64_t dim, bool pinned = false);

}  // namespace loom::nn
