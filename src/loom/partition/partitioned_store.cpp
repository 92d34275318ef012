#include "loom/core/json_number.hpp"
#include "loom/partition/partitioned_store.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "loom/format/digest.hpp"
#include "loom/core/fs.hpp"
#include "loom/graph/store_check.hpp"

namespace loom::partition {

namespace {
format::NpyArray map_int64(const std::string& path, std::int64_t expected_size) {
  auto a = format::NpyArray::map(path);
  if (a.dtype() != format::DType::kInt64 || a.ndim() != 1 || (expected_size >= 0 && a.size() != expected_size))
    throw Error::in_file(path, 0,
                         fmt::format("expected a 1-d int64 array{}",
                                     expected_size >= 0 ? fmt::format(" of {} entries", expected_size) : ""));
  return a;
}
// A part describes the same graph as its partitioned store: every rank sizes its model, its
// all-reduced buffers and its wire rows from its own part, so one part that disagrees (an edited
// meta.json, a part copied from another partitioning) would make the ranks' collectives disagree.
void check_part_agrees(const graph::StoreMeta& part, const graph::GraphDescription& whole, const std::string& path,
                       const std::string& whole_path) {
  const auto differs = [&](const char* field, const std::string& here, const std::string& there) {
    throw Error::in_file(path, 0,
                         fmt::format("{} is {}, {} says {}: the part does not belong to this partitioned store", field,
                                     here, whole_path, there));
  };
  if (part.num_classes != whole.num_classes)
    differs("num_classes", std::to_string(part.num_classes), std::to_string(whole.num_classes));
  if (part.multi_label != whole.multi_label)
    differs("multi_label", fmt::format("{}", part.multi_label), fmt::format("{}", whole.multi_label));
  if (part.feat_dim != whole.feat_dim)
    differs("feat_dim", std::to_string(part.feat_dim), std::to_string(whole.feat_dim));
  if (part.feat_dim > 0 && part.feat_dtype != whole.feat_dtype)
    differs("feat_dtype", format::dtype_name(part.feat_dtype), format::dtype_name(whole.feat_dtype));
  if (part.directed != whole.directed)
    differs("directed", fmt::format("{}", part.directed), fmt::format("{}", whole.directed));
  if (part.weighted != whole.weighted)
    differs("weighted", fmt::format("{}", part.weighted), fmt::format("{}", whole.weighted));
  for (const auto& [name, size] : part.splits)
    if (!whole.splits.contains(name)) differs("splits", "'" + name + "'", "no such split");
}

}  // namespace

nlohmann::json PartitionedMeta::to_json() const {
  nlohmann::json j = graph.to_json();
  j["format"] = "loom-partitioned";
  j["version"] = 1;
  j["num_parts"] = num_parts();
  j["method"] = method;
  j["seed"] = seed;
  j["source"] = source;
  j["node_offsets"] = book.to_json();
  j["quality"] = quality.to_json();
  return j;
}

PartitionedMeta PartitionedMeta::from_json(const nlohmann::json& j, const std::string& path) {
  try {
    if (graph::declared_store_kind(j) != graph::StoreKind::kPartitioned)
      throw Error::in_file(path, 0, "not a Loom partitioned store (format != loom-partitioned)");
    if (core::json_int<int>(j.at("version"), path) != 1)
      throw Error::in_file(path, 0, "unsupported partitioned store version " + j.at("version").dump());
    PartitionedMeta m;
    m.method = j.at("method").get<std::string>();
    m.seed = core::json_int<std::uint64_t>(j.at("seed"), path);
    m.source = j.at("source").get<std::string>();
    m.book = PartitionBook::from_json(j.at("node_offsets"), path);
    m.graph = graph::GraphDescription::from_json(j, path);
    if (m.graph.id_map == graph::IdMapKind::kIdentity)
      throw Error::in_file(path, 0, "id_map must be orig_id or names, found 'identity'");
    m.quality = PartitionQuality::from_json(j.at("quality"), path);
    if (core::json_int<int>(j.at("num_parts"), path) != m.num_parts())
      throw Error::in_file(path, 0,
                           fmt::format("num_parts {} does not match {} node_offsets",
                                       core::json_int<int>(j.at("num_parts"), path), m.num_parts() + 1));
    if (m.book.num_nodes() != m.graph.num_nodes)
      throw Error::in_file(
          path, 0, fmt::format("node_offsets end at {}, num_nodes is {}", m.book.num_nodes(), m.graph.num_nodes));
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw Error::in_file(path, 0, std::string("malformed meta.json: ") + e.what());
  }
}

std::span<const std::int64_t> Part::halo_from(int owner) const {
  const auto offsets = halo_offsets();
  return halo_ids().subspan(static_cast<std::size_t>(offsets[owner]),
                            static_cast<std::size_t>(offsets[owner + 1] - offsets[owner]));
}

PartitionedStore PartitionedStore::open(const std::string& dir, bool verify) {
  namespace fs = std::filesystem;
  const std::string meta_path = dir + "/meta.json";
  if (!fs::is_directory(dir)) throw Error::in_file(dir, 0, "not a directory (expected a Loom partitioned store)");
  if (!fs::exists(meta_path)) throw Error::in_file(dir, 0, "no meta.json: not a Loom partitioned store");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(core::read_text_file(meta_path));
  } catch (const nlohmann::json::exception& e) {
    throw Error::in_file(meta_path, 0, std::string("invalid JSON: ") + e.what());
  }
  if (verify) format::check_meta_seal(j, meta_path);
  PartitionedStore s;
  s.dir_ = dir;
  s.verify_ = verify;
  s.meta_ = PartitionedMeta::from_json(j, meta_path);
  s.topology_ = graph::GraphStore::open(dir + "/topology", verify);
  if (s.topology_.num_nodes() != s.meta_.graph.num_nodes || s.topology_.meta().num_edges != s.meta_.graph.num_edges)
    throw Error::in_file(dir + "/topology", 0, "node or edge count does not match the partitioned store's meta.json");
  s.new_to_source_ = map_int64(dir + "/new_to_source.npy", s.meta_.graph.num_nodes);
  graph::check_ids_in_range(s.new_to_source(), 0, s.meta_.graph.num_nodes, dir + "/new_to_source.npy", "source id");
  return s;
}

