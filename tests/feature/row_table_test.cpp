// RowTable: rows of a mapped array as they are, or through an index (a part whose features stay
// in the source store), in float32 or float16; contiguous() copies indexed rows in their dtype.
#include "loom/feature/row_table.hpp"

#include <cstring>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"

namespace loom::feature {
namespace {

core::NpyArray int64_array(std::vector<std::int64_t> values) {
  std::vector<char> bytes(values.size() * 8);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return core::NpyArray::from_bytes(core::DType::kInt64, {static_cast<std::int64_t>(values.size())}, std::move(bytes));
}

TEST(RowTable, AnIndexedViewReadsTheIndexedRowsInEveryDtype) {
  std::vector<char> bytes(4 * 2 * 2);
  auto* half = reinterpret_cast<core::Half*>(bytes.data());
  for (int i = 0; i < 8; ++i) half[i] = core::float_to_half(static_cast<float>(i));
  const auto rows = core::NpyArray::from_bytes(core::DType::kFloat16, {4, 2}, std::move(bytes));
  const RowTable table = RowTable::view(rows, int64_array({3, 0, 3}));
  EXPECT_EQ(table.rows(), 3);
  EXPECT_FALSE(table.is_contiguous());
  std::vector<float> out(6);
  table.gather(std::vector<std::int64_t>{0, 1, 2}, out.data());
  EXPECT_EQ(out, (std::vector<float>{6, 7, 0, 1, 6, 7}));
  core::Half h[2];
  table.row_half(1, h);
  EXPECT_EQ(core::half_to_float(h[1]), 1.0f);
  EXPECT_THROW(table.data(), Error) << "indexed rows are not one block";
  const RowTable copy = table.contiguous();
  EXPECT_TRUE(copy.is_contiguous());
  EXPECT_EQ(copy.dtype(), core::DType::kFloat16);
  EXPECT_EQ(core::half_to_float(static_cast<const core::Half*>(copy.data())[4]), 6.0f);
}

}  // namespace
}  // namespace loom::feature
