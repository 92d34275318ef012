#include "loom/train/fullgraph/fullgraph_data.hpp"

#include <numeric>

#include <torch/torch.h>

#include "loom/core/error.hpp"
#include "loom/graph/store_invariants.hpp"
#include "loom/feature/row_table.hpp"
#include "loom/nn/csr_rows.hpp"
#include "loom/nn/device.hpp"
#include "loom/train/fullgraph/index_tensor.hpp"

namespace loom::train {

namespace {

torch::Tensor split_rows(const graph::GraphStore& part, const char* name) {
  if (!part.has_split(name))
    throw Error::in_file(part.dir(), 0, std::string("has no '") + name + "' split; import the graph with splits");
  return index_tensor(part.split(name));
}

torch::Tensor labels_of(const graph::GraphStore& part, scores::ScoreKind scoring, std::int64_t classes) {
  const std::int64_t n = part.num_nodes();
  if (scoring == scores::ScoreKind::kMicroF1) {
    const auto all = part.label().span<std::uint8_t>();
    return torch::from_blob(const_cast<std::uint8_t*>(all.data()), {n, classes}, torch::kUInt8).to(torch::kFloat32);
  }
  const auto all = part.label().span<std::int64_t>();
  return torch::from_blob(const_cast<std::int64_t*>(all.data()), {n}, torch::kLong).clone();
}

}  // namespace

FullGraphData load_fullgraph_data(const partition::PartitionedStore& store, const FullGraphLayout& layout,
                                  bool load_features, bool load_labels) {
  const auto& meta = store.meta().graph;
  if (meta.feat_dim == 0) throw Error::in_file(store.dir(), 0, "has no node features; full-graph training needs them");
  if (meta.num_classes == 0) throw Error::in_file(store.dir(), 0, "has no labels; full-graph training needs them");
  FullGraphData d;
  d.feat_dim = meta.feat_dim;
  d.num_classes = meta.num_classes;
  d.scoring = scores::score_kind_of(meta.multi_label);
  d.num_nodes = meta.num_nodes;
  const auto train = meta.splits.find("train");
  if (train == meta.splits.end() || train->second == 0)
    throw Error::in_file(store.dir(), 0, "has no training nodes (no 'train' split)");
  d.num_train = train->second;
  for (int c = 0; c < layout.chunks; ++c) {
    const partition::Part part = store.part(layout.part_of(layout.way, c));
    const graph::GraphStore& rows = part.store();
    graph::check_disjoint_splits(rows);
    ChunkRows chunk;
    if (load_features) {
      std::vector<std::int64_t> all(static_cast<std::size_t>(rows.num_nodes()));
      std::iota(all.begin(), all.end(), 0);
      const feature::RowTable table = feature::RowTable::of_store(rows);
      if (table.is_sparse()) {  // kept sparse for the model's sparse input layer
        graph::SparseRows sparse;
        table.gather_sparse(all, sparse);
        chunk.features = nn::csr_tensor(std::move(sparse), d.feat_dim);
      } else {
        chunk.features = torch::empty({rows.num_nodes(), d.feat_dim}, torch::kFloat32);
        table.gather(all, chunk.features.data_ptr<float>());
      }
    }
    if (load_labels) {
      chunk.labels = labels_of(rows, d.scoring, d.num_classes);
      chunk.train = split_rows(rows, "train");
      chunk.valid = split_rows(rows, "valid");
      chunk.test = split_rows(rows, "test");
      if (rows.meta().id_map == graph::IdMapKind::kNames)
        chunk.original_names = rows.original_names();
      else
        chunk.original_ids = rows.original_ids();
    }
    d.chunks.push_back(std::move(chunk));
  }
  return d;
}

void move_to(FullGraphData& data, torch::Device device) {
  for (ChunkRows& chunk : data.chunks)
    for (torch::Tensor* t : {&chunk.features, &chunk.labels, &chunk.train, &chunk.valid, &chunk.test})
      if (t->defined()) *t = nn::with_parts_moved(*t, [&](const torch::Tensor& part) { return part.to(device); });
}

}  // namespace loom::train
