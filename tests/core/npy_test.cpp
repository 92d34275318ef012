#include "loom/core/npy.hpp"

#include <filesystem>

#include "loom/core/fs.hpp"
#include "support/test_support.hpp"

namespace loom::core {
namespace {

TEST(Npy, RoundTripsVectorsAndMatrices) {
  test::ScratchDir dir;
  const std::vector<std::int64_t> ids = {3, -1, 7, 1LL << 40};
  write_npy(dir / "ids.npy", ids);
  const std::vector<float> mat = {1, 2, 3, 4, 5, 6};
  write_npy(dir / "mat.npy", mat, {2, 3});
  const auto a = NpyArray::map(dir / "ids.npy");
  EXPECT_EQ(a.dtype(), DType::kInt64);
  ASSERT_EQ(a.size(), 4);
  EXPECT_EQ(a.span<std::int64_t>()[3], 1LL << 40);
  const auto m = NpyArray::map(dir / "mat.npy");
  EXPECT_EQ(m.rows(), 2);
  EXPECT_EQ(m.cols(), 3);
  EXPECT_EQ(m.span<float>()[5], 6.0f);
  EXPECT_THROW(m.span<double>(), Error);
}

TEST(Npy, DataStartsOn64ByteBoundary) {
  test::ScratchDir dir;
  write_npy(dir / "x.npy", std::vector<float>{1.0f});
  EXPECT_EQ((std::filesystem::file_size(dir / "x.npy") - 4) % 64, 0u);
}

TEST(Npy, TruncatedFileNamesTheFile) {
  test::ScratchDir dir;
  write_npy(dir / "x.npy", std::vector<std::int64_t>(100, 1));
  std::filesystem::resize_file(dir / "x.npy", 200);
  try {
    NpyArray::map(dir / "x.npy");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.npy"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos);
  }
}

TEST(Npy, WriteLeavesNoTemporaryBehind) {
  test::ScratchDir dir;
  write_npy(dir / "x.npy", std::vector<std::int32_t>{1, 2});
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(Npy, ReadAsConvertsHalfToFloat) {
  test::ScratchDir dir;
  std::vector<Half> h = {float_to_half(1.5f), float_to_half(-2.0f), float_to_half(65504.0f)};
  write_npy(dir / "h.npy", h);
  const auto f = read_npy_as<float>(dir / "h.npy");
  EXPECT_EQ(f, (std::vector<float>{1.5f, -2.0f, 65504.0f}));
}

TEST(OutputDir, RemovesEverythingWhenNotCommitted) {
  test::ScratchDir dir;
  {
    OutputDir out(dir / "store", false);
    write_text_file(out.file("a.txt"), "x");
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(OutputDir, RefusesExistingTargetWithoutOverwrite) {
  test::ScratchDir dir;
  std::filesystem::create_directory(dir / "store");
  EXPECT_THROW(OutputDir(dir / "store", false), Error);
  OutputDir ok(dir / "store", true);
  ok.commit();
}

TEST(OutputDir, UnwritableParentNamesTheArgument) {
  test::ScratchDir dir;
  write_text_file(dir / "file", "x");
  try {
    OutputDir out(dir / "file/sub", false, "-o");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "-o");
  }
}

}  // namespace
}  // namespace loom::core
