#include "loom/feature/analysis_input.hpp"

#include "loom/core/error.hpp"
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

}  // namespace

AnalysisInput open_analysis_input(const std::string& path) {
  AnalysisInput in;
  if (graph::store_kind(path) == graph::StoreKind::kPartitioned) {
    const auto store = partition::PartitionedStore::open(path);
    in.topology = store.topology();
    in.book = store.book();
    for (int k = 0; k < store.num_parts(); ++k) {
      in.train_ids.push_back(split_ids(store.part(k).store(), in.book.range(k).begin));
      in.halo_sizes.push_back(static_cast<std::int64_t>(store.part(k).halo_ids().size()));
    }
  } else {
    in.topology = graph::GraphStore::open(path);
    in.book = partition::PartitionBook({0, in.topology.num_nodes()});
    in.train_ids.push_back(split_ids(in.topology, 0));
    in.halo_sizes.push_back(0);
  }
  return in;
}

std::int64_t AnalysisInput::steps_per_epoch(std::int64_t batch_size) const {
  std::vector<std::int64_t> train_counts;
  for (const auto& ids : train_ids) train_counts.push_back(static_cast<std::int64_t>(ids.size()));
  return sample::steps_per_epoch(train_counts, batch_size);
}

}  // namespace loom::feature
