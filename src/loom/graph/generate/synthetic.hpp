// Pieces shared by the generators and importers of this folder: the random streams of a run,
// block sizes, seeded Gaussian features, turning an edge list into the symmetric CSR of a
// GraphData, and writing a store whose output directory is claimed before the work starts.
// Arrays are filled in fixed-size blocks seeded by rng.split(stream, block), so the output is
// identical at any thread count.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loom/core/fs.hpp"
#include "loom/core/rng.hpp"
#include "loom/graph/build_csr.hpp"
#include "loom/graph/store.hpp"

namespace loom::graph::generate {

// Random streams of one generator run (children of Rng(seed)).
enum Stream : std::uint64_t {
  kStreamEdges = 1,
  kStreamPermutation,
  kStreamClasses,
  kStreamWeights,
  kStreamCentroids,
  kStreamFeatures,
  kStreamSplits,
};

// Rows per block for per-node work, edges per block for per-edge work.
inline constexpr std::int64_t kNodeBlock = 4096;
inline constexpr std::int64_t kEdgeBlock = 1 << 16;

// n x dim floats, row-major: row v is the centroid of class label[v] (centroids holds one row of
// `dim` per class; empty = all zero, and then `label` may be empty) plus N(0, noise^2) noise.
std::vector<float> gaussian_features(std::int64_t n, std::int64_t dim, std::span<const std::int64_t> label,
                                     std::span<const float> centroids, double noise, const core::Rng& rng);

// Stores `edges` in `data` as a symmetric CSR with duplicates and self-loops removed (the
// edge list's memory is released) and records the counts in data.provenance.
void set_symmetric_graph(EdgeList& edges, GraphData& data);

// Claims `output_dir` (failing early if it exists without overwrite), runs build() -> GraphData,
// writes the store and renames it into place; on any exception nothing is left behind.
template <class Build>
void build_and_write_store(const std::string& output_dir, const StoreWriteOptions& write, Build&& build) {
  core::OutputDir out(output_dir, write.overwrite);
  const GraphData data = build();
  write_store_files(data, out.path(), write.feat_dtype);
  out.commit();
}

}  // namespace loom::graph::generate
