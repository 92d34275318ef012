// loom.Loader: the data path of `loom train` (loader::MinibatchDataPath) for a model written in
// Python. Over a graph store (one process) or, under `mpirun -np K python3 ...`, over this rank's
// part of a K-way partitioned store, it samples blocks, serves the input rows from the rank's own
// rows, its static cache, its prefetch buffer or their owners, and prepares batches
// `pipeline_depth` ahead on a producer thread, exactly as `loom train` does with the same options
// and seed. Each Batch holds the input features, the seeds' labels and ids, and one Block per
// layer (input layer first). epoch_stats() reports what `loom train` reports per epoch.
// The training seeds are the store's train split, or any node set given as input_nodes
// (node_sets.hpp), shuffled per epoch or (shuffle=False) in the order given. eval_batch() builds
// batches of a node set with the evaluation fanouts (full neighbourhoods with -1: exact
// inference), and score() turns logits into `loom train`'s accuracy or micro-F1 summed over the
// ranks. In link mode (loom.LinkLoader, PyG's LinkNeighborLoader) the steps are link batches
// (train/link_batches.hpp): supervision pairs (given as edge_label_index / edge_label, or every
// edge of the graph) with sampled negatives, each batch's seeds their distinct endpoints, and
// edge_label_index / edge_label the pairs as rows of the seeds; link_metrics() gives OGB's
// AUC, Hits@K and MRR of scored pairs over the ranks.
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "link_pairs.hpp"
#include "loader_keywords.hpp"
#include "loom/comm/collective_wait.hpp"
#include "loom/comm/link_model.hpp"
#include "loom/core/metrics.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/timer.hpp"
#include "loom/nn/runtime.hpp"
#include "loom/nn/device.hpp"
#include "loom/loader/epoch_stats.hpp"
#include "loom/scores/link_metrics.hpp"
#include "loom/scores/node_scores.hpp"
#include "loom/nn/rank_runtime.hpp"
#include "loom/loader/link_split.hpp"
#include "loom/loader/minibatch_data_path.hpp"
#include "loom/loader/store_digests.hpp"
#include "node_sets.hpp"

namespace loom::python {

namespace {

struct Batch {
  torch::Tensor x, y, seeds, input_nodes;
  py::object original_ids;  // of the seeds: int64 tensor, or a list of names where the graph names its nodes
  std::vector<nn::MessageGraph> blocks;
  // PyG's view (NeighborLoader's), built on first use (set_edge_index): every sampled node's
  // in-edges from the hop that first reached it, as [2, E] local ids (row 0 source, row 1
  // target) in hop order; nodes and edges per hop.
  torch::Tensor edge_index;
  std::vector<std::int64_t> num_sampled_nodes, num_sampled_edges;
  // Link batches: the scored pairs as rows of the seeds, int64 [2, P], and their labels, float [P].
  torch::Tensor edge_label_index, edge_label;

