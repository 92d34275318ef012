#include "loom/train/fullgraph/fullgraph_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <torch/torch.h>

#include "loom/core/log.hpp"
#include "loom/core/metrics.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/timer.hpp"
#include "loom/graph/info.hpp"
#include "loom/nn/runtime.hpp"
#include "loom/train/checkpoint.hpp"
#include "loom/train/epoch_driver.hpp"
#include "loom/nn/device.hpp"
#include "loom/train/fullgraph/fullgraph_epoch.hpp"
#include "loom/train/fullgraph/fullgraph_memory.hpp"
#include "loom/train/fullgraph/layer_costs.hpp"
#include "loom/train/fullgraph/stage_engine.hpp"
#include "loom/nn/gradient_sync.hpp"
#include "loom/train/lr_schedule.hpp"
#include "loom/train/training_outputs.hpp"

namespace loom::train {

namespace {

// Every option, before any store is opened (the data's widths are checked by DeepGnn).
void check(const FullGraphOptions& o) {
  nn::check_model_options(o.model);
  check_run_options(o.run);
  check_checkpoint_options(o.checkpoint);
  LOOM_CHECK_ARG(o.history_window >= 1, "--history-window", "must be >= 1, got {}", o.history_window);
  LOOM_CHECK_ARG(o.chunks >= 0, "--chunks", "must be >= 0, got {}", o.chunks);
  LOOM_CHECK_ARG(!o.stale_halo || o.mode == FullGraphMode::kGraph, "--stale-halo", "applies to --mode graph only");
}

// The checkpoint every rank resumes from: the newest epoch intact in every rank's own directory
// (a rank whose newest is damaged pulls all back to an older one); 0 when no rank has one. Throws
// on every rank when some rank has checkpoints but no epoch is intact everywhere.
int agreed_checkpoint(const std::string& rank_dir, const std::string& checkpoint_dir, comm::Communicator& world) {
  int at_most = std::numeric_limits<int>::max(), newest_anywhere = -1;
  while (true) {
    int mine = 0;
    world.agree_on([&] { mine = newest_intact_checkpoint(rank_dir, at_most).value_or(CheckpointId{}).epochs; });
    const int lowest = world.allreduce_min(mine, comm::Channel::control);
    const int highest = world.allreduce_max(mine, comm::Channel::control);
    if (newest_anywhere < 0) newest_anywhere = highest;
    if (lowest == highest) {
      world.agree_on([&] {
        LOOM_CHECK_ARG(lowest > 0 || newest_anywhere == 0, "--resume",
                       "{}: no checkpoint epoch is intact in every rank's directory", checkpoint_dir);
      });
      return lowest;
    }
    at_most = lowest;
  }
}

// Rank 0 counts the layers' costs and splits them (or, resuming, takes the split its checkpoint
// was trained with: a rank's optimizer state belongs to its stage's layers); every rank gets
// rank 0's split and costs.
std::vector<int> layer_bounds(nn::DeepGnn& model, const FullGraphLayout& layout, const graph::Csr& csr,
                              const partition::PartitionBook& book, const comm::Communicator& world,
                              const std::optional<nlohmann::json>& resumed_state, std::vector<double>& costs) {
  costs.assign(static_cast<std::size_t>(model.num_layers()), 0.0);
  if (layout.stages == 1) return {0, model.num_layers()};
  std::vector<int> bounds;
  if (world.rank() == 0) {
    if (resumed_state && resumed_state->contains("layer_bounds")) {
      bounds = resumed_state->at("layer_bounds").get<std::vector<int>>();
      costs = resumed_state->value("layer_costs", costs);
    } else {
      costs = estimate_layer_costs(model, csr);
      bounds = balance_layers(costs, layout.stages);
    }
  }
  world.broadcast(bounds, 0, comm::Channel::control);
  world.broadcast(std::span<double>(costs), 0, comm::Channel::control);
  return bounds;
}

std::vector<int> chunk_order(const FullGraphOptions& o, int chunks, int epoch) {
  std::vector<int> order(static_cast<std::size_t>(chunks));
  std::iota(order.begin(), order.end(), 0);
  if (o.shuffle_chunks) {
    core::Rng rng(core::mix_seed(o.run.seed, 0x63686e6b /*"chnk"*/ + static_cast<std::uint64_t>(epoch)));
    core::shuffle(order.begin(), order.end(), rng);
  }
  return order;
}

std::string fingerprint(const FullGraphOptions& o, const FullGraphLayout& l, const FullGraphData& d) {
  return fmt::format("{}:{}:L{}:H{}:F{}:C{}:N{}:S{}:W{}:K{}", fullgraph_mode_name(o.mode),
                     nn::deep_kind_name(o.model.kind), o.model.num_layers, o.model.hidden, d.feat_dim, d.num_classes,
                     d.num_nodes, l.stages, l.ways, l.chunks * l.ways);
}

// L2 norm of the whole model's summed gradient: each stage counts its own parameters once (way
// 0; the ways hold the same sums) and the input part is counted on the first stage only.
double gradient_norm(std::span<const torch::Tensor> stage_params, std::span<const torch::Tensor> input_params,
                     const FullGraphLayout& layout, const comm::Communicator& world) {
  double squares = 0;
  auto add = [&](std::span<const torch::Tensor> params) {
    for (const auto& p : params)
      if (p.grad().defined()) squares += p.grad().to(torch::kDouble).pow(2).sum().item<double>();
  };
  if (layout.way == 0) add(stage_params);
  if (layout.way == 0 && layout.first_stage()) add(input_params);
  return std::sqrt(world.allreduce_sum(squares, comm::Channel::control));
}

// The last stage's rows of its way's chunks (in chunk order, which is global id order) as the
// run's outputs; the other stages contribute none.
void write_chunk_outputs(const FullGraphOptions& o, const FullGraphData& d, const FullGraphLayout& layout,
                         const ChunkResults& results, const comm::Communicator& world) {
  NodeOutputs rows;
  rows.scoring = d.scoring;
  rows.num_classes = d.num_classes;
  rows.num_nodes = d.num_nodes;
  std::vector<std::int64_t> ids;
  std::vector<std::string> names;
  if (layout.last_stage()) {
    rows.logits = torch::cat(results.logits);
    if (o.output.save_embeddings) rows.embeddings = torch::cat(results.hidden);
    for (const ChunkRows& chunk : d.chunks) {
      ids.insert(ids.end(), chunk.original_ids.begin(), chunk.original_ids.end());
      names.insert(names.end(), chunk.original_names.begin(), chunk.original_names.end());
    }
  }
  rows.original_ids = ids;
  rows.original_names = names;
  write_training_outputs(o.output.dir, o.output.overwrite, rows, world);
}

// What one rank of a full-graph run holds, built in place by open_stage() (the engine refers to
// the other members): the store and this rank's place in the layout, its stage's chunks, rows and
// layers, the parameters it trains with their optimizer and gradient sums, and the engine.
struct FullGraphRun {
  std::optional<partition::PartitionedStore> store;
  FullGraphLayout layout;
  std::optional<comm::Communicator> stage_comm;
  std::optional<ChunkSet> chunks;
  FullGraphData data;
  std::shared_ptr<nn::DeepGnn> model;
  std::vector<int> bounds;                  // layer split: stage s runs layers [bounds[s], bounds[s+1])
  std::vector<double> costs;                // estimated cost of each layer (layer_costs.hpp)
  std::vector<torch::Tensor> stage_params;  // this stage's layers (and the output layer on the last stage)
  std::unique_ptr<torch::optim::Adam> optimizer;
  std::unique_ptr<nn::GradientSync> stage_sync;
  std::optional<nn::GradientSync> input_sync;
  std::optional<PipelineThreads> threads;
  std::unique_ptr<StageEngine> engine;
  std::string rank_dir;  // this rank's checkpoints
  // With --resume: the checkpoint every rank goes on from (epochs 0: none), and its state, read
  // once before the layers are split (the split is the checkpoint's) and loaded after the engine.
  int resume_epochs = 0;
  std::optional<nlohmann::json> resume_state;
  int threads_per_rank = 0;
  std::int64_t runtime_bytes = 0;  // resident before the store was opened
  MemoryPlan memory;
  std::optional<ChunkResults> final_rows;  // the last epoch's exact inference, kept for the outputs
};

// The memory plan of this rank's stage (fullgraph_memory.hpp), before its engine allocates.
MemoryPlan plan_stage_memory(const FullGraphOptions& options, const FullGraphRun& run,
                             const std::vector<torch::Tensor>& trained, int layers, torch::Device device) {
  FullGraphMemoryInputs in;
  in.runtime = run.runtime_bytes;
  const graph::Csr& csr = run.store->topology().csr();
  in.topology = static_cast<std::int64_t>(csr.indptr_array().nbytes() + csr.indices_array().nbytes());
  for (const ChunkRows& rows : run.data.chunks)
    for (const torch::Tensor& t : {rows.features, rows.labels})
      if (t.defined()) in.rows += static_cast<std::int64_t>(t.nbytes());
  for (const torch::Tensor& p : trained) in.parameters += p.numel();
  in.hidden = options.model.hidden;
  in.layers = layers;
  in.slots = run.chunks->num_slots();
  in.own = run.chunks->own().size();
  in.historical = options.mode != FullGraphMode::kGraph || options.stale_halo;
  for (const Chunk& c : run.chunks->chunks()) {
    in.chunk_rows.push_back(c.size());
    in.chunk_outside.push_back(static_cast<std::int64_t>(c.outside.size()));
    in.chunk_edges.push_back(c.graph.num_edges());
    // The CSR, and the transposed one: source offsets, destinations, edge ids (int64).
    const auto indices = static_cast<std::int64_t>(c.graph.indices().nbytes());
    in.chunk_graphs += static_cast<std::int64_t>(c.graph.indptr().nbytes()) + indices + (c.graph.num_src() + 1) * 8 +
                       indices + c.graph.num_edges() * 8;
  }
  in.edge_messages = device.type() != torch::kCPU;  // the device-generic aggregation (aggregate.hpp)
  return plan_fullgraph_memory(in);
}

// Opens the store and places this rank in the layout (its stage and way).
void open_layout(const FullGraphOptions& options, comm::Communicator& world, FullGraphRun& run) {
  world.agree_on([&] {
    if (graph::store_kind(options.store) != graph::StoreKind::kPartitioned)
      throw Error::in_file(options.store, 0,
                           "full-graph training needs a partitioned store: run `loom partition " + options.store +
                               " -k N -o PARTS` first");
    run.store = partition::PartitionedStore::open(options.store);
    run.layout = make_layout(options.mode, world.size(), world.rank(), run.store->num_parts(), options.ways,
                             options.chunks, options.model.num_layers);
  });
  run.stage_comm.emplace(world.split(run.layout.stage, run.layout.way));
}

// The model (every rank holds all of it, seeded alike), this way's chunks and this stage's rows.
void build_model_and_rows(const FullGraphOptions& options, comm::Communicator& world, torch::Device device,
                          FullGraphRun& run) {
  const FullGraphLayout& layout = run.layout;
  world.agree_on([&] {
    nn::DeepModelOptions model_options = options.model;
    model_options.in_features = run.store->meta().graph.feat_dim;
    model_options.num_classes = run.store->meta().graph.num_classes;
    // input part, num_layers hidden layers, output part
    check_model_fits({model_options.in_features, model_options.hidden, model_options.num_classes,
                      model_options.num_layers + 2, options.store},
                     options.run.memory_limit, world.ranks_on_this_node());
    torch::manual_seed(options.run.seed);
    run.model = std::make_shared<nn::DeepGnn>(model_options);
    run.model->to(device);
    run.chunks.emplace(run.store->topology().csr(), run.store->book(), layout);
    run.chunks->to(device);
    run.data = load_fullgraph_data(*run.store, layout, layout.first_stage() || run.model->uses_initial_residual(),
                                   layout.last_stage());
    move_to(run.data, device);
  });
}

// With --resume: the newest checkpoint intact on every rank, and its state.
void find_resume_point(const FullGraphOptions& options, comm::Communicator& world, FullGraphRun& run) {
  if (!options.checkpoint.resume) return;
  run.resume_epochs = agreed_checkpoint(run.rank_dir, options.checkpoint.dir, world);
  if (run.resume_epochs > 0)
    world.agree_on([&] { run.resume_state = read_checkpoint_state(run.rank_dir, run.resume_epochs); });
}

// The layers of each stage: by their counted costs, or the checkpoint's split when resuming.
void split_layers(const FullGraphOptions& options, comm::Communicator& world, FullGraphRun& run) {
  const FullGraphLayout& layout = run.layout;
  run.bounds = layer_bounds(*run.model, layout, run.store->topology().csr(), run.store->book(), world, run.resume_state,
                            run.costs);
  world.agree_on([&] {
    LOOM_CHECK(run.bounds.size() == static_cast<std::size_t>(layout.stages) + 1 && run.bounds.front() == 0 &&
                   run.bounds.back() == run.model->num_layers() && std::is_sorted(run.bounds.begin(), run.bounds.end()),
               "{}: checkpoint holds a layer split ({}) that does not fit {} stages of {} layers",
               options.checkpoint.dir, fmt::join(run.bounds, ","), layout.stages, run.model->num_layers());
  });
}

// The layers [first, end) of this rank's stage.
std::pair<int, int> stage_layers(const FullGraphRun& run) {
  const auto stage = static_cast<std::size_t>(run.layout.stage);
  return {run.bounds[stage], run.bounds[stage + 1]};
}

// What this rank trains (its stage's layers, the output layer on the last stage, the input layer
// where it runs it), their optimizer and gradient sums; returns the parameters trained.
std::vector<torch::Tensor> build_optimizer(const FullGraphOptions& options, comm::Communicator& world,
                                           FullGraphRun& run) {
  const FullGraphLayout& layout = run.layout;
  const auto [first_layer, end_layer] = stage_layers(run);
  const bool runs_input = layout.first_stage() || run.model->uses_initial_residual();
  for (int l = first_layer; l < end_layer; ++l)
    for (auto& p : run.model->layer_parameters(l)) run.stage_params.push_back(p);
  if (layout.last_stage())
    for (auto& p : run.model->output_parameters()) run.stage_params.push_back(p);
  std::vector<torch::Tensor> trained = run.stage_params;
  if (runs_input)
    for (auto& p : run.model->input_parameters()) trained.push_back(p);
  run.optimizer = std::make_unique<torch::optim::Adam>(
      trained, torch::optim::AdamOptions(options.run.lr).weight_decay(options.run.weight_decay));
  run.stage_sync = std::make_unique<nn::GradientSync>(*run.stage_comm, run.stage_params, comm::Channel::weights,
                                                      /*average=*/false);
  if (runs_input)
    run.input_sync.emplace(run.model->uses_initial_residual() ? world : *run.stage_comm, run.model->input_parameters(),
                           comm::Channel::weights, /*average=*/false);
  return trained;
}

// Opens the store, places this rank in the layout, builds the model and this stage's chunks and
// rows, splits the layers over the stages (the checkpoint's split when resuming), sets up what
// this rank trains, plans its memory (refusing a stage that would not fit) and builds its engine.
void open_stage(const FullGraphOptions& options, comm::Communicator& world, const nn::RankRuntime& runtime,
                FullGraphRun& run) {
  const torch::Device device = runtime.device;
  run.threads_per_rank = runtime.threads;
  run.rank_dir = options.checkpoint.dir + "/rank-" + std::to_string(world.rank());
  open_layout(options, world, run);
  build_model_and_rows(options, world, device, run);
  find_resume_point(options, world, run);
  split_layers(options, world, run);
  const std::vector<torch::Tensor> trained = build_optimizer(options, world, run);
  run.threads.emplace(run.layout, world.machine_of_ranks(), world.rank(), nn::machine_cores(), runtime.threads,
                      /*fixed=*/options.run.rank.threads > 0 || device.is_cuda());
  const std::pair<int, int> layers = stage_layers(run);  // [first, end)
  const int first_layer = layers.first, end_layer = layers.second;
  world.agree_on([&] {
    run.memory = plan_stage_memory(options, run, trained, end_layer - first_layer, device);
    check_memory_plan(run.memory, options.run.memory_limit, world.ranks_on_this_node());
  });
  run.engine = std::make_unique<StageEngine>(*run.model, options, run.layout, first_layer, end_layer, *run.chunks,
                                             run.store->book(), run.data, world, *run.stage_comm, *run.threads);
}

// Loads this rank's newest checkpoint (with --resume); returns the epochs every rank has done.
int resume_stage(const FullGraphOptions& options, FullGraphRun& run, comm::Communicator& world,
                 FullGraphReport& report) {
  if (!options.checkpoint.resume) return 0;
  if (run.resume_epochs == 0) return 0;
  std::optional<nlohmann::json> state;
  world.agree_on([&] {
    state = load_checkpoint(run.rank_dir, *run.model, *run.optimizer, fingerprint(options, run.layout, run.data),
                            run.engine->carried_tensors(), run.resume_epochs);
  });
  const int done = state ? state->at("epochs_done").get<int>() : 0;
  LOOM_CHECK(world.allreduce_min(done, comm::Channel::control) == world.allreduce_max(done, comm::Channel::control),
             "{}: ranks hold checkpoints of different epochs", options.checkpoint.dir);
  if (state) report.epochs = state->value("epochs", std::vector<nlohmann::json>{});
  return done;
}

// The setup record: the layout, the layer split and what the cost formulas predict per epoch
// (mirror counts of stage 0's ways; every stage has the same).
nlohmann::json setup_record(const FullGraphOptions& options, const FullGraphRun& run, const comm::Communicator& world) {
  const FullGraphLayout& layout = run.layout;
  const auto mirrors = world.allreduce_sum(
      static_cast<std::int64_t>(layout.first_stage() ? run.chunks->mirrors().size() : 0), comm::Channel::control);
  const double L = options.model.num_layers, H = static_cast<double>(options.model.hidden);
  const double F = static_cast<double>(run.data.feat_dim), V = static_cast<double>(run.data.num_nodes);
  return {{"event", "setup"},
          {"mode", fullgraph_mode_name(options.mode)},
          {"model", nn::deep_kind_name(options.model.kind)},
          {"layers", options.model.num_layers},
          {"hidden", options.model.hidden},
          {"ranks", world.size()},
          {"stages", layout.stages},
          {"ways", layout.ways},
          {"chunks_per_way", layout.chunks},
          {"nodes", run.data.num_nodes},
          {"features", run.data.feat_dim},
          {"lr", options.run.lr},
          {"lr_schedule", core::enum_name(kLrScheduleNames, options.run.lr_schedule.kind)},
          {"cross_grad", core::enum_name(kCrossGradNames, options.cross_grad)},
          {"threads_per_rank", run.threads_per_rank},
          {"elastic_threads", run.threads->elastic()},
          {"mirrors", mirrors},
          {"layer_bounds", run.bounds},
          {"layer_costs", run.costs},
          {"formula_graph_bytes", 2 * 4 * static_cast<double>(mirrors) * (F + (L - 1) * H)},
          {"formula_graph_hidden_bytes", 2 * 4 * static_cast<double>(mirrors) * L * H},
          {"formula_pipe_bytes", 2 * 4 * (layout.stages - 1) * V * H}};
}

// One epoch: every chunk through this rank's stage, the weight gradients summed within the stage
// (and the input part over its runners), one optimizer step. Returns the epoch's record.
FullGraphEpoch train_epoch(const FullGraphOptions& options, FullGraphRun& run, int epoch, comm::Communicator& world) {
  // Dropout stream of (seed, epoch, rank), from the project's splittable RNG: no two collide.
  torch::manual_seed(core::Rng(options.run.seed)
                         .split(static_cast<std::uint64_t>(epoch) + 1, static_cast<std::uint64_t>(world.rank()))
                         .seed());
  FullGraphEpoch e;
  e.epoch = epoch + 1;
  e.lr = learning_rate_at(options.run.lr_schedule, options.run.lr, epoch, options.run.epochs);
  set_learning_rate(*run.optimizer, e.lr);
  run.optimizer->zero_grad();
  const comm::CommStats before = world.stats();
  core::Timer timer;
  const StageCounts counts =
      run.engine->train_epoch(chunk_order(options, run.layout.chunks, epoch), epoch % options.history_window == 0);
  run.stage_sync->all_reduce();
  if (run.input_sync) run.input_sync->all_reduce();
  e.loss = world.allreduce_sum(counts.loss, comm::Channel::control);
  e.grad_norm = gradient_norm(run.stage_params, run.model->input_parameters(), run.layout, world);
  // The same on every rank: stop before the step applies what is not finite.
  if (!std::isfinite(e.loss) || !std::isfinite(e.grad_norm))
    throw Error(
        fmt::format("epoch {}: the training {} is not finite (loss {}, gradient norm {}); training stopped "
                    "before the step was applied. Check the features (`loom check STORE`) and lower --lr",
                    e.epoch, std::isfinite(e.loss) ? "gradient" : "loss", e.loss, e.grad_norm));
  run.optimizer->step();
  e.seconds = timer.seconds();
  e.traffic = world.global_stats(world.stats() - before);
  e.bubble_seconds = counts.bubble_seconds;
  e.exchange_seconds = counts.exchange_seconds;
  world.max_fields(comm::Channel::control, e.bubble_seconds, e.exchange_seconds);
  e.train_score = scores::score(scores::sum_over_ranks(counts.train, world), run.data.scoring);
  return e;
}

// Exact full-graph inference of every split into the epoch's record and the report; the last
// stage's rows into `rows` where given (for the outputs).
void evaluate_epoch(FullGraphRun& run, comm::Communicator& world, ChunkResults* rows, FullGraphEpoch& e,
                    FullGraphReport& report) {
  core::Timer timer;
  const comm::CommStats before = world.stats();
  StageCounts eval = run.engine->evaluate(rows);
  e.eval_bytes = world.global_stats(world.stats() - before).sum.total().bytes_sent;
  for (scores::ScoreCounts* s : {&eval.train, &eval.valid, &eval.test}) *s = scores::sum_over_ranks(*s, world);
  report.final_train = scores::score(eval.train, run.data.scoring);
  report.final_valid = scores::score(eval.valid, run.data.scoring);
  report.final_test = scores::score(eval.test, run.data.scoring);
  e.evaluated = true;
  e.eval_train_score = report.final_train;
  e.valid_score = report.final_valid;
  e.test_score = report.final_test;
  e.eval_seconds = timer.seconds();
}

// Every rank's checkpoint of its stage after `epochs_done` epochs, with the layer split it trains.
void save_stage_checkpoint(const FullGraphOptions& options, FullGraphRun& run, int epochs_done,
                           const std::vector<nlohmann::json>& records, const core::MetricsLog& metrics,
                           comm::Communicator& world) {
  nlohmann::json state = {{"fingerprint", fingerprint(options, run.layout, run.data)},
                          {"epochs", records},
                          {"layer_bounds", run.bounds},
                          {"layer_costs", run.costs}};
  if (metrics.enabled()) state["metrics_log"] = metrics.position().to_json();
  world.agree_on([&] {
    save_checkpoint(run.rank_dir, epochs_done, *run.model, *run.optimizer, state, run.engine->carried_tensors(),
                    options.checkpoint.keep);
  });
}

// -o: the last stage's rows of the final weights (the last evaluation's, else inferred now).
void write_outputs(const FullGraphOptions& options, FullGraphRun& run, const comm::Communicator& world) {
  if (options.output.dir.empty()) return;
  if (!run.final_rows) run.engine->evaluate(&run.final_rows.emplace());
  write_chunk_outputs(options, run.data, run.layout, *run.final_rows, world);
}

// Rank 0's line on the layout and the layer split.
void log_layout(const FullGraphOptions& options, const FullGraphRun& run, const comm::Communicator& world) {
  if (world.rank() != 0) return;
  spdlog::info(
      "fullgraph {}: {} x {} layers (hidden {}), {} stage(s) x {} way(s), {} chunk(s) per way, layers per stage {}",
      fullgraph_mode_name(options.mode), nn::deep_kind_name(options.model.kind), options.model.num_layers,
      options.model.hidden, run.layout.stages, run.layout.ways, run.layout.chunks, fmt::join(run.bounds, ","));
}

// Full-graph training as a task of the training driver: this rank's stage (layout, model, rows,
// layer split, optimizer, memory plan, engine) and its resume point, one optimizer step per
// epoch, exact inference of every split as its evaluation (the last epoch's rows kept for the
// outputs), every rank's checkpoint of its stage, and the outputs at the end.
class FullGraphTask : public TrainingTask {
 public:
  FullGraphTask(const FullGraphOptions& options, comm::Communicator& world, FullGraphReport& report)
      : options_(options), world_(world), report_(report) {}

