#include "loom/format/npy.hpp"

#include <cmath>
#include <filesystem>

#include "loom/format/float_rows.hpp"
#include "loom/core/fs.hpp"
#include "support/test_support.hpp"

namespace loom::format {
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

// A header whose length leaves the float32 values off a 4-byte boundary (numpy never writes one):
// refused by name, never read in place.
TEST(Npy, DataOffTheElementBoundaryIsRefused) {
  test::ScratchDir dir;
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  header.append(63 - header.size(), ' ');  // 10 + 63 + 1: the data starts at byte 74
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
  bytes.append(4, '\0');
  core::write_text_file(dir / "x.npy", bytes);
  try {
    NpyArray::map(dir / "x.npy");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.npy"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("starts at byte 74"), std::string::npos) << e.what();
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

// Every float16 value, subnormals included, survives float32 and back; float32 values round to the
// nearest float16 (ties to even) below float16's normal range too (numpy's results).
TEST(Half, EveryValueRoundTripsAndSubnormalsRoundToNearest) {
  for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
    const Half h{static_cast<std::uint16_t>(bits)};
    if ((bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0) continue;  // NaN
    ASSERT_EQ(float_to_half(half_to_float(h)).bits, h.bits) << "float16 bits " << bits;
  }
  EXPECT_EQ(float_to_half(3e-6f).bits, 50);
  EXPECT_EQ(float_to_half(5e-5f).bits, 839);
  EXPECT_EQ(float_to_half(-std::ldexp(1.0f, -15)).bits, 0x8000 | 512);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)).bits, 0);  // a tie: to even (0)
  EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)).bits, 2);  // a tie: to even (2)
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -26)).bits, 0);
}

TEST(Npy, BFloat16RoundsToNearestEvenAndIsStoredAsTwoByteVoids) {
  EXPECT_EQ(float_to_bfloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(float_to_bfloat16(1.00390625f).bits, 0x3f80) << "a tie goes to the even mantissa";
  EXPECT_EQ(float_to_bfloat16(1.01171875f).bits, 0x3f82) << "a tie goes to the even mantissa";
  EXPECT_EQ(float_to_bfloat16(1.005f).bits, 0x3f81) << "above the tie rounds up";
  EXPECT_EQ(float_to_bfloat16(-3.0e38f).bits, 0xff62) << "no overflow where float16 has one";
  EXPECT_TRUE(std::isnan(bfloat16_to_float(float_to_bfloat16(std::nanf("")))));

  test::ScratchDir dir;
  std::vector<BFloat16> b = {float_to_bfloat16(1.5f), float_to_bfloat16(-2.0f), float_to_bfloat16(70000.0f)};
  write_npy(dir / "b.npy", b);
  EXPECT_NE(core::read_text_file(dir / "b.npy").find("'descr': '<V2'"), std::string::npos)
      << "numpy reads it as 2-byte voids";
  EXPECT_EQ(NpyArray::map(dir / "b.npy").dtype(), DType::kBFloat16);
  EXPECT_EQ(read_npy_as<float>(dir / "b.npy"), (std::vector<float>{1.5f, -2.0f, 70144.0f}));
}

TEST(FloatRows, NarrowAndWidenEveryFeatureDtype) {
  const std::vector<float> values = {0.0f, 1.0f, -0.333333f, 1000.5f, 3.0e-3f};
  for (const auto& [name, dtype] : kFeatDTypeNames) {
    const std::vector<char> bytes = narrowed(values, dtype);
    ASSERT_EQ(bytes.size(), values.size() * dtype_size(dtype)) << name;
    std::vector<float> back(values.size());
    widen_floats(bytes.data(), dtype, back);
    const float tolerance = dtype == DType::kFloat32 ? 0.0f : dtype == DType::kFloat16 ? 1.0f / 1024 : 1.0f / 128;
    for (std::size_t i = 0; i < values.size(); ++i)
      EXPECT_NEAR(back[i], values[i], tolerance * std::abs(values[i]) + 1e-7f) << name << " value " << values[i];
  }
}

}  // namespace
}  // namespace loom::format
