// The partitioned store as written: each row stored once (a part maps its range of the topology),
// the same store whatever memory the topology is written in, and parts whose rows, features and
// labels are the source's under the relabelling.
#include "loom/partition/write_partitioned.hpp"

#include <filesystem>

#include <gtest/gtest.h>

#include "loom/graph/generate/sbm.hpp"
#include "loom/partition/store_checker.hpp"
#include "support/test_support.hpp"

namespace loom::partition {
namespace {

PartitionOptions options_for(const test::ScratchDir& dir, const std::string& name, std::int64_t memory) {
  PartitionOptions o;
  o.source = dir / "g";
  o.output = dir / name;
  o.num_parts = 3;
  o.method = PartitionMethod::kStream;
  o.seed = 2;
  o.memory_bytes = memory;
  return o;
}

TEST(WritePartitioned, PartsMapTheirRowsOfTheTopologyAndMemoryDoesNotChangeTheStore) {
  test::ScratchDir dir;
  graph::generate::SbmOptions g;
  g.nodes = 900;
  g.classes = 3;
  g.avg_degree = 10;
  g.feat_dim = 5;
  g.seed = 1;
  graph::StoreWriteOptions half;
  half.feat_dtype = format::DType::kFloat16;
  graph::generate::generate_sbm_store(g, dir / "g", half);
  partition_store(options_for(dir, "small", 64));
  partition_store(options_for(dir, "large", std::int64_t{1} << 30));
  EXPECT_GT(test::expect_same_store(dir / "small", dir / "large"), 30);

  const auto store = PartitionedStore::open(dir / "small");
  const auto source = graph::GraphStore::open(dir / "g");
  const auto map = store.new_to_source();
  for (int k = 0; k < store.num_parts(); ++k) {
    EXPECT_FALSE(std::filesystem::exists(store.part_dir(k) + "/indices.npy")) << "part " << k << " holds no CSR";
    const Part part = store.part(k);
    EXPECT_EQ(part.store().meta().rows_from, "../topology");
    const auto rows = part.store().csr().indptr();
    const auto topo = store.topology().csr().indptr();
    for (std::int64_t i = 0; i < part.range().size(); ++i)
      EXPECT_EQ(rows[i + 1] - rows[i], topo[part.range().begin + i + 1] - topo[part.range().begin + i]);
    const auto feat = part.store().feat().span<format::Half>();
    const auto source_feat = source.feat().span<format::Half>();
    for (std::int64_t i = 0; i < part.range().size(); ++i)
      for (std::int64_t c = 0; c < 5; ++c)
        EXPECT_EQ(feat[i * 5 + c].bits, source_feat[map[part.range().begin + i] * 5 + c].bits);
  }
}

TEST(WritePartitioned, MappedFeaturesAreTheSourceRowsThroughTheRelabelling) {
  test::ScratchDir dir;
  graph::generate::SbmOptions g;
  g.nodes = 500;
  g.classes = 2;
  g.avg_degree = 6;
  g.feat_dim = 3;
  g.seed = 5;
  graph::generate::generate_sbm_store(g, dir / "g", {});
  PartitionOptions o = options_for(dir, "mapped", std::int64_t{1} << 20);
  o.map_features = true;
  partition_store(o);
  const auto store = PartitionedStore::open(dir / "mapped");
  const auto source = graph::GraphStore::open(dir / "g");
  const auto map = store.new_to_source();
  for (int k = 0; k < store.num_parts(); ++k) {
    EXPECT_FALSE(std::filesystem::exists(store.part_dir(k) + "/feat.npy")) << "part " << k << " copies no features";
    const Part part = store.part(k);
    const auto index = part.store().feat_index().span<std::int64_t>();
    ASSERT_EQ(static_cast<std::int64_t>(index.size()), part.range().size());
    for (std::int64_t i = 0; i < part.range().size(); ++i)
      EXPECT_EQ(index[i], map[part.range().begin + i]) << "part " << k << " row " << i;
    EXPECT_EQ(part.store().feat().rows(), source.num_nodes()) << "the source's whole feat.npy, indexed";
  }
  const StoreCheck check = check_store(dir / "mapped", /*progress=*/false);
  EXPECT_TRUE(check.ok()) << check.to_json().dump();
}

}  // namespace
}  // namespace loom::partition
