#include "loom/train/minibatch_trainer.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "loom/core/log.hpp"
#include "loom/graph/info.hpp"
#include "loom/core/metrics.hpp"
#include "loom/nn/runtime.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/timer.hpp"
#include "loom/feature/cache_policy.hpp"
#include "loom/train/batch_pipeline.hpp"
#include "loom/train/cache_setup.hpp"
#include "loom/train/device.hpp"
#include "loom/train/device_setup.hpp"
#include "loom/train/prefetch_setup.hpp"
#include "loom/train/checkpoint.hpp"
#include "loom/train/evaluation.hpp"
#include "loom/train/gradient_sync.hpp"
#include "loom/train/lr_schedule.hpp"
#include "loom/train/model_selection.hpp"
#include "loom/train/optimizer.hpp"
#include "loom/train/training_outputs.hpp"

namespace loom::train {

namespace {

std::vector<std::int32_t> eval_fanouts(const MinibatchOptions& o, int layers) {
  auto f = sample::parse_fanouts(o.eval_fanouts, "--eval-fanouts");
  if (f.size() == 1) f.assign(layers, f[0]);
  if (static_cast<int>(f.size()) != layers)
    throw Error::in_argument("--eval-fanouts", fmt::format("{} values for a {}-layer model", f.size(), layers));
  return f;
}

std::string fingerprint(const MinibatchOptions& o, const TrainingData& d) {
  return fmt::format("{}:L{}:H{}:heads{}/{}/{}:F{}:C{}:N{}:K{}", nn::model_kind_name(o.model.kind), o.model.num_layers,
                     o.model.hidden, o.model.heads, o.model.output_heads,
                     core::enum_name(nn::kHeadMergeNames, o.model.head_merge), d.feat_dim, d.num_classes,
                     d.num_nodes(), d.book.num_parts());
}

void validate(const MinibatchOptions& o) {
  nn::validate_model_options(o.model);
  LOOM_CHECK_ARG(o.batch_size > 0, "--batch-size", "must be positive, got {}", o.batch_size);
  LOOM_CHECK_ARG(o.epochs >= 0, "--epochs", "must be >= 0, got {}", o.epochs);
  LOOM_CHECK_ARG(o.lr > 0, "--lr", "must be positive, got {}", o.lr);
  LOOM_CHECK_ARG(o.weight_decay >= 0, "--weight-decay", "must be >= 0, got {}", o.weight_decay);
  for (const int layer : o.weight_decay_layers)
    LOOM_CHECK_ARG(layer >= 0 && layer < o.model.num_layers, "--weight-decay-layers",
                   "layer {} outside the model's layers 0..{}", layer, o.model.num_layers - 1);
  LOOM_CHECK_ARG(o.patience >= 0, "--patience", "must be >= 0, got {}", o.patience);
  LOOM_CHECK_ARG(o.eval_every > 0 || (o.selection == Selection::kLast && o.patience == 0),
                 o.patience > 0 ? "--patience" : "--selection", "needs validation scores: set --eval-every N > 0");
  LOOM_CHECK_ARG(o.pipeline_depth >= 0, "--pipeline-depth", "must be >= 0, got {}", o.pipeline_depth);
  validate_lr_schedule(o.lr_schedule);
  LOOM_CHECK_ARG(!o.resume || !o.checkpoint_dir.empty(), "--resume", "needs --checkpoint-dir");
  const auto fanouts = sample::parse_fanouts(o.fanouts, "--fanouts");
  LOOM_CHECK_ARG(static_cast<int>(fanouts.size()) == o.model.num_layers, "--fanouts",
                 "{} fanouts ('{}') for a {}-layer model (--layers): give one fanout per layer", fanouts.size(),
                 o.fanouts, o.model.num_layers);
  eval_fanouts(o, o.model.num_layers);
  feature::check_cache_policy(o.cache, "--cache");
  LOOM_CHECK_ARG(o.alpha >= 0, "--alpha", "must be >= 0, got {}", o.alpha);
  LOOM_CHECK_ARG(o.device_rows >= 0 && o.device_rows <= 1, "--device-rows", "must be in [0, 1], got {}",
                 o.device_rows);
  LOOM_CHECK_ARG(o.cache_epochs > 0, "--cache-epochs", "must be positive, got {}", o.cache_epochs);
  LOOM_CHECK_ARG(o.cache_dtype == "float32" || o.cache_dtype == "float16", "--cache-dtype",
                 "must be float32 or float16, got '{}'", o.cache_dtype);
  if (o.control.name != "none") {
    feature::validate(o.prefetch);
    control::validate(o.control);
  }
  LOOM_CHECK_ARG(o.control_window > 0, "--control-window", "must be positive, got {}", o.control_window);
  LOOM_CHECK_ARG(o.change_epoch >= -1, "--change-epoch", "must be an epoch number or -1, got {}", o.change_epoch);
  LOOM_CHECK_ARG(o.change_batch_size >= 0, "--change-batch-size", "must be >= 0, got {}", o.change_batch_size);
  LOOM_CHECK_ARG(o.change_train_fraction > 0 && o.change_train_fraction <= 1, "--change-train-fraction",
                 "must be in (0, 1], got {}", o.change_train_fraction);
  if (!o.change_fanouts.empty()) {
    const auto changed = sample::parse_fanouts(o.change_fanouts, "--change-fanouts");
    LOOM_CHECK_ARG(static_cast<int>(changed.size()) == o.model.num_layers, "--change-fanouts",
                   "{} fanouts for a {}-layer model", changed.size(), o.model.num_layers);
  }
}

struct EpochScores {
  ScoreCounts valid, test;
  double seconds = 0;
};

// Validation and test scores of the model as it is now, sampled or exact (collective).
EpochScores evaluate(nn::GnnModel& model, const MinibatchOptions& o, const TrainingData& data,
                     const BatchBuilder& eval_builder, int epoch, const comm::Communicator& comm) {
  core::Timer timer;
  EpochScores s;
  if (o.eval_mode == EvalMode::kExact) {
    const ExactInference exact = exact_inference(model, data, comm);
    s.valid = exact_scores(exact, eval_builder, data, data.valid_ids, comm);
    s.test = exact_scores(exact, eval_builder, data, data.test_ids, comm);
  } else {
    const auto seed = core::mix_seed(o.seed, 0x6576616c + static_cast<std::uint64_t>(epoch));
    s.valid = sampled_scores(model, eval_builder, data.valid_ids, o.eval_batch_size, seed, comm, data.multi_label);
    s.test = sampled_scores(model, eval_builder, data.test_ids, o.eval_batch_size, seed + 1, comm, data.multi_label);
  }
  s.seconds = timer.seconds();
  return s;
}

// What an epoch trains with: the base settings, or from --change-epoch on the changed ones.
struct EpochSetting {
  std::unique_ptr<sample::NeighborSampler> sampler;
  std::unique_ptr<BatchBuilder> builder;
  std::int64_t batch_size = 0;
  std::vector<std::int64_t> train_ids;
  std::int64_t steps = 0;
};

EpochSetting make_setting(const TrainingData& data, const feature::FeatureSource& features,
                          const DeviceFeatures& device, bool gcn, const std::string& fanouts, std::int64_t batch_size,
                          double train_fraction, std::uint64_t seed, comm::Communicator& world) {
  EpochSetting s;
  s.sampler = std::make_unique<sample::NeighborSampler>(data.topology.csr(), sample::parse_fanouts(fanouts, "--fanouts"));
  s.builder = std::make_unique<BatchBuilder>(data, *s.sampler, features, &device, gcn);
  s.batch_size = batch_size;
  s.train_ids = data.train_ids;
  if (train_fraction < 1) {  // a seeded subset of this rank's training nodes
    core::Rng rng = core::Rng(seed).split(0x73756273 /*"subs"*/, static_cast<std::uint64_t>(world.rank()));
    core::shuffle(s.train_ids.begin(), s.train_ids.end(), rng);
    s.train_ids.resize(static_cast<std::size_t>(std::ceil(train_fraction * static_cast<double>(s.train_ids.size()))));
    std::sort(s.train_ids.begin(), s.train_ids.end());
  }
  s.steps = world.allreduce_max(
      sample::steps_per_epoch(std::array{static_cast<std::int64_t>(s.train_ids.size())}, batch_size),
      comm::Channel::control);
  return s;
}

}  // namespace

MinibatchReport run_minibatch(const MinibatchOptions& options, comm::Communicator& world) {
  const int rank = world.rank();
  world.agree_on([&] {
    validate(options);
    check_output_options(options.output_dir, options.save_embeddings, options.overwrite, rank == 0);
    feature::parse_wire_dtype(options.wire_dtype, "--wire-dtype");
  });
  const int threads = nn::cpu_threads_per_rank(options.threads, world.ranks_on_this_node());
  nn::configure_cpu_runtime(threads);
  world.set_link_model(options.link);
  torch::Device device = torch::kCPU;
  world.agree_on([&] { device = resolve_device(options.device, rank); });
  TrainingData data = open_training_data(options.store, world);
  normalize_training_features(data, options.normalize_features, world);

  nn::ModelOptions model_options = options.model;
  model_options.in_features = data.feat_dim;
  model_options.num_classes = data.num_classes;
  std::shared_ptr<nn::GnnModel> model;
  world.agree_on([&] {
    torch::manual_seed(options.seed);
    model = std::make_shared<nn::GnnModel>(model_options);
    model->to(device);
  });
  torch::optim::Adam optimizer = make_adam(*model, options.lr, options.weight_decay, options.weight_decay_layers);
  ModelSelection selection(options.selection, options.patience, *model);
  const bool gcn = model_options.kind == nn::ModelKind::kGcn;

  const auto fanouts = sample::parse_fanouts(options.fanouts, "--fanouts");
  const auto& csr = data.topology.csr();
  sample::NeighborSampler eval_sampler(csr, eval_fanouts(options, model_options.num_layers));
  comm::Communicator fetch_comm = world.dup();
  const DeviceFeatures device_features = build_device_features(options, data, fanouts, device, world);
  feature::RemoteFetcher fetcher(fetch_comm, data.book, device_features.host_rows(data.features),
                                 feature::parse_wire_dtype(options.wire_dtype, "--wire-dtype"));
  GradientSync gradients(world, model->parameters());

  const std::string print = fingerprint(options, data);
  int start_epoch = 0;
  MinibatchReport report;
  report.score_name = data.multi_label ? "micro_f1" : "accuracy";
  if (options.resume) {
    std::optional<nlohmann::json> state;
    world.agree_on([&] {
      state = load_checkpoint(options.checkpoint_dir, *model, optimizer, print, selection.checkpoint_tensors());
    });
    if (state) {
      start_epoch = state->at("epochs_done").get<int>();
      selection.load_state(state->value("selection", nlohmann::json::object()));
      report.epochs = state->value("epochs", std::vector<nlohmann::json>{});
      if (rank == 0) spdlog::info("resumed from {} after epoch {}", options.checkpoint_dir, start_epoch);
    }
  }

  core::MetricsLog metrics(rank == 0 ? options.metrics_path : "", options.resume);
  const std::int64_t steps = world.allreduce_max(
      sample::steps_per_epoch(std::array{static_cast<std::int64_t>(data.train_ids.size())}, options.batch_size),
      comm::Channel::control);
  LOOM_CHECK(steps > 0 || options.epochs == 0, "{}: no training nodes on any rank", options.store);
  nlohmann::json cache_record;
  const feature::StaticCache cache =
      build_static_cache(options, data, fanouts, steps, start_epoch, fetcher, world, cache_record);
  if (rank == 0 && !cache_record.is_null()) metrics.write(cache_record);
  nlohmann::json prefetch_record;
  PrefetchSetup prefetch = build_prefetch(options, data, fanouts, fetcher, world, prefetch_record);
  if (rank == 0 && !prefetch_record.is_null()) metrics.write(prefetch_record);
  const feature::FeatureSource features(fetcher, &cache, prefetch.buffer.get(), &device_features.tier());
  const feature::FeatureSource eval_features(fetcher, &cache, nullptr, &device_features.tier());
  BatchBuilder eval_builder(data, eval_sampler, eval_features, &device_features, gcn);
  if (options.device != "cpu" || options.device_rows > 0) {
    const nlohmann::json record = device_record(device_features, data, world);
    if (rank == 0) metrics.write(record);
  }
  const EpochSetting base = make_setting(data, features, device_features, gcn, options.fanouts, options.batch_size, 1.0,
                                         options.seed, world);
  EpochSetting changed;
  if (options.change_epoch >= 0)
    changed = make_setting(data, features, device_features, gcn,
                           options.change_fanouts.empty() ? options.fanouts : options.change_fanouts,
                           options.change_batch_size > 0 ? options.change_batch_size : options.batch_size,
                           options.change_train_fraction, options.seed, world);
  if (rank == 0)
    spdlog::info("training {} ({} layers, hidden {}) on {} nodes, {} ranks of {} threads, {} steps per epoch",
                 nn::model_kind_name(model_options.kind), model_options.num_layers, model_options.hidden,
                 data.num_nodes(), world.size(), threads, steps);

  int weights_epoch = start_epoch;  // the epoch whose weights the model holds
  for (int epoch = start_epoch; epoch < options.epochs; ++epoch) {
    torch::manual_seed(core::mix_seed(options.seed, static_cast<std::uint64_t>(epoch) + 1));
    const double lr = learning_rate_at(options.lr_schedule, options.lr, epoch, options.epochs);
    set_learning_rate(optimizer, lr);
    model->train();
    const bool is_changed = options.change_epoch >= 0 && epoch >= options.change_epoch;
    const EpochSetting& setting = is_changed ? changed : base;
    if (rank == 0 && is_changed && epoch == options.change_epoch)
      spdlog::info("epoch {}: conditions change (fanouts {}, batch size {}, {} steps)", epoch + 1,
                   options.change_fanouts.empty() ? options.fanouts : options.change_fanouts, setting.batch_size,
                   setting.steps);
    const PrefetchCounters control_before = prefetch.control ? prefetch.control->counters() : PrefetchCounters{};
    const std::int64_t admitted_before = prefetch.buffer ? prefetch.buffer->rows_admitted() : 0;
    const comm::CommStats before = world.stats();
    core::Timer epoch_timer;
    core::TimeAccumulator phases;
    feature::FetchStats fetched;
    double loss_sum = 0;
    ScoreCounts train_counts;
    std::int64_t sampled_edges = 0;
    {
      BatchPipeline pipeline(
          *setting.builder,
          sample::plan_epoch(setting.train_ids, setting.steps, setting.batch_size, options.seed, epoch, rank),
          options.pipeline_depth, prefetch.control.get(), prefetch.buffer ? prefetch.buffer->options().lookahead : 0);
      PreparedBatch batch;
      double wait = 0;
      while (pipeline.next(batch, wait)) {
        phases.add("wait", wait);
        phases.add("sample", batch.sample_seconds);
        phases.add("fetch", batch.fetch.seconds);
        fetched += batch.fetch;
        sampled_edges += batch.sampled.num_sampled_edges;
        core::Timer compute;
        optimizer.zero_grad();
        torch::Tensor loss;
        if (!batch.sampled.seeds.empty()) {
          const auto logits = model->forward(batch.x, batch.graphs);
          loss = data.multi_label ? torch::binary_cross_entropy_with_logits(logits, batch.y)
                                  : torch::nn::functional::cross_entropy(logits, batch.y);
          loss.backward();
          loss_sum += loss.item<double>();
          train_counts += count_scores(logits.detach(), batch.y, data.multi_label);
        }
        phases.add("compute", compute.seconds());
        if (prefetch.control) prefetch.control->record_step_seconds(compute.seconds());
        core::Timer reduce;
        gradients.all_reduce();
        phases.add("allreduce", reduce.seconds());
        core::Timer step;
        optimizer.step();
        phases.add("compute", step.seconds());
      }
    }
    const double train_seconds = epoch_timer.seconds();
    nlohmann::json record;
    record["epoch"] = epoch + 1;
    record["epoch_seconds"] = train_seconds;
    record["steps"] = setting.steps;
    if (is_changed) record["changed_conditions"] = true;
    record["lr"] = lr;
    // Loss and training score averaged over ranks.
    std::array<double, 2> loss_steps{loss_sum, static_cast<double>(setting.steps)};
    world.allreduce_sum(loss_steps, comm::Channel::control);
    train_counts = [&] { auto c = train_counts; world.allreduce_sum(c.values, comm::Channel::control); return c; }();
    record["loss"] = loss_steps[0] / std::max(1.0, loss_steps[1]);
    record["train_" + report.score_name] = score(train_counts, data.multi_label);
    record["phases_seconds"] = {{"sample", phases.get("sample")},   {"fetch", phases.get("fetch")},
                                {"wait", phases.get("wait")},       {"compute", phases.get("compute")},
                                {"allreduce", phases.get("allreduce")}};
    const double producer = phases.get("sample") + phases.get("fetch");
    record["pipeline_hidden_fraction"] =
        options.pipeline_depth > 0 && producer > 0 ? std::clamp(1.0 - phases.get("wait") / producer, 0.0, 1.0) : 0.0;
    std::array<std::int64_t, 6> rows{fetched.local_rows, fetched.remote_rows, fetched.bytes, sampled_edges,
                                     fetched.cached_rows, fetched.device_rows};
    world.allreduce_sum(rows, comm::Channel::control);
    record["rows_local"] = rows[0];
    record["rows_device"] = rows[5];
    record["rows_remote"] = rows[1];
    record["feature_bytes"] = rows[2];
    record["sampled_edges"] = rows[3];
    record["rows_cached"] = rows[4];
    if (prefetch.control) {
      const PrefetchCounters& now = prefetch.control->counters();
      std::array<std::int64_t, 7> p{fetched.prefetch_hits, fetched.prefetch_hits + fetched.remote_rows - fetched.prefetch_rows,
                                    fetched.prefetch_rows, now.decisions - control_before.decisions,
                                    now.evictions - control_before.evictions, now.fallbacks - control_before.fallbacks,
                                    prefetch.buffer->rows_admitted() - admitted_before};
      world.allreduce_sum(p, comm::Channel::control);
      record["prefetch"] = {{"hits", p[0]},      {"lookups", p[1]},   {"hit_rate", p[1] > 0 ? double(p[0]) / p[1] : 0.0},
                            {"rows_in", p[2]},   {"decisions", p[3]}, {"evictions", p[4]},
                            {"fallbacks", p[5]}, {"rows_admitted", p[6]}};
    }
    const comm::CommStats epoch_comm = world.stats() - before;
    record["comm"] = world.global_stats(epoch_comm).to_json();
    bool stop = false;
    if (options.eval_every > 0 && ((epoch + 1) % options.eval_every == 0 || epoch + 1 == options.epochs)) {
      const EpochScores scores = evaluate(*model, options, data, eval_builder, epoch, fetch_comm);
      const double valid = score(scores.valid, data.multi_label);
      record["valid_" + report.score_name] = valid;
      record["valid_loss"] = mean_loss(scores.valid);
      record["test_" + report.score_name] = score(scores.test, data.multi_label);
      record["eval_seconds"] = scores.seconds;
      report.final_valid = valid;
      report.final_test = record["test_" + report.score_name];
      if (selection.observe(epoch + 1, valid, mean_loss(scores.valid))) record["best_valid"] = true;
      stop = selection.should_stop(epoch + 1);
    }
    report.epochs.push_back(record);
    if (rank == 0) {
      metrics.write(record);
      if (!options.quiet)
        spdlog::info("epoch {:>3} | {:.2f}s (sample {:.2f} fetch {:.2f} wait {:.2f} compute {:.2f} allreduce {:.2f}) | "
                     "loss {:.4f} | train {:.4f} | valid {} | remote rows {} ({}), cached {}",
                     epoch + 1, train_seconds, phases.get("sample"), phases.get("fetch"), phases.get("wait"),
                     phases.get("compute"), phases.get("allreduce"), record["loss"].get<double>(),
                     record["train_" + report.score_name].get<double>(),
                     record.contains("valid_" + report.score_name)
                         ? fmt::format("{:.4f}", record["valid_" + report.score_name].get<double>())
                         : "-",
                     rows[1], graph::human_bytes(static_cast<double>(rows[2])), rows[4]);
    }
    if (!options.checkpoint_dir.empty() && options.checkpoint_every > 0 && (epoch + 1) % options.checkpoint_every == 0) {
      world.agree_on([&] {
        if (rank == 0)
          save_checkpoint(options.checkpoint_dir, epoch + 1, *model, optimizer,
                          {{"fingerprint", print}, {"epochs", report.epochs}, {"selection", selection.state()}},
                          selection.checkpoint_tensors(), options.keep_checkpoints);
      });
    }
    weights_epoch = epoch + 1;
    if (stop) {
      if (rank == 0)
        spdlog::info("early stop after epoch {}: no better validation {} for {} epochs (best: epoch {})", epoch + 1,
                     report.score_name, options.patience, selection.best_epoch());
      break;
    }
  }
  if (selection.restore_best()) {
    weights_epoch = selection.best_epoch();
    if (rank == 0)
      spdlog::info("selected the weights of epoch {} (best validation {} {:.4f})", weights_epoch, report.score_name,
                   selection.best_score());
  }

  if (options.exact_eval || !options.output_dir.empty()) {
    core::Timer timer;
    const ExactInference exact = exact_inference(*model, data, fetch_comm);
    const ScoreCounts valid = exact_scores(exact, eval_builder, data, data.valid_ids, fetch_comm);
    const ScoreCounts test = exact_scores(exact, eval_builder, data, data.test_ids, fetch_comm);
    report.final_valid = score(valid, data.multi_label);
    report.final_test = score(test, data.multi_label);
    nlohmann::json record = {{"event", "exact_eval"},
                             {"valid_" + report.score_name, report.final_valid},
                             {"test_" + report.score_name, report.final_test},
                             {"selection", core::enum_name(kSelectionNames, options.selection)},
                             {"weights_of_epoch", weights_epoch},
                             {"seconds", timer.seconds()}};
    std::string topk;
    if (data.multi_label) {
      record["valid_topk_micro_f1"] = topk_micro_f1(valid);
      record["test_topk_micro_f1"] = topk_micro_f1(test);
      topk = fmt::format(" | top-k micro_f1 valid {:.4f} test {:.4f}", topk_micro_f1(valid), topk_micro_f1(test));
    }
    if (rank == 0) {
      metrics.write(record);
      spdlog::info("exact layer-wise inference: valid {} {:.4f} | test {} {:.4f}{} ({:.1f}s)", report.score_name,
                   report.final_valid, report.score_name, report.final_test, topk, timer.seconds());
    }
    if (!options.output_dir.empty()) {
      NodeOutputs rows{.logits = exact.logits,
                       .embeddings = options.save_embeddings ? exact.embeddings : torch::Tensor(),
                       .original_ids = data.original_ids,
                       .original_names = data.original_names,
                       .multi_label = data.multi_label,
                       .num_classes = data.num_classes,
                       .num_nodes = data.num_nodes()};
      write_training_outputs(options.output_dir, options.overwrite, rows, fetch_comm);
    }
  }
  return report;
}

}  // namespace loom::train
