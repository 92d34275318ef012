#include "loom/partition/partitioned_info.hpp"

#include <fmt/format.h>

#include "loom/core/fs.hpp"
#include "loom/graph/info.hpp"

namespace loom::partition {

nlohmann::json partitioned_summary(const PartitionedStore& store) {
  const auto& m = store.meta();
  nlohmann::json j;
  j["dir"] = store.dir();
  j["format"] = "loom-partitioned";
  j["num_parts"] = m.num_parts();
  j["method"] = m.method;
  j["seed"] = m.seed;
  j["source"] = m.source;
  j["nodes"] = m.num_nodes;
  j["stored_edges"] = m.num_edges;
  j["directed"] = m.directed;
  j["features"] = m.feat_dim > 0
                      ? nlohmann::json{{"shape", {m.num_nodes, m.feat_dim}}, {"dtype", core::dtype_name(m.feat_dtype)}}
                      : nlohmann::json(nullptr);
  j["classes"] = m.num_classes;
  j["multi_label"] = m.multi_label;
  j["splits"] = m.splits;
  j["id_map"] = graph::id_map_name(m.id_map);
  j["id_map_note"] = m.id_map_note;
  j["node_offsets"] = m.book.to_json();
  const auto quality = m.quality.to_json();
  j["edge_cut"] = {{"cut", m.quality.edge_cut.cut},
                   {"edges", m.quality.edge_cut.edges},
                   {"fraction", m.quality.edge_cut.fraction()}};
  j["balance"] = quality["balance"];
  j["seconds"] = quality["seconds"];
  j["parts"] = nlohmann::json::array();
  std::vector<PartQuality> measured;
  for (int k = 0; k < m.num_parts(); ++k) {
    const Part part = store.part(k);
    const auto& s = part.store();
    const PartQuality q{s.num_nodes(), s.meta().num_edges,
                        s.has_split("train") ? static_cast<std::int64_t>(s.split("train").size()) : 0,
                        static_cast<std::int64_t>(part.halo_ids().size())};
    measured.push_back(q);
    j["parts"].push_back({{"part", k},
                          {"range", {part.range().begin, part.range().end}},
                          {"nodes", q.nodes},
                          {"edges", q.edges},
                          {"train_nodes", q.train_nodes},
                          {"halo", q.halo},
                          {"disk_bytes", core::directory_size(store.part_dir(k))}});
  }
  j["topology_disk_bytes"] = core::directory_size(store.dir() + "/topology");
  j["disk_bytes"] = core::directory_size(store.dir());
  return j;
}

std::string format_partitioned_summary(const nlohmann::json& j) {
  std::string out;
  auto line = [&](const std::string& key, const std::string& value) {
    out += fmt::format("{:<12} {}\n", key + ":", value);
  };
  line("store", j["dir"].get<std::string>() + " (partitioned)");
  line("parts", fmt::format("{} by {} (seed {}) from {}", j["num_parts"].get<int>(), j["method"].get<std::string>(),
                            j["seed"].get<std::uint64_t>(), j["source"].get<std::string>()));
  line("nodes", fmt::format("{}", j["nodes"].get<std::int64_t>()));
  line("edges", fmt::format("{} stored{}", j["stored_edges"].get<std::int64_t>(),
                            j["directed"].get<bool>() ? " (directed)" : " (both directions of each undirected edge)"));
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
  line("ids", j["id_map_note"].get<std::string>());
  const auto& cut = j["edge_cut"];
  line("edge cut", fmt::format("{} of {} edges ({:.2f}%)", cut["cut"].get<std::int64_t>(),
                               cut["edges"].get<std::int64_t>(), 100.0 * cut["fraction"].get<double>()));
  const auto& b = j["balance"];
  line("balance", fmt::format("nodes {:.3f}  edges {:.3f}  train {:.3f}  (max/mean)", b["nodes"].get<double>(),
                              b["edges"].get<double>(), b["train_nodes"].get<double>()));
  line("on disk", fmt::format("{} (topology {})", graph::human_bytes(j["disk_bytes"].get<double>()),
                              graph::human_bytes(j["topology_disk_bytes"].get<double>())));
  out += fmt::format("{:>5} {:>25} {:>11} {:>13} {:>10} {:>10} {:>10}\n", "part", "global ids", "nodes", "edges",
                     "train", "halo", "disk");
  for (const auto& p : j["parts"]) {
    out += fmt::format("{:>5} {:>25} {:>11} {:>13} {:>10} {:>10} {:>10}\n", p["part"].get<int>(),
                       fmt::format("[{}, {})", p["range"][0].get<std::int64_t>(), p["range"][1].get<std::int64_t>()),
                       p["nodes"].get<std::int64_t>(), p["edges"].get<std::int64_t>(),
                       p["train_nodes"].get<std::int64_t>(), p["halo"].get<std::int64_t>(),
                       graph::human_bytes(p["disk_bytes"].get<double>()));
  }
  return out;
}

}  // namespace loom::partition
