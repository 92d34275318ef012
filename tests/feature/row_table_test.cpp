// RowTable: rows of a mapped array as they are, or through an index (a part whose features stay
// in the source store), in float32 or float16; contiguous() copies indexed rows in their dtype.
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
