// A store's feature rows in the sparse layout (meta.json "feat_layout": "sparse"): the rows as a
// CSR matrix of `feat_dim` columns, in three files beside meta.json
//   feat_indptr.npy   int64 [rows + 1]   row r's entries are [indptr[r], indptr[r + 1])
//   feat_indices.npy  int32 [nnz]        their columns, strictly increasing within a row
//   feat_values.npy   float32|float16 [nnz] their values; absent where every value is 1 (binary
//                     bag-of-words features)
// chosen at import (--feature-layout sparse|dense|auto): `auto` stores rows sparse where at most
// kAutoSparseDensity of the values are nonzero (there the CSR's 8 bytes per nonzero are at most a
// fifth of the dense rows' 4 bytes per value). Readers get the rows as dense float32 rows
// (feature::RowTable) unless they read the CSR themselves.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loom/core/enum_names.hpp"
#include "loom/format/dtype.hpp"
#include "loom/format/npy.hpp"

namespace loom::graph {

enum class FeatureLayout { kDense, kSparse };
inline constexpr core::EnumNames<FeatureLayout, 2> kFeatureLayoutNames{
    {{"dense", FeatureLayout::kDense}, {"sparse", FeatureLayout::kSparse}}};

// What an importer is asked for (--feature-layout).
enum class FeatureLayoutChoice { kDense, kSparse, kAuto };
inline constexpr core::EnumNames<FeatureLayoutChoice, 3> kFeatureLayoutChoiceNames{
    {{"dense", FeatureLayoutChoice::kDense},
     {"sparse", FeatureLayoutChoice::kSparse},
     {"auto", FeatureLayoutChoice::kAuto}}};
inline constexpr double kAutoSparseDensity = 0.1;  // `auto`: sparse at most this fraction nonzero

struct SparseRows {
  std::vector<std::int64_t> indptr{0};
  std::vector<std::int32_t> indices;
  std::vector<float> values;  // empty: every value is 1
  std::int64_t nnz() const { return static_cast<std::int64_t>(indices.size()); }
};

// The nonzero entries of dense row-major rows of `dim` columns (values kept unless all are 1).
SparseRows sparse_rows_of(std::span<const float> dense, std::int64_t dim);
std::int64_t count_nonzero(std::span<const float> values);
// The layout `choice` stores rows with `nonzero` of `total` values nonzero in.
FeatureLayout resolve_feature_layout(FeatureLayoutChoice choice, std::int64_t nonzero, std::int64_t total);

// Writes the three files into `dir` row by row, in memory bounded by its buffers (not by the rows'
// count): values narrowed to `dtype` (float32 or float16); feat_values.npy is removed by finish()
// where every value was 1.
class SparseRowsWriter {
 public:
  SparseRowsWriter(const std::string& dir, format::DType dtype);
  // A row's columns (increasing) and their values (empty: every value is 1).
  void add_row(std::span<const std::int32_t> columns, std::span<const float> values = {});
  std::int64_t nnz() const { return nnz_; }
  void finish();

 private:
  void flush();
  std::string dir_;
  format::DType dtype_;
  format::NpyWriter indptr_, indices_, values_;
  std::vector<std::int64_t> offsets_;
  std::vector<std::int32_t> columns_;
  std::vector<float> values_buffer_;
  std::int64_t nnz_ = 0;
  bool all_ones_ = true;
};

// The nonzero entries of dense row-major rows of `dim` columns, written with a SparseRowsWriter;
// returns the entries written.
std::int64_t write_sparse_rows_of(std::span<const float> dense, std::int64_t dim, const std::string& dir,
                                  format::DType dtype);

// `rows` rows of `dim` columns: indptr from 0 to nnz, non-decreasing; each row's columns strictly
// increasing in [0, dim); values empty or one per entry. Error naming `source` and the entry.
void check_sparse_rows(const SparseRows& sparse, std::int64_t rows, std::int64_t dim, const std::string& source);
// The rows dense, row-major (rows x dim values).
std::vector<float> dense_rows_of(const SparseRows& sparse, std::int64_t dim);

// A store's sparse rows, mapped (values empty where absent).
struct SparseFeatureArrays {
  format::NpyArray indptr, indices, values;
};
// Maps the files in `dir` and checks their shapes against `rows`, `nnz` and `dtype`; Error naming
// the file otherwise.
SparseFeatureArrays map_sparse_features(const std::string& dir, std::int64_t rows, std::int64_t nnz,
                                        format::DType dtype);
// Every row's columns strictly increasing and in [0, dim), indptr non-decreasing from 0 to nnz:
// Error naming the file and its first bad entry otherwise.
void check_sparse_features(const SparseFeatureArrays& arrays, std::int64_t dim);

}  // namespace loom::graph
