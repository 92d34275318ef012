// RowTable: rows of features (or embeddings) addressed by local row id. Either a view of a
// store's mapped feat.npy (float32 or float16, nothing copied) or an owned float32 buffer (for
// per-layer embeddings during exact inference, or a cache's rows, float32 or float16). gather() converts to float32 rows in parallel;
// encode() writes rows in a wire dtype (float32 or float16) for transfer to another rank.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "loom/core/half.hpp"
#include "loom/core/npy.hpp"

namespace loom::feature {

class RowTable {
 public:
  RowTable() = default;
  // A [rows, dim] float32 or float16 array (e.g. GraphStore::feat()); with `index` (int64), row r
  // of the table is row index[r] of the array (a part whose features stay in the source store:
  // GraphStore::feat_index()).
  static RowTable view(const core::NpyArray& array, const core::NpyArray& index = {});
  static RowTable owned(std::vector<float> data, std::int64_t dim);
  static RowTable owned(std::vector<core::Half> data, std::int64_t dim);
  // Rows at `data` (float32 or float16), valid while `keep_alive` is held.
  static RowTable adopt(const void* data, std::int64_t rows, std::int64_t dim, core::DType dtype,
                        std::shared_ptr<const void> keep_alive);
  // Bytes the rows occupy.
  std::int64_t bytes() const { return rows_ * dim_ * static_cast<std::int64_t>(core::dtype_size(dtype_)); }
  // Whether row r is at data() + r * dim (no index); contiguous() gives such a table (a copy in the
  // same dtype when this one is indexed).
  bool is_contiguous() const { return index_ == nullptr; }
  RowTable contiguous() const;

  std::int64_t rows() const { return rows_; }
  std::int64_t dim() const { return dim_; }
  core::DType dtype() const { return dtype_; }
  bool empty() const { return rows_ == 0; }
  // The rows, row-major, in dtype() (contiguous tables only).
  const void* data() const;

  // out[i*dim .. (i+1)*dim) = row local_rows[i] as float32.
  void gather(std::span<const std::int64_t> local_rows, float* out) const;
  // One row as float32.
  void row(std::int64_t r, float* out) const;
  // One row as float16.
  void row_half(std::int64_t r, core::Half* out) const;

 private:
  std::int64_t physical(std::int64_t r) const { return index_ == nullptr ? r : index_[r]; }
  const void* data_ = nullptr;
  const std::int64_t* index_ = nullptr;  // row r -> row index_[r] of data_, or identity
  std::int64_t rows_ = 0, dim_ = 0;
  core::DType dtype_ = core::DType::kFloat32;
  std::shared_ptr<const void> keep_alive_;
};

// Encodes rows of `table` as wire elements (float or core::Half).
template <class Wire>
void encode_rows(const RowTable& table, std::span<const std::int64_t> local_rows, std::vector<Wire>& out);
// Decodes `count` wire rows of width dim into float rows at the given output positions.
template <class Wire>
void decode_rows(std::span<const Wire> wire, std::int64_t dim, std::span<const std::int64_t> out_positions, float* out);

}  // namespace loom::feature
