#include "loom/graph/csr.hpp"

#include <cstring>

namespace loom::graph {

Csr::Csr(format::NpyArray indptr, format::NpyArray indices, std::int64_t num_cols)
    : indptr_(std::move(indptr)), indices_(std::move(indices)), num_cols_(num_cols) {
  if (indptr_.dtype() != format::DType::kInt64) throw Error::in_file(indptr_.path(), 0, "indptr must be int64");
  if (indices_.dtype() != format::DType::kInt32 && indices_.dtype() != format::DType::kInt64)
    throw Error::in_file(indices_.path(), 0, "indices must be int32 or int64");
  if (indptr_.ndim() != 1 || indptr_.size() < 1)
    throw Error::in_file(indptr_.path(), 0, "indptr must be a non-empty vector");
  const auto ptr = indptr_.span<std::int64_t>();
  if (ptr.front() != 0 || ptr.back() != indices_.size())
    throw Error::in_file(indptr_.path(), 0,
                         "indptr ends (" + std::to_string(ptr.front()) + ", " + std::to_string(ptr.back()) +
                             ") do not match indices length " + std::to_string(indices_.size()));
}

Csr Csr::from_vectors(std::vector<std::int64_t> indptr, const std::vector<std::int64_t>& indices,
                      std::int64_t num_cols) {
  const auto rows = static_cast<std::int64_t>(indptr.size());
  std::vector<char> ptr_bytes(indptr.size() * 8);
  std::memcpy(ptr_bytes.data(), indptr.data(), ptr_bytes.size());
  auto ptr = format::NpyArray::from_bytes(format::DType::kInt64, {rows}, std::move(ptr_bytes));
  const auto m = static_cast<std::int64_t>(indices.size());
  format::NpyArray idx;
  if (fits_int32(num_cols)) {
    std::vector<char> bytes(indices.size() * 4);
    auto* out = reinterpret_cast<std::int32_t*>(bytes.data());
    for (std::size_t i = 0; i < indices.size(); ++i) out[i] = static_cast<std::int32_t>(indices[i]);
    idx = format::NpyArray::from_bytes(format::DType::kInt32, {m}, std::move(bytes));
  } else {
    std::vector<char> bytes(indices.size() * 8);
    std::memcpy(bytes.data(), indices.data(), bytes.size());
    idx = format::NpyArray::from_bytes(format::DType::kInt64, {m}, std::move(bytes));
  }
  return Csr(std::move(ptr), std::move(idx), num_cols);
}

}  // namespace loom::graph
