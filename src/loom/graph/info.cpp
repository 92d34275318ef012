#include "loom/graph/info.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "loom/core/fs.hpp"
#include "loom/core/memory.hpp"

namespace loom::graph {

DegreeStats degree_stats(const Csr& csr) {
  DegreeStats s;
  const std::int64_t n = csr.num_rows();
  if (n == 0) return s;
  std::vector<std::int64_t> deg(n);
  const auto ptr = csr.indptr();
  for (std::int64_t v = 0; v < n; ++v) {
    deg[v] = ptr[v + 1] - ptr[v];
    s.isolated += deg[v] == 0;
  }
  s.mean = static_cast<double>(csr.num_edges()) / static_cast<double>(n);
  auto nth = [&](double q) {
    auto k = static_cast<std::int64_t>(q * static_cast<double>(n - 1));
    std::nth_element(deg.begin(), deg.begin() + k, deg.end());
    return deg[k];
  };
  s.median = nth(0.5);
  s.p99 = nth(0.99);
  const auto [mn, mx] = std::minmax_element(deg.begin(), deg.end());
  s.min = *mn;
  s.max = *mx;
  return s;
}

nlohmann::json describe(const GraphDescription& d) {
  nlohmann::json j;
  j["nodes"] = d.num_nodes;
  j["stored_edges"] = d.num_edges;
  j["directed"] = d.directed;
  if (!d.directed) j["undirected_edges_approx"] = d.num_edges / 2;
  j["weighted"] = d.weighted;
  if (d.feat_dim > 0)
    j["features"] = {{"shape", {d.num_nodes, d.feat_dim}},
                     {"dtype", format::dtype_name(d.feat_dtype)},
                     {"layout", core::enum_name(kFeatureLayoutNames, d.feat_layout)}};
  if (d.feat_dim > 0 && d.feat_layout == FeatureLayout::kSparse) {
    j["features"]["nonzero"] = d.feat_nnz;
    j["features"]["density"] =
        static_cast<double>(d.feat_nnz) / static_cast<double>(std::max<std::int64_t>(1, d.num_nodes * d.feat_dim));
  }
  if (d.feat_dim == 0) j["features"] = nullptr;
  j["classes"] = d.num_classes;
  j["multi_label"] = d.multi_label;
  j["splits"] = d.splits;
  j["id_map"] = id_map_name(d.id_map);
  j["id_map_note"] = d.id_map_note;
  return j;
}

nlohmann::json store_summary(const GraphStore& store) {
  const auto& m = store.meta();
  const auto deg = degree_stats(store.csr());
  nlohmann::json j = describe(m);
  j["dir"] = store.dir();
  j["format"] = "loom-graph";
  j["index_dtype"] = store.csr().wide_ids() ? "int64" : "int32";
  if (!m.feat_from.empty() && m.feat_index.empty()) j["features"]["mapped_from"] = m.feat_from;
  j["degree"] = {{"min", deg.min}, {"mean", deg.mean}, {"median", deg.median},
                 {"p99", deg.p99}, {"max", deg.max},   {"isolated", deg.isolated}};
  if (m.partition)
    j["partition"] = {
        {"part", m.partition->part}, {"num_parts", m.partition->num_parts}, {"node_offset", m.partition->node_offset}};
  j["disk_bytes"] = core::directory_size(store.dir());
  j["provenance"] = m.provenance;
  return j;
}

namespace {

void add_line(std::string& out, const std::string& key, const std::string& value) {
  out += fmt::format("{:<12} {}\n", key + ":", value);
}

std::string degree_text(const nlohmann::json& d) {
  return fmt::format("min {} mean {:.2f} median {} p99 {} max {} isolated {}", d["min"].get<std::int64_t>(),
                     d["mean"].get<double>(), d["median"].get<std::int64_t>(), d["p99"].get<std::int64_t>(),
                     d["max"].get<std::int64_t>(), d["isolated"].get<std::int64_t>());
}

// The lines of the graph's description (describe()), and a graph store's degree statistics.
void add_description(std::string& out, const nlohmann::json& j) {
  add_line(out, "nodes", fmt::format("{}", j["nodes"].get<std::int64_t>()));
  add_line(out, "edges",
           fmt::format("{} stored{}", j["stored_edges"].get<std::int64_t>(),
                       j["directed"].get<bool>() ? " (directed)" : " (both directions of each undirected edge)"));
  if (j.contains("degree")) add_line(out, "degree", degree_text(j["degree"]));
  const auto& f = j["features"];
  add_line(
      out, "features",
      f.is_null()
          ? "none"
          : fmt::format("{} x {} {}{}{}", f["shape"][0].get<std::int64_t>(), f["shape"][1].get<std::int64_t>(),
                        f["dtype"].get<std::string>(),
                        f.contains("nonzero")
                            ? fmt::format(", sparse: {} nonzero ({:.2f}%)", f["nonzero"].get<std::int64_t>(),
                                          100 * f["density"].get<double>())
                            : "",
                        f.contains("mapped_from") ? " (mapped from " + f["mapped_from"].get<std::string>() + ")" : ""));
  const auto classes = j["classes"].get<std::int64_t>();
  add_line(out, "classes",
           classes == 0 ? "none" : fmt::format("{}{}", classes, j["multi_label"].get<bool>() ? " (multi-label)" : ""));
  std::string splits;
  for (const auto& [name, size] : j["splits"].items())
    splits += fmt::format("{}{} {}", splits.empty() ? "" : ", ", name, size.get<std::int64_t>());
  add_line(out, "splits", splits.empty() ? "none" : splits);
  std::string ids = j["id_map"].get<std::string>();
  if (!j["id_map_note"].get<std::string>().empty()) ids += " (" + j["id_map_note"].get<std::string>() + ")";
  add_line(out, "ids", ids);
}

// A partitioned store's edge cut and balance lines.
void add_partition_quality(std::string& out, const nlohmann::json& j) {
  const auto& cut = j["edge_cut"];
  add_line(out, "edge cut",
           fmt::format("{} of {} edges ({:.2f}%)", cut["cut"].get<std::int64_t>(), cut["edges"].get<std::int64_t>(),
                       100.0 * cut["fraction"].get<double>()));
  const auto& b = j["balance"];
  add_line(out, "balance",
           fmt::format("nodes {:.3f}  edges {:.3f}  train {:.3f}  (max/mean)", b["nodes"].get<double>(),
                       b["edges"].get<double>(), b["train_nodes"].get<double>()));
}

// A partitioned store's per-part table.
std::string parts_table(const nlohmann::json& parts) {
  std::string out = fmt::format("{:>5} {:>25} {:>11} {:>13} {:>10} {:>10} {:>10}\n", "part", "global ids", "nodes",
                                "edges", "train", "halo", "disk");
  for (const auto& p : parts) {
    out += fmt::format("{:>5} {:>25} {:>11} {:>13} {:>10} {:>10} {:>10}\n", p["part"].get<int>(),
                       fmt::format("[{}, {})", p["range"][0].get<std::int64_t>(), p["range"][1].get<std::int64_t>()),
                       p["nodes"].get<std::int64_t>(), p["edges"].get<std::int64_t>(),
                       p["train_nodes"].get<std::int64_t>(), p["halo"].get<std::int64_t>(),
                       core::human_bytes(p["disk_bytes"].get<double>()));
  }
  return out;
}

}  // namespace

std::string format_store_summary(const nlohmann::json& j) {
  const bool partitioned = declared_store_kind(j) == StoreKind::kPartitioned;
  std::string out;
  add_line(out, "store", j["dir"].get<std::string>() + (partitioned ? " (partitioned)" : ""));
  if (partitioned)
    add_line(out, "parts",
             fmt::format("{} by {} (seed {}) from {}", j["num_parts"].get<int>(), j["method"].get<std::string>(),
                         j["seed"].get<std::uint64_t>(), j["source"].get<std::string>()));
  add_description(out, j);
  if (j.contains("partition"))
    add_line(out, "partition",
             fmt::format("part {} of {}, global ids from {}", j["partition"]["part"].get<int>(),
                         j["partition"]["num_parts"].get<int>(), j["partition"]["node_offset"].get<std::int64_t>()));
  if (partitioned) add_partition_quality(out, j);
  std::string disk = core::human_bytes(j["disk_bytes"].get<double>());
  if (partitioned) disk += " (topology " + core::human_bytes(j["topology_disk_bytes"].get<double>()) + ")";
  add_line(out, "on disk", disk);
  if (partitioned) out += parts_table(j["parts"]);
  return out;
}

StoreKind store_kind(const std::string& dir) {
  const std::string path = dir + "/meta.json";
  if (!std::filesystem::exists(path)) throw Error::in_file(dir, 0, "no meta.json: not a Loom store");
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(core::read_text_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error::in_file(path, 0, std::string("invalid JSON: ") + e.what());
  }
  const std::optional<StoreKind> kind = declared_store_kind(meta);
  if (!kind)
    throw Error::in_file(
        path, 0,
        fmt::format("unknown store format {} (want {})",
                    meta.is_object() && meta.contains("format") ? meta["format"].dump() : std::string("(none)"),
                    core::enum_choices(kStoreKindNames)));
  return *kind;
}

}  // namespace loom::graph