  Batch to(const torch::Device& device) const {
    Batch b = *this;
    b.x = nn::with_parts_moved(x, [&](const torch::Tensor& part) { return part.to(device); });
    b.y = y.to(device);
    b.seeds = seeds.to(device);
    b.input_nodes = input_nodes.to(device);
    if (edge_index.defined()) b.edge_index = edge_index.to(device);
    if (edge_label_index.defined()) {
      b.edge_label_index = edge_label_index.to(device);
      b.edge_label = edge_label.to(device);
    }
    for (auto& block : b.blocks) block = block.to(device);
    return b;
  }
};

// The union of the blocks' edges as PyG's NeighborLoader gives it: a node's in-edges come from
// the last block in which it is a destination (the seeds' from the output layer's block, with
// fanouts[0]; the nodes first reached at hop h from the block sampling hop h + 1), so each
// sampled node's neighbourhood appears once, as in PyG where every layer runs on every edge.
Batch& with_edge_index(Batch& b) {
  if (b.edge_index.defined()) return b;
  std::vector<torch::Tensor> sources, targets;
  b.num_sampled_nodes = {b.seeds.size(0)};
  std::int64_t covered = 0;  // destinations whose in-edges are taken
  for (auto block = b.blocks.rbegin(); block != b.blocks.rend(); ++block) {
    const std::int64_t lo = covered, hi = block->num_dst();
    const torch::Tensor indptr = block->indptr().to(torch::kCPU);
    const std::int64_t first = indptr[lo].item<std::int64_t>(), last = indptr[hi].item<std::int64_t>();
    sources.push_back(block->indices().to(torch::kCPU).slice(0, first, last).to(torch::kInt64));
    targets.push_back(torch::repeat_interleave(torch::arange(lo, hi, torch::kInt64),
                                               indptr.slice(0, lo + 1, hi + 1) - indptr.slice(0, lo, hi)));
    b.num_sampled_edges.push_back(last - first);
    b.num_sampled_nodes.push_back(block->num_src() - block->num_dst());
    covered = hi;
  }
  const torch::Device device = b.blocks.empty() ? torch::Device(torch::kCPU) : b.blocks.front().device();
  b.edge_index =
      (sources.empty() ? torch::empty({2, 0}, torch::kInt64) : torch::stack({torch::cat(sources), torch::cat(targets)}))
          .to(device);
  return b;
}

// How a batch names its seeds to the caller: node batches' seeds are this rank's own nodes, named
// by their original ids (or names); link batches' seeds are the endpoints of pairs, on any rank,
// named by their rows in the source store (the ids edge_label_index takes).
enum class SeedIds { kOriginal, kSourceRows };

py::object seed_ids_of(std::span<const std::int64_t> seeds, const loader::TrainingData& data, SeedIds kind) {
  if (kind == SeedIds::kSourceRows) {
    std::vector<std::int64_t> rows(seeds.begin(), seeds.end());
    if (!data.source_rows.empty())
      for (auto& g : rows) g = data.source_rows[static_cast<std::size_t>(g)];
    return py::cast(copy_tensor(std::span<const std::int64_t>(rows)));
  }
  if (!data.original_names.empty()) {
    py::list names;
    for (const std::int64_t g : seeds) names.append(data.original_names[static_cast<std::size_t>(g - data.offset)]);
    return names;
  }
  std::vector<std::int64_t> ids(seeds.size());
  for (std::size_t i = 0; i < seeds.size(); ++i)
    ids[i] = data.original_ids.empty() ? seeds[i] : data.original_ids[static_cast<std::size_t>(seeds[i] - data.offset)];
  return py::cast(copy_tensor(std::span<const std::int64_t>(ids)));
}

// The targets as PyG's link batches hold them: edge_label_index [2, P] (rows of the seeds) and edge_label [P].
void set_link_targets(Batch& b, const loader::LinkTargets& t) {
  b.edge_label_index = torch::stack({torch::tensor(t.src_row, torch::kInt64), torch::tensor(t.dst_row, torch::kInt64)})
                           .reshape({2, static_cast<std::int64_t>(t.src_row.size())});
  b.edge_label = torch::tensor(t.label, torch::kFloat32).reshape({static_cast<std::int64_t>(t.label.size())});
}

Batch to_batch(loader::PreparedBatch prepared, const loader::TrainingData& data, SeedIds seed_ids) {
  Batch b;
  b.x = prepared.x;
  b.y = prepared.y;
  b.blocks = std::move(prepared.graphs);
  b.seeds = copy_tensor(std::span<const std::int64_t>(prepared.sampled.seeds));
  b.input_nodes = copy_tensor(std::span<const std::int64_t>(prepared.sampled.input_nodes));
  b.original_ids = seed_ids_of(prepared.sampled.seeds, data, seed_ids);
  return b;
}

class Loader;
std::set<Loader*>& live_loaders() {
  static std::set<Loader*> loaders;
  return loaders;
}

class Loader {
 public:
  // Trains on `input_nodes` where given (this rank's share), else on the store's train split; in
  // link mode (settings.links) on the link seeds.
  Loader(const LoaderSettings& settings, const std::optional<NodeSet>& input_nodes, comm::Communicator& world)
      : world_(&world), links_(settings.links) {
    const nn::RankRuntime runtime = nn::open_rank(settings.rank, world, [&] { checked_ = check(settings); });
    const loader::LoaderOptions& options = **checked_;
    const loader::DataUse use = links_        ? loader::DataUse::kLinks
                                : input_nodes ? loader::DataUse::kGivenSeeds
                                              : loader::DataUse::kNodeSplits;
    loader::TrainingData data = loader::open_training_data(options.store, world, use);
    if (input_nodes) {
      std::vector<std::int64_t> seeds;
      world.agree_on([&] { seeds = resolve_nodes(*input_nodes, data, world, options.seed_order, "input_nodes"); });
      data.train_ids = std::move(seeds);
    }
    if (links_) take_link_pairs(*links_, data);
    world.agree_on([&] { loader::start_store_verification(options.store, world).wait(); });
    loader::normalize_training_features(data, options.data_path.normalize_features, world);
    path_ = std::make_unique<loader::MinibatchDataPath>(*checked_, std::move(data), world, runtime.device, 0, metrics_);
    if (links_) negatives_ = std::make_unique<loader::NegativeSampler>(path_->data().graph(), links_->negatives);
    live_loaders().insert(this);
  }
  ~Loader() {
    live_loaders().erase(this);
    stop();
  }
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // Ends the epoch being iterated, if any, before its last batch: the producer thread prepares
  // only what it may have begun on some rank (every rank must stop at the same step) and joins.
  void stop() {
    if (!pipeline_) return;
    pipeline_->stop_early();
    py::gil_scoped_release release;
    pipeline_.reset();
  }

