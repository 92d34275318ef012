// RowTable: rows of features (or embeddings) addressed by local row id. Either a view of a
// store's mapped feat.npy (float32 or float16, nothing copied), a view of a store's sparse rows
// (graph/sparse_features.hpp: each row read as a dense float32 row), or an owned float32 buffer (for
// per-layer embeddings during exact inference, or a cache's rows, float32 or float16). gather() converts to float32
// rows in parallel; encode() writes rows in a wire dtype (float32 or float16) for transfer to another rank.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "loom/core/ascending_order.hpp"
#include "loom/format/half.hpp"
#include "loom/format/npy.hpp"
#include "loom/graph/sparse_features.hpp"
#include "loom/graph/store.hpp"
#include "loom/core/parallel.hpp"
#include "loom/core/prefetch_loop.hpp"

namespace loom::feature {

class RowTable {
 public:
  RowTable() = default;
  // A [rows, dim] float32 or float16 array (e.g. GraphStore::feat()); with `index` (int64), row r
  // of the table is row index[r] of the array (a part whose features stay in the source store:
  // GraphStore::feat_index()).
  static RowTable view(const format::NpyArray& array, const format::NpyArray& index = {});
  // A store's feature rows in its layout (dense or sparse).
  static RowTable of_store(const graph::GraphStore& store);
  // Sparse rows of `dim` columns (values float32 or float16; none: every value is 1).
  static RowTable sparse_view(const graph::SparseFeatureArrays& arrays, std::int64_t dim);
  static RowTable owned(std::vector<float> data, std::int64_t dim);
  static RowTable owned(std::vector<format::Half> data, std::int64_t dim);
  // Sparse rows of `dim` columns held by the table (a cache's rows of a sparse store).
  static RowTable owned(graph::SparseRows rows, std::int64_t dim);
  // Rows at `data` (float32 or float16), valid while `keep_alive` is held.
  static RowTable adopt(const void* data, std::int64_t rows, std::int64_t dim, format::DType dtype,
                        std::shared_ptr<const void> keep_alive);
  // Bytes the rows occupy (sparse: their CSR's).
  std::int64_t bytes() const {
    return sparse_ ? sparse_bytes() : rows_ * dim_ * static_cast<std::int64_t>(format::dtype_size(dtype_));
  }
  bool is_sparse() const { return sparse_ != nullptr; }
  // A sparse table's entries (all its rows'); 0 for a dense one.
  std::int64_t nnz() const { return sparse_ ? sparse_->indptr[rows_] : 0; }
  // A sparse table's mean entries a row, rounded up (what sizes its rows held elsewhere).
  std::int64_t entries_per_row() const { return rows_ == 0 ? 0 : (nnz() + rows_ - 1) / rows_; }
  // A sparse table's row r: its columns and their values (null: every value is 1).
  struct SparseEntries {
    std::span<const std::int32_t> columns;
    const void* values = nullptr;
    format::DType values_dtype = format::DType::kFloat32;
    float value(std::size_t k) const;
    // Every value as float32 into `out` (columns.size() of them).
    void values_as_floats(std::span<float> out) const;
  };
  SparseEntries sparse_entries(std::int64_t r) const;
  // Whether row r is at data() + r * dim (no index, dense); contiguous() gives such a table (a copy
  // in the same dtype when this one is indexed; dense float32 rows when it is sparse).
  bool is_contiguous() const { return index_ == nullptr && sparse_ == nullptr; }
  RowTable contiguous() const;

  std::int64_t rows() const { return rows_; }
  std::int64_t dim() const { return dim_; }
  format::DType dtype() const { return dtype_; }
  bool empty() const { return rows_ == 0; }
  // The rows, row-major, in dtype() (contiguous tables only).
  const void* data() const;

