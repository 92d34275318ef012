// End-to-end `loom partition` and `loom info` on a partitioned store.
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "loom/graph/build_csr.hpp"
#include "loom/graph/store.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace loom::test {
namespace {

// Two 5-cliques (ids 0-4 and 5-9) joined by the edge 4-5; train = even ids.
void write_two_cliques(const std::string& dir) {
  graph::EdgeList edges;
  edges.num_nodes = 10;
  for (std::int64_t base : {0, 5})
    for (std::int64_t i = 0; i < 5; ++i)
      for (std::int64_t j = i + 1; j < 5; ++j) {
        edges.src.push_back(base + i);
        edges.dst.push_back(base + j);
      }
  edges.src.push_back(4);
  edges.dst.push_back(5);
  auto built = graph::build_csr(edges, {});
  graph::GraphData d;
  d.indptr = std::move(built.indptr);
  d.indices = std::move(built.indices);
  d.feat_dim = 2;
  for (std::int64_t v = 0; v < 10; ++v) {
    d.feat.insert(d.feat.end(), {static_cast<float>(v), 1.0f});
    d.label.push_back(v % 2);
    if (v % 2 == 0) d.splits["train"].push_back(v);
  }
  d.num_classes = 2;
  graph::write_graph_store(d, dir, {});
}

std::set<std::string> entries(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename());
  return names;
}

