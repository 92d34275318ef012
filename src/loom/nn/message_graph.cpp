#include "loom/nn/message_graph.hpp"

#include <cstring>
#include <mutex>

#include "loom/core/error.hpp"
#include "loom/nn/tensor_util.hpp"

namespace loom::nn {

struct MessageGraph::Cache {
  std::once_flag transposed_once, norm_once, edge_dst_once;
  TransposedCsr transposed;
  GcnNorm norm;
  torch::Tensor edge_dst;
};

MessageGraph::MessageGraph(torch::Tensor indptr, torch::Tensor indices, std::int64_t num_src)
    : indptr_(std::move(indptr)), indices_(std::move(indices)), num_src_(num_src), cache_(std::make_shared<Cache>()) {
  LOOM_CHECK_ARG(
      indptr_.defined() && indptr_.dim() == 1 && indptr_.scalar_type() == torch::kLong && indptr_.size(0) >= 1,
      "indptr", "want a 1-D int64 tensor with at least one entry");
  LOOM_CHECK_ARG(indices_.defined() && indices_.dim() == 1 &&
                     (indices_.scalar_type() == torch::kInt || indices_.scalar_type() == torch::kLong),
                 "indices", "want a 1-D int32 or int64 tensor");
  LOOM_CHECK_ARG(indptr_.device() == indices_.device(), "indices", "indptr and indices are on different devices");
  LOOM_CHECK_ARG(indptr_.is_contiguous() && indices_.is_contiguous(), "indices", "tensors must be contiguous");
  num_dst_ = indptr_.size(0) - 1;
  LOOM_CHECK_ARG(num_dst_ <= num_src_, "num_src", "{} sources cannot hold {} destinations", num_src_, num_dst_);
  if (indptr_.is_cpu()) {
    const auto* ptr = indptr_.data_ptr<std::int64_t>();
    LOOM_CHECK_ARG(ptr[0] == 0 && ptr[num_dst_] == indices_.size(0), "indptr", "ends {} .. {} do not match {} edges",
                   ptr[0], ptr[num_dst_], indices_.size(0));
    for (std::int64_t i = 0; i < num_dst_; ++i) {
      LOOM_CHECK_ARG(ptr[i] <= ptr[i + 1], "indptr", "decreases at row {}", i);
    }
    if (indices_.numel() > 0) {
      const auto lo = indices_.min().item<std::int64_t>();
      const auto hi = indices_.max().item<std::int64_t>();
      LOOM_CHECK_ARG(lo >= 0 && hi < num_src_, "indices", "ids span [{}, {}], outside [0, {})", lo, hi, num_src_);
    }
  }
}

MessageGraph MessageGraph::from_block(const sample::Block& block, bool pinned) {
  const auto host = torch::TensorOptions().pinned_memory(pinned);
  auto indptr = torch::empty({block.num_dst + 1}, host.dtype(torch::kLong));
  auto indices = torch::empty({block.num_edges()}, host.dtype(torch::kInt));
  std::memcpy(indptr.data_ptr<std::int64_t>(), block.indptr.data(), block.indptr.size() * sizeof(std::int64_t));
  std::memcpy(indices.data_ptr<std::int32_t>(), block.indices.data(), block.indices.size() * sizeof(std::int32_t));
  return MessageGraph(std::move(indptr), std::move(indices), block.num_src);
}

MessageGraph MessageGraph::from_csr(const graph::Csr& csr) {
  LOOM_CHECK_ARG(csr.num_rows() == csr.num_cols(), "graph", "want a square CSR, got {} rows and {} columns",
                 csr.num_rows(), csr.num_cols());
  // from_blob wants a mutable pointer; the tensors are only ever read.
  auto* ptr = const_cast<void*>(static_cast<const void*>(csr.indptr().data()));
  auto indptr = torch::from_blob(ptr, {csr.num_rows() + 1}, torch::kLong);
  torch::Tensor indices = csr.visit([&](auto view) {
    using IdT = typename decltype(view.indices)::value_type;
    auto* idx = const_cast<void*>(static_cast<const void*>(view.indices.data()));
    return torch::from_blob(idx, {csr.num_edges()}, std::is_same_v<IdT, std::int32_t> ? torch::kInt : torch::kLong);
  });
  return MessageGraph(std::move(indptr), std::move(indices), csr.num_cols());
}

MessageGraph MessageGraph::with_gcn_norm(GcnNorm norm) const {
  LOOM_CHECK_ARG(norm.src.defined() && norm.src.dim() == 1 && norm.src.size(0) == num_src_, "gcn_norm",
                 "source norm must have {} entries", num_src_);
  LOOM_CHECK_ARG(norm.dst.defined() && norm.dst.dim() == 1 && norm.dst.size(0) == num_dst_, "gcn_norm",
                 "destination norm must have {} entries", num_dst_);
  LOOM_CHECK_ARG(
      !norm.neighbor_scale.defined() || (norm.neighbor_scale.dim() == 1 && norm.neighbor_scale.size(0) == num_dst_),
      "gcn_norm", "neighbour scale must have {} entries", num_dst_);
  MessageGraph copy = *this;
  norm.src = norm.src.to(device(), torch::kFloat).contiguous();
  norm.dst = norm.dst.to(device(), torch::kFloat).contiguous();
  if (norm.neighbor_scale.defined()) norm.neighbor_scale = norm.neighbor_scale.to(device(), torch::kFloat).contiguous();
  copy.explicit_norm_ = std::make_shared<const GcnNorm>(std::move(norm));
  return copy;
}

MessageGraph MessageGraph::to(torch::Device device) const {
  if (device == this->device()) return *this;
  const auto moved_to = [&](const torch::Tensor& t) { return t.to(device, /*non_blocking=*/t.is_pinned()); };
  MessageGraph moved(moved_to(indptr_), moved_to(indices_), num_src_);
  if (explicit_norm_) moved = moved.with_gcn_norm(*explicit_norm_);
  return moved;
}

std::vector<torch::Tensor> MessageGraph::tensors() const {
  std::vector<torch::Tensor> out{indptr_, indices_};
  if (explicit_norm_)
    for (const torch::Tensor& t : {explicit_norm_->src, explicit_norm_->dst, explicit_norm_->neighbor_scale})
      if (t.defined()) out.push_back(t);
  return out;
}

namespace detail {

TransposedCsr transpose_by_counting(const torch::Tensor& indptr, const torch::Tensor& indices, std::int64_t num_src) {
  const std::int64_t num_dst = indptr.size(0) - 1, edges = indices.size(0);
  auto t_indptr = torch::zeros({num_src + 1}, torch::kLong);
  auto t_dst = torch::empty_like(indices);
  auto t_edge = torch::empty({edges}, torch::kLong);
  visit_index_type(indices, [&](auto id_type) {
    using IdT = decltype(id_type);
    const auto* ptr = indptr.data_ptr<std::int64_t>();
    const auto* idx = indices.data_ptr<IdT>();
    auto* tp = t_indptr.data_ptr<std::int64_t>();
    auto* td = t_dst.data_ptr<IdT>();
    auto* te = t_edge.data_ptr<std::int64_t>();
    // Counting sort by source: count, prefix sum, scatter in destination order.
    for (std::int64_t e = 0; e < edges; ++e) ++tp[idx[e] + 1];
    for (std::int64_t j = 0; j < num_src; ++j) tp[j + 1] += tp[j];
    std::vector<std::int64_t> cursor(tp, tp + num_src);
    for (std::int64_t i = 0; i < num_dst; ++i) {
      for (std::int64_t e = ptr[i]; e < ptr[i + 1]; ++e) {
        const std::int64_t pos = cursor[idx[e]]++;
        td[pos] = static_cast<IdT>(i);
        te[pos] = e;
      }
    }
  });
  return {t_indptr, t_dst, t_edge};
}

TransposedCsr transpose_by_sort(const torch::Tensor& indptr, const torch::Tensor& indices,
                                const torch::Tensor& edge_dst, std::int64_t num_src) {
  const auto [sources, order] = torch::sort(indices.to(torch::kLong), /*stable=*/c10::optional<bool>(true), /*dim=*/0);
  const torch::Tensor t_indptr = torch::searchsorted(sources, torch::arange(num_src + 1, indptr.options()));
  return {t_indptr, edge_dst.index_select(0, order).to(indices.scalar_type()), order};
}

}  // namespace detail

const TransposedCsr& MessageGraph::transposed() const {
  std::call_once(cache_->transposed_once, [&] {
    // On CPU a counting sort; elsewhere a stable sort on the device (no copy to the host).
    cache_->transposed = indptr_.is_cpu() ? detail::transpose_by_counting(indptr_, indices_, num_src_)
                                          : detail::transpose_by_sort(indptr_, indices_, edge_dst(), num_src_);
  });
  return cache_->transposed;
}

const GcnNorm& MessageGraph::gcn_norm() const {
  if (explicit_norm_) return *explicit_norm_;
  std::call_once(cache_->norm_once, [&] {
    // Degrees with one self-loop per destination: in-degree + 1 for a destination; out-degree
    // in this graph (+1 when it is also a destination) for a source.
    const auto opts = torch::TensorOptions().device(device()).dtype(torch::kFloat);
    auto dst_deg = (indptr_.slice(0, 1) - indptr_.slice(0, 0, num_dst_)).to(torch::kFloat) + 1.0;
    auto src_deg = torch::zeros({num_src_}, opts);
    src_deg.index_add_(0, indices_.to(torch::kLong), torch::ones({num_edges()}, opts));
    src_deg.slice(0, 0, num_dst_).add_(1.0);
    cache_->norm = {src_deg.clamp_min(1.0).rsqrt().contiguous(), dst_deg.rsqrt().contiguous(), torch::Tensor()};
  });
  return cache_->norm;
}

const torch::Tensor& MessageGraph::edge_dst() const {
  std::call_once(cache_->edge_dst_once, [&] {
    const auto counts = indptr_.slice(0, 1) - indptr_.slice(0, 0, num_dst_);
    // The output size is known here, so a GPU need not report it back to the host.
    cache_->edge_dst =
        torch::repeat_interleave(torch::arange(num_dst_, indptr_.options()), counts, /*dim=*/0, num_edges());
  });
  return cache_->edge_dst;
}

GcnNorm global_gcn_norm(const graph::Csr& csr, std::span<const std::int64_t> src_nodes,
                        std::span<const std::int64_t> dst_nodes) {
  auto norm_of = [&](std::span<const std::int64_t> nodes) {
    auto out = torch::empty({static_cast<std::int64_t>(nodes.size())}, torch::kFloat);
    auto* o = out.data_ptr<float>();
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      LOOM_CHECK_ARG(nodes[k] >= 0 && nodes[k] < csr.num_rows(), "nodes", "node {} outside [0, {})", nodes[k],
                     csr.num_rows());
      o[k] = 1.0f / std::sqrt(static_cast<float>(csr.degree(nodes[k]) + 1));
    }
    return out;
  };
  return {norm_of(src_nodes), norm_of(dst_nodes), torch::Tensor()};
}

