#include "loom/graph/store_invariants.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "loom/core/error.hpp"
#include "loom/format/half.hpp"
#include "loom/core/parallel.hpp"
#include "loom/graph/build_csr.hpp"
#include "loom/graph/finite_values.hpp"

namespace loom::graph {

namespace {

using core::first_failing;

std::string entry_problem(const format::NpyArray& array, std::int64_t entry, const std::string& what) {
  return fmt::format("{}: entry {}: {}", array.path(), entry, what);
}

bool duplicates_kept(const GraphStore& g) {
  const auto& p = g.meta().provenance;
  if (!p.contains("edge_policy")) return false;
  const std::string policy = p["edge_policy"].value("duplicates", "remove");
  return core::parse_enum(kDuplicatePolicyNames, policy, g.dir() + "/meta.json") == DuplicatePolicy::kKeep;
}

// The first row whose neighbours are not ascending (or, without duplicates, not strictly so).
std::optional<std::string> unsorted_row(const GraphStore& g) {
  const bool strict = !duplicates_kept(g);
  return g.csr().visit([&](auto view) -> std::optional<std::string> {
    const std::int64_t row = first_failing(view.num_rows(), [&](std::int64_t u) {
      const auto n = view.neighbors(u);
      for (std::size_t k = 1; k < n.size(); ++k)
        if (strict ? n[k - 1] >= n[k] : n[k - 1] > n[k]) return false;
      return true;
    });
    if (row < 0) return std::nullopt;
    const auto n = view.neighbors(row);
    std::size_t k = 1;
    while (strict ? n[k - 1] < n[k] : n[k - 1] <= n[k]) ++k;
    return entry_problem(g.csr().indices_array(), view.indptr[row] + static_cast<std::int64_t>(k),
                         fmt::format("row {}: neighbour {} after {} ({})", row, n[k], n[k - 1],
                                     n[k] == n[k - 1] ? "a duplicate" : "not ascending"));
  });
}

// The first edge u -> v of an undirected store whose reverse v -> u is missing (rows sorted).
std::optional<std::string> asymmetric_edge(const GraphStore& g) {
  return g.csr().visit([&](auto view) -> std::optional<std::string> {
    const auto has = [&](std::int64_t from, std::int64_t to) {
      const auto n = view.neighbors(from);
      return std::binary_search(n.begin(), n.end(), static_cast<decltype(n[0] + 0)>(to));
    };
    const std::int64_t row = first_failing(view.num_rows(), [&](std::int64_t u) {
      for (const auto v : view.neighbors(u))
        if (!has(v, u)) return false;
      return true;
    });
    if (row < 0) return std::nullopt;
    for (const auto v : view.neighbors(row))
      if (!has(v, row))
        return fmt::format("{}: the store is undirected but holds the edge {} -> {} and not {} -> {} (not symmetric)",
                           g.csr().indices_array().path(), row, v, v, row);
    return std::nullopt;
  });
}

SplitIds split_ids(const GraphStore& g) {
  SplitIds ids;
  for (const auto& [name, size] : g.meta().splits) ids[name] = g.split(name);
  return ids;
}

std::string split_file(const GraphStore& g, const std::string& name) { return g.dir() + "/" + name + "_idx.npy"; }

void check_finite(const format::NpyArray& array, std::int64_t cols, const std::string& what,
                  std::vector<std::string>& problems) {
  const std::int64_t bad = first_non_finite(array);
  if (bad < 0) return;
  const double value = array.dtype() == format::DType::kFloat16
                           ? static_cast<double>(format::half_to_float(array.span<format::Half>()[bad]))
                           : static_cast<double>(array.span<float>()[bad]);
  problems.push_back(
      fmt::format("{}: row {}, column {}: {} {} is not finite", array.path(), bad / cols, bad % cols, what, value));
}

}  // namespace

std::vector<std::string> store_invariant_problems(const GraphStore& g, bool symmetry) {
  std::vector<std::string> problems;
  // A part whose rows are mapped from the topology store has them checked there.
  if (g.meta().rows_from.empty())
    if (auto p = unsorted_row(g)) problems.push_back(*p);
  // Binary search needs sorted rows: symmetry is checked only on a store whose rows are.
  if (symmetry && !g.meta().directed && problems.empty())
    if (auto p = asymmetric_edge(g)) problems.push_back(*p);
  if (std::string overlap = split_overlap(split_ids(g), g.num_nodes(), [&](const auto& n) { return split_file(g, n); });
      !overlap.empty())
    problems.push_back(std::move(overlap));
  // A part that maps its rows from its source's file (feat_index) leaves that file to the source's check.
  if (g.has_feat() && g.meta().feat_layout == FeatureLayout::kSparse && g.sparse_feat().values.data() != nullptr)
    check_finite(g.sparse_feat().values, 1, "sparse feature entry (row: the entry)", problems);
  else if (g.has_feat() && g.meta().feat_layout == FeatureLayout::kDense && g.meta().feat_index.empty())
    check_finite(g.feat(), g.meta().feat_dim, "feature value", problems);
  if (g.meta().weighted && !g.edge_weight().empty()) check_finite(g.edge_weight(), 1, "edge weight", problems);
  return problems;
}

std::string split_overlap(const SplitIds& splits, std::int64_t rows,
                          const std::function<std::string(const std::string&)>& where) {
  std::vector<std::uint8_t> owner(static_cast<std::size_t>(rows), 0);  // 1 + split index
  std::vector<std::string> names;
  for (const auto& [name, ids] : splits) {
    names.push_back(name);
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0 || ids[i] >= rows) continue;  // ranges are checked where the ids are read
      std::uint8_t& o = owner[static_cast<std::size_t>(ids[i])];
      if (o == names.size())
        return fmt::format("{}: entry {}: node {} appears twice in the {} split", where(name), i, ids[i], name);
      if (o != 0)
        return fmt::format("{}: entry {}: node {} is in both the {} and the {} split", where(name), i, ids[i],
                           names[o - 1], name);
      o = static_cast<std::uint8_t>(names.size());
    }
  }
  return "";
}

std::string leakage_advice() {
  return "a node in two splits is trained on and scored (test leakage), one twice in a split counts twice; "
         "make the splits disjoint and import again (or draw new ones: loom import ... --random-split)";
}

void check_disjoint_splits(const GraphStore& g) {
  const std::string overlap =
      split_overlap(split_ids(g), g.num_nodes(), [&](const auto& name) { return split_file(g, name); });
  if (!overlap.empty()) throw Error(overlap + ": " + leakage_advice() + " (`loom check` lists every problem)");
}

}  // namespace loom::graph