TEST(CliPartition, MetisWritesAStoreThatInfoDescribes) {
  ScratchDir scratch;
  write_two_cliques(scratch / "g");
  const auto r = run_loom("partition " + (scratch / "g") + " -k 2 --method metis --seed 5 -o " + (scratch / "p"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("edge cut:   1 of 21 edges"), std::string::npos) << r.output;
  const auto store = partition::PartitionedStore::open(scratch / "p");
  EXPECT_EQ(store.num_parts(), 2);
  EXPECT_EQ(store.meta().seed, 5u);

  const auto info = run_loom("info " + (scratch / "p"));
  ASSERT_EQ(info.status, 0) << info.output;
  EXPECT_NE(info.output.find("2 by metis (seed 5)"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("1 of 21 edges"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("new_to_source.npy"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("[0, 5)"), std::string::npos) << info.output;

  const auto json = run_loom("info --json " + (scratch / "p"));
  ASSERT_EQ(json.status, 0) << json.output;
  const auto j = nlohmann::json::parse(json.output);
  EXPECT_EQ(j["format"], "loom-partitioned");
  ASSERT_EQ(j["parts"].size(), 2u);
  for (const auto& part : j["parts"]) {
    EXPECT_EQ(part["nodes"], 5);
    EXPECT_EQ(part["halo"], 1);
    EXPECT_EQ(part["edges"], 21);  // 4 + 4 + 4 + 4 + 5 stored entries
  }
  EXPECT_EQ(j["parts"][0]["train_nodes"].get<int>() + j["parts"][1]["train_nodes"].get<int>(), 5);

  // A part is an ordinary graph store for `loom info`.
  const auto part = run_loom("info " + (scratch / "p/part-1"));
  EXPECT_EQ(part.status, 0) << part.output;
  EXPECT_NE(part.output.find("part 1 of 2"), std::string::npos) << part.output;
}

TEST(CliPartition, RandomAndHashMethods) {
  ScratchDir scratch;
  write_two_cliques(scratch / "g");
  for (const std::string method : {"random", "hash"}) {
    const auto r = run_loom("partition " + (scratch / "g") + " -k 3 --method " + method + " -o " + (scratch / method));
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(partition::PartitionedStore::open(scratch / method).meta().method, method);
  }
}

struct CliBadInput : ::testing::Test {
  ScratchDir scratch;
  void SetUp() override { write_two_cliques(scratch / "g"); }
  void expect_error(const std::string& args, const std::string& message) {
    const auto before = entries(scratch.path());
    const auto r = run_loom("partition " + args);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("loom: error: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
    EXPECT_EQ(entries(scratch.path()), before);
  }
};

TEST_F(CliBadInput, KOutOfRange) {
  expect_error(scratch / "g" + " -k 0 -o " + scratch / "p", "argument -k: number of parts must be at least 1");
  expect_error(scratch / "g" + " -k 11 -o " + scratch / "p",
               "argument -k: number of parts 11 exceeds the number of nodes 10");
}

TEST_F(CliBadInput, UnknownMethodIsAUsageError) {
  const auto r = run_loom("partition " + scratch / "g" + " -k 2 --method spectral -o " + scratch / "p");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--method: unknown value 'spectral' (want metis | stream | random | hash | ptscotch)"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(scratch / "p"));
}

TEST_F(CliBadInput, SourceNotAStore) {
  fs::create_directory(scratch / "empty");
  expect_error(scratch / "empty" + " -k 2 -o " + scratch / "p", "not a Loom graph store");
}

TEST_F(CliBadInput, OutputExistsWithoutOverwrite) {
  fs::create_directory(scratch / "p");
  expect_error(scratch / "g" + " -k 2 -o " + scratch / "p",
               "argument -o: output '" + scratch / "p" + "' already exists");
  EXPECT_EQ(run_loom("partition " + scratch / "g" + " -k 2 --overwrite -o " + scratch / "p").status, 0);
  EXPECT_TRUE(fs::exists(scratch / "p/part-1/halo_ids.npy"));
}

TEST_F(CliBadInput, UnwritableOutput) {
  write_file(scratch / "file", "x");
  expect_error(scratch / "g" + " -k 2 -o " + scratch / "file/p", "argument -o: cannot create parent directory");
}

// The real Facebook page graph (22,470 nodes): METIS must cut far fewer edges than random
// partitioning, balance nodes, and every part must hold its rows and a consistent halo.
TEST(CliPartition, FacebookMetisBeatsRandom) {
  LOOM_REQUIRE_DATA(facebook, "graphs/facebook");
  ScratchDir scratch;
  const auto imported = run_loom("import ogb " + facebook + " -o " + (scratch / "g"));
  ASSERT_EQ(imported.status, 0) << imported.output;
  const auto source = graph::GraphStore::open(scratch / "g");
  double cut[2] = {0, 0};
  const std::string methods[2] = {"metis", "random"};
  for (int m = 0; m < 2; ++m) {
    const auto r =
        run_loom("partition " + (scratch / "g") + " -k 4 --method " + methods[m] + " -o " + (scratch / methods[m]));
    ASSERT_EQ(r.status, 0) << r.output;
    const auto store = partition::PartitionedStore::open(scratch / methods[m]);
    cut[m] = store.meta().quality.edge_cut.fraction();
    std::int64_t nodes = 0, edges = 0, train = 0;
    for (int k = 0; k < 4; ++k) {
      const auto part = store.part(k);
      nodes += part.store().num_nodes();
      edges += part.store().meta().num_edges;
      train += part.store().split("train").size();
      for (const auto g : part.halo_ids()) ASSERT_FALSE(part.range().contains(g));
    }
    EXPECT_EQ(nodes, source.num_nodes());
    EXPECT_EQ(edges, source.meta().num_edges);
    EXPECT_EQ(train, static_cast<std::int64_t>(source.split("train").size()));
    if (methods[m] == "metis") {
      const auto quality = store.meta().quality.to_json();
      const auto& b = quality["balance"];
      EXPECT_LT(b["nodes"].get<double>(), 1.1);
      EXPECT_LT(b["train_nodes"].get<double>(), 1.1);
    }
  }
  EXPECT_LT(cut[0], 0.5 * cut[1]) << "metis " << cut[0] << " random " << cut[1];
}

TEST(CliInfo, RejectsADirectoryThatIsNotAStore) {
  ScratchDir scratch;
  const auto r = run_loom("info " + scratch.path());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("no meta.json"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace loom::test