GcnNorm sampled_gcn_norm(const graph::Csr& csr, const sample::Block& block, std::span<const std::int64_t> src_nodes) {
  LOOM_CHECK_ARG(static_cast<std::int64_t>(src_nodes.size()) >= block.num_src, "src_nodes",
                 "{} global ids for a block of {} sources", src_nodes.size(), block.num_src);
  src_nodes = src_nodes.first(static_cast<std::size_t>(block.num_src));
  const auto dst_nodes = src_nodes.first(static_cast<std::size_t>(block.num_dst));
  GcnNorm norm = global_gcn_norm(csr, src_nodes, dst_nodes);
  auto scale = torch::empty({block.num_dst}, torch::kFloat);
  auto* s = scale.data_ptr<float>();
  bool all_taken = true;
  for (std::int64_t i = 0; i < block.num_dst; ++i) {
    const std::int64_t sampled = block.indptr[i + 1] - block.indptr[i];
    const std::int64_t degree = csr.degree(dst_nodes[i]);
    s[i] = sampled > 0 ? static_cast<float>(degree) / static_cast<float>(sampled) : 0.0f;
    all_taken = all_taken && sampled == degree;
  }
  if (!all_taken) norm.neighbor_scale = scale;
  return norm;
}

}  // namespace loom::nn
