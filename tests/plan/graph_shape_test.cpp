// --shape: sizes with suffixes, the stand-in's R-MAT probabilities, and errors naming --shape and
// the key at fault.
#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/plan/kway_graph.hpp"

namespace loom::plan {
namespace {

TEST(GraphShape, ParsesSizesAndTheStandInsSkew) {
  const GraphShape shape = parse_shape(
      "nodes=111M,edges=3.2G,train=1.2M,feat-dim=128,classes=172,rmat-a=0.25,"
      "rmat-b=0.25,rmat-c=0.25");
  EXPECT_EQ(shape.nodes, 111000000);
  EXPECT_EQ(shape.edges, 3200000000);
  EXPECT_EQ(shape.train_nodes, 1200000);
  EXPECT_EQ(shape.classes, 172);
  EXPECT_DOUBLE_EQ(shape.rmat_a, 0.25);
  EXPECT_DOUBLE_EQ(shape.rmat_c, 0.25);
  const GraphShape graph500 = parse_shape("nodes=1M,edges=10M,train=1K,feat-dim=8");
  EXPECT_DOUBLE_EQ(graph500.rmat_a, 0.57);
  EXPECT_DOUBLE_EQ(graph500.rmat_b, 0.19);
}

TEST(GraphShape, BadSkewNamesTheKey) {
  const std::string base = "nodes=1M,edges=10M,train=1K,feat-dim=8,";
  for (const std::string bad : {"rmat-a=1.5", "rmat-b=x", "rmat-c=0", "rmat-a="}) {
    try {
      parse_shape(base + bad);
      FAIL() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--shape"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad.substr(0, 6)), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_shape(base + "rmat-a=0.5,rmat-b=0.3,rmat-c=0.3"), Error);
}

}  // namespace
}  // namespace loom::plan