  // out[i*dim .. (i+1)*dim) = row local_rows[i] as float32.
  void gather(std::span<const std::int64_t> local_rows, float* out) const;
  // A sparse table's rows local_rows as sparse rows into `out` (replaced; every value stored).
  void gather_sparse(std::span<const std::int64_t> local_rows, graph::SparseRows& out) const;
  // out[positions[i]*dim ..) = row local_rows[i] as float32.
  void gather_at(std::span<const std::int64_t> local_rows, std::span<const std::int64_t> positions, float* out) const;
  // Whether gathers read their rows in the order they lie in the file (view() of an array larger
  // than half the memory available then): where the page cache cannot hold the rows, faults in
  // ascending order let the kernel's readahead serve the rows after them, and ranks gathering
  // from the same file at once share what it reads, where faults in batch order read at random.
  bool reads_in_file_order() const { return file_order_; }
  void set_reads_in_file_order(bool on) { file_order_ = on; }
  // Calls fn(i) for every i in [0, n), where row i is local row row_of(i), in parallel; in file
  // order where reads_in_file_order(), else in index order with the rows a few ahead asked of
  // the cache first (prefetch()), so that several rows are read from memory at once.
  template <class RowOf, class Fn>
  void for_each_row(std::int64_t n, RowOf&& row_of, Fn&& fn) const;
  // for_each_row() in file order, window by window: the rows of the array behind the table cut
  // into `windows` equal spans; the kernel is asked for span w + 1 (MADV_WILLNEED) before span
  // w's rows are read, and after them `after(w)` is called for every w, also where no row falls in
  // it (ranks reading one mapped file keep in step there: each page is read from disk once).
  template <class RowOf, class Fn, class After>
  void for_each_row_by_window(std::int64_t n, std::int64_t windows, RowOf&& row_of, Fn&& fn, After&& after) const;
  // Bytes of the array behind the table (all its rows, where the table indexes some of them).
  std::int64_t array_bytes() const {
    return sparse_ ? sparse_bytes() : array_rows_ * dim_ * static_cast<std::int64_t>(format::dtype_size(dtype_));
  }
  // Asks the cache for row r's bytes ahead of a read (a gather at random rows otherwise waits
  // for the memory once per row).
  void prefetch(std::int64_t r) const {
    if (sparse_) {
      __builtin_prefetch(sparse_->indptr + r);
      return;
    }
    const auto row_bytes = static_cast<std::size_t>(dim_) * format::dtype_size(dtype_);
    const char* at = static_cast<const char*>(data_) + physical(r) * static_cast<std::int64_t>(row_bytes);
    for (std::size_t b = 0; b < row_bytes; b += 64) __builtin_prefetch(at + b);
  }
  // Rows read ahead by for_each_row() and the gathers built on it.
  static constexpr std::int64_t kRowsAhead = 8;
  // One row as float32, or as float16.
  void row(std::int64_t r, float* out) const;
  void row(std::int64_t r, format::Half* out) const;

 private:
  // A sparse table's CSR (values null: every value is 1).
  struct SparseRowsView {
    const std::int64_t* indptr = nullptr;
    const std::int32_t* indices = nullptr;
    const void* values = nullptr;
    format::DType values_dtype = format::DType::kFloat32;
  };
  std::int64_t physical(std::int64_t r) const { return index_ == nullptr ? r : index_[r]; }
  std::int64_t sparse_bytes() const;
  // Sparse row r as `dim_` values (Out: float or format::Half).
  template <class Out>
  void sparse_row(std::int64_t r, Out* out) const;
  // Asks the kernel for the array's rows [begin, end) now.
  void will_need_rows(std::int64_t begin, std::int64_t end) const;
  const void* data_ = nullptr;
  const std::int64_t* index_ = nullptr;  // row r -> row index_[r] of data_, or identity
  std::int64_t rows_ = 0, dim_ = 0;
  std::int64_t array_rows_ = 0;  // rows of the array at data_ (rows_ unless indexed)
  format::DType dtype_ = format::DType::kFloat32;
  bool file_order_ = false;
  std::shared_ptr<const SparseRowsView> sparse_;
  std::shared_ptr<const void> keep_alive_;
};

template <class RowOf, class Fn>
void RowTable::for_each_row(std::int64_t n, RowOf&& row_of, Fn&& fn) const {
  if (!file_order_) {
    core::parallel_for_blocks(n, 256, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
      core::for_each_prefetching(
          begin, end, kRowsAhead, [&](std::int64_t i) { prefetch(row_of(i)); }, fn);
    });
    return;
  }
  const std::vector<std::int64_t> order = core::ascending_order(n, [&](std::int64_t i) { return physical(row_of(i)); });
  // Each thread reads a run of consecutive rows of the order: one ascending sweep per thread.
  core::parallel_for_blocks(n, 4096, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
    for (std::int64_t k = begin; k < end; ++k) fn(order[k]);
  });
}

