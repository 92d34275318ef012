#include "loom/graph/io/split_dict.hpp"

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "support/test_support.hpp"

namespace loom::graph::io {
namespace {

using Ids = std::vector<std::int64_t>;

// Written by torch.save (tests/fuzz/corpus/split_dict; see write_layouts.py for the others).
std::string seed(const std::string& name) { return test::source_dir() + "/tests/fuzz/corpus/split_dict/" + name; }

TEST(SplitDict, NumpyArraysInTorchsLegacyFormat) {
  const auto d = read_split_dict(seed("legacy.pt"));  // {'train': np.arange(3), 'valid': np.arange(2)}
  EXPECT_EQ(d.at("train"), (Ids{0, 1, 2}));
  EXPECT_EQ(d.at("valid"), (Ids{0, 1}));
}

TEST(SplitDict, TensorsPickledWithProtocolFour) {
  EXPECT_EQ(read_split_dict(seed("proto4.pt")).at("train"), (Ids{0, 1, 2, 3}));  // torch.arange(4)
}

// The same splits of one graph, once as tensors (OGB) and once as numpy arrays (MAG240M).
TEST(SplitDict, TensorsAndNumpyArraysGiveTheSameIds) {
  const auto tensors = read_split_dict(seed("tensors.pt"));
  const auto arrays = read_split_dict(seed("numpy.pt"));
  EXPECT_FALSE(tensors.at("train").empty());
  EXPECT_EQ(tensors.at("train"), arrays.at("train"));
  EXPECT_EQ(tensors.at("valid"), arrays.at("valid"));
  EXPECT_EQ(tensors.at("test"), arrays.at("test-dev"));
  const auto official = official_splits(arrays, "numpy.pt", 12);
  EXPECT_EQ(official.at("test"), arrays.at("test-dev"));
  EXPECT_EQ(official.count("test-challenge"), 0u);
}

TEST(SplitDict, IdsOutsideTheGraphAndMissingSplitsAreNamed) {
  const auto arrays = read_split_dict(seed("numpy.pt"));
  EXPECT_THROW(official_splits(arrays, "numpy.pt", 2), Error);
  EXPECT_THROW(official_splits({{"train", {0}}}, "x.pt", 5), Error);
}

TEST(SplitDict, ANonPickleIsAnErrorNamingTheFile) {
  test::ScratchDir dir;
  core::write_text_file(dir / "x.pt", "not a pickle at all");
  try {
    read_split_dict(dir / "x.pt");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.pt"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loom::graph::io
