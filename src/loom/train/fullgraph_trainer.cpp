#include "loom/train/fullgraph_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
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
#include "loom/train/device.hpp"
#include "loom/train/gradient_sync.hpp"
#include "loom/train/layer_profile.hpp"
#include "loom/train/lr_schedule.hpp"
#include "loom/train/stage_engine.hpp"
#include "loom/train/training_outputs.hpp"

namespace loom::train {

namespace {

void validate(const FullGraphOptions& o) {
  LOOM_CHECK_ARG(o.epochs >= 0, "--epochs", "must be >= 0, got {}", o.epochs);
  LOOM_CHECK_ARG(o.lr > 0, "--lr", "must be positive, got {}", o.lr);
  validate_lr_schedule(o.lr_schedule);
  LOOM_CHECK_ARG(o.history_window >= 1, "--history-window", "must be >= 1, got {}", o.history_window);
  LOOM_CHECK_ARG(o.eval_every >= -1, "--eval-every", "must be >= -1, got {}", o.eval_every);
  LOOM_CHECK_ARG(o.chunks >= 0, "--chunks", "must be >= 0, got {}", o.chunks);
  LOOM_CHECK_ARG(!o.stale_halo || o.mode == FullGraphMode::kGraph, "--stale-halo", "applies to --mode graph only");
  LOOM_CHECK_ARG(!o.resume || !o.checkpoint_dir.empty(), "--resume", "needs --checkpoint-dir");
  LOOM_CHECK_ARG(o.checkpoint_every >= 0, "--checkpoint-every", "must be >= 0, got {}", o.checkpoint_every);
}

// Rank 0 profiles the layers and splits them (or, resuming, takes the split its checkpoint
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
      costs = profile_layer_costs(model, csr, book.range(0));
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
    core::Rng rng(core::mix_seed(o.seed, 0x63686e6b /*"chnk"*/ + static_cast<std::uint64_t>(epoch)));
    core::shuffle(order.begin(), order.end(), rng);
  }
  return order;
}

std::string fingerprint(const FullGraphOptions& o, const FullGraphLayout& l, const FullGraphData& d) {
  return fmt::format("{}:{}:L{}:H{}:F{}:C{}:N{}:S{}:W{}:K{}", fullgraph_mode_name(o.mode),
                     nn::deep_kind_name(o.model.kind), o.model.num_layers, o.model.hidden, d.feat_dim, d.num_classes,
                     d.num_nodes, l.stages, l.ways, l.chunks * l.ways);
}

std::uint64_t channel_bytes(const comm::GlobalCommStats& s, comm::Channel c) { return s.sum[c].bytes_sent; }

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
void write_outputs(const FullGraphOptions& o, const FullGraphData& d, const FullGraphLayout& layout,
                   const ChunkResults& results, const comm::Communicator& world) {
  NodeOutputs rows{.multi_label = d.multi_label, .num_classes = d.num_classes, .num_nodes = d.num_nodes};
  std::vector<std::int64_t> ids;
  std::vector<std::string> names;
  if (layout.last_stage()) {
    rows.logits = torch::cat(results.logits);
    if (o.save_embeddings) rows.embeddings = torch::cat(results.hidden);
    for (const ChunkRows& chunk : d.chunks) {
      ids.insert(ids.end(), chunk.original_ids.begin(), chunk.original_ids.end());
      names.insert(names.end(), chunk.original_names.begin(), chunk.original_names.end());
    }
  }
  rows.original_ids = ids;
  rows.original_names = names;
  write_training_outputs(o.output_dir, o.overwrite, rows, world);
}

}  // namespace

