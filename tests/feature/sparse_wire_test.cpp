// Sparse rows on the wire: what encode_sparse_rows() writes, decode_sparse_rows() reads back as the
// dense rows (float32 and float16 wire, binary rows without values), and a truncated or malformed
// reply is an error, not a read past its end.
#include "loom/feature/sparse_wire.hpp"

#include <array>
#include <cstring>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"

namespace loom::feature {
namespace {

template <class T>
format::NpyArray npy_of(format::DType dtype, const std::vector<T>& values) {
  std::vector<char> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return format::NpyArray::from_bytes(dtype, {static_cast<std::int64_t>(values.size())}, std::move(bytes));
}

RowTable sparse_table_of(const std::vector<float>& dense, std::int64_t dim) {
  const graph::SparseRows s = graph::sparse_rows_of(dense, dim);
  graph::SparseFeatureArrays a{npy_of(format::DType::kInt64, s.indptr), npy_of(format::DType::kInt32, s.indices),
                               s.values.empty() ? format::NpyArray{} : npy_of(format::DType::kFloat32, s.values)};
  return RowTable::sparse_view(a, dim);
}

TEST(SparseWire, RowsComeBackDenseAtTheirPositions) {
  const std::vector<float> dense{0, 2, 0, 0, 0, 0, 0, 0, 1.5F, 0, 0, -3};
  const RowTable table = sparse_table_of(dense, 4);
  const std::array<std::int64_t, 3> rows{2, 0, 1}, positions{0, 2, 1};
  std::vector<std::byte> wire;
  encode_sparse_rows<float>(table, rows, wire);
  EXPECT_EQ(wire.size(), 3 * 4 + 3 * 8);  // headers, then (column, value) of 3 entries
  std::vector<float> out(12, 9.0F);
  decode_sparse_rows<float, float>(wire, 4, positions, out.data());
  EXPECT_EQ(out, (std::vector<float>{1.5F, 0, 0, -3, 0, 0, 0, 0, 0, 2, 0, 0}));
  std::vector<std::byte> half;
  encode_sparse_rows<format::Half>(table, rows, half);
  std::vector<float> from_half(12, 9.0F);
  decode_sparse_rows<format::Half, float>(half, 4, positions, from_half.data());
  EXPECT_EQ(from_half, out);
  // Binary rows carry no values: 4 + 4 bytes for a row of one entry.
  const RowTable binary = sparse_table_of({0, 1, 1, 0}, 2);
  std::vector<std::byte> ones;
  encode_sparse_rows<float>(binary, std::array<std::int64_t, 2>{0, 1}, ones);
  EXPECT_EQ(ones.size(), 16u);
}

TEST(SparseWire, RowsAppendToACsrNeverWidened) {
  const RowTable table = sparse_table_of({0, 2, 0, 0, 0, 0, 1, 1}, 4);  // rows of 1, 0 and 2 entries (binary: 1, 1)
  std::vector<std::byte> wire;
  encode_sparse_rows<format::Half>(table, std::array<std::int64_t, 2>{1, 0}, wire);
  graph::SparseRows out;
  out.indptr = {0, 1};  // a row already there
  out.indices = {3};
  out.values = {5};
  decode_sparse_rows_into<format::Half>(wire, 4, 2, out);
  EXPECT_EQ(out.indptr, (std::vector<std::int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(out.indices, (std::vector<std::int32_t>{3, 2, 3, 1}));
  EXPECT_EQ(out.values, (std::vector<float>{5, 1, 1, 2})) << "binary rows get their ones stored";
  EXPECT_THROW(decode_sparse_rows_into<format::Half>(wire, 4, 3, out), Error);
}

TEST(SparseWire, AMalformedReplyIsAnError) {
  const RowTable table = sparse_table_of({0, 2, 0, 1.5F}, 2);
  std::vector<std::byte> wire;
  encode_sparse_rows<float>(table, std::array<std::int64_t, 2>{0, 1}, wire);
  std::vector<float> out(4);
  const std::array<std::int64_t, 2> positions{0, 1};
  const std::vector<std::byte> cut(wire.begin(), wire.end() - 1);
  EXPECT_THROW((decode_sparse_rows<float, float>(cut, 2, positions, out.data())), Error);
  EXPECT_THROW((decode_sparse_rows<float, float>(wire, 2, std::array<std::int64_t, 1>{0}, out.data())), Error);
  std::vector<std::byte> bad = wire;
  const std::int32_t column = 7;  // the first row's column, outside [0, 2)
  std::memcpy(bad.data() + 4, &column, 4);
  EXPECT_THROW((decode_sparse_rows<float, float>(bad, 2, positions, out.data())), Error);
}

}  // namespace
}  // namespace loom::feature