Part PartitionedStore::part(int k) const {
  LOOM_CHECK(k >= 0 && k < num_parts(), "partitioned store {}: part {} outside [0, {})", dir_, k, num_parts());
  const std::string pdir = part_dir(k);
  Part p;
  p.index_ = k;
  p.range_ = book().range(k);
  p.store_ = graph::GraphStore::open(pdir, verify_);
  const auto& info = p.store_.meta().partition;
  if (!info || info->part != k || info->num_parts != num_parts() || info->node_offset != p.range_.begin ||
      info->global_num_nodes != meta_.graph.num_nodes || p.store_.num_nodes() != p.range_.size())
    throw Error::in_file(pdir + "/meta.json", 0,
                         fmt::format("partition info does not match the partition book (part {} owns [{}, {}) of {})",
                                     k, p.range_.begin, p.range_.end, meta_.graph.num_nodes));
  check_part_agrees(p.store_.meta(), meta_.graph, pdir + "/meta.json", dir_ + "/meta.json");
  p.halo_offsets_ = map_int64(pdir + "/halo_offsets.npy", num_parts() + 1);
  p.halo_ids_ = map_int64(pdir + "/halo_ids.npy", -1);
  const auto offsets = p.halo_offsets();
  if (offsets[0] != 0) throw Error::in_file(pdir + "/halo_offsets.npy", 0, "first offset must be 0");
  for (int q = 0; q < num_parts(); ++q)
    if (offsets[q] > offsets[q + 1])
      throw Error::in_file(pdir + "/halo_offsets.npy", 0, "offsets are not non-decreasing");
  if (offsets[num_parts()] != p.halo_ids_.size())
    throw Error::in_file(pdir + "/halo_offsets.npy", 0, "last offset does not match halo_ids.npy");
  for (int q = 0; q < num_parts(); ++q) {
    const IdRange owner = book().range(q);
    graph::check_ids_in_range(p.halo_from(q), q == k ? owner.end : owner.begin, owner.end, pdir + "/halo_ids.npy",
                              fmt::format("halo id of part {}", q), offsets[q]);
  }
  return p;
}

}  // namespace loom::partition
