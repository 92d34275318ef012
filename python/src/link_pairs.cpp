#include "link_pairs.hpp"

#include <fmt/format.h>

#include "loom/core/error.hpp"

namespace loom::python {

namespace {

// Global id of each source-store row (the partition's renumbering inverted; the identity for a
// plain store).
std::vector<std::int64_t> global_of_rows(const loader::TrainingData& data) {
  if (data.source_rows.empty()) return {};
  std::vector<std::int64_t> global(data.source_rows.size());
  for (std::size_t g = 0; g < data.source_rows.size(); ++g)
    global[static_cast<std::size_t>(data.source_rows[g])] = static_cast<std::int64_t>(g);
  return global;
}

}  // namespace

loader::LinkPairs given_pairs(const torch::Tensor& edge_label_index, const std::optional<torch::Tensor>& edge_label,
                              const loader::TrainingData& data, const comm::Communicator& world) {
  loader::LinkPairs pairs;
  world.agree_on([&] {
    const torch::Tensor index = edge_label_index.detach().to(torch::kCPU);
    LOOM_CHECK_ARG(
        index.dim() == 2 && index.size(0) == 2 && !index.is_floating_point() && index.scalar_type() != torch::kBool,
        "edge_label_index", "want an integer tensor [2, E] of node ids, got {} of shape [{}]",
        std::string(c10::toString(index.scalar_type())), fmt::join(index.sizes(), ", "));
    const torch::Tensor ids = index.to(torch::kInt64).contiguous();
    const std::int64_t count = ids.size(1), n = data.num_nodes();
    torch::Tensor labels = torch::ones({count}, torch::kFloat32);
    if (edge_label) {
      LOOM_CHECK_ARG(edge_label->dim() == 1 && edge_label->size(0) == count, "edge_label",
                     "want one label per pair of edge_label_index ({}), got shape [{}]", count,
                     fmt::join(edge_label->sizes(), ", "));
      labels = edge_label->detach().to(torch::kCPU, torch::kFloat32).contiguous();
    }
    const std::int64_t* src = ids.data_ptr<std::int64_t>();
    const std::int64_t* dst = src + count;
    const float* label = labels.data_ptr<float>();
    const std::vector<std::int64_t> global = global_of_rows(data);
    for (std::int64_t i = 0; i < count; ++i) {
      for (const std::int64_t v : {src[i], dst[i]})
        LOOM_CHECK_ARG(v >= 0 && v < n, "edge_label_index", "pair {} names node {}, outside the graph's 0..{}", i, v,
                       n - 1);
      LOOM_CHECK_ARG(label[i] == 0 || label[i] == 1, "edge_label", "pair {} is labelled {}, want 0 or 1", i, label[i]);
      const std::int64_t u = global.empty() ? src[i] : global[static_cast<std::size_t>(src[i])];
      const std::int64_t v = global.empty() ? dst[i] : global[static_cast<std::size_t>(dst[i])];
      if (u >= data.offset && u < data.offset + data.num_local) pairs.add(u, v, label[i]);
    }
  });
  return pairs;
}

}  // namespace loom::python
