#include "loom/partition/partitioned_store.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "loom/core/error.hpp"
#include "loom/core/fs.hpp"
#include "loom/partition/write_partitioned.hpp"
#include "partition/test_graphs.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace loom::partition {
namespace {

std::vector<std::int64_t> row(const graph::Csr& csr, std::int64_t v) {
  return csr.visit([&](auto view) {
    const auto n = view.neighbors(v);
    return std::vector<std::int64_t>(n.begin(), n.end());
  });
}

template <class T>
std::vector<T> to_vector(std::span<const T> s) {
  return {s.begin(), s.end()};
}

struct Partitioned {
  test::ScratchDir scratch;
  graph::GraphStore source;
  PartitionedStore store;
};

std::unique_ptr<Partitioned> make(const graph::GraphData& d, std::int64_t k, const std::string& method,
                                  format::DType feat_dtype = format::DType::kFloat32) {
  auto p = std::make_unique<Partitioned>();
  graph::write_graph_store(d, p->scratch / "src", {feat_dtype, false});
  p->source = graph::GraphStore::open(p->scratch / "src");
  PartitionOptions o;
  o.source = p->scratch / "src";
  o.output = p->scratch / "parts";
  o.num_parts = k;
  o.method = core::parse_enum(kPartitionMethodNames, method, "--method");
  o.seed = 3;
  partition_store(o);
  p->store = PartitionedStore::open(o.output);
  return p;
}

// Every invariant a trainer relies on, checked against the source store.
void check_invariants(const Partitioned& p) {
  const auto& src = p.source;
  const auto& ps = p.store;
  const std::int64_t n = src.num_nodes();
  const int k = ps.num_parts();
  ASSERT_EQ(ps.book().num_nodes(), n);
  // new_to_source is a permutation, stable within each part.
  const auto n2s = to_vector(ps.new_to_source());
  std::vector<std::int64_t> sorted = n2s;
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);
  std::vector<std::int64_t> s2n(n);
  for (std::int64_t g = 0; g < n; ++g) s2n[n2s[g]] = g;
  const auto source_orig = src.original_ids();
  const auto source_feat = src.feat().span<float>();
  std::map<std::string, std::set<std::int64_t>> seen_splits;
  std::int64_t total_edges = 0;
  for (int q = 0; q < k; ++q) {
    const Part part = ps.part(q);
    const auto& store = part.store();
    const auto range = ps.book().range(q);
    ASSERT_EQ(store.num_nodes(), range.size());
    EXPECT_EQ(store.csr().num_cols(), n);
    const auto orig = to_vector(std::span<const std::int64_t>(store.original_ids()));
    std::set<std::int64_t> remote;
    for (std::int64_t r = 0; r < range.size(); ++r) {
      const std::int64_t g = range.begin + r;
      const std::int64_t v = n2s[g];
      if (r > 0) {
        EXPECT_LT(n2s[g - 1], v) << "relabelling is not stable in part " << q;
      }
      EXPECT_EQ(ps.book().owner(g), q);
      // CSR row equals the source row under the mapping (as sorted sets).
      auto expected = row(src.csr(), v);
      for (auto& u : expected) u = s2n[u];
      std::sort(expected.begin(), expected.end());
      const auto got = row(store.csr(), r);
      EXPECT_EQ(got, expected) << "row of global " << g;
      for (const auto u : got)
        if (!range.contains(u)) remote.insert(u);
      // Features, labels, original ids follow the row.
      for (std::int64_t c = 0; c < 3; ++c) EXPECT_EQ(store.feat().span<float>()[r * 3 + c], source_feat[v * 3 + c]);
      EXPECT_EQ(store.label().span<std::int64_t>()[r], src.label().span<std::int64_t>()[v]);
      EXPECT_EQ(orig[r], source_orig[v]);
      EXPECT_EQ(ps.topology().original_ids()[g], source_orig[v]);
      // Topology holds the same row.
      EXPECT_EQ(row(ps.topology().csr(), g), expected);
    }
    // Halo: exactly the remote neighbours, grouped by owner.
    EXPECT_EQ(to_vector(part.halo_ids()), std::vector<std::int64_t>(remote.begin(), remote.end()));
    for (int owner = 0; owner < k; ++owner)
      for (const auto u : part.halo_from(owner)) {
        EXPECT_EQ(ps.book().owner(u), owner);
      }
    EXPECT_EQ(part.halo_from(q).size(), 0u);
    // Splits are local rows that map back to the source's split ids.
    for (const auto& [name, size] : src.meta().splits)
      for (const auto r : store.split(name)) {  // NOLINT
        ASSERT_TRUE(r >= 0 && r < range.size());
        EXPECT_TRUE(seen_splits[name].insert(n2s[range.begin + r]).second);
      }
    // Quality matches what is on disk.
    const auto& qp = ps.meta().quality.parts[q];
    EXPECT_EQ(qp.nodes, range.size());
    EXPECT_EQ(qp.edges, store.meta().num_edges);
    EXPECT_EQ(qp.halo, static_cast<std::int64_t>(part.halo_ids().size()));
    EXPECT_EQ(qp.train_nodes, store.has_split("train") ? static_cast<std::int64_t>(store.split("train").size()) : 0);
    total_edges += store.meta().num_edges;
  }
  EXPECT_EQ(total_edges, src.meta().num_edges);
  for (const auto& [name, size] : src.meta().splits) {
    const auto ids = src.split(name);
    EXPECT_EQ(seen_splits[name], std::set<std::int64_t>(ids.begin(), ids.end())) << name;
    EXPECT_EQ(ps.meta().graph.splits.at(name), size);
  }
}