  const loader::TrainingData& data() const { return path_->data(); }
  bool links() const { return links_.has_value(); }
  std::int64_t steps(int epoch) const { return links() ? link_steps_ : path_->setting(epoch).steps; }

  // Starts epoch `epoch` (collective: every rank then takes every batch of the epoch).
  void start(int epoch) {
    LOOM_CHECK_ARG(epoch >= 0, "epoch", "must be >= 0, got {}", epoch);
    LOOM_CHECK_ARG(pipeline_ == nullptr, "epoch",
                   "epoch {} is still being iterated: take its last batch or close its iterator (leave the loop, "
                   "or call .close() on it) before starting epoch {}",
                   epoch_, epoch);
    epoch_ = epoch;
    step_ = 0;
    totals_ = {};
    since_ = loader::watch_epoch(*world_, path_->prefetch_control(), path_->prefetch_buffer());
    timer_.reset();
    handed_out_ = false;
    if (!links()) {
      pipeline_ = path_->pipeline(epoch);
      return;
    }
    const loader::LinkEpochOptions link_epoch{.batch_size = options().batch_size,
                                              .negative_ratio = links_->negative_ratio,
                                              .drop_positive_edges = links_->drop_positive_edges,
                                              .run_seed = options().seed,
                                              .order = options().seed_order};
    loader::LinkEpochPlan plan =
        loader::plan_link_epoch(link_pairs_, *negatives_, link_steps_, link_epoch, epoch, world_->rank());
    link_targets_ = std::move(plan.targets);
    pipeline_ = path_->pipeline_of(std::move(plan.steps));
  }

  std::optional<Batch> next() {
    LOOM_CHECK(pipeline_ != nullptr, "Loader: call epoch(E) and iterate it");
    count_model_time();
    loader::PreparedBatch prepared;
    double wait = 0;
    bool more = false;
    {
      py::gil_scoped_release release;  // the producer thread prepares batches meanwhile
      more = pipeline_->next(prepared, wait);
    }
    if (!more) {
      pipeline_.reset();
      return std::nullopt;
    }
    loader::count_batch(prepared, wait, totals_);
    Batch batch = to_batch(std::move(prepared), data(), links() ? SeedIds::kSourceRows : SeedIds::kOriginal);
    if (links()) set_link_targets(batch, link_targets_[static_cast<std::size_t>(step_)]);
    comm::set_progress(epoch_, step_++);  // where this rank is, for the watchdog's messages
    handed_out_ = true;
    allreduce_at_hand_out_ = gradient_sync_seconds();
    since_hand_out_.reset();
    return batch;
  }

  // The time the caller held the last batch handed out is its model's: compute, less the
  // gradient all-reduce (loom.comm.GradientSync) within it.
  void count_model_time() {
    if (!handed_out_) return;
    const double allreduce = gradient_sync_seconds() - allreduce_at_hand_out_;
    totals_.phases.allreduce += allreduce;
    totals_.phases.compute += std::max(0.0, since_hand_out_.seconds() - allreduce);
    handed_out_ = false;
  }

  // This rank's share of a node set, as global ids (collective).
  torch::Tensor local_nodes(const NodeSet& nodes) const {
    std::vector<std::int64_t> ids;
    world_->agree_on([&] { ids = resolve_nodes(nodes, data(), *world_, sample::SeedOrder::kAsGiven, "nodes"); });
    return copy_tensor(std::span<const std::int64_t>(ids));
  }

