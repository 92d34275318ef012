// Compressed sparse rows over node ids. Csr holds `indptr` (int64, rows+1) and `indices`
// (int32 when every id fits, else int64) as NpyArrays, so a Csr opened from a store maps the
// files instead of copying them. Hot loops take a CsrView<IdT> obtained once through visit(),
// which dispatches on the index width: csr.visit([&](auto view) { ... view.neighbors(v) ... }).
// For a partition's CSR the rows are the partition's own nodes and the indices are global ids,
// so num_cols() (the id space of the indices) can exceed num_rows().
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/format/npy.hpp"

namespace loom::graph {

template <class IdT>
struct CsrView {
  std::span<const std::int64_t> indptr;
  std::span<const IdT> indices;

  std::int64_t num_rows() const { return static_cast<std::int64_t>(indptr.size()) - 1; }
  std::int64_t num_edges() const { return static_cast<std::int64_t>(indices.size()); }
  std::int64_t degree(std::int64_t v) const { return indptr[v + 1] - indptr[v]; }
  std::span<const IdT> neighbors(std::int64_t v) const {
    return indices.subspan(static_cast<std::size_t>(indptr[v]), static_cast<std::size_t>(indptr[v + 1] - indptr[v]));
  }
};

class Csr {
 public:
  Csr() = default;
  // Validates dtypes (indptr int64; indices int32/int64), monotone indptr ends and sizes.
  Csr(format::NpyArray indptr, format::NpyArray indices, std::int64_t num_cols);

  // Builds an in-memory Csr, narrowing indices to int32 when num_cols fits.
  static Csr from_vectors(std::vector<std::int64_t> indptr, const std::vector<std::int64_t>& indices,
                          std::int64_t num_cols);

  std::int64_t num_rows() const { return indptr_.size() > 0 ? indptr_.size() - 1 : 0; }
  std::int64_t num_cols() const { return num_cols_; }
  std::int64_t num_edges() const { return indices_.size(); }
  bool wide_ids() const { return indices_.dtype() == format::DType::kInt64; }
  std::span<const std::int64_t> indptr() const { return indptr_.span<std::int64_t>(); }
  std::int64_t degree(std::int64_t v) const { return indptr()[v + 1] - indptr()[v]; }
  const format::NpyArray& indptr_array() const { return indptr_; }
  const format::NpyArray& indices_array() const { return indices_; }

  template <class IdT>
  CsrView<IdT> view() const {
    return {indptr_.span<std::int64_t>(), indices_.span<IdT>()};
  }

  template <class F>
  decltype(auto) visit(F&& f) const {
    if (wide_ids()) return f(view<std::int64_t>());
    return f(view<std::int32_t>());
  }

 private:
  format::NpyArray indptr_, indices_;
  std::int64_t num_cols_ = 0;
};

// True when ids below `num_ids` fit the int32 index type.
inline bool fits_int32(std::int64_t num_ids) { return num_ids <= 2147483647LL; }

}  // namespace loom::graph