FullGraphReport run_fullgraph(const FullGraphOptions& options, comm::Communicator& world) {
  const int rank = world.rank();
  world.agree_on([&] {
    validate(options);
    check_output_options(options.output_dir, options.save_embeddings, options.overwrite, rank == 0);
  });
  const std::vector<int> machine_of_ranks = world.machine_of_ranks();
  const auto ranks_here = std::count(machine_of_ranks.begin(), machine_of_ranks.end(), machine_of_ranks[rank]);
  const int threads = nn::cpu_threads_per_rank(options.threads, static_cast<int>(ranks_here));
  nn::configure_cpu_runtime(threads);
  world.set_link_model(options.link);
  torch::Device device = torch::kCPU;
  world.agree_on([&] { device = resolve_device(options.device, rank); });

  std::optional<partition::PartitionedStore> store;
  FullGraphLayout layout;
  world.agree_on([&] {
    if (graph::store_format(options.store) != "loom-partitioned")
      throw Error::in_file(options.store, 0, "full-graph training needs a partitioned store: run `loom partition " +
                                                 options.store + " -k N -o PARTS` first");
    store = partition::PartitionedStore::open(options.store);
    layout = make_layout(options.mode, world.size(), rank, store->num_parts(), options.ways, options.chunks,
                         options.model.num_layers);
  });
  comm::Communicator stage_comm = world.split(layout.stage, layout.way);
  const graph::Csr& csr = store->topology().csr();
  std::optional<ChunkSet> chunks;
  FullGraphData data;
  nn::DeepModelOptions model_options = options.model;
  std::shared_ptr<nn::DeepGnn> model;
  world.agree_on([&] {
    model_options.in_features = store->meta().feat_dim;
    model_options.num_classes = store->meta().num_classes;
    torch::manual_seed(options.seed);
    model = std::make_shared<nn::DeepGnn>(model_options);
    model->to(device);
    chunks.emplace(csr, store->book(), layout);
    chunks->to(device);
    data = load_fullgraph_data(*store, layout, layout.first_stage() || model->uses_initial_residual(),
                               layout.last_stage());
    move_to(data, device);
  });

  const std::string rank_dir = options.checkpoint_dir + "/rank-" + std::to_string(rank);
  std::optional<nlohmann::json> resumed_state;
  if (options.resume) world.agree_on([&] { resumed_state = read_checkpoint_state(rank_dir); });
  std::vector<double> costs;
  const std::vector<int> bounds = layer_bounds(*model, layout, csr, store->book(), world, resumed_state, costs);
  world.agree_on([&] {
    LOOM_CHECK(bounds.size() == static_cast<std::size_t>(layout.stages) + 1 && bounds.front() == 0 &&
                   bounds.back() == model->num_layers() && std::is_sorted(bounds.begin(), bounds.end()),
               "{}: checkpoint holds a layer split ({}) that does not fit {} stages of {} layers",
               options.checkpoint_dir, fmt::join(bounds, ","), layout.stages, model->num_layers());
  });
  const int first_layer = bounds[static_cast<std::size_t>(layout.stage)];
  const int end_layer = bounds[static_cast<std::size_t>(layout.stage) + 1];
  const bool runs_input = layout.first_stage() || model->uses_initial_residual();

  std::vector<torch::Tensor> stage_params, trained;
  for (int l = first_layer; l < end_layer; ++l)
    for (auto& p : model->layer_parameters(l)) stage_params.push_back(p);
  if (layout.last_stage())
    for (auto& p : model->output_parameters()) stage_params.push_back(p);
  trained = stage_params;
  if (runs_input)
    for (auto& p : model->input_parameters()) trained.push_back(p);
  torch::optim::Adam optimizer(trained, torch::optim::AdamOptions(options.lr).weight_decay(options.weight_decay));
  GradientSync stage_sync(stage_comm, stage_params, comm::Channel::weights, /*average=*/false);
  std::optional<GradientSync> input_sync;
  if (runs_input)
    input_sync.emplace(model->uses_initial_residual() ? world : stage_comm, model->input_parameters(),
                       comm::Channel::weights, /*average=*/false);
  const PipelineThreads pipeline_threads(layout, machine_of_ranks, rank, nn::machine_cores(), threads,
                                         /*fixed=*/options.threads > 0 || device.is_cuda());
  StageEngine engine(*model, options, layout, first_layer, end_layer, *chunks, store->book(), data, world, stage_comm,
                     pipeline_threads);

  FullGraphReport report;
  report.score_name = data.multi_label ? "micro_f1" : "accuracy";
  const std::string print = fingerprint(options, layout, data);
  int start_epoch = 0;
  if (options.resume) {
    std::optional<nlohmann::json> state;
    world.agree_on([&] { state = load_checkpoint(rank_dir, *model, optimizer, print, engine.carried_tensors()); });
    const int done = state ? state->at("epochs_done").get<int>() : 0;
    LOOM_CHECK(world.allreduce_min(done, comm::Channel::control) == world.allreduce_max(done, comm::Channel::control),
               "{}: ranks hold checkpoints of different epochs", options.checkpoint_dir);
    start_epoch = done;
    if (state) report.epochs = state->value("epochs", std::vector<nlohmann::json>{});
  }

  // What the cost formulas predict per epoch (mirror counts of stage 0's ways; every stage has the same).
  const auto mirrors = world.allreduce_sum(
      static_cast<std::int64_t>(layout.first_stage() ? chunks->mirrors().size() : 0), comm::Channel::control);
  const double L = model_options.num_layers, H = static_cast<double>(model_options.hidden);
  const double F = static_cast<double>(data.feat_dim), V = static_cast<double>(data.num_nodes);
  report.setup = {{"event", "setup"},
                  {"mode", fullgraph_mode_name(options.mode)},
                  {"model", nn::deep_kind_name(model_options.kind)},
                  {"layers", model_options.num_layers},
                  {"hidden", model_options.hidden},
                  {"ranks", world.size()},
                  {"stages", layout.stages},
                  {"ways", layout.ways},
                  {"chunks_per_way", layout.chunks},
                  {"nodes", data.num_nodes},
                  {"features", data.feat_dim},
                  {"lr", options.lr},
                  {"lr_schedule", core::enum_name(kLrScheduleNames, options.lr_schedule.kind)},
                  {"cross_grad", core::enum_name(kCrossGradNames, options.cross_grad)},
                  {"threads_per_rank", threads},
                  {"elastic_threads", pipeline_threads.elastic()},
                  {"mirrors", mirrors},
                  {"layer_bounds", bounds},
                  {"layer_costs", costs},
                  {"formula_graph_bytes", 2 * 4 * static_cast<double>(mirrors) * (F + (L - 1) * H)},
                  {"formula_graph_hidden_bytes", 2 * 4 * static_cast<double>(mirrors) * L * H},
                  {"formula_pipe_bytes", 2 * 4 * (layout.stages - 1) * V * H}};
  core::MetricsLog metrics(rank == 0 ? options.metrics_path : "", options.resume);
  if (rank == 0) {
    metrics.write(report.setup);
    spdlog::info("fullgraph {}: {} x {} layers (hidden {}), {} stage(s) x {} way(s), {} chunk(s) per way, layers per stage {}",
                 fullgraph_mode_name(options.mode), nn::deep_kind_name(model_options.kind), model_options.num_layers,
                 model_options.hidden, layout.stages, layout.ways, layout.chunks, fmt::join(bounds, ","));
  }

  const bool writes_outputs = !options.output_dir.empty();
  ChunkResults final_rows;  // the last epoch's exact inference, for the outputs
  bool final_rows_ready = false;
  for (int epoch = start_epoch; epoch < options.epochs; ++epoch) {
    torch::manual_seed(core::mix_seed(options.seed, static_cast<std::uint64_t>(epoch) + 1 + 1000 * rank));
    const double lr = learning_rate_at(options.lr_schedule, options.lr, epoch, options.epochs);
    set_learning_rate(optimizer, lr);
    optimizer.zero_grad();
    const comm::CommStats before = world.stats();
    core::Timer timer;
    const StageCounts counts =
        engine.train_epoch(chunk_order(options, layout.chunks, epoch), epoch % options.history_window == 0);
    stage_sync.all_reduce();
    if (input_sync) input_sync->all_reduce();
    optimizer.step();
    const double seconds = timer.seconds();
    const comm::GlobalCommStats traffic = world.global_stats(world.stats() - before);
    const double grad_norm = gradient_norm(stage_params, model->input_parameters(), layout, world);

    nlohmann::json record = {{"epoch", epoch + 1}, {"epoch_seconds", seconds}, {"lr", lr}};
    const double loss = world.allreduce_sum(counts.loss, comm::Channel::control);
    record["loss"] = loss;
    record["grad_norm"] = grad_norm;
    std::array<double, 2> waits{counts.bubble_seconds, counts.exchange_seconds};
    world.allreduce_max(waits, comm::Channel::control);
    record["bubble_seconds"] = waits[0];
    record["exchange_seconds"] = waits[1];
    record["bytes"] = {{"activations", channel_bytes(traffic, comm::Channel::activations)},
                       {"gradients", channel_bytes(traffic, comm::Channel::gradients)},
                       {"halo", channel_bytes(traffic, comm::Channel::halo)},
                       {"weights", channel_bytes(traffic, comm::Channel::weights)},
                       {"total", traffic.sum.total().bytes_sent}};
    record["comm"] = traffic.to_json();
    ScoreCounts train = counts.train;
    world.allreduce_sum(train.values, comm::Channel::control);
    record["train_" + report.score_name] = score(train, data.multi_label);
    const bool last = epoch + 1 == options.epochs;
    if ((options.eval_every > 0 && (epoch + 1) % options.eval_every == 0) || (last && options.eval_every >= 0)) {
      core::Timer eval_timer;
      const comm::CommStats before_eval = world.stats();
      StageCounts eval = engine.evaluate(writes_outputs && last ? &final_rows : nullptr);
      final_rows_ready = writes_outputs && last;
      record["eval_bytes"] = world.global_stats(world.stats() - before_eval).sum.total().bytes_sent;
      for (ScoreCounts* s : {&eval.train, &eval.valid, &eval.test}) world.allreduce_sum(s->values, comm::Channel::control);
      report.final_train = score(eval.train, data.multi_label);
      report.final_valid = score(eval.valid, data.multi_label);
      report.final_test = score(eval.test, data.multi_label);
      record["eval_train_" + report.score_name] = report.final_train;
      record["valid_" + report.score_name] = report.final_valid;
      record["test_" + report.score_name] = report.final_test;
      record["eval_seconds"] = eval_timer.seconds();
    }
    report.epochs.push_back(record);
    if (rank == 0) {
      metrics.write(record);
      if (!options.quiet)
        spdlog::info("epoch {:>3} | {:.2f}s (bubble {:.2f}, exchange {:.2f}) | loss {:.4f} | train {:.4f} | valid {} | "
                     "test {} | {} (act {}, grad {}, halo {}, weights {})",
                     epoch + 1, seconds, waits[0], waits[1], loss, record["train_" + report.score_name].get<double>(),
                     record.contains("valid_" + report.score_name)
                         ? fmt::format("{:.4f}", record["valid_" + report.score_name].get<double>()) : "-",
                     record.contains("test_" + report.score_name)
                         ? fmt::format("{:.4f}", record["test_" + report.score_name].get<double>()) : "-",
                     graph::human_bytes(static_cast<double>(record["bytes"]["total"].get<std::uint64_t>())),
                     graph::human_bytes(static_cast<double>(record["bytes"]["activations"].get<std::uint64_t>())),
                     graph::human_bytes(static_cast<double>(record["bytes"]["gradients"].get<std::uint64_t>())),
                     graph::human_bytes(static_cast<double>(record["bytes"]["halo"].get<std::uint64_t>())),
                     graph::human_bytes(static_cast<double>(record["bytes"]["weights"].get<std::uint64_t>())));
    }
    if (!options.checkpoint_dir.empty() && options.checkpoint_every > 0 && (epoch + 1) % options.checkpoint_every == 0)
      world.agree_on([&] {
        save_checkpoint(rank_dir, epoch + 1, *model, optimizer,
                        {{"fingerprint", print}, {"epochs", report.epochs}, {"layer_bounds", bounds}, {"layer_costs", costs}},
                        engine.carried_tensors(), options.keep_checkpoints);
      });
  }
  if (writes_outputs) {
    if (!final_rows_ready) engine.evaluate(&final_rows);
    write_outputs(options, data, layout, final_rows, world);
  }
  return report;
}

}  // namespace loom::train
