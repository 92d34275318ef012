#include "loom/partition/write_partitioned.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "loom/format/digest.hpp"
#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/core/log.hpp"
#include "loom/format/float_rows.hpp"
#include "loom/format/npy.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/progress.hpp"
#include "loom/core/timer.hpp"
#include "loom/partition/partitioner.hpp"
#include "loom/partition/relabel.hpp"
#include "loom/partition/store_verification.hpp"

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
      throw Error::in_file(source.dir() + "/orig_id.npy", 0,
                           fmt::format("has {} ids for {} nodes", o.ids.size(), source.num_nodes()));
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
  for (std::int64_t i = 0; i < rows.size(); ++i)
    d.orig_id[i] = o.kind == graph::IdMapKind::kOrigId ? o.ids[map[i]] : map[i];
}

// Every split of the source in new global ids, sorted (so a part's ids are one slice).
std::map<std::string, std::vector<std::int64_t>> relabel_splits(const graph::GraphStore& source, const Relabelling& r) {
  std::map<std::string, std::vector<std::int64_t>> splits;
  const std::int64_t n = source.num_nodes();
  for (const auto& [name, size] : source.meta().splits) {
    auto& ids = splits[name];
    for (const auto v : source.split(name)) {
      if (v < 0 || v >= n)
        throw Error::in_file(source.dir() + "/" + name + "_idx.npy", 0,
                             fmt::format("node id {} outside [0, {})", v, n));
      ids.push_back(r.source_to_new[v]);
    }
    std::sort(ids.begin(), ids.end());
  }
  return splits;
}

// The source's sparse rows for the new ids `rows` into `dir` (graph/sparse_features.hpp), values
// in the source's dtype; returns the part's stored entries.
std::int64_t write_part_sparse_features(const graph::GraphStore& source, const Relabelling& r, IdRange rows,
                                        const std::string& dir) {
  const graph::SparseFeatureArrays& a = source.sparse_feat();
  const auto ptr = a.indptr.span<std::int64_t>();
  const auto idx = a.indices.span<std::int32_t>();
  graph::SparseRowsWriter out(dir, source.meta().feat_dtype);
  std::vector<float> values;
  for (std::int64_t v = rows.begin; v < rows.end; ++v) {
    const std::int64_t s = r.new_to_source[v], begin = ptr[s], count = ptr[s + 1] - ptr[s];
    values.resize(a.values.data() == nullptr ? 0 : static_cast<std::size_t>(count));
    if (!values.empty())
      format::widen_floats(static_cast<const char*>(a.values.data()) + begin * format::dtype_size(a.values.dtype()),
                           a.values.dtype(), values);
    out.add_row(idx.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(count)), values);
  }
  out.finish();
  return out.nnz();
}

// Rows of the source's features for the new ids `rows`, in the source's dtype, written a chunk of
// rows at a time (no float conversion, no part held whole in memory).
void write_part_features(const graph::GraphStore& source, const Relabelling& r, IdRange rows, const std::string& path) {
  const format::NpyArray& feat = source.feat();
  const std::int64_t dim = source.meta().feat_dim;
  const std::size_t row_bytes = static_cast<std::size_t>(dim) * format::dtype_size(feat.dtype());
  const std::int64_t chunk = std::max<std::int64_t>(1, (std::int64_t{64} << 20) / static_cast<std::int64_t>(row_bytes));
  const auto* src = static_cast<const char*>(feat.data());
  format::NpyWriter out(path, feat.dtype(), {dim});
  std::vector<char> buffer;
  for (std::int64_t begin = rows.begin; begin < rows.end; begin += chunk) {
    const std::int64_t count = std::min(chunk, rows.end - begin);
    buffer.resize(static_cast<std::size_t>(count) * row_bytes);
    core::parallel_for(
        count,
        [&](std::int64_t i) {
          std::memcpy(buffer.data() + i * row_bytes, src + r.new_to_source[begin + i] * row_bytes, row_bytes);
        },
        1024);
    out.append(buffer.data(), count);
  }
  out.finish();
}

