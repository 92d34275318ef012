#include "loader_keywords.hpp"

#include <set>
#include <string>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "loom/comm/link_model.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/parallel.hpp"
#include "loom/nn/device.hpp"

namespace loom::python {

namespace {

// One group's dict: read(keyword, into) takes a value where the caller gave one; done() then
// refuses any keyword no read asked for.
class KeywordGroup {
 public:
  KeywordGroup(const py::dict& values, const char* group) : values_(values), group_(group) {}

  template <class T>
  void read(const char* keyword, T& into) {
    asked_.insert(keyword);
    if (!values_.contains(keyword)) return;
    try {
      into = values_[keyword].cast<T>();
    } catch (const py::cast_error&) {
      throw Error::in_argument(keyword, fmt::format("cannot be {}", py::repr(values_[keyword]).cast<std::string>()));
    }
  }

  template <class E, std::size_t N>
  void read_choice(const char* keyword, const core::EnumNames<E, N>& names, E& into) {
    std::optional<std::string> word;
    read(keyword, word);
    if (word) into = core::parse_enum(names, *word, keyword);
  }

  void done() const {
    for (const auto& [key, value] : values_) {
      const auto name = key.cast<std::string>();
      LOOM_CHECK_ARG(asked_.count(name) != 0, name, "is not a keyword of the {} group", group_);
    }
  }

 private:
  py::dict values_;
  const char* group_;
  std::set<std::string> asked_;
};

// Whether a Loader makes node or link batches (the link group's `task`).
enum class BatchKind { kNodes, kLinks };
inline constexpr core::EnumNames<BatchKind, 2> kBatchKindNames{
    {{"node", BatchKind::kNodes}, {"link", BatchKind::kLinks}}};

void read_sampling(const py::dict& values, LoaderSettings& s) {
  KeywordGroup g(values, "sampling");
  g.read("batch_size", s.data.batch_size);
  g.read("seed", s.data.seed);
  g.read("threads", s.rank.threads);
  bool shuffle = true;
  g.read("shuffle", shuffle);
  s.data.seed_order = shuffle ? sample::SeedOrder::kShuffled : sample::SeedOrder::kAsGiven;
  g.read("eval_fanouts", s.data.eval_fanouts);
  std::string device = "cpu";
  g.read("device", device);
  s.rank.device = nn::parse_device_choice(device, "device");
  g.done();
}

void read_data_path(const py::dict& values, LoaderSettings& s) {
  KeywordGroup g(values, "data_path");
  loader::DataPathOptions& o = s.data.data_path;
  g.read("pipeline_depth", o.pipeline_depth);
  g.read("superbatch", o.superbatch);
  g.read_choice("wire_dtype", feature::kWireDTypeNames, o.wire_dtype);
  g.read_choice("normalize_features", graph::kFeatureNormNames, o.normalize_features);
  g.read("gcn_norm", o.whole_graph_gcn_norm);
  std::string bandwidth, latency, host_bandwidth, host_latency;
  g.read("net_bandwidth", bandwidth);
  g.read("net_latency", latency);
  g.read("net_host_bandwidth", host_bandwidth);
  g.read("net_host_latency", host_latency);
  s.rank.link = comm::parse_link_model(bandwidth, latency, host_bandwidth, host_latency);
  g.done();
}

void read_cache(const py::dict& values, loader::StaticCacheOptions& o) {
  KeywordGroup g(values, "cache");
  g.read_choice("cache", feature::kCachePolicyNames, o.policy);
  g.read("alpha", o.alpha);
  std::string memory;
  g.read("cache_memory", memory);
  if (!memory.empty()) o.memory_bytes = core::parse_memory_size(memory, "cache_memory");
  g.read_choice("cache_dtype", format::kFloatDTypeNames, o.dtype);
  g.done();
}

void read_prefetch(const py::dict& values, loader::PrefetchSetupOptions& o) {
  KeywordGroup g(values, "prefetch");
  g.read_choice("controller", control::kControllerNames, o.controller.kind);
  g.read("prefetch", o.buffer.fraction);
  g.read("lookahead", o.buffer.lookahead);
  g.done();
}

std::optional<LinkSeeds> read_link(const py::dict& values, bool has_input_nodes) {
  KeywordGroup g(values, "link");
  BatchKind kind = BatchKind::kNodes;
  LinkSeeds links;
  g.read_choice("task", kBatchKindNames, kind);
  g.read("edge_label_index", links.edge_label_index);
  g.read("edge_label", links.edge_label);
  g.read("neg_sampling_ratio", links.negative_ratio);
  g.read_choice("neg_sampling", loader::kNegativeSamplingNames, links.negatives);
  g.read("drop_target_edges", links.drop_positive_edges);
  g.done();
  LOOM_CHECK_ARG(links.negative_ratio >= 0, "neg_sampling_ratio", "must be >= 0, got {}", links.negative_ratio);
  LOOM_CHECK_ARG(kind == BatchKind::kLinks || (!links.edge_label_index && !links.edge_label), "edge_label_index",
                 "is for link batches (loom.LinkLoader)");
  LOOM_CHECK_ARG(kind == BatchKind::kNodes || !has_input_nodes, "input_nodes",
                 "is for node batches (loom.Loader); a LinkLoader takes edge_label_index");
  LOOM_CHECK_ARG(!links.edge_label || links.edge_label_index, "edge_label", "needs edge_label_index");
  if (kind == BatchKind::kNodes) return std::nullopt;
  return links;
}

}  // namespace

LoaderSettings loader_settings(const PathArg& store, std::vector<std::int32_t> fanouts, const LoaderKeywords& keywords,
                               bool has_input_nodes) {
  LoaderSettings s;
  s.data.store = store.string();
  s.data.fanouts = std::move(fanouts);
  s.data.epochs = 10;  // what the oracle cache looks ahead over: `loom train`'s default --epochs
  s.links = read_link(keywords.link, has_input_nodes);
  if (s.links) s.data.seed_labels = loader::SeedLabels::kNone;
  read_sampling(keywords.sampling, s);
  read_data_path(keywords.data_path, s);
  read_cache(keywords.cache, s.data.cache);
  read_prefetch(keywords.prefetch, s.data.prefetch);
  return s;
}

loader::CheckedLoaderOptions check(const LoaderSettings& settings) {
  core::check_thread_count(settings.rank.threads, "threads");
  try {
    return loader::check(settings.data, static_cast<int>(settings.data.fanouts.size()));
  } catch (const Error& e) {
    if (e.argument() == "--prefetch-lookahead") throw Error::in_argument("lookahead", e.message());
    throw;
  }
}

}  // namespace loom::python
