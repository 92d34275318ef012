#include "loom/graph/io/idx_reader.hpp"

#include <gtest/gtest.h>

#include <string>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "support/test_support.hpp"

namespace loom::graph::io {
namespace {

using test::be32;

// An unsigned-byte IDX file with the given dimensions and values 0, 1, 2, ...
std::string idx_bytes(const std::vector<std::uint32_t>& dims, std::size_t values) {
  std::string s{char(0), char(0), char(8), char(dims.size())};
  for (auto d : dims) s += be32(d);
  for (std::size_t i = 0; i < values; ++i) s += char(i & 0xff);
  return s;
}

void expect_error_naming(const std::string& path, int rank, const std::string& fragment) {
  try {
    read_idx_ubyte(path, rank);
    FAIL() << "no error for " << path;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

TEST(IdxReader, ReadsGzipImages) {
  test::ScratchDir dir;
  test::write_file(dir / "img.gz", idx_bytes({3, 2, 4}, 24), /*gzip=*/true);
  const IdxArray a = read_idx_ubyte(dir / "img.gz", 3);
  EXPECT_EQ(a.dims, (std::vector<std::int64_t>{3, 2, 4}));
  ASSERT_EQ(a.data.size(), 24u);
  EXPECT_EQ(a.data[0], 0);
  EXPECT_EQ(a.data[23], 23);
}

TEST(IdxReader, ReadsPlainLabels) {
  test::ScratchDir dir;
  test::write_file(dir / "lab", idx_bytes({300}, 300));
  const IdxArray a = read_idx_ubyte(dir / "lab", 1);
  EXPECT_EQ(a.dims, (std::vector<std::int64_t>{300}));
  EXPECT_EQ(a.data[299], 299 & 0xff);
}

TEST(IdxReader, MissingFileIsNamed) {
  test::ScratchDir dir;
  expect_error_naming(dir / "absent.gz", 1, "not found");
}

TEST(IdxReader, BadMagicIsRejected) {
  test::ScratchDir dir;
  std::string s = idx_bytes({4}, 4);
  s[0] = 1;
  test::write_file(dir / "a", s, true);
  expect_error_naming(dir / "a", 1, "not an IDX file");
  s = idx_bytes({4}, 4);
  s[2] = 0x0d;  // float data
  test::write_file(dir / "b", s, true);
  expect_error_naming(dir / "b", 1, "not supported");
}

TEST(IdxReader, WrongRankIsRejected) {
  test::ScratchDir dir;
  test::write_file(dir / "a.gz", idx_bytes({2, 2}, 4), true);
  expect_error_naming(dir / "a.gz", 3, "2 dimensions, expected 3");
}

TEST(IdxReader, TruncatedDataIsRejected) {
  test::ScratchDir dir;
  test::write_file(dir / "a.gz", idx_bytes({10, 5}, 49), true);
  expect_error_naming(dir / "a.gz", 2, "truncated");
  test::write_file(dir / "b.gz", idx_bytes({10}, 0).substr(0, 6), true);
  expect_error_naming(dir / "b.gz", 1, "truncated IDX header");
}

TEST(IdxReader, TrailingDataIsRejected) {
  test::ScratchDir dir;
  test::write_file(dir / "a.gz", idx_bytes({10}, 11), true);
  expect_error_naming(dir / "a.gz", 1, "after the 10 declared values");
}

TEST(IdxReader, CutGzipStreamIsRejected) {
  test::ScratchDir dir;
  test::write_file(dir / "full.gz", idx_bytes({4000}, 4000), true);
  const std::string bytes = core::read_text_file(dir / "full.gz");
  test::write_file(dir / "cut.gz", bytes.substr(0, bytes.size() / 2));
  expect_error_naming(dir / "cut.gz", 1, "gzip");
}

TEST(IdxReader, ZeroDimensionIsRejected) {
  test::ScratchDir dir;
  test::write_file(dir / "a.gz", idx_bytes({0}, 0), true);
  expect_error_naming(dir / "a.gz", 1, "must be positive");
}

}  // namespace
}  // namespace loom::graph::io
