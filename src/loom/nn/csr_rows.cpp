#include "loom/nn/csr_rows.hpp"

#include <limits>
#include <memory>

#include "loom/core/error.hpp"
#include "loom/nn/quiet_warnings.hpp"

namespace loom::nn {

torch::Tensor csr_tensor(graph::SparseRows rows, std::int64_t dim, bool pinned) {
  LOOM_CHECK(rows.nnz() < std::numeric_limits<std::int32_t>::max(), "a batch of {} feature entries (at most 2^31)",
             rows.nnz());
  const auto n = static_cast<std::int64_t>(rows.indptr.size()) - 1, nnz = rows.nnz();
  const auto host = torch::TensorOptions().pinned_memory(pinned);
  torch::Tensor crow = torch::empty({n + 1}, host.dtype(torch::kInt32));
  std::copy(rows.indptr.begin(), rows.indptr.end(), crow.data_ptr<std::int32_t>());
  torch::Tensor columns, values;
  if (pinned) {
    columns = torch::empty({nnz}, host.dtype(torch::kInt32));
    values = torch::empty({nnz}, host.dtype(torch::kFloat32));
    std::copy(rows.indices.begin(), rows.indices.end(), columns.data_ptr<std::int32_t>());
    std::copy(rows.values.begin(), rows.values.end(), values.data_ptr<float>());
  } else {
    auto held = std::make_shared<graph::SparseRows>(std::move(rows));
    columns = torch::from_blob(
        held->indices.data(), {nnz}, [held](void*) {}, torch::kInt32);
    values = torch::from_blob(
        held->values.data(), {nnz}, [held](void*) {}, torch::kFloat32);
  }
  const QuietWarnings quiet;
  return at::_sparse_csr_tensor_unsafe(crow, columns, values, {n, dim},
                                       torch::TensorOptions().dtype(torch::kFloat32).layout(torch::kSparseCsr));
}

}  // namespace loom::nn
