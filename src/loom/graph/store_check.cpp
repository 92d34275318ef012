#include "loom/graph/store_check.hpp"

#include <algorithm>
#include <atomic>
#include <vector>

#include <fmt/format.h>

#include "loom/core/parallel.hpp"

namespace loom::graph {

namespace {

using core::first_failing;

[[noreturn]] void fail(const format::NpyArray& array, std::int64_t entry, const std::string& what) {
  throw Error::in_file(array.path(), 0,
                       fmt::format("entry {}: {} (the store is damaged: `loom check` tells more)", entry, what));
}

void check_csr(const Csr& csr) {
  const auto ptr = csr.indptr();
  const std::int64_t rows = csr.num_rows();
  const std::int64_t bad_ptr = first_failing(rows, [&](std::int64_t v) { return ptr[v] <= ptr[v + 1]; });
  if (bad_ptr >= 0)
    fail(csr.indptr_array(), bad_ptr + 1,
         fmt::format("{} is below the entry before it ({})", ptr[bad_ptr + 1], ptr[bad_ptr]));
  const std::int64_t cols = csr.num_cols();
  csr.visit([&](auto view) {
    const auto* idx = view.indices.data();
    const std::int64_t bad = first_failing(csr.num_edges(), [&](std::int64_t e) {
      const auto v = static_cast<std::int64_t>(idx[e]);
      return v >= 0 && v < cols;
    });
    if (bad >= 0) fail(csr.indices_array(), bad, fmt::format("neighbour id {} outside [0, {})", idx[bad], cols));
  });
}

void check_labels(const GraphStore& g) {
  const format::NpyArray& label = g.label();
  const std::int64_t classes = g.meta().num_classes;
  if (g.meta().multi_label) {
    const auto y = label.span<std::uint8_t>();
    const std::int64_t bad = first_failing(label.size(), [&](std::int64_t i) { return y[i] <= 1; });
    if (bad >= 0) fail(label, bad, fmt::format("label {} is not 0 or 1", y[bad]));
    return;
  }
  const auto y = label.span<std::int64_t>();
  const std::int64_t bad = first_failing(label.size(), [&](std::int64_t i) { return y[i] >= -1 && y[i] < classes; });
  if (bad >= 0) fail(label, bad, fmt::format("label {} outside -1 (unlabeled) and [0, {})", y[bad], classes));
}

}  // namespace

void check_ids_in_range(std::span<const std::int64_t> ids, std::int64_t begin, std::int64_t end,
                        const std::string& path, const std::string& what, std::int64_t offset) {
  const std::int64_t bad = first_failing(static_cast<std::int64_t>(ids.size()),
                                         [&](std::int64_t i) { return ids[i] >= begin && ids[i] < end; });
  if (bad >= 0)
    throw Error::in_file(path, 0,
                         fmt::format("entry {}: {} {} outside [{}, {}) (the store is damaged: `loom check` "
                                     "tells more)",
                                     offset + bad, what, ids[bad], begin, end));
}

void check_store_ranges(const GraphStore& g) {
  check_csr(g.csr());
  if (g.has_label()) check_labels(g);
  if (g.has_feat() && g.meta().feat_layout == FeatureLayout::kSparse)
    check_sparse_features(g.sparse_feat(), g.meta().feat_dim);
  for (const auto& [name, size] : g.meta().splits)
    check_ids_in_range(g.split(name), 0, g.num_nodes(), g.dir() + "/" + name + "_idx.npy", "row id");
}

}  // namespace loom::graph
