#include "loom/graph/io/import_common.hpp"

#include <atomic>
#include <filesystem>

#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"

namespace fs = std::filesystem;

namespace loom::graph::io {

nlohmann::json policy_json(const EdgePolicy& policy) {
  return {{"directed", policy.directed},
          {"duplicates", policy.duplicates == DuplicatePolicy::kRemove ? "remove" : "keep"},
          {"self_loops", policy.self_loops == SelfLoopPolicy::kRemove ? "remove" : "keep"}};
}

void assemble_edges(EdgeList& edges, const EdgePolicy& policy, GraphData& data) {
  const auto input_edges = static_cast<std::int64_t>(edges.src.size());
  CsrBuildOptions options;
  options.symmetric = !policy.directed;
  options.duplicates = policy.duplicates;
  options.self_loops = policy.self_loops;
  BuiltCsr built = build_csr(edges, options);

  // Self-loops that stay in the CSR (kept by policy) are stored once even when symmetric.
  std::atomic<std::int64_t> loops_kept{0};
  if (policy.self_loops == SelfLoopPolicy::kKeep) {
    core::parallel_for(built.num_nodes, [&](std::int64_t u) {
      std::int64_t local = 0;
      for (auto i = built.indptr[u]; i < built.indptr[u + 1]; ++i) local += built.indices[i] == u;
      if (local) loops_kept.fetch_add(local, std::memory_order_relaxed);
    }, 4096);
  }
  const auto stored = static_cast<std::int64_t>(built.indices.size());

  data.indptr = std::move(built.indptr);
  data.indices = std::move(built.indices);
  data.edge_weight = std::move(built.weight);
  data.directed = policy.directed;
  auto& counts = data.provenance["counts"];
  counts["input_edges"] = input_edges;
  counts["self_loops_removed"] = built.self_loops_removed;
  counts["duplicate_entries_removed"] = built.duplicates_removed;
  counts["stored_edges"] = stored;
  if (!policy.directed) counts["undirected_edges"] = (stored - loops_kept.load()) / 2 + loops_kept.load();
  data.provenance["edge_policy"] = policy_json(policy);
}

std::string find_maybe_gz(const std::string& dir, const std::string& stem) {
  const std::string base = dir + "/" + stem;
  if (fs::is_regular_file(base + ".gz")) return base + ".gz";
  if (fs::is_regular_file(base)) return base;
  return "";
}

void require_source(const std::string& path, const std::string& argument, bool directory) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error::in_argument(argument, "'" + path + "' does not exist");
  if (directory && !fs::is_directory(path, ec)) throw Error::in_argument(argument, "'" + path + "' is not a directory");
  if (!directory && fs::is_directory(path, ec)) throw Error::in_argument(argument, "'" + path + "' is a directory, expected a file");
}

}  // namespace loom::graph::io
