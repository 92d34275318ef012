#include "loom/graph/info.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "loom/core/fs.hpp"

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

nlohmann::json store_summary(const GraphStore& store) {
  const auto& m = store.meta();
  const auto deg = degree_stats(store.csr());
  nlohmann::json j;
  j["dir"] = store.dir();
  j["format"] = "loom-graph";
  j["nodes"] = m.num_nodes;
  j["stored_edges"] = m.num_edges;
  j["directed"] = m.directed;
  if (!m.directed) j["undirected_edges_approx"] = m.num_edges / 2;
  j["weighted"] = m.weighted;
  j["index_dtype"] = store.csr().wide_ids() ? "int64" : "int32";
  j["degree"] = {{"min", deg.min}, {"mean", deg.mean}, {"median", deg.median},
                 {"p99", deg.p99}, {"max", deg.max},   {"isolated", deg.isolated}};
  if (m.feat_dim > 0)
    j["features"] = {{"shape", {m.num_nodes, m.feat_dim}}, {"dtype", core::dtype_name(m.feat_dtype)}};
  else
    j["features"] = nullptr;
  j["classes"] = m.num_classes;
  j["multi_label"] = m.multi_label;
  j["splits"] = m.splits;
  j["id_map"] = id_map_name(m.id_map);
  j["id_map_note"] = m.id_map_note;
  if (m.partition)
    j["partition"] = {
        {"part", m.partition->part}, {"num_parts", m.partition->num_parts}, {"node_offset", m.partition->node_offset}};
  j["disk_bytes"] = core::directory_size(store.dir());
  j["provenance"] = m.provenance;
  return j;
}

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} {}", bytes, units[u]) : fmt::format("{:.1f} {}", bytes, units[u]);
}

std::string format_store_summary(const nlohmann::json& j) {
  std::string out;
  auto line = [&](const std::string& key, const std::string& value) {
    out += fmt::format("{:<12} {}\n", key + ":", value);
  };
  line("store", j["dir"].get<std::string>());
  line("nodes", fmt::format("{}", j["nodes"].get<std::int64_t>()));
  if (j["directed"].get<bool>())
    line("edges", fmt::format("{} directed", j["stored_edges"].get<std::int64_t>()));
  else
    line("edges",
         fmt::format("{} stored (both directions of each undirected edge)", j["stored_edges"].get<std::int64_t>()));
  const auto& d = j["degree"];
  line("degree", fmt::format("min {} mean {:.2f} median {} p99 {} max {} isolated {}", d["min"].get<std::int64_t>(),
                             d["mean"].get<double>(), d["median"].get<std::int64_t>(), d["p99"].get<std::int64_t>(),
                             d["max"].get<std::int64_t>(), d["isolated"].get<std::int64_t>()));
  if (j["features"].is_null())
    line("features", "none");
  else
    line("features",
         fmt::format("{} x {} {}", j["features"]["shape"][0].get<std::int64_t>(),
                     j["features"]["shape"][1].get<std::int64_t>(), j["features"]["dtype"].get<std::string>()));
  const auto classes = j["classes"].get<std::int64_t>();
  line("classes",
       classes == 0 ? "none" : fmt::format("{}{}", classes, j["multi_label"].get<bool>() ? " (multi-label)" : ""));
  std::string splits;
  for (const auto& [name, size] : j["splits"].items())
    splits += fmt::format("{}{} {}", splits.empty() ? "" : ", ", name, size.get<std::int64_t>());
  line("splits", splits.empty() ? "none" : splits);
  std::string ids = j["id_map"].get<std::string>();
  if (!j["id_map_note"].get<std::string>().empty()) ids += " (" + j["id_map_note"].get<std::string>() + ")";
  line("ids", ids);
  if (j.contains("partition"))
    line("partition",
         fmt::format("part {} of {}, global ids from {}", j["partition"]["part"].get<int>(),
                     j["partition"]["num_parts"].get<int>(), j["partition"]["node_offset"].get<std::int64_t>()));
  line("on disk", human_bytes(j["disk_bytes"].get<double>()));
  return out;
}

std::string store_format(const std::string& dir) {
  const std::string path = dir + "/meta.json";
  if (!std::filesystem::exists(path)) throw Error::in_file(dir, 0, "no meta.json: not a Loom store");
  try {
    return nlohmann::json::parse(core::read_text_file(path)).value("format", "");
  } catch (const nlohmann::json::exception& e) {
    throw Error::in_file(path, 0, std::string("invalid JSON: ") + e.what());
  }
}

}  // namespace loom::graph
