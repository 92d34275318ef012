#include "loader_keywords.hpp"

#include <set>
#include <string>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "loom/comm/link_model.hpp"
#include "loom/core/enum_names.hpp"
#include "loom/loader/device.hpp"

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

void read_sampling(const py::dict& values, train::MinibatchOptions& o) {
  KeywordGroup g(values, "sampling");
  g.read("batch_size", o.batch_size);
  g.read("seed", o.run.seed);
  g.read("threads", o.run.threads);
  bool shuffle = true;
  g.read("shuffle", shuffle);
  o.seed_order = shuffle ? sample::SeedOrder::kShuffled : sample::SeedOrder::kAsGiven;
  g.read("eval_fanouts", o.evaluation.fanouts);
  std::string device = "cpu";
  g.read("device", device);
  o.run.device = loader::parse_device_choice(device, "device");
  g.done();
}

void read_data_path(const py::dict& values, train::MinibatchOptions& o) {
  KeywordGroup g(values, "data_path");
  g.read("pipeline_depth", o.data_path.pipeline_depth);
  g.read("superbatch", o.data_path.superbatch);
  g.read_choice("wire_dtype", feature::kWireDTypeNames, o.data_path.wire_dtype);
  g.read_choice("normalize_features", graph::kFeatureNormNames, o.data_path.normalize_features);
  g.read("gcn_norm", o.data_path.whole_graph_gcn_norm);
  std::string bandwidth, latency, host_bandwidth, host_latency;
  g.read("net_bandwidth", bandwidth);
  g.read("net_latency", latency);
  g.read("net_host_bandwidth", host_bandwidth);
  g.read("net_host_latency", host_latency);
  o.run.link = comm::parse_link_model(bandwidth, latency, host_bandwidth, host_latency);
  g.done();
}

void read_cache(const py::dict& values, train::MinibatchOptions& o) {
  KeywordGroup g(values, "cache");
  g.read_choice("cache", feature::kCachePolicyNames, o.cache.policy);
  g.read("alpha", o.cache.alpha);
  g.read_choice("cache_dtype", format::kFloatDTypeNames, o.cache.dtype);
  g.done();
}

void read_prefetch(const py::dict& values, train::MinibatchOptions& o) {
  KeywordGroup g(values, "prefetch");
  g.read_choice("controller", control::kControllerNames, o.prefetch.controller.kind);
  g.read("prefetch", o.prefetch.buffer.fraction);
  g.read("lookahead", o.prefetch.buffer.lookahead);
  g.done();
}

LinkSeeds read_link(const py::dict& values, bool has_input_nodes, train::MinibatchOptions& o) {
  KeywordGroup g(values, "link");
  LinkSeeds links;
  g.read_choice("task", train::kTaskNames, o.task);
  g.read("edge_label_index", links.edge_label_index);
  g.read("edge_label", links.edge_label);
  g.read("neg_sampling_ratio", o.link.negative_ratio);
  g.read_choice("neg_sampling", loader::kNegativeSamplingNames, links.negatives);
  g.read("drop_target_edges", o.link.drop_positive_edges);
  g.done();
  LOOM_CHECK_ARG(o.link.negative_ratio >= 0, "neg_sampling_ratio", "must be >= 0, got {}", o.link.negative_ratio);
  LOOM_CHECK_ARG(o.task == train::Task::kLink || (!links.edge_label_index && !links.edge_label), "edge_label_index",
                 "is for link batches (loom.LinkLoader)");
  LOOM_CHECK_ARG(o.task == train::Task::kNode || !has_input_nodes, "input_nodes",
                 "is for node batches (loom.Loader); a LinkLoader takes edge_label_index");
  LOOM_CHECK_ARG(!links.edge_label || links.edge_label_index, "edge_label", "needs edge_label_index");
  return links;
}

}  // namespace

train::MinibatchOptions loader_options(const PathArg& store, std::vector<std::int32_t> fanouts,
                                       const LoaderKeywords& keywords, bool has_input_nodes, LinkSeeds& links) {
  train::MinibatchOptions o;
  o.store = store.string();
  o.fanouts = std::move(fanouts);
  o.model.num_layers = static_cast<int>(o.fanouts.size());
  o.run.eval.every = 0;
  links = read_link(keywords.link, has_input_nodes, o);
  read_sampling(keywords.sampling, o);
  read_data_path(keywords.data_path, o);
  read_cache(keywords.cache, o);
  read_prefetch(keywords.prefetch, o);
  return o;
}

}  // namespace loom::python