  // Steps of evaluating `ids` (this rank's, from local_nodes) in batches of `batch_size`: the
  // most any rank needs (collective).
  std::int64_t eval_steps(const torch::Tensor& ids, std::int64_t batch_size) const {
    LOOM_CHECK_ARG(batch_size > 0, "batch_size", "must be > 0, got {}", batch_size);
    return world_->allreduce_max((ids.numel() + batch_size - 1) / batch_size, comm::Channel::control);
  }

  // Batch `step` of `ids` with the evaluation fanouts (collective: every rank builds every step;
  // a rank with fewer nodes gets empty batches).
  Batch eval_batch(const torch::Tensor& ids, std::int64_t step, std::int64_t batch_size, std::uint64_t seed) const {
    LOOM_CHECK_ARG(ids.dim() == 1 && ids.scalar_type() == torch::kInt64, "ids",
                   "want this rank's global ids (an int64 tensor from local_nodes())");
    const torch::Tensor all = ids.to(torch::kCPU).contiguous();
    const std::int64_t n = all.numel();
    const std::int64_t begin = std::min(n, step * batch_size), end = std::min(n, begin + batch_size);
    const std::span<const std::int64_t> seeds(all.data_ptr<std::int64_t>() + begin,
                                              static_cast<std::size_t>(end - begin));
    for (const std::int64_t g : seeds)
      LOOM_CHECK_ARG(g >= data().offset && g < data().offset + data().num_local, "ids",
                     "node {} is not this rank's (use local_nodes())", g);
    std::vector<std::int64_t> sorted(seeds.begin(), seeds.end());
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    loader::PreparedBatch prepared;
    {
      py::gil_scoped_release release;
      prepared = path_->eval_builder().build(sorted, core::mix_seed(seed, static_cast<std::uint64_t>(step)));
    }
    return to_batch(std::move(prepared), data(), SeedIds::kOriginal);
  }

  // This rank's share of labelled pairs (link mode's evaluation sets; collective).
  loader::LinkPairs local_pairs(const torch::Tensor& edge_label_index,
                                const std::optional<torch::Tensor>& edge_label) const {
    return given_pairs(edge_label_index, edge_label, data(), *world_);
  }

  std::int64_t link_eval_steps(const loader::LinkPairs& pairs, std::int64_t batch_size) const {
    LOOM_CHECK_ARG(batch_size > 0, "batch_size", "must be > 0, got {}", batch_size);
    return world_->allreduce_max(loader::link_steps(static_cast<std::int64_t>(pairs.size()), batch_size),
                                 comm::Channel::control);
  }

  // Batch `step` of `pairs` with the evaluation fanouts, its targets attached (collective).
  Batch link_eval_batch(const loader::LinkPairs& pairs, std::int64_t step, std::int64_t batch_size,
                        std::uint64_t seed) const {
    LOOM_CHECK_ARG(step >= 0, "step", "must be >= 0, got {}", step);
    loader::LinkPairs part;
    const auto n = static_cast<std::int64_t>(pairs.size());
    for (std::int64_t i = std::min(n, step * batch_size); i < std::min(n, (step + 1) * batch_size); ++i) {
      const auto p = static_cast<std::size_t>(i);
      part.add(pairs.src[p], pairs.dst[p], pairs.label[p]);
    }
    const loader::LinkEpochPlan plan =
        loader::eval_link_batches(part, batch_size, 1, core::mix_seed(seed, static_cast<std::uint64_t>(step)));
    loader::PreparedBatch prepared;
    {
      py::gil_scoped_release release;
      prepared = path_->eval_builder().build(plan.steps[0].seeds, plan.steps[0].sample_seed);
    }
    Batch batch = to_batch(std::move(prepared), data(), SeedIds::kSourceRows);
    set_link_targets(batch, plan.targets[0]);
    return batch;
  }