  void check() override { train::check(options_); }

  OpenedTask open(const nn::RankRuntime& runtime, std::int64_t runtime_bytes) override {
    run_.runtime_bytes = runtime_bytes;
    open_stage(options_, world_, runtime, run_);
    report_.scoring = run_.data.scoring;
    const int start_epoch = resume_stage(options_, run_, world_, report_);
    report_.setup = setup_record(options_, run_, world_);
    std::optional<core::LogPrefix> metrics_log;
    if (run_.resume_state && run_.resume_state->contains("metrics_log"))
      metrics_log = core::LogPrefix::from_json(run_.resume_state->at("metrics_log"), run_.rank_dir);
    return {.start_epoch = start_epoch,
            .metrics_log = metrics_log,
            .memory = run_.memory,
            .checkpoint_dir = options_.checkpoint.dir.empty() ? "" : run_.rank_dir,
            .setup = report_.setup};
  }

  void prepare(core::MetricsLog& metrics) override {
    metrics_ = &metrics;
    log_layout(options_, run_, world_);
  }

  void finish(const EpochsRun&, core::MetricsLog&) override { write_outputs(options_, run_, world_); }

  TrainedEpoch train(int epoch) override {
    epoch_ = train_epoch(options_, run_, epoch, world_);
    return {epoch_.to_json(report_.scoring)};
  }
  bool evaluate(int epoch, nlohmann::json& record) override {
    const bool keeps_rows = !options_.output.dir.empty() && epoch + 1 == options_.run.epochs;
    evaluate_epoch(run_, world_, keeps_rows ? &run_.final_rows.emplace() : nullptr, epoch_, report_);
    record = epoch_.to_json(report_.scoring);
    return false;
  }
  void log(const nlohmann::json&) const override { epoch_.log(); }
  void save(int epochs_done, const std::vector<nlohmann::json>& records) override {
    save_stage_checkpoint(options_, run_, epochs_done, records, *metrics_, world_);
  }

 private:
  const FullGraphOptions& options_;
  comm::Communicator& world_;
  FullGraphReport& report_;
  FullGraphRun run_;
  const core::MetricsLog* metrics_ = nullptr;  // the run's, from prepare()
  FullGraphEpoch epoch_;                       // the epoch trained last
};

// The predictions (and embeddings) of -o, from the last epoch's exact inference.
}  // namespace

FullGraphReport run_fullgraph(const FullGraphOptions& options, comm::Communicator& world) {
  return run_training_task<FullGraphTask, FullGraphReport>(
      options, options.run, {options.output, options.checkpoint, options.store, ""}, world);
}

}  // namespace loom::train
