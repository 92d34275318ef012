#include "loom/loader/training_data.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "loom/core/log.hpp"
#include "loom/graph/info.hpp"
#include "loom/graph/store_invariants.hpp"

namespace loom::loader {

namespace {

std::vector<std::int64_t> to_global(std::span<const std::int64_t> local, std::int64_t offset) {
  std::vector<std::int64_t> out(local.begin(), local.end());
  for (auto& v : out) v += offset;
  return out;
}

// The split's global ids, refused where a node has no label (it would index the loss at -1).
std::vector<std::int64_t> labelled_split(const graph::GraphStore& rows_store, const char* split, std::int64_t offset) {
  const auto ids = rows_store.split(split);
  const auto& m = rows_store.meta();
  if (!m.multi_label && m.num_classes > 0) {
    const auto labels = rows_store.label().span<std::int64_t>();
    const auto unlabelled = std::count_if(ids.begin(), ids.end(), [&](std::int64_t v) { return labels[v] < 0; });
    if (unlabelled > 0)
      throw Error::in_file(rows_store.dir() + "/" + split + "_idx.npy", 0,
                           fmt::format("{} of the {} nodes of the {} split have no label (-1): a split holds "
                                       "labelled nodes only (import again: importers keep only labelled ones)",
                                       unlabelled, ids.size(), split));
  }
  return to_global(ids, offset);
}

void load_rows(TrainingData& d, const graph::GraphStore& rows_store, std::int64_t offset, DataUse use) {
  const auto& m = rows_store.meta();
  if (m.feat_dim == 0)
    throw Error::in_file(rows_store.dir(), 0, "has no node features (feat.npy); training needs them");
  if (m.num_classes == 0 && use != DataUse::kLinks)
    throw Error::in_file(rows_store.dir(), 0, "has no labels (label.npy); training needs them");
  d.features = feature::RowTable::of_store(rows_store);
  d.feat_dim = m.feat_dim;
  d.num_classes = m.num_classes;
  d.scoring = scores::score_kind_of(m.multi_label);
  if (m.num_classes > 0) d.labels = rows_store.label();
  graph::check_disjoint_splits(rows_store);
  for (const char* split : {"train", "valid", "test"})
    if (!rows_store.has_split(split) && use == DataUse::kNodeSplits)
      throw Error::in_file(
          rows_store.dir(), 0,
          std::string("has no '") + split + "' split (" + split + "_idx.npy); import it with splits or generate them");
  const auto split_ids = [&](const char* split) {
    return rows_store.has_split(split) ? labelled_split(rows_store, split, offset) : std::vector<std::int64_t>{};
  };
  d.train_ids = split_ids("train");
  d.valid_ids = split_ids("valid");
  d.test_ids = split_ids("test");
  if (m.id_map == graph::IdMapKind::kNames)
    d.original_names = rows_store.original_names();
  else
    d.original_ids = rows_store.original_ids();
}

}  // namespace

TrainingData open_training_data(const std::string& path, const comm::Communicator& world, DataUse use) {
  TrainingData d;
  d.path = path;
  d.rank = world.rank();
  world.agree_on([&] {
    if (graph::store_kind(path) == graph::StoreKind::kPartitioned) {
      auto store = partition::PartitionedStore::open(path);
      if (store.num_parts() != world.size())
        throw Error::in_file(path, 0,
                             "has " + std::to_string(store.num_parts()) + " parts but the job has " +
                                 std::to_string(world.size()) + " ranks (run mpirun -np " +
                                 std::to_string(store.num_parts()) + ", or repartition with -k " +
                                 std::to_string(world.size()) + ")");
      d.partitioned = true;
      d.topology = store.topology();
      d.book = store.book();
      const auto part = store.part(world.rank());
      d.offset = part.range().begin;
      d.num_local = part.range().size();
      load_rows(d, part.store(), d.offset, use);
      if (use == DataUse::kLinks) d.source_rows.assign(store.new_to_source().begin(), store.new_to_source().end());
      const auto halo = part.halo_ids();
      d.halo_ids.assign(halo.begin(), halo.end());
    } else {
      if (world.size() > 1)
        throw Error::in_file(path, 0,
                             "is not partitioned but the job has " + std::to_string(world.size()) +
                                 " ranks: run `loom partition " + path + " -k " + std::to_string(world.size()) +
                                 " -o PARTS` and train on PARTS");
      d.topology = graph::GraphStore::open(path);
      d.book = partition::PartitionBook({0, d.topology.num_nodes()});
      d.num_local = d.topology.num_nodes();
      load_rows(d, d.topology, 0, use);
    }
    if (d.topology.meta().directed)
      spdlog::warn("{}: graph is directed; neighbour sampling follows stored (out-)edges", path);
  });
  return d;
}

std::vector<std::int64_t> own_ids(const TrainingData& data) {
  std::vector<std::int64_t> ids(static_cast<std::size_t>(data.num_local));
  for (std::int64_t i = 0; i < data.num_local; ++i) ids[static_cast<std::size_t>(i)] = data.offset + i;
  return ids;
}

void normalize_training_features(TrainingData& d, graph::FeatureNorm norm, const comm::Communicator& world) {
  if (norm == graph::FeatureNorm::kNone) return;
  std::vector<std::int64_t> all_rows(static_cast<std::size_t>(d.features.rows()));
  std::iota(all_rows.begin(), all_rows.end(), 0);
  std::vector<float> rows(static_cast<std::size_t>(d.features.rows() * d.feat_dim));
  d.features.gather(all_rows, rows.data());
  if (norm == graph::FeatureNorm::kRow) {
    graph::normalize_rows(rows, d.feat_dim);
  } else {
    std::vector<std::int64_t> train_rows(d.train_ids.size());
    for (std::size_t i = 0; i < train_rows.size(); ++i) train_rows[i] = d.train_ids[i] - d.offset;
    graph::ColumnMoments moments = graph::column_moments(rows, d.feat_dim, train_rows);
    world.allreduce_sum(moments.sum, comm::Channel::control);
    world.allreduce_sum(moments.sum_squares, comm::Channel::control);
    moments.count = world.allreduce_sum(moments.count, comm::Channel::control);
    world.agree_on([&] { graph::standardize_columns(rows, d.feat_dim, moments); });
  }
  d.features = feature::RowTable::owned(std::move(rows), d.feat_dim);
}

}  // namespace loom::loader