// The source's CSR in new ids (rows in new order, each row sorted), a chunk of rows whose entries
// fit `memory_bytes` at a time, into dir's indptr.npy, indices.npy and weight.npy; returns the
// stored entries.
std::int64_t write_relabelled_csr(const graph::GraphStore& source, const Relabelling& r, const std::string& dir,
                                  std::int64_t memory_bytes) {
  const std::int64_t n = source.num_nodes();
  const auto src_ptr = source.csr().indptr();
  const bool weighted = source.meta().weighted;
  format::NpyWriter indices(dir + "/indices.npy", graph::fits_int32(n) ? format::DType::kInt32 : format::DType::kInt64);
  std::optional<format::NpyWriter> weights;
  if (weighted) weights.emplace(dir + "/weight.npy", format::DType::kFloat32);
  std::vector<std::int64_t> indptr(static_cast<std::size_t>(n) + 1, 0);
  const std::int64_t budget = std::max<std::int64_t>(1, memory_bytes / 16);
  std::vector<std::int32_t> narrow;
  core::ProgressBar bar("partition: topology", n, "rows");
  for (std::int64_t begin = 0; begin < n;) {
    std::int64_t end = begin, entries = 0;
    while (end < n &&
           (end == begin || entries + src_ptr[r.new_to_source[end] + 1] - src_ptr[r.new_to_source[end]] <= budget))
      entries += src_ptr[r.new_to_source[end] + 1] - src_ptr[r.new_to_source[end]], ++end;
    graph::GraphData rows;
    relabel_rows(source, r, {begin, end}, rows);
    if (graph::fits_int32(n)) {
      narrow.resize(rows.indices.size());
      core::parallel_for(
          static_cast<std::int64_t>(narrow.size()),
          [&](std::int64_t i) { narrow[i] = static_cast<std::int32_t>(rows.indices[i]); }, 1 << 16);
      indices.append(narrow.data(), static_cast<std::int64_t>(narrow.size()));
    } else {
      indices.append(rows.indices.data(), static_cast<std::int64_t>(rows.indices.size()));
    }
    if (weighted) weights->append(rows.edge_weight.data(), static_cast<std::int64_t>(rows.edge_weight.size()));
    for (std::int64_t i = 0; i < end - begin; ++i) indptr[begin + i + 1] = indptr[begin] + rows.indptr[i + 1];
    bar.update(end - begin);
    begin = end;
  }
  bar.finish();
  indices.finish();
  if (weights) weights->finish();
  format::write_npy(dir + "/indptr.npy", indptr);
  return indptr[n];
}

void copy_labels(const graph::GraphStore& source, const Relabelling& r, IdRange rows, graph::GraphData& d) {
  const auto& m = source.meta();
  if (!source.has_label()) return;
  d.num_classes = m.num_classes;
  const auto* map = r.new_to_source.data() + rows.begin;
  const auto& label = source.label();
  if (m.multi_label) {
    if (label.dtype() != format::DType::kUInt8 || label.cols() != m.num_classes)
      throw Error::in_file(label.path(), 0, fmt::format("multi-label matrix must be uint8 [nodes, {}]", m.num_classes));
    const auto* src = label.span<std::uint8_t>().data();
    const std::int64_t c = m.num_classes;
    d.multi_label.resize(static_cast<std::size_t>(rows.size() * c));
    for (std::int64_t i = 0; i < rows.size(); ++i)
      std::memcpy(&d.multi_label[i * c], src + map[i] * c, static_cast<std::size_t>(c));
  } else {
    if (label.dtype() != format::DType::kInt64 || label.ndim() != 1)
      throw Error::in_file(label.path(), 0, "labels must be a 1-d int64 array");
    const auto src = label.span<std::int64_t>();
    d.label.resize(static_cast<std::size_t>(rows.size()));
    for (std::int64_t i = 0; i < rows.size(); ++i) d.label[i] = src[map[i]];
  }
}

// Sorted distinct neighbours of the rows `own` outside it; sorted global ids are grouped by owner.
std::vector<std::int64_t> halo_ids(const graph::Csr& topology, IdRange own) {
  std::vector<std::int64_t> halo;
  topology.visit([&](auto view) {
    for (std::int64_t v = own.begin; v < own.end; ++v)
      for (const auto u : view.neighbors(v))
        if (!own.contains(u)) halo.push_back(u);
  });
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
  return {{"tool", "loom partition"}, {"role", role},
          {"source", o.source},       {"method", core::enum_name(kPartitionMethodNames, o.method)},
          {"seed", o.seed},           {"source_provenance", source.meta().provenance}};
}

