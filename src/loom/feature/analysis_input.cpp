#include "loom/feature/analysis_input.hpp"

#include "loom/core/error.hpp"
#include "loom/feature/row_table.hpp"
#include "loom/graph/info.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "loom/sample/epoch_plan.hpp"

namespace loom::feature {

namespace {

std::vector<std::int64_t> split_ids(const graph::GraphStore& store, std::int64_t offset) {
  if (!store.has_split("train"))
    throw Error::in_file(store.dir(), 0, "has no 'train' split (train_idx.npy): the analysis samples from it");
  const auto local = store.split("train");
  std::vector<std::int64_t> ids(local.begin(), local.end());
  for (auto& v : ids) v += offset;
  return ids;
}

// Appends the wire bytes of each row of `store` (a sparse one) to `out`.
void append_sparse_row_bytes(const graph::GraphStore& store, std::vector<std::int32_t>& out) {
  const RowTable rows = RowTable::of_store(store);
  for (std::int64_t r = 0; r < rows.rows(); ++r) {
    const RowTable::SparseEntries e = rows.sparse_entries(r);
    bool ones = true;
    for (std::size_t k = 0; k < e.columns.size() && ones; ++k) ones = e.value(k) == 1.0F;
    out.push_back(static_cast<std::int32_t>(4 + e.columns.size() * (ones ? 4 : 8)));
  }
}

}  // namespace

AnalysisInput open_analysis_input(const std::string& path) {
  AnalysisInput in;
  if (graph::store_kind(path) == graph::StoreKind::kPartitioned) {
    const auto store = partition::PartitionedStore::open(path);
    in.topology = store.topology();
    in.book = store.book();
    const bool sparse = store.meta().graph.feat_layout == graph::FeatureLayout::kSparse;
    in.dense_row_bytes = store.meta().graph.feat_dim * 4;
    for (int k = 0; k < store.num_parts(); ++k) {
      in.train_ids.push_back(split_ids(store.part(k).store(), in.book.range(k).begin));
      in.halo_sizes.push_back(static_cast<std::int64_t>(store.part(k).halo_ids().size()));
      if (sparse) append_sparse_row_bytes(store.part(k).store(), in.sparse_row_bytes);
    }
  } else {
    in.topology = graph::GraphStore::open(path);
    in.book = partition::PartitionBook({0, in.topology.num_nodes()});
    in.train_ids.push_back(split_ids(in.topology, 0));
    in.halo_sizes.push_back(0);
    in.dense_row_bytes = in.topology.meta().feat_dim * 4;
    if (in.topology.meta().feat_layout == graph::FeatureLayout::kSparse)
      append_sparse_row_bytes(in.topology, in.sparse_row_bytes);
  }
  return in;
}

std::int64_t AnalysisInput::steps_per_epoch(std::int64_t batch_size) const {
  std::vector<std::int64_t> train_counts;
  for (const auto& ids : train_ids) train_counts.push_back(static_cast<std::int64_t>(ids.size()));
  return sample::steps_per_epoch(train_counts, batch_size);
}

}  // namespace loom::feature
