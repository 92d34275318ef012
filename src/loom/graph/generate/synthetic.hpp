// Pieces shared by the generators and importers of this folder: the random streams of a run,
// block sizes, seeded Gaussian features, turning an edge list into the symmetric CSR of a
// GraphData, writing a store whose output directory is claimed before the work starts, and
// writing a generated store out of core (its edges replayed through csr_writer.hpp, its feature
// rows streamed in blocks), byte-identical to the in-memory path.
// Arrays are filled in fixed-size blocks seeded by rng.split(stream, block), so the output is
// identical at any thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "loom/core/fs.hpp"
#include "loom/core/rng.hpp"
#include "loom/graph/build_csr.hpp"
#include "loom/graph/csr_writer.hpp"
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

// Throws Error naming --nodes or --feat-dim where what a generator holds for them does not fit the
// memory available: per node its label, degree and sampling tables (about 64 bytes), and one block
// of feature rows with the classes' centroids (kNodeBlock + classes rows of `feat_dim` floats).
void check_generator_memory(std::int64_t nodes, std::int64_t classes, std::int64_t feat_dim);

// Seeded Gaussian feature rows: row v is the centroid of class label[v] (centroids holds one row
// of `dim` per class; empty = all zero, and then `label` may be empty) plus N(0, noise^2) noise,
// drawn per block of kNodeBlock rows from rng.split(block).
struct GaussianFeatures {
  std::int64_t dim = 0;
  std::span<const std::int64_t> label;
  std::span<const float> centroids;
  double noise = 1.0;
  core::Rng rng;
  // Rows [begin, end) (block-aligned begin) into out, row-major.
  void draw(std::int64_t begin, std::int64_t end, float* out) const;
};
// All n rows in memory.
std::vector<float> gaussian_features(std::int64_t n, const GaussianFeatures& features);

// Binary bag-of-words rows (stored in the sparse layout, graph/sparse_features.hpp): each row has
// `words` distinct columns of `dim`, half of them (rounded up) from its class's topic (the class's
// block of dim / classes columns), the rest from all columns; row v from stream v of `rng`.
struct BagOfWords {
  std::int64_t dim = 0, words = 0, classes = 1;
  std::span<const std::int64_t> label;
  core::Rng rng;
  // Row v's columns, increasing, into `row`.
  void draw_row(std::int64_t v, std::vector<std::int32_t>& row) const;
};

// Stores `edges` in `data` as a symmetric CSR with duplicates and self-loops removed (the
// edge list's memory is released) and records the counts in data.provenance.
void set_symmetric_graph(EdgeList& edges, GraphData& data);

// Every edge a generative model draws (model.m of them, by model.draw) in memory, over
// `num_nodes` vertices.
template <class Model>
EdgeList draw_edge_list(const Model& model, std::int64_t num_nodes) {
  EdgeList edges;
  edges.num_nodes = num_nodes;
  edges.src.resize(static_cast<std::size_t>(model.m));
  edges.dst.resize(static_cast<std::size_t>(model.m));
  model.draw(0, model.m, edges.src.data(), edges.dst.data());
  return edges;
}

// A generator's edges as a replayable stream: draw(begin, end, src, dst) fills edges [begin, end)
// (begin a multiple of kEdgeBlock, each block from its own random stream); every replay draws
// them again, 64 blocks at a time.
class DrawnEdges : public EdgeStream {
 public:
  using Draw = std::function<void(std::int64_t begin, std::int64_t end, std::int64_t* src, std::int64_t* dst)>;
  DrawnEdges(std::int64_t num_nodes, std::int64_t num_edges, Draw draw)
      : nodes_(num_nodes), edges_(num_edges), draw_(std::move(draw)) {}
  std::int64_t num_nodes() const override { return nodes_; }
  std::int64_t num_edges() const override { return edges_; }
  void replay(const std::function<void(const EdgeChunk&)>& visit) const override;

 private:
  std::int64_t nodes_, edges_;
  Draw draw_;
};

// A generated store without its edges and features: what is O(nodes) and kept in memory.
struct SyntheticRows {
  std::int64_t num_nodes = 0;
  std::vector<std::int64_t> label;  // empty = no labels
  std::int64_t num_classes = 0;
  std::optional<GaussianFeatures> features;
  std::optional<BagOfWords> words;  // instead of `features`: sparse binary rows
  std::map<std::string, std::vector<std::int64_t>> splits;
  nlohmann::json provenance = nlohmann::json::object();
};

// `provenance` becomes the model's provenance followed by what it held (what generating added).
inline void put_model_provenance(nlohmann::json model_provenance, nlohmann::json& provenance) {
  model_provenance.update(provenance);
  provenance = std::move(model_provenance);
}

// A generative model's rows (its features, splits and provenance beside the labels given) and the
// edges it draws (model.m of them, by model.draw): what write_synthetic_store takes.
template <class Model>
SyntheticRows model_rows(const Model& model, std::int64_t nodes, std::vector<std::int64_t> label,
                         std::int64_t classes) {
  return {.num_nodes = nodes,
          .label = std::move(label),
          .num_classes = classes,
          .features = model.features(),
          .words = model.words(),
          .splits = model.splits(),
          .provenance = model.provenance()};
}
template <class Model>
DrawnEdges model_edges(const Model& model, std::int64_t nodes) {
  return DrawnEdges(nodes, model.m,
                    [&model](std::int64_t begin, std::int64_t end, std::int64_t* src, std::int64_t* dst) {
                      model.draw(begin, end, src, dst);
                    });
}
// Writes a whole store out of core into `output_dir` (claimed first; nothing left on failure):
// the symmetric CSR of `edges` (duplicates and self-loops removed) in passes within
// write.memory_bytes, the feature rows in write.feat_dtype block by block, labels and splits.
// `describe` (may be empty) adds provenance from the finished graph (e.g. its edge homophily).
void write_synthetic_store(const std::string& output_dir, const StoreWriteOptions& write, const EdgeStream& edges,
                           SyntheticRows rows, const std::function<void(const Csr&, nlohmann::json&)>& describe = {});

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