TEST(PartitionStore, MetisOnTwoCliquesKeepsEveryMapping) {
  auto p = make(test::two_cliques(6), 2, "metis");
  check_invariants(*p);
  EXPECT_EQ(p->store.meta().quality.edge_cut.cut, 1);
  EXPECT_EQ(p->store.part(0).halo_ids().size(), 1u);
  EXPECT_EQ(p->store.meta().method, "metis");
  EXPECT_EQ(p->store.meta().num_parts(), 2);
}

TEST(PartitionStore, EveryMethodKeepsEveryMappingOnARandomGraph) {
  for (const std::string method : {"metis", "random", "hash"}) {
    SCOPED_TRACE(method);
    auto p = make(test::random_graph(300, 900, 8), 4, method);
    check_invariants(*p);
  }
}

TEST(PartitionStore, OnePartIsTheWholeGraph) {
  auto p = make(test::random_graph(50, 100, 2), 1, "metis");
  check_invariants(*p);
  EXPECT_EQ(p->store.part(0).halo_ids().size(), 0u);
  EXPECT_EQ(p->store.meta().quality.edge_cut.cut, 0);
}

TEST(PartitionStore, WeightsFollowTheirEdges) {
  auto d = test::random_graph(120, 400, 4, /*weighted=*/true);
  auto p = make(d, 3, "random");
  const auto n2s = p->store.new_to_source();
  std::vector<std::int64_t> s2n(n2s.size());
  for (std::size_t g = 0; g < n2s.size(); ++g) s2n[n2s[g]] = static_cast<std::int64_t>(g);
  for (int q = 0; q < 3; ++q) {
    const auto part = p->store.part(q);
    const auto& st = part.store();
    ASSERT_TRUE(st.meta().weighted);
    const auto w = st.edge_weight().span<float>();
    for (std::int64_t r = 0; r < st.num_nodes(); ++r) {
      const std::int64_t v = n2s[part.range().begin + r];
      const auto nb = row(st.csr(), r);
      for (std::size_t j = 0; j < nb.size(); ++j) {
        // Find the source edge v -> n2s[nb[j]] and compare its weight.
        const auto src_row = row(p->source.csr(), v);
        const auto it = std::find(src_row.begin(), src_row.end(), n2s[nb[j]]);
        ASSERT_NE(it, src_row.end());
        EXPECT_EQ(w[st.csr().indptr()[r] + j], d.edge_weight[d.indptr[v] + (it - src_row.begin())]);
      }
    }
  }
}

TEST(PartitionStore, Float16FeaturesStayFloat16) {
  auto p = make(test::two_cliques(4), 2, "hash", format::DType::kFloat16);
  EXPECT_EQ(p->store.meta().graph.feat_dtype, format::DType::kFloat16);
  const auto part = p->store.part(1);
  EXPECT_EQ(part.store().feat().dtype(), format::DType::kFloat16);
  const auto n2s = p->store.new_to_source();
  const auto v = n2s[part.range().begin];
  EXPECT_EQ(format::half_to_float(part.store().feat().span<format::Half>()[1]), 2.0f * static_cast<float>(v));
}

