// RowTable: rows of a mapped array as they are, or through an index (a part whose features stay
// in the source store), in float32 or float16; contiguous() copies indexed rows in their dtype;
// sparse rows (a store's CSR layout) read as the dense rows they stand for.
#include "loom/feature/row_table.hpp"

#include <array>
#include <cstring>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"

namespace loom::feature {
namespace {

format::NpyArray int64_array(std::vector<std::int64_t> values) {
  std::vector<char> bytes(values.size() * 8);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return format::NpyArray::from_bytes(format::DType::kInt64, {static_cast<std::int64_t>(values.size())},
                                      std::move(bytes));
}

template <class T>
format::NpyArray array_of(format::DType dtype, const std::vector<T>& values) {
  std::vector<char> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return format::NpyArray::from_bytes(dtype, {static_cast<std::int64_t>(values.size())}, std::move(bytes));
}

TEST(RowTable, SparseRowsReadAsTheDenseRowsTheyStandFor) {
  // Rows [0 2 0 0], [0 0 0 0], [1.5 0 0 -3] with values, and the same pattern as 0/1 without them.
  const std::vector<float> dense{0, 2, 0, 0, 0, 0, 0, 0, 1.5F, 0, 0, -3};
  const graph::SparseRows s = graph::sparse_rows_of(dense, 4);
  EXPECT_EQ(s.indptr, (std::vector<std::int64_t>{0, 1, 1, 3}));
  EXPECT_EQ(s.indices, (std::vector<std::int32_t>{1, 0, 3}));
  ASSERT_EQ(s.values.size(), 3u);
  const graph::SparseFeatureArrays arrays{array_of(format::DType::kInt64, s.indptr),
                                          array_of(format::DType::kInt32, s.indices),
                                          array_of(format::DType::kFloat32, s.values)};
  const RowTable table = RowTable::sparse_view(arrays, 4);
  EXPECT_TRUE(table.is_sparse());
  EXPECT_FALSE(table.is_contiguous());
  EXPECT_EQ(table.bytes(), 4 * 8 + 3 * (4 + 4));
  std::vector<float> out(8, 9.0F);
  const std::array<std::int64_t, 2> rows{2, 1};
  table.gather(rows, out.data());
  EXPECT_EQ(out, (std::vector<float>{1.5F, 0, 0, -3, 0, 0, 0, 0}));
  const RowTable dense_copy = table.contiguous();
  EXPECT_TRUE(dense_copy.is_contiguous());
  EXPECT_EQ(0, std::memcmp(dense_copy.data(), dense.data(), dense.size() * sizeof(float)));
  const RowTable binary = RowTable::sparse_view({arrays.indptr, arrays.indices, {}}, 4);
  binary.gather(rows, out.data());
  EXPECT_EQ(out, (std::vector<float>{1, 0, 0, 1, 0, 0, 0, 0}));
  // All ones: no values kept; `auto` picks the layout by the share of nonzero values.
  EXPECT_TRUE(graph::sparse_rows_of(std::vector<float>{0, 1, 1, 0}, 2).values.empty());
  EXPECT_EQ(graph::resolve_feature_layout(graph::FeatureLayoutChoice::kAuto, 10, 100), graph::FeatureLayout::kSparse);
  EXPECT_EQ(graph::resolve_feature_layout(graph::FeatureLayoutChoice::kAuto, 11, 100), graph::FeatureLayout::kDense);
}

TEST(RowTable, AnIndexedViewReadsTheIndexedRowsInEveryDtype) {
  std::vector<char> bytes(4 * 2 * 2);
  auto* half = reinterpret_cast<format::Half*>(bytes.data());
  for (int i = 0; i < 8; ++i) half[i] = format::float_to_half(static_cast<float>(i));
  const auto rows = format::NpyArray::from_bytes(format::DType::kFloat16, {4, 2}, std::move(bytes));
  const RowTable table = RowTable::view(rows, int64_array({3, 0, 3}));
  EXPECT_EQ(table.rows(), 3);
  EXPECT_FALSE(table.is_contiguous());
  std::vector<float> out(6);
  table.gather(std::vector<std::int64_t>{0, 1, 2}, out.data());
  EXPECT_EQ(out, (std::vector<float>{6, 7, 0, 1, 6, 7}));
  format::Half h[2];
  table.row(1, h);
  EXPECT_EQ(format::half_to_float(h[1]), 1.0f);
  EXPECT_THROW(table.data(), Error) << "indexed rows are not one block";
  const RowTable copy = table.contiguous();
  EXPECT_TRUE(copy.is_contiguous());
  EXPECT_EQ(copy.dtype(), format::DType::kFloat16);
  EXPECT_EQ(format::half_to_float(static_cast<const format::Half*>(copy.data())[4]), 6.0f);
}

TEST(RowTable, GathersInFileOrderWriteWhatBatchOrderWrites) {
  const std::int64_t n = 5000, dim = 3;
  std::vector<char> bytes(n * dim * 4);
  auto* values = reinterpret_cast<float*>(bytes.data());
  for (std::int64_t i = 0; i < n * dim; ++i) values[i] = static_cast<float>(i);
  const auto rows = format::NpyArray::from_bytes(format::DType::kFloat32, {n, dim}, std::move(bytes));
  std::vector<std::int64_t> reversed(n);
  for (std::int64_t r = 0; r < n; ++r) reversed[r] = n - 1 - r;
  RowTable table = RowTable::view(rows, int64_array(reversed));
  EXPECT_FALSE(table.reads_in_file_order()) << "60 KB is far below half the memory available";

  std::vector<std::int64_t> wanted(9000), positions(9000);
  for (std::int64_t i = 0; i < 9000; ++i) wanted[i] = (i * 7919) % n, positions[i] = 8999 - i;
  std::vector<float> batch_order(9000 * dim), in_file_order(9000 * dim), at_batch(9000 * dim), at_file(9000 * dim);
  table.gather(wanted, batch_order.data());
  table.gather_at(wanted, positions, at_batch.data());
  std::vector<format::Half> half_batch, half_file;
  encode_rows<format::Half>(table, wanted, half_batch);
  table.set_reads_in_file_order(true);
  table.gather(wanted, in_file_order.data());
  table.gather_at(wanted, positions, at_file.data());
  encode_rows<format::Half>(table, wanted, half_file);
  EXPECT_EQ(in_file_order, batch_order);
  EXPECT_EQ(at_file, at_batch);
  EXPECT_EQ(at_file[0], values[(n - 1 - wanted[8999]) * dim]);
  EXPECT_EQ(std::memcmp(half_file.data(), half_batch.data(), half_file.size() * sizeof(format::Half)), 0);

  const auto order = core::ascending_order(4, [](std::int64_t i) {
    return std::array<std::int64_t, 4>{30, 10, 40, 20}[i];
  });
  EXPECT_EQ(order, (std::vector<std::int64_t>{1, 3, 0, 2}));
}

}  // namespace
}  // namespace loom::feature