  // `loom train --task link`'s metrics of this rank's scored pairs, over every rank (collective).
  py::dict link_metrics(const torch::Tensor& positive, const torch::Tensor& negative,
                        const std::vector<int>& hits_at) const {
    for (const int k : hits_at) LOOM_CHECK_ARG(k >= 1, "hits_at", "each K must be >= 1, got {}", k);
    const auto floats = [](const torch::Tensor& t) {
      const torch::Tensor f = t.detach().to(torch::kCPU, torch::kFloat32).contiguous().flatten();
      return std::vector<float>(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
    };
    const scores::LinkMetrics m = scores::link_metrics(floats(positive), floats(negative), hits_at, *world_);
    py::dict d;
    d["auc"] = m.auc;
    d["mrr"] = m.mrr;
    for (const auto& [k, hits] : m.hits) d[py::str(scores::hits_name(k))] = hits;
    d["positives"] = m.positives;
    d["negatives"] = m.negatives;
    return d;
  }

  // `loom train`'s score counts of logits against labels (accuracy, or micro-F1 for multi-label
  // graphs); score() sums them over the ranks (an empty list: this rank counted nothing).
  py::list count(const torch::Tensor& logits, const torch::Tensor& labels) const {
    const scores::ScoreCounts c = scores::count_scores(logits.detach().to(torch::kCPU), labels, data().scoring);
    const auto values = c.pack();
    return py::cast(std::vector<double>(values.begin(), values.end()));
  }
  py::dict score(const std::vector<double>& counts) const {
    LOOM_CHECK_ARG(counts.empty() || counts.size() == scores::ScoreCounts::kFields, "counts",
                   "want {} values (from count()) or none, got {}", scores::ScoreCounts::kFields, counts.size());
    const scores::ScoreCounts c =
        scores::sum_over_ranks(counts.empty() ? scores::ScoreCounts{} : scores::ScoreCounts::unpack(counts), *world_);
    py::dict d;
    d[scores::score_name(data().scoring).c_str()] = scores::score(c, data().scoring);
    d["loss"] = scores::mean_loss(c);
    d["nodes"] = c.nodes;
    return d;
  }

  // What `loom train` records for the epoch just iterated, over all ranks (collective).
  py::dict epoch_stats() {
    // The model and its loss are the caller's: no loss, learning rate or training score.
    const loader::EpochFacts facts{.epoch = epoch_ + 1,
                                   .seconds = timer_.seconds(),
                                   .steps = steps(epoch_),
                                   .changed_conditions = path_->changed(epoch_),
                                   .pipelined = options().data_path.pipeline_depth > 0,
                                   .scoring = std::nullopt};
    const loader::EpochSummary s =
        loader::summarize_epoch(facts, totals_, since_, *world_, path_->prefetch_control(), path_->prefetch_buffer());
    nlohmann::json record = loader::epoch_record(s);
    for (const char* unmeasured : {"loss", "lr"}) record.erase(unmeasured);
    return py::module_::import("json").attr("loads")(record.dump());
  }

 private:
  const loader::LoaderOptions& options() const { return **checked_; }
  std::optional<loader::CheckedLoaderOptions> checked_;
  comm::Communicator* world_;
  std::optional<LinkSeeds> links_;
  core::MetricsLog metrics_;  // not written: the Python caller records what it wants
  std::unique_ptr<loader::MinibatchDataPath> path_;
  // Link mode: this rank's supervision pairs, the negative sampler, the steps per epoch and the
  // targets of the epoch being iterated.
  loader::LinkPairs link_pairs_;
  std::unique_ptr<loader::NegativeSampler> negatives_;
  std::int64_t link_steps_ = 0;
  std::vector<loader::LinkTargets> link_targets_;

  // The pairs given, or every edge of the graph (split_links with nothing held out); the cache
  // policies see every own node as a seed.
  void take_link_pairs(const LinkSeeds& links, loader::TrainingData& data) {
    if (links.edge_label_index)
      link_pairs_ = given_pairs(*links.edge_label_index, links.edge_label, data, *world_);
    else
      world_->agree_on([&] { link_pairs_ = loader::split_links(data, {.valid = 0, .test = 0}).train; });
    link_steps_ =
        world_->allreduce_max(loader::link_steps(static_cast<std::int64_t>(link_pairs_.size()), options().batch_size),
                              comm::Channel::control);
    data.train_ids = loader::own_ids(data);
  }
  std::unique_ptr<loader::BatchPipeline> pipeline_;
  int epoch_ = 0;
  std::int64_t step_ = 0;  // batches handed out of the epoch
  loader::EpochTotals totals_;
  loader::EpochWatch since_;
  core::Timer timer_;
  bool handed_out_ = false;  // a batch of this epoch is with the caller
  core::Timer since_hand_out_;
  double allreduce_at_hand_out_ = 0;
};

}  // namespace

void stop_every_loader() {
  for (Loader* loader : live_loaders()) loader->stop();
}

namespace {

// loom.Batch and loom.LinkPairs: what a Loader hands out.
void bind_batch(py::module_& m) {
  py::class_<loader::LinkPairs>(m, "LinkPairs", "This rank's share of labelled node pairs (Loader.local_pairs)")
      .def("__len__", &loader::LinkPairs::size)
      .def_property_readonly(
          "positives", [](const loader::LinkPairs& p) { return std::count(p.label.begin(), p.label.end(), 1.0F); });

  py::class_<Batch>(m, "Batch", "One prepared mini-batch: inputs, labels, ids and blocks")
      .def_readonly("x", &Batch::x, "float32 [input nodes, features]: the rows of input_nodes")
      .def_readonly("y", &Batch::y, "int64 [seeds] class ids, or float [seeds, classes] for multi-label graphs")
      .def_readonly("seeds", &Batch::seeds, "int64 global ids of the output nodes")
      .def_readonly("input_nodes", &Batch::input_nodes, "int64 global ids of the rows of x (the seeds first)")
      .def_readonly("blocks", &Batch::blocks, "one Block per layer, input layer first")
      .def_readonly("original_ids", &Batch::original_ids,
                    "the user's ids of the seeds: int64 tensor, or a list of str where the graph names its nodes; for "
                    "link batches their rows in the source store (the ids edge_label_index takes)")
      .def_readonly("edge_label_index", &Batch::edge_label_index,
                    "link batches: int64 [2, P], the scored pairs as rows of the seeds (the first rows of x)")
      .def_readonly("edge_label", &Batch::edge_label, "link batches: float [P], 1 for an edge, 0 for a negative")
      .def_property_readonly("num_seeds", [](const Batch& b) { return b.seeds.size(0); })
      .def_property_readonly(
          "batch_size", [](const Batch& b) { return b.seeds.size(0); },
          "PyG's name: the seeds are the first batch_size nodes (out[:batch.batch_size])")
      .def_property_readonly(
          "n_id", [](const Batch& b) { return b.input_nodes; },
          "PyG's name for input_nodes: the global id of each row of x, seeds first")
      .def_property_readonly(
          "edge_index", [](Batch& b) { return with_edge_index(b).edge_index; },
          "int64 [2, E] local ids (row 0 source, row 1 target): every sampled node's in-edges from the hop that "
          "first reached it, in hop order, as PyG's NeighborLoader gives them (built on first use)")
      .def_property_readonly(
          "num_sampled_nodes", [](Batch& b) { return with_edge_index(b).num_sampled_nodes; },
          "nodes per hop, the seeds first (PyG's)")
      .def_property_readonly(
          "num_sampled_edges", [](Batch& b) { return with_edge_index(b).num_sampled_edges; },
          "edges per hop, the seeds' first (PyG's)")
      .def(
          "to",
          [](const Batch& b, const py::object& device) {
            return b.to(torch::Device(py::str(device).cast<std::string>()));
          },
          py::arg("device"), "the batch with every tensor and block on `device` (a torch.device or its name)")
      .def(
          "to_pyg",
          [](Batch& b) {
            with_edge_index(b);
            auto data = py::module_::import("torch_geometric.data").attr("Data");
            py::object d = data(py::arg("x") = b.x, py::arg("edge_index") = b.edge_index, py::arg("y") = b.y,
                                py::arg("n_id") = b.input_nodes, py::arg("batch_size") = b.seeds.size(0),
                                py::arg("num_sampled_nodes") = b.num_sampled_nodes,
                                py::arg("num_sampled_edges") = b.num_sampled_edges);
            if (b.edge_label_index.defined()) {
              d.attr("edge_label_index") = b.edge_label_index;
              d.attr("edge_label") = b.edge_label;
            }
            return d;
          },
          "a torch_geometric.data.Data as NeighborLoader yields (x, edge_index, y of the seeds, n_id, batch_size, "
          "num_sampled_nodes, num_sampled_edges); needs PyG")
      .def("__repr__", [](const Batch& b) {
        return fmt::format("<loom.Batch batch_size={} nodes={} layers={}>", b.seeds.size(0), b.input_nodes.size(0),
                           b.blocks.size());
      });
}

}  // namespace

void bind_loader(py::module_& m) {
  bind_batch(m);

  py::class_<Loader>(m, "Loader", "Loom's mini-batch data path (what `loom train` runs) for a Python model")
      .def(py::init([](const PathArg& store, std::vector<std::int32_t> fanouts,
                       const std::optional<NodeSet>& input_nodes, const py::dict& sampling, const py::dict& data_path,
                       const py::dict& cache, const py::dict& prefetch, const py::dict& link) {
             const LoaderSettings settings = loader_settings(
                 store, std::move(fanouts), {sampling, data_path, cache, prefetch, link}, input_nodes.has_value());
             return std::make_unique<Loader>(settings, input_nodes, python_world());
           }),
           py::arg("store"), py::arg("fanouts"), py::arg("input_nodes") = py::none(), py::arg("sampling") = py::dict(),
           py::arg("data_path") = py::dict(), py::arg("cache") = py::dict(), py::arg("prefetch") = py::dict(),
           py::arg("link") = py::dict(),
           "the keywords of each option group as a dict (loom.Loader sorts them): sampling (batch_size, seed, "
           "threads, shuffle, eval_fanouts, device), data_path (pipeline_depth, superbatch, wire_dtype, "
           "normalize_features, gcn_norm, net_bandwidth, net_latency, net_host_bandwidth, net_host_latency), cache "
           "(cache, alpha, cache_dtype), prefetch (controller, prefetch, lookahead), link (task, edge_label_index, "
           "edge_label, neg_sampling_ratio, neg_sampling, drop_target_edges)")
      .def_property_readonly("num_nodes", [](const Loader& l) { return l.data().num_nodes(); })
      .def_property_readonly("feat_dim", [](const Loader& l) { return l.data().feat_dim; })
      .def_property_readonly("num_classes", [](const Loader& l) { return l.data().num_classes; })
      .def_property_readonly("multi_label",
                             [](const Loader& l) { return l.data().scoring == scores::ScoreKind::kMicroF1; })
      .def("steps", &Loader::steps, py::arg("epoch") = 0, "steps of an epoch (the same on every rank)")
      .def("local_nodes", &Loader::local_nodes, py::arg("nodes"),
           "this rank's share of a node set (a split name, a boolean mask, original ids or names) as global ids, in "
           "the order given (collective)")
      .def("eval_steps", &Loader::eval_steps, py::arg("ids"), py::arg("batch_size"),
           "steps of evaluating this rank's ids (from local_nodes; the most any rank needs; collective)")
      .def("eval_batch", &Loader::eval_batch, py::arg("ids"), py::arg("step"), py::arg("batch_size"),
           py::arg("seed") = 0,
           "batch `step` of this rank's ids (from local_nodes) with the evaluation fanouts (collective)")
      .def_property_readonly("links", &Loader::links, "whether the batches are link batches (loom.LinkLoader)")
      .def("local_pairs", &Loader::local_pairs, py::arg("edge_label_index"), py::arg("edge_label") = py::none(),
           "this rank's share of labelled pairs (edge_label_index: [2, E] node ids; edge_label: 1 or 0 each, "
           "default 1) for link_eval_batch (collective)")
      .def("link_eval_steps", &Loader::link_eval_steps, py::arg("pairs"), py::arg("batch_size"),
           "steps of evaluating this rank's pairs (the most any rank needs; collective)")
      .def("link_eval_batch", &Loader::link_eval_batch, py::arg("pairs"), py::arg("step"), py::arg("batch_size"),
           py::arg("seed") = 0,
           "batch `step` of the pairs with the evaluation fanouts, edge_label_index and edge_label set (collective)")
      .def("link_metrics", &Loader::link_metrics, py::arg("positive"), py::arg("negative"),
           py::arg("hits_at") = std::vector<int>{20, 50, 100},
           "AUC, Hits@K and MRR (OGB's) of this rank's positive and negative pair scores, over all ranks "
           "(collective)")
      .def("count", &Loader::count, py::arg("logits"), py::arg("labels"),
           "loom train's score counts of one batch (add them up over batches, then score())")
      .def("score", &Loader::score, py::arg("counts"),
           "accuracy (or micro_f1), mean loss and nodes of summed counts, over all ranks (collective)")
      .def("start_epoch", &Loader::start, py::arg("epoch"))
      .def("stop_epoch", &Loader::stop,
           "ends the epoch being iterated before its last batch (every rank at the same step); "
           "closing an epoch's iterator calls it")
      .def("next_batch", &Loader::next, "the next batch of the started epoch, or None after the last")
      .def("epoch_stats", &Loader::epoch_stats,
           "rows local / cached / remote, feature bytes, seconds per phase, bytes and messages per channel, "
           "over all ranks, for the epoch just iterated");
}

}  // namespace loom::python
