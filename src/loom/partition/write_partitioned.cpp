#include "loom/partition/write_partitioned.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "loom/core/digest.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/log.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/timer.hpp"
#include "loom/partition/partitioner.hpp"
#include "loom/partition/relabel.hpp"

namespace fs = std::filesystem;

namespace loom::partition {

namespace {

// The original ids of the source store's input: its orig_id map, its names, or (identity) the
// source's dense ids themselves.
struct OriginalIds {
  graph::IdMapKind kind = graph::IdMapKind::kIdentity;
  std::vector<std::int64_t> ids;
  std::vector<std::string> names;
};

OriginalIds load_original_ids(const graph::GraphStore& source) {
  OriginalIds o;
  o.kind = source.meta().id_map;
  if (o.kind == graph::IdMapKind::kOrigId) {
    o.ids = source.original_ids();
    if (static_cast<std::int64_t>(o.ids.size()) != source.num_nodes())
      throw Error::in_file(source.dir() + "/orig_id.npy", 0, fmt::format("has {} ids for {} nodes", o.ids.size(), source.num_nodes()));
  } else if (o.kind == graph::IdMapKind::kNames) {
    o.names = source.original_names();
  }
  return o;
}

std::string id_map_note(const graph::GraphStore& source, const std::string& rows) {
  const auto& m = source.meta();
  const std::string what = m.id_map == graph::IdMapKind::kNames ? "names.txt: " + rows + " -> original name"
                                                                 : "orig_id.npy: " + rows + " -> original id";
  std::string note = what + fmt::format(" ({} of source {}", graph::id_map_name(m.id_map), source.dir());
  if (!m.id_map_note.empty()) note += ": " + m.id_map_note;
  return note + ")";
}

void set_original_ids(const OriginalIds& o, const Relabelling& r, IdRange rows, graph::GraphData& d) {
  const auto* map = r.new_to_source.data() + rows.begin;
  if (o.kind == graph::IdMapKind::kNames) {
    d.names.resize(static_cast<std::size_t>(rows.size()));
    for (std::int64_t i = 0; i < rows.size(); ++i) d.names[i] = o.names[map[i]];
    return;
  }
  d.orig_id.resize(static_cast<std::size_t>(rows.size()));
  for (std::int64_t i = 0; i < rows.size(); ++i) d.orig_id[i] = o.kind == graph::IdMapKind::kOrigId ? o.ids[map[i]] : map[i];
}

// Every split of the source in new global ids, sorted (so a part's ids are one slice).
std::map<std::string, std::vector<std::int64_t>> relabel_splits(const graph::GraphStore& source, const Relabelling& r) {
  std::map<std::string, std::vector<std::int64_t>> splits;
  const std::int64_t n = source.num_nodes();
  for (const auto& [name, size] : source.meta().splits) {
    auto& ids = splits[name];
    for (const auto v : source.split(name)) {
      if (v < 0 || v >= n)
        throw Error::in_file(source.dir() + "/" + name + "_idx.npy", 0, fmt::format("node id {} outside [0, {})", v, n));
      ids.push_back(r.source_to_new[v]);
    }
    std::sort(ids.begin(), ids.end());
  }
  return splits;
}

void copy_features(const graph::GraphStore& source, const Relabelling& r, IdRange rows, graph::GraphData& d) {
  const std::int64_t dim = source.meta().feat_dim;
  if (dim == 0) return;
  d.feat_dim = dim;
  d.feat.resize(static_cast<std::size_t>(rows.size() * dim));
  const auto* map = r.new_to_source.data() + rows.begin;
  if (source.feat().dtype() == core::DType::kFloat32) {
    const float* src = source.feat().span<float>().data();
    core::parallel_for(rows.size(), [&](std::int64_t i) {
      std::memcpy(&d.feat[i * dim], src + map[i] * dim, static_cast<std::size_t>(dim) * sizeof(float));
    }, 1024);
  } else {
    const core::Half* src = source.feat().span<core::Half>().data();
    core::parallel_for(rows.size(), [&](std::int64_t i) {
      for (std::int64_t c = 0; c < dim; ++c) d.feat[i * dim + c] = core::half_to_float(src[map[i] * dim + c]);
    }, 1024);
  }
}

void copy_labels(const graph::GraphStore& source, const Relabelling& r, IdRange rows, graph::GraphData& d) {
  const auto& m = source.meta();
  if (!source.has_label()) return;
  d.num_classes = m.num_classes;
  const auto* map = r.new_to_source.data() + rows.begin;
  const auto& label = source.label();
  if (m.multi_label) {
    if (label.dtype() != core::DType::kUInt8 || label.cols() != m.num_classes)
      throw Error::in_file(label.path(), 0, fmt::format("multi-label matrix must be uint8 [nodes, {}]", m.num_classes));
    const auto* src = label.span<std::uint8_t>().data();
    const std::int64_t c = m.num_classes;
    d.multi_label.resize(static_cast<std::size_t>(rows.size() * c));
    for (std::int64_t i = 0; i < rows.size(); ++i) std::memcpy(&d.multi_label[i * c], src + map[i] * c, static_cast<std::size_t>(c));
  } else {
    if (label.dtype() != core::DType::kInt64 || label.ndim() != 1)
      throw Error::in_file(label.path(), 0, "labels must be a 1-d int64 array");
    const auto src = label.span<std::int64_t>();
    d.label.resize(static_cast<std::size_t>(rows.size()));
    for (std::int64_t i = 0; i < rows.size(); ++i) d.label[i] = src[map[i]];
  }
}

// Sorted distinct neighbours of `d`'s rows outside `own`; sorted global ids are grouped by owner.
std::vector<std::int64_t> halo_ids(const graph::GraphData& d, IdRange own) {
  std::vector<std::int64_t> halo;
  for (const auto v : d.indices)
    if (!own.contains(v)) halo.push_back(v);
  std::sort(halo.begin(), halo.end());
  halo.erase(std::unique(halo.begin(), halo.end()), halo.end());
  return halo;
}

std::vector<std::int64_t> halo_offsets(const std::vector<std::int64_t>& halo, const PartitionBook& book) {
  std::vector<std::int64_t> offsets;
  for (const auto start : book.offsets())
    offsets.push_back(std::lower_bound(halo.begin(), halo.end(), start) - halo.begin());
  return offsets;
}

nlohmann::json provenance(const graph::GraphStore& source, const PartitionOptions& o, const std::string& role) {
  return {{"tool", "loom partition"}, {"role", role},       {"source", o.source},
          {"method", o.method},       {"seed", o.seed},     {"source_provenance", source.meta().provenance}};
}

void check_output_is_not_source(const std::string& output, const std::string& source) {
  std::error_code ec1, ec2;
  const auto a = fs::weakly_canonical(output, ec1), b = fs::weakly_canonical(source, ec2);
  if (!ec1 && !ec2 && a == b) throw Error::in_argument("-o", "output '" + output + "' is the source store");
}

}  // namespace

PartitionedMeta partition_store(const PartitionOptions& o) {
  core::Timer total;
  const auto partitioner = o.method == "stream" ? make_stream_partitioner(o.stream_passes) : make_partitioner(o.method);
  const auto source = graph::GraphStore::open(o.source);
  if (source.meta().partition)
    throw Error::in_file(o.source, 0, "is one part of a partitioned store; partition a whole graph store");
  check_num_parts(o.num_parts, source.num_nodes());
  check_output_is_not_source(o.output, o.source);
  core::OutputDir out(o.output, o.overwrite, "-o");
  const int k = static_cast<int>(o.num_parts);
  const auto& sm = source.meta();

  PartitionedMeta meta;
  core::Timer timer;
  Relabelling r;
  {
    const std::vector<std::int32_t> parts = partitioner->partition(source, k, o.seed);
    meta.quality.partition_seconds = timer.seconds();
    meta.quality.edge_cut = edge_cut(source.csr(), parts, sm.directed);
    r = relabel_by_part(parts, k);
  }
  spdlog::info("partition: {} method, {} parts in {:.1f}s, edge cut {} ({:.2f}%)", o.method, k,
               meta.quality.partition_seconds, meta.quality.edge_cut.cut, 100.0 * meta.quality.edge_cut.fraction());
  const OriginalIds original = load_original_ids(source);
  const auto splits = relabel_splits(source, r);
  const IdRange all{0, source.num_nodes()};

  core::write_npy(out.file("new_to_source.npy"), r.new_to_source);
  {
    graph::GraphData topo;
    relabel_rows(source, r, all, topo);
    topo.directed = sm.directed;
    topo.splits = splits;
    set_original_ids(original, r, all, topo);
    topo.id_map_note = id_map_note(source, "new global id");
    topo.provenance = provenance(source, o, "topology");
    fs::create_directory(out.file("topology"));
    graph::write_store_files(topo, out.file("topology"), core::DType::kFloat32);
  }

  for (int p = 0; p < k; ++p) {
    const IdRange rows = r.book.range(p);
    graph::GraphData d;
    relabel_rows(source, r, rows, d);
    d.num_cols = source.num_nodes();
    d.directed = sm.directed;
    copy_features(source, r, rows, d);
    copy_labels(source, r, rows, d);
    for (const auto& [name, ids] : splits) {
      auto& local = d.splits[name];
      const auto first = std::lower_bound(ids.begin(), ids.end(), rows.begin);
      const auto last = std::lower_bound(first, ids.end(), rows.end);
      for (auto it = first; it != last; ++it) local.push_back(*it - rows.begin);
    }
    set_original_ids(original, r, rows, d);
    d.id_map_note = id_map_note(source, "local row") + fmt::format("; global id = {} + local row", rows.begin);
    d.partition = graph::PartitionInfo{p, k, rows.begin, source.num_nodes()};
    d.provenance = provenance(source, o, fmt::format("part {} of {}", p, k));

    const std::string dir = out.file(fmt::format("part-{}", p));
    fs::create_directory(dir);
    const auto halo = halo_ids(d, rows);
    core::write_npy(dir + "/halo_ids.npy", halo);
    core::write_npy(dir + "/halo_offsets.npy", halo_offsets(halo, r.book));
    graph::write_store_files(d, dir, sm.feat_dtype);
    const auto train = d.splits.find("train");
    meta.quality.parts.push_back({rows.size(), static_cast<std::int64_t>(d.indices.size()),
                                  train == d.splits.end() ? 0 : static_cast<std::int64_t>(train->second.size()),
                                  static_cast<std::int64_t>(halo.size())});
    spdlog::info("partition: wrote part {} ({} nodes, {} edges, halo {})", p, rows.size(), d.indices.size(), halo.size());
  }

  meta.method = o.method;
  meta.seed = o.seed;
  meta.source = o.source;
  meta.book = r.book;
  meta.num_nodes = source.num_nodes();
  meta.num_edges = sm.num_edges;
  meta.directed = sm.directed;
  meta.weighted = sm.weighted;
  meta.feat_dim = sm.feat_dim;
  meta.feat_dtype = sm.feat_dtype;
  meta.num_classes = sm.num_classes;
  meta.multi_label = sm.multi_label;
  meta.splits = sm.splits;
  meta.id_map = original.kind == graph::IdMapKind::kNames ? graph::IdMapKind::kNames : graph::IdMapKind::kOrigId;
  meta.id_map_note = fmt::format(
      "new global ids: part p owns [node_offsets[p], node_offsets[p+1]), source order kept within a part; "
      "new_to_source.npy: new global id -> dense id of source {}; part-<k>/{}: local row -> original id",
      o.source, original.kind == graph::IdMapKind::kNames ? "names.txt" : "orig_id.npy");
  meta.quality.total_seconds = total.seconds();
  core::write_text_file(out.file("meta.json"), meta.to_json().dump(2) + "\n");
  core::record_digests(out.path());
  out.commit();
  return meta;
}

}  // namespace loom::partition
