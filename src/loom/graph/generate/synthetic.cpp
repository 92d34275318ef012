#include "loom/graph/generate/synthetic.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "loom/core/memory.hpp"
#include "loom/format/float_rows.hpp"
#include "loom/format/npy.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/progress.hpp"

namespace loom::graph::generate {

void check_generator_memory(std::int64_t nodes, std::int64_t classes, std::int64_t feat_dim) {
  constexpr double kBytesPerNode = 64;
  core::check_memory_for(kBytesPerNode * static_cast<double>(nodes), "--nodes",
                         fmt::format("{} nodes' labels, degrees and sampling tables", nodes));
  core::check_memory_for(4.0 * static_cast<double>(feat_dim) * static_cast<double>(kNodeBlock + classes), "--feat-dim",
                         fmt::format("rows of {} features", feat_dim));
}

void GaussianFeatures::draw(std::int64_t begin, std::int64_t end, float* out) const {
  core::parallel_for_blocks(end - begin, kNodeBlock, [&](std::int64_t first, std::int64_t last, std::int64_t) {
    const std::int64_t block = (begin + first) / kNodeBlock;
    core::Rng r = rng.split(static_cast<std::uint64_t>(block));
    float* rows = out + first * dim;
    const std::int64_t count = (last - first) * dim;
    // Box-Muller, both outputs of each pair used.
    for (std::int64_t i = 0; i < count; i += 2) {
      double u1 = r.uniform();
      while (u1 <= 0.0) u1 = r.uniform();
      const double radius = noise * std::sqrt(-2.0 * std::log(u1));
      const double angle = 6.283185307179586 * r.uniform();
      rows[i] = static_cast<float>(radius * std::cos(angle));
      if (i + 1 < count) rows[i + 1] = static_cast<float>(radius * std::sin(angle));
    }
    if (centroids.empty()) return;
    for (std::int64_t v = first; v < last; ++v) {
      const float* centre = centroids.data() + label[begin + v] * dim;
      float* row = out + v * dim;
      for (std::int64_t j = 0; j < dim; ++j) row[j] += centre[j];
    }
  });
}

std::vector<float> gaussian_features(std::int64_t n, const GaussianFeatures& features) {
  std::vector<float> feat(static_cast<std::size_t>(n * features.dim));
  features.draw(0, n, feat.data());
  return feat;
}

void set_symmetric_graph(EdgeList& edges, GraphData& data) {
  const auto generated = static_cast<std::int64_t>(edges.src.size());
  BuiltCsr csr = build_csr(edges, CsrBuildOptions{});
  data.indptr = std::move(csr.indptr);
  data.indices = std::move(csr.indices);
  data.directed = false;
  data.provenance["generated_edges"] = generated;
  data.provenance["self_loops_removed"] = csr.self_loops_removed;
  data.provenance["duplicates_removed"] = csr.duplicates_removed;
}

void DrawnEdges::replay(const std::function<void(const EdgeChunk&)>& visit) const {
  const std::int64_t chunk = 64 * kEdgeBlock;
  std::vector<std::int64_t> src(static_cast<std::size_t>(std::min(chunk, edges_)));
  std::vector<std::int64_t> dst(src.size());
  for (std::int64_t begin = 0; begin < edges_; begin += chunk) {
    const std::int64_t end = std::min(edges_, begin + chunk);
    draw_(begin, end, src.data(), dst.data());
    const auto count = static_cast<std::size_t>(end - begin);
    visit({std::span<const std::int64_t>(src).first(count), std::span<const std::int64_t>(dst).first(count), {}});
  }
}

namespace {

// Rows per group of feature blocks drawn at once (kNodeBlock-aligned) for ~64 MiB of float32.
std::int64_t feature_group_rows(std::int64_t dim) {
  const std::int64_t blocks = std::max<std::int64_t>(1, (std::int64_t{64} << 20) / (kNodeBlock * dim * 4));
  return blocks * kNodeBlock;
}

void write_feature_rows(const std::string& path, std::int64_t n, const GaussianFeatures& features,
                        format::DType dtype) {
  format::NpyWriter out(path, dtype, {features.dim});
  const std::int64_t group = feature_group_rows(features.dim);
  std::vector<float> rows;
  core::ProgressBar bar("features", n, "rows");
  for (std::int64_t begin = 0; begin < n; begin += group) {
    const std::int64_t end = std::min(n, begin + group), count = (end - begin) * features.dim;
    rows.resize(static_cast<std::size_t>(count));
    features.draw(begin, end, rows.data());
    if (dtype == format::DType::kFloat32)
      out.append(rows.data(), end - begin);
    else
      out.append(format::narrowed(rows, dtype).data(), end - begin);
    bar.update(end - begin);
  }
  bar.finish();
  out.finish();
}

}  // namespace

void BagOfWords::draw_row(std::int64_t v, std::vector<std::int32_t>& row) const {
  const std::int64_t topic = std::max<std::int64_t>(1, dim / std::max<std::int64_t>(1, classes));
  core::Rng r = rng.split(static_cast<std::uint64_t>(v));
  const std::int64_t first = std::min(dim - topic, label.empty() ? 0 : label[v] * topic);
  row.clear();
  while (static_cast<std::int64_t>(row.size()) < words) {
    const bool from_topic = static_cast<std::int64_t>(row.size()) < (words + 1) / 2;
    const auto column = static_cast<std::int32_t>(
        from_topic ? first + static_cast<std::int64_t>(r.below(static_cast<std::uint64_t>(topic)))
                   : static_cast<std::int64_t>(r.below(static_cast<std::uint64_t>(dim))));
    if (std::find(row.begin(), row.end(), column) == row.end()) row.push_back(column);
  }
  std::sort(row.begin(), row.end());
}

namespace {

// `words`' rows into dir: sparse (returns the entries) or as dense feat.npy rows, a block at a time.
std::int64_t write_words(const BagOfWords& words, std::int64_t n, const std::string& dir, FeatureLayout layout,
                         format::DType dtype) {
  std::vector<std::int32_t> row;
  if (layout == FeatureLayout::kSparse) {
    SparseRowsWriter out(dir, dtype);
    for (std::int64_t v = 0; v < n; ++v) {
      words.draw_row(v, row);
      out.add_row(row);
    }
    out.finish();
    return out.nnz();
  }
  const std::int64_t dim = words.dim, block = std::max<std::int64_t>(1, (std::int64_t{64} << 20) / (4 * dim));
  format::NpyWriter out(dir + "/feat.npy", format::DType::kFloat32, {dim});
  std::vector<float> buffer;
  for (std::int64_t begin = 0; begin < n; begin += block) {
    const std::int64_t count = std::min(block, n - begin);
    buffer.assign(static_cast<std::size_t>(count * dim), 0.0F);
    for (std::int64_t v = begin; v < begin + count; ++v) {
      words.draw_row(v, row);
      for (const std::int32_t c : row) buffer[(v - begin) * dim + c] = 1.0F;
    }
    out.append(buffer.data(), count);
  }
  out.finish();
  return n * words.words;
}

}  // namespace

void write_synthetic_store(const std::string& output_dir, const StoreWriteOptions& write, const EdgeStream& edges,
                           SyntheticRows rows, const std::function<void(const Csr&, nlohmann::json&)>& describe) {
  core::OutputDir out(output_dir, write.overwrite);
  const std::string dir = out.path();
  const CsrWriteReport csr = write_csr_files(edges, CsrBuildOptions{}, dir, write.memory_bytes);
  const std::int64_t n = rows.num_nodes;
  if (!rows.label.empty()) format::write_npy(dir + "/label.npy", rows.label);
  if (rows.features) write_feature_rows(dir + "/feat.npy", n, *rows.features, write.feat_dtype);
  const bool sparse_words = rows.words && write.words_layout == FeatureLayout::kSparse;
  const std::int64_t words_nnz =
      rows.words ? write_words(*rows.words, n, dir, write.words_layout, write.feat_dtype) : 0;
  for (const auto& [name, ids] : rows.splits) format::write_npy(dir + "/" + name + "_idx.npy", ids);

  StoreMeta m;
  m.num_nodes = n;
  m.num_edges = csr.num_edges;
  m.feat_dim = rows.features ? rows.features->dim : rows.words ? rows.words->dim : 0;
  if (sparse_words) {
    m.feat_layout = FeatureLayout::kSparse;
    m.feat_nnz = words_nnz;
  }
  m.feat_dtype = write.feat_dtype;
  m.num_classes = rows.label.empty() ? 0 : rows.num_classes;
  for (const auto& [name, ids] : rows.splits) m.splits[name] = static_cast<std::int64_t>(ids.size());
  m.provenance = std::move(rows.provenance);
  m.provenance["generated_edges"] = csr.input_edges;
  m.provenance["self_loops_removed"] = csr.self_loops_removed;
  m.provenance["duplicates_removed"] = csr.duplicates_removed;
  if (describe) {
    const Csr graph(format::NpyArray::map(dir + "/indptr.npy"), format::NpyArray::map(dir + "/indices.npy"), n);
    describe(graph, m.provenance);
  }
  finish_store(dir, m);
  out.commit();
}

}  // namespace loom::graph::generate