// The whole graph's CSR in new ids, with its splits and original ids, into `dir`.
void write_topology(const graph::GraphStore& source, const PartitionOptions& o, const Relabelling& r,
                    const std::map<std::string, std::vector<std::int64_t>>& splits, const OriginalIds& original,
                    const std::string& dir) {
  const auto& sm = source.meta();
  graph::GraphData topo;
  topo.directed = sm.directed;
  topo.splits = splits;
  set_original_ids(original, r, IdRange{0, source.num_nodes()}, topo);
  topo.id_map_note = id_map_note(source, "new global id");
  topo.provenance = provenance(source, o, "topology");
  fs::create_directory(dir);
  const std::int64_t edges = write_relabelled_csr(source, r, dir, o.memory_bytes);
  graph::write_node_arrays(topo, dir, source.num_nodes());
  graph::StoreMeta tm = graph::store_meta(topo, source.num_nodes(), edges, format::DType::kFloat32);
  tm.weighted = sm.weighted;
  graph::finish_store(dir, tm);
}

// The source's further per-node arrays (named in its provenance's "node_arrays": OGB's node_year),
// rows `rows` of the new order, each named in `d`'s provenance as the import names them.
void copy_node_arrays(const graph::GraphStore& source, const Relabelling& r, IdRange rows, graph::GraphData& d) {
  const nlohmann::json names = source.meta().provenance.value("node_arrays", nlohmann::json::array());
  const auto* map = r.new_to_source.data() + rows.begin;
  for (const auto& entry : names) {
    const std::string name = entry.get<std::string>();
    const auto array = format::NpyArray::map(source.dir() + "/" + name + ".npy");
    if (array.dtype() != format::DType::kInt64 || array.size() != source.num_nodes())
      throw Error::in_file(array.path(), 0,
                           fmt::format("node array must be int64 with one entry per node ({}), found {} {}",
                                       source.num_nodes(), array.size(), format::dtype_name(array.dtype())));
    const auto values = array.span<std::int64_t>();
    auto& out = d.node_arrays[name];
    out.resize(static_cast<std::size_t>(rows.size()));
    for (std::int64_t i = 0; i < rows.size(); ++i) out[i] = values[map[i]];
    d.provenance["node_arrays"].push_back(name);
  }
}

// The digest the source records of the feature file it maps or holds ("" where it records none).
std::string recorded_feature_digest(const graph::GraphStore& source) {
  if (!source.meta().feat_from.empty()) return source.meta().feat_from_digest;
  const auto meta = nlohmann::json::parse(core::read_text_file(source.dir() + "/meta.json"));
  const auto digests = meta.find("digests");
  if (digests == meta.end() || !digests->is_object() || !digests->contains("feat.npy")) return "";
  return digests->at("feat.npy").is_string() ? digests->at("feat.npy").get<std::string>() : "";
}

// Part p's store in `dir`: its labels, further node arrays, local splits, original ids, halo and
// features (or where to map them from); its CSR rows are its range of ../topology. Returns its
// sizes for the quality.
PartQuality write_part(const graph::GraphStore& source, const PartitionOptions& o, const Relabelling& r,
                       const std::map<std::string, std::vector<std::int64_t>>& splits, const OriginalIds& original,
                       const graph::GraphStore& topology, int p, const std::string& dir) {
  const auto& sm = source.meta();
  const int k = static_cast<int>(o.num_parts);
  const IdRange rows = r.book.range(p);
  graph::GraphData d;
  d.directed = sm.directed;
  d.feat_dim = sm.feat_dim;
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
  copy_node_arrays(source, r, rows, d);

  fs::create_directory(dir);
  const auto halo = halo_ids(topology.csr(), rows);
  format::write_npy(dir + "/halo_ids.npy", halo);
  format::write_npy(dir + "/halo_offsets.npy", halo_offsets(halo, r.book));
  const bool sparse = sm.feat_dim > 0 && sm.feat_layout == graph::FeatureLayout::kSparse;
  std::int64_t part_nnz = 0;
  if (sparse)
    part_nnz = write_part_sparse_features(source, r, rows, dir);
  else if (sm.feat_dim > 0 && !o.map_features)
    write_part_features(source, r, rows, dir + "/feat.npy");
  graph::write_node_arrays(d, dir, rows.size());
  const auto topo_ptr = topology.csr().indptr();
  const std::int64_t edges = topo_ptr[rows.end] - topo_ptr[rows.begin];
  graph::StoreMeta pm = graph::store_meta(d, rows.size(), edges, sm.feat_dtype);
  pm.weighted = sm.weighted;
  pm.rows_from = "../topology";
  if (sparse) {
    pm.feat_layout = graph::FeatureLayout::kSparse;
    pm.feat_nnz = part_nnz;
  }
  if (sm.feat_dim > 0 && o.map_features && !sparse) {
    pm.feat_from = fs::absolute(source.feat().path()).lexically_normal().string();
    pm.feat_index = "../new_to_source.npy";
    pm.feat_from_digest = recorded_feature_digest(source);
  }
  graph::finish_store(dir, pm);
  spdlog::info("partition: wrote part {} ({} nodes, {} edges, halo {})", p, rows.size(), edges, halo.size());
  const auto train = d.splits.find("train");
  return {rows.size(), edges, train == d.splits.end() ? 0 : static_cast<std::int64_t>(train->second.size()),
          static_cast<std::int64_t>(halo.size())};
}