template <class RowOf, class Fn, class After>
void RowTable::for_each_row_by_window(std::int64_t n, std::int64_t windows, RowOf&& row_of, Fn&& fn,
                                      After&& after) const {
  const std::vector<std::int64_t> order = core::ascending_order(n, [&](std::int64_t i) { return physical(row_of(i)); });
  const auto span_begin = [&](std::int64_t w) { return w >= windows ? array_rows_ : array_rows_ * w / windows; };
  will_need_rows(span_begin(0), span_begin(1));
  std::int64_t k = 0;
  for (std::int64_t w = 0; w < windows; ++w) {
    will_need_rows(span_begin(w + 1), span_begin(w + 2));
    std::int64_t end = k;
    while (end < n && physical(row_of(order[end])) < span_begin(w + 1)) ++end;
    core::parallel_for_blocks(end - k, 4096, [&](std::int64_t begin, std::int64_t stop, std::int64_t) {
      for (std::int64_t j = k + begin; j < k + stop; ++j) fn(order[j]);
    });
    k = end;
    after(w);
  }
}

// Row i of sparse rows held as a graph::SparseRows (values float32, or none: every value is 1).
inline RowTable::SparseEntries entries_of(const graph::SparseRows& rows, std::int64_t i) {
  const std::int64_t begin = rows.indptr[i];
  return {.columns = {rows.indices.data() + begin, static_cast<std::size_t>(rows.indptr[i + 1] - begin)},
          .values = rows.values.empty() ? nullptr : rows.values.data() + begin};
}

// out (replaced) = n sparse rows, row i's entries entries_of(i) (a RowTable::SparseEntries), every
// value stored as float32; rows counted, then copied, in parallel.
template <class EntriesOf>
void assemble_sparse_rows(std::int64_t n, EntriesOf&& entries_of, graph::SparseRows& out) {
  out.indptr.assign(static_cast<std::size_t>(n) + 1, 0);
  core::parallel_for(
      n, [&](std::int64_t i) { out.indptr[i + 1] = static_cast<std::int64_t>(entries_of(i).columns.size()); }, 4096);
  for (std::int64_t i = 0; i < n; ++i) out.indptr[i + 1] += out.indptr[i];
  out.indices.resize(static_cast<std::size_t>(out.indptr[n]));
  out.values.resize(static_cast<std::size_t>(out.indptr[n]));
  core::parallel_for(
      n,
      [&](std::int64_t i) {
        const RowTable::SparseEntries e = entries_of(i);
        std::copy(e.columns.begin(), e.columns.end(), out.indices.begin() + out.indptr[i]);
        e.values_as_floats({out.values.data() + out.indptr[i], e.columns.size()});
      },
      1024);
}

// Encodes rows of `table` as wire elements (float or format::Half).
template <class Wire>
void encode_rows(const RowTable& table, std::span<const std::int64_t> local_rows, std::vector<Wire>& out);
// Decodes wire rows of width dim into rows at the given output positions (Out: float or
// format::Half; float wire rows become float16 rounded, as row() does).
template <class Wire, class Out>
void decode_rows(std::span<const Wire> wire, std::int64_t dim, std::span<const std::int64_t> out_positions, Out* out);

}  // namespace loom::feature
