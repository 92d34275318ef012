// The fields of a store's meta.json, changed one way or another and sealed again (as a writer would
// have sealed them), then the store opened and checked as the CLI opens and checks it: a field that
// disagrees with the arrays (num_classes, directed, num_edges, feat_dim, splits) must be an Error
// naming the file, never a crash or a silently wrong read. Modes: 0 the meta.json of a graph store;
// 1 the meta.json of one part of a partitioned store (parts that disagree, as an edited or
// misplaced part would); 2 the partitioned store's own meta.json. The input is a JSON merge patch
// (RFC 7386) applied to the meta.json of a small store written once per process.
#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "loom/format/digest.hpp"
#include "loom/core/fs.hpp"
#include "loom/graph/store.hpp"
#include "loom/partition/partitioned_store.hpp"
#include "loom/partition/store_checker.hpp"
#include "loom/partition/write_partitioned.hpp"

namespace {

// A ring of 12 nodes with 3 features, 3 classes and splits, and its 2-part partition.
const std::string& fixture() {
  static const std::string dir = [] {
    const std::string root = loom::fuzz::scratch_dir() + "/fixture";
    loom::graph::GraphData g;
    const std::int64_t n = 12;
    g.indptr.push_back(0);
    for (std::int64_t v = 0; v < n; ++v) {
      g.indices.push_back((v + n - 1) % n);
      g.indices.push_back((v + 1) % n);
      g.indptr.push_back(static_cast<std::int64_t>(g.indices.size()));
      for (int f = 0; f < 3; ++f) g.feat.push_back(static_cast<float>(v * 3 + f));
      g.label.push_back(v % 3);
    }
    g.feat_dim = 3;
    g.num_classes = 3;
    g.splits = {{"train", {0, 1, 2, 3}}, {"valid", {4, 5}}, {"test", {6, 7, 8}}};
    loom::graph::write_graph_store(g, root + "/graph", {});
    loom::partition::PartitionOptions o;
    o.source = root + "/graph";
    o.output = root + "/parts";
    o.method = loom::partition::PartitionMethod::kRandom;
    loom::partition::partition_store(o);
    return root;
  }();
  return dir;
}

void copy_tree(const std::string& from, const std::string& to) {
  std::filesystem::remove_all(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const loom::fuzz::ModeAndBytes input = loom::fuzz::split_mode(data, size, 3);
  const nlohmann::json patch = nlohmann::json::parse(input.bytes, nullptr, /*allow_exceptions=*/false);
  if (patch.is_discarded()) return 0;
  const std::string work = loom::fuzz::scratch_dir() + "/work";
  copy_tree(fixture() + (input.mode == 0 ? "/graph" : "/parts"), work);
  const std::string meta_path = work + (input.mode == 1 ? "/part-1" : "") + "/meta.json";
  nlohmann::json meta = nlohmann::json::parse(loom::core::read_text_file(meta_path));
  meta.merge_patch(patch);
  if (!meta.is_object()) return 0;
  loom::format::seal_meta(meta);
  loom::core::write_text_file(meta_path, meta.dump(2));
  loom::fuzz::expect_parse_or_error([&] {
    if (input.mode == 0) {
      loom::graph::GraphStore::open(work);
    } else {
      const auto store = loom::partition::PartitionedStore::open(work);
      for (int k = 0; k < store.num_parts(); ++k) store.part(k);
    }
  });
  loom::fuzz::expect_parse_or_error([&] { loom::partition::check_store(work, /*progress=*/false); });
  return 0;
}