TEST(PartitionStore, StringNamesAreWrittenPerPart) {
  auto d = test::two_cliques(3);
  d.orig_id.clear();
  for (std::int64_t v = 0; v < 6; ++v) d.names.push_back("node-" + std::to_string(v));
  auto p = make(d, 2, "metis");
  EXPECT_EQ(p->store.meta().graph.id_map, graph::IdMapKind::kNames);
  const auto n2s = p->store.new_to_source();
  for (int q = 0; q < 2; ++q) {
    const auto part = p->store.part(q);
    const auto names = part.store().original_names();
    ASSERT_EQ(static_cast<std::int64_t>(names.size()), part.range().size());
    for (std::int64_t r = 0; r < part.range().size(); ++r)
      EXPECT_EQ(names[r], "node-" + std::to_string(n2s[part.range().begin + r]));
  }
}

TEST(PartitionStore, MetaRoundTripsThroughJson) {
  auto p = make(test::random_graph(100, 300, 9), 3, "metis");
  const auto& m = p->store.meta();
  const auto again = PartitionedMeta::from_json(m.to_json(), "meta.json");
  EXPECT_EQ(again.book, m.book);
  EXPECT_EQ(again.to_json(), m.to_json());
  const auto j = nlohmann::json::parse(core::read_text_file(p->scratch / "parts/meta.json"));
  EXPECT_EQ(j["format"], "loom-partitioned");
  EXPECT_EQ(j["node_offsets"].size(), 4u);
  EXPECT_EQ(j["num_parts"], 3);
}

// ---- bad input: a clear error and nothing left behind ----

struct BadInput : ::testing::Test {
  test::ScratchDir scratch;
  PartitionOptions options;
  void SetUp() override {
    graph::write_graph_store(test::two_cliques(3), scratch / "src", {});
    options.source = scratch / "src";
    options.output = scratch / "out";
  }
  // Runs, expects an Error whose argument (or file) is `where`, and that the scratch dir holds
  // only what was there before.
  void expect_failure(const std::string& argument, const std::string& message_part) {
    std::set<std::string> before;
    for (const auto& e : fs::directory_iterator(scratch.path())) before.insert(e.path().filename());
    try {
      partition_store(options);
      FAIL() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos) << e.what();
    }
    std::set<std::string> after;
    for (const auto& e : fs::directory_iterator(scratch.path())) after.insert(e.path().filename());
    EXPECT_EQ(after, before);
  }
};

TEST_F(BadInput, KBelowOne) {
  options.num_parts = 0;
  expect_failure("-k", "at least 1");
}

TEST_F(BadInput, KAboveNodes) {
  options.num_parts = 7;
  expect_failure("-k", "exceeds the number of nodes 6");
}

TEST_F(BadInput, DistributedMethodInOneProcess) {
  options.method = PartitionMethod::kPtscotch;
  expect_failure("--method", "ptscotch is distributed");
}

TEST_F(BadInput, SourceNotAStore) {
  fs::create_directory(scratch / "empty");
  options.source = scratch / "empty";
  expect_failure("", "not a Loom graph store");
  options.source = scratch / "missing";
  expect_failure("", "not a directory");
}

TEST_F(BadInput, SourceIsAPartitionedStore) {
  partition_store(options);
  options.source = scratch / "out";
  options.output = scratch / "again";
  expect_failure("", "partitioned store");
}

TEST_F(BadInput, OutputExistsWithoutOverwrite) {
  fs::create_directory(scratch / "out");
  expect_failure("-o", "already exists");
  options.overwrite = true;
  partition_store(options);
  EXPECT_EQ(PartitionedStore::open(scratch / "out").num_parts(), 2);
}

TEST_F(BadInput, UnwritableOutput) {
  test::write_file(scratch / "file", "x");
  options.output = scratch / "file/out";
  expect_failure("-o", "cannot create parent directory");
}

TEST_F(BadInput, OutputIsTheSource) {
  options.output = options.source;
  options.overwrite = true;
  expect_failure("-o", "is the input: writing it would replace its own input");
}

TEST(PartitionedStoreOpen, RejectsAGraphStoreAndMismatchedParts) {
  test::ScratchDir scratch;
  graph::write_graph_store(test::two_cliques(3), scratch / "src", {});
  EXPECT_THROW(PartitionedStore::open(scratch / "src"), Error);
  PartitionOptions o;
  o.source = scratch / "src";
  o.output = scratch / "parts";
  partition_store(o);
  const auto store = PartitionedStore::open(o.output);
  EXPECT_THROW(store.part(2), Error);
  // A part swapped for another no longer matches the book.
  fs::rename(scratch / "parts/part-0", scratch / "parts/tmp");
  fs::rename(scratch / "parts/part-1", scratch / "parts/part-0");
  EXPECT_THROW(store.part(0), Error);
}

}  // namespace
}  // namespace loom::partition
