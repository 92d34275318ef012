// Exact k-nearest-neighbour graph of feature vectors under cosine similarity. Rows are
// normalised; similarities come from square tiles of the similarity matrix (one cblas_sgemm
// each, single-threaded BLAS, tiles in parallel), and only tiles on or above the diagonal are
// computed: each serves its rows directly and its columns transposed, halving the work. Each row
// keeps its k most similar other rows (itself excluded by index), ordered by similarity and then
// by smaller id, which makes the result independent of the thread count. Memory beyond the
// input: a normalised copy (n * dim floats), the result (n * k), and two tile x tile blocks per
// thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/graph/build_csr.hpp"

namespace loom::graph::generate {

struct KnnOptions {
  std::int64_t tile = 1024;  // rows and columns per sgemm tile
};

struct KnnResult {
  std::int64_t num_nodes = 0;
  int k = 0;
  // Row i's neighbours are neighbors[i*k .. i*k+k), most similar first, with their cosine
  // similarities in the same positions of `similarity`.
  std::vector<std::int64_t> neighbors;
  std::vector<float> similarity;
};

// features: n rows of `dim` floats, row-major. Requires 1 <= k < n (Error naming "--k").
// An all-zero row has similarity 0 to every row.
KnnResult knn_graph(std::span<const float> features, std::int64_t n, std::int64_t dim, int k,
                    const KnnOptions& options = {});

// The kNN result as directed edges i -> neighbour (build with symmetric=true for the union).
EdgeList knn_edge_list(const KnnResult& knn);

}  // namespace loom::graph::generate
