#include "loom/feature/row_table.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>

#include "loom/core/error.hpp"
#include "loom/format/float_rows.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/readahead.hpp"

namespace loom::feature {

RowTable RowTable::view(const format::NpyArray& array, const format::NpyArray& index) {
  LOOM_CHECK(array.dtype() == format::DType::kFloat32 || array.dtype() == format::DType::kFloat16 ||
                 array.dtype() == format::DType::kBFloat16,
             "{}: feature rows must be float32, float16 or bfloat16, found {}", array.path(),
             format::dtype_name(array.dtype()));
  RowTable t;
  if (index.data() == nullptr) {
    t = adopt(array.data(), array.rows(), array.cols(), array.dtype(), std::make_shared<format::NpyArray>(array));
  } else {
    t = adopt(array.data(), index.size(), array.cols(), array.dtype(),
              std::make_shared<std::pair<format::NpyArray, format::NpyArray>>(array, index));
    t.index_ = index.span<std::int64_t>().data();
    t.array_rows_ = array.rows();
  }
  const auto array_bytes = array.rows() * array.cols() * static_cast<std::int64_t>(format::dtype_size(array.dtype()));
  t.file_order_ = core::exceeds_half_available(array_bytes);
  return t;
}

RowTable RowTable::of_store(const graph::GraphStore& store) {
  if (store.meta().feat_layout == graph::FeatureLayout::kSparse)
    return sparse_view(store.sparse_feat(), store.meta().feat_dim);
  return view(store.feat(), store.feat_index());
}

RowTable RowTable::sparse_view(const graph::SparseFeatureArrays& arrays, std::int64_t dim) {
  RowTable t;
  auto held = std::make_shared<graph::SparseFeatureArrays>(arrays);
  SparseRowsView v;
  v.indptr = held->indptr.span<std::int64_t>().data();
  v.indices = held->indices.span<std::int32_t>().data();
  if (held->values.data() != nullptr) {
    v.values = held->values.data();
    v.values_dtype = held->values.dtype();
  }
  t.sparse_ = std::make_shared<const SparseRowsView>(v);
  t.rows_ = t.array_rows_ = held->indptr.size() - 1;
  t.dim_ = dim;
  t.keep_alive_ = std::move(held);
  return t;
}

RowTable RowTable::owned(graph::SparseRows rows, std::int64_t dim) {
  RowTable t;
  auto held = std::make_shared<graph::SparseRows>(std::move(rows));
  SparseRowsView v;
  v.indptr = held->indptr.data();
  v.indices = held->indices.data();
  if (!held->values.empty()) v.values = held->values.data();
  t.sparse_ = std::make_shared<const SparseRowsView>(v);
  t.rows_ = t.array_rows_ = static_cast<std::int64_t>(held->indptr.size()) - 1;
  t.dim_ = dim;
  t.keep_alive_ = std::move(held);
  return t;
}

std::int64_t RowTable::sparse_bytes() const {
  const std::int64_t nnz = sparse_->indptr[rows_];
  const std::int64_t value_bytes =
      sparse_->values != nullptr ? static_cast<std::int64_t>(format::dtype_size(sparse_->values_dtype)) : 0;
  return (rows_ + 1) * 8 + nnz * (4 + value_bytes);
}

float RowTable::SparseEntries::value(std::size_t k) const {
  if (values == nullptr) return 1.0F;
  if (values_dtype == format::DType::kFloat32) return static_cast<const float*>(values)[k];
  float widened = 0;
  format::widen_floats(static_cast<const char*>(values) + k * format::dtype_size(values_dtype), values_dtype,
                       {&widened, 1});
  return widened;
}

void RowTable::SparseEntries::values_as_floats(std::span<float> out) const {
  if (values == nullptr)
    std::fill(out.begin(), out.end(), 1.0F);
  else
    format::widen_floats(values, values_dtype, out);
}

void RowTable::gather_sparse(std::span<const std::int64_t> local_rows, graph::SparseRows& out) const {
  LOOM_CHECK(is_sparse(), "RowTable::gather_sparse: the rows are dense");
  assemble_sparse_rows(
      static_cast<std::int64_t>(local_rows.size()), [&](std::int64_t i) { return sparse_entries(local_rows[i]); }, out);
}

RowTable::SparseEntries RowTable::sparse_entries(std::int64_t r) const {
  const SparseRowsView& s = *sparse_;
  const std::int64_t begin = s.indptr[r], end = s.indptr[r + 1];
  SparseEntries e;
  e.columns = {s.indices + begin, static_cast<std::size_t>(end - begin)};
  if (s.values != nullptr) {
    e.values =
        static_cast<const char*>(s.values) + begin * static_cast<std::int64_t>(format::dtype_size(s.values_dtype));
    e.values_dtype = s.values_dtype;
  }
  return e;
}

template <class Out>
void RowTable::sparse_row(std::int64_t r, Out* out) const {
  std::fill(out, out + dim_, Out{});
  const SparseEntries e = sparse_entries(r);
  for (std::size_t k = 0; k < e.columns.size(); ++k) {
    if constexpr (std::is_same_v<Out, float>)
      out[e.columns[k]] = e.value(k);
    else
      out[e.columns[k]] = format::float_to_half(e.value(k));
  }
}

const void* RowTable::data() const {
  LOOM_CHECK(is_contiguous(), "RowTable::data: the rows are indexed or sparse (use contiguous())");
  return data_;
}

RowTable RowTable::contiguous() const {
  if (sparse_) {
    std::vector<float> dense(static_cast<std::size_t>(rows_ * dim_));
    core::parallel_for(
        rows_, [&](std::int64_t r) { sparse_row(r, dense.data() + r * dim_); }, 1024);
    return owned(std::move(dense), dim_);
  }
  if (index_ == nullptr) return *this;
  const auto row_bytes = static_cast<std::size_t>(dim_) * format::dtype_size(dtype_);
  auto copy = std::make_shared<std::vector<char>>(static_cast<std::size_t>(rows_) * row_bytes);
  core::parallel_for(
      rows_,
      [&](std::int64_t r) {
        std::memcpy(copy->data() + r * row_bytes, static_cast<const char*>(data_) + physical(r) * row_bytes, row_bytes);
      },
      1024);
  return adopt(copy->data(), rows_, dim_, dtype_, std::shared_ptr<const void>(copy, copy->data()));
}

namespace {

template <class T>
RowTable owned_rows(std::vector<T> data, std::int64_t dim, format::DType dtype) {
  LOOM_CHECK(dim > 0 && static_cast<std::int64_t>(data.size()) % dim == 0, "RowTable: {} values do not form rows of {}",
             data.size(), dim);
  auto holder = std::make_shared<std::vector<T>>(std::move(data));
  return RowTable::adopt(holder->data(), static_cast<std::int64_t>(holder->size()) / dim, dim, dtype,
                         std::shared_ptr<const void>(holder, holder->data()));
}

}  // namespace

RowTable RowTable::adopt(const void* data, std::int64_t rows, std::int64_t dim, format::DType dtype,
                         std::shared_ptr<const void> keep_alive) {
  RowTable t;
  t.data_ = data;
  t.rows_ = rows;
  t.array_rows_ = rows;
  t.dim_ = dim;
  t.dtype_ = dtype;
  t.keep_alive_ = std::move(keep_alive);
  return t;
}

RowTable RowTable::owned(std::vector<float> data, std::int64_t dim) {
  return owned_rows(std::move(data), dim, format::DType::kFloat32);
}

RowTable RowTable::owned(std::vector<format::Half> data, std::int64_t dim) {
  return owned_rows(std::move(data), dim, format::DType::kFloat16);
}

void RowTable::will_need_rows(std::int64_t begin, std::int64_t end) const {
  if (begin >= end || sparse_) return;
  const auto row_bytes = dim_ * static_cast<std::int64_t>(format::dtype_size(dtype_));
  const std::array spans{core::ByteSpan{begin * row_bytes, end * row_bytes}};
  core::will_need(data_, spans);
}

void RowTable::row(std::int64_t r, float* out) const {
  if (sparse_) return sparse_row(r, out);
  const auto row_bytes = static_cast<std::size_t>(dim_) * format::dtype_size(dtype_);
  format::widen_floats(static_cast<const char*>(data_) + physical(r) * row_bytes, dtype_,
                       {out, static_cast<std::size_t>(dim_)});
}

void RowTable::row(std::int64_t r, format::Half* out) const {
  if (sparse_) return sparse_row(r, out);
  r = physical(r);
  switch (dtype_) {
    case format::DType::kFloat16:
      std::memcpy(out, static_cast<const format::Half*>(data_) + r * dim_, sizeof(format::Half) * dim_);
      return;
    case format::DType::kBFloat16: {
      const auto* src = static_cast<const format::BFloat16*>(data_) + r * dim_;
      for (std::int64_t j = 0; j < dim_; ++j) out[j] = format::float_to_half(format::bfloat16_to_float(src[j]));
      return;
    }
    default: {
      const float* src = static_cast<const float*>(data_) + r * dim_;
      for (std::int64_t j = 0; j < dim_; ++j) out[j] = format::float_to_half(src[j]);
    }
  }
}

void RowTable::gather(std::span<const std::int64_t> local_rows, float* out) const {
  for_each_row(
      static_cast<std::int64_t>(local_rows.size()), [&](std::int64_t i) { return local_rows[i]; },
      [&](std::int64_t i) { row(local_rows[i], out + i * dim_); });
}

void RowTable::gather_at(std::span<const std::int64_t> local_rows, std::span<const std::int64_t> positions,
                         float* out) const {
  for_each_row(
      static_cast<std::int64_t>(local_rows.size()), [&](std::int64_t i) { return local_rows[i]; },
      [&](std::int64_t i) { row(local_rows[i], out + positions[i] * dim_); });
}

template <class Wire>
void encode_rows(const RowTable& table, std::span<const std::int64_t> local_rows, std::vector<Wire>& out) {
  const std::int64_t dim = table.dim();
  out.resize(local_rows.size() * static_cast<std::size_t>(dim));
  if constexpr (std::is_same_v<Wire, float>) {
    table.gather(local_rows, out.data());
  } else {
    table.for_each_row(
        static_cast<std::int64_t>(local_rows.size()), [&](std::int64_t i) { return local_rows[i]; },
        [&](std::int64_t i) { table.row(local_rows[i], out.data() + i * dim); });
  }
}

template <class Wire, class Out>
void decode_rows(std::span<const Wire> wire, std::int64_t dim, std::span<const std::int64_t> out_positions, Out* out) {
  core::parallel_for(
      static_cast<std::int64_t>(out_positions.size()),
      [&](std::int64_t i) {
        Out* dst = out + out_positions[i] * dim;
        const Wire* src = wire.data() + i * dim;
        if constexpr (std::is_same_v<Wire, Out>)
          std::memcpy(dst, src, sizeof(Out) * dim);
        else if constexpr (std::is_same_v<Out, float>)
          for (std::int64_t j = 0; j < dim; ++j) dst[j] = format::half_to_float(src[j]);
        else
          for (std::int64_t j = 0; j < dim; ++j) dst[j] = format::float_to_half(src[j]);
      },
      256);
}

template void encode_rows<float>(const RowTable&, std::span<const std::int64_t>, std::vector<float>&);
template void encode_rows<format::Half>(const RowTable&, std::span<const std::int64_t>, std::vector<format::Half>&);
template void decode_rows(std::span<const float>, std::int64_t, std::span<const std::int64_t>, float*);
template void decode_rows(std::span<const format::Half>, std::int64_t, std::span<const std::int64_t>, float*);
template void decode_rows(std::span<const float>, std::int64_t, std::span<const std::int64_t>, format::Half*);
template void decode_rows(std::span<const format::Half>, std::int64_t, std::span<const std::int64_t>, format::Half*);

}  // namespace loom::feature
