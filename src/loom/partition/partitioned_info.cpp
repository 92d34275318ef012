#include "loom/partition/partitioned_info.hpp"

#include "loom/core/fs.hpp"
#include "loom/graph/info.hpp"

namespace loom::partition {

nlohmann::json partitioned_summary(const PartitionedStore& store) {
  const auto& m = store.meta();
  nlohmann::json j = graph::describe(m.graph);
  j["dir"] = store.dir();
  j["format"] = "loom-partitioned";
  j["num_parts"] = m.num_parts();
  j["method"] = m.method;
  j["seed"] = m.seed;
  j["source"] = m.source;
  j["node_offsets"] = m.book.to_json();
  const auto quality = m.quality.to_json();
  j["edge_cut"] = {{"cut", m.quality.edge_cut.cut},
                   {"edges", m.quality.edge_cut.edges},
                   {"fraction", m.quality.edge_cut.fraction()}};
  j["balance"] = quality["balance"];
  j["seconds"] = quality["seconds"];
  j["parts"] = nlohmann::json::array();
  for (int k = 0; k < m.num_parts(); ++k) {
    const Part part = store.part(k);
    const auto& s = part.store();
    const PartQuality q{s.num_nodes(), s.meta().num_edges,
                        s.has_split("train") ? static_cast<std::int64_t>(s.split("train").size()) : 0,
                        static_cast<std::int64_t>(part.halo_ids().size())};
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

}  // namespace loom::partition