// The partitioned store's description of the source it came from and of its id maps.
void describe_source(const graph::GraphStore& source, const PartitionOptions& o, const OriginalIds& original,
                     PartitionedMeta& meta) {
  const auto& sm = source.meta();
  meta.method = core::enum_name(kPartitionMethodNames, o.method);
  meta.seed = o.seed;
  meta.source = o.source;
  meta.graph = static_cast<const graph::GraphDescription&>(sm);
  meta.graph.id_map = original.kind == graph::IdMapKind::kNames ? graph::IdMapKind::kNames : graph::IdMapKind::kOrigId;
  meta.graph.id_map_note = fmt::format(
      "new global ids: part p owns [node_offsets[p], node_offsets[p+1]), source order kept within a part; "
      "new_to_source.npy: new global id -> dense id of source {}; part-<k>/{}: local row -> original id",
      o.source, original.kind == graph::IdMapKind::kNames ? "names.txt" : "orig_id.npy");
}

}  // namespace

PartitionedMeta partition_store(const PartitionOptions& o, const AssignParts& assign) {
  core::Timer total;
  const auto partitioner = assign ? nullptr : make_partitioner(o.method, o.stream_passes);
  const auto source = graph::GraphStore::open(o.source);
  if (source.meta().partition)
    throw Error::in_file(o.source, 0, "is one part of a partitioned store; partition a whole graph store");
  check_num_parts(o.num_parts, source.num_nodes());
  core::check_output_apart(o.output, o.source, "-o");
  core::OutputDir out(o.output, o.overwrite, "-o");
  const int k = static_cast<int>(o.num_parts);
  StoreVerification source_digests(mapped_folders(o.source));  // beside the partitioning; joined before the commit

  PartitionedMeta meta;
  core::Timer timer;
  Relabelling r;
  {
    const std::vector<std::int32_t> parts = assign ? assign(source, k) : partitioner->partition(source, k, o.seed);
    LOOM_CHECK(static_cast<std::int64_t>(parts.size()) == source.num_nodes(), "partition: {} part ids for {} nodes",
               parts.size(), source.num_nodes());
    meta.quality.partition_seconds = timer.seconds();
    meta.quality.edge_cut = edge_cut(source.csr(), parts, source.meta().directed);
    r = relabel_by_part(parts, k);
  }
  spdlog::info("partition: {} method, {} parts in {:.1f}s, edge cut {} ({:.2f}%)",
               core::enum_name(kPartitionMethodNames, o.method), k, meta.quality.partition_seconds,
               meta.quality.edge_cut.cut, 100.0 * meta.quality.edge_cut.fraction());
  const OriginalIds original = load_original_ids(source);
  const auto splits = relabel_splits(source, r);

  format::write_npy(out.file("new_to_source.npy"), r.new_to_source);
  const std::string topology_dir = out.file("topology");
  write_topology(source, o, r, splits, original, topology_dir);
  const graph::GraphStore topology = graph::GraphStore::open(topology_dir);
  for (int p = 0; p < k; ++p)
    meta.quality.parts.push_back(
        write_part(source, o, r, splits, original, topology, p, out.file(fmt::format("part-{}", p))));

  describe_source(source, o, original, meta);
  meta.book = r.book;
  meta.quality.total_seconds = total.seconds();
  core::write_text_file(out.file("meta.json"), meta.to_json().dump(2) + "\n");
  format::record_digests(out.path());
  source_digests.wait();  // nothing derived from a store that fails its digests is written
  out.commit();
  return meta;
}

}  // namespace loom::partition
