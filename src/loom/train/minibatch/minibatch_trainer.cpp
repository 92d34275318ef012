#include "loom/train/minibatch/minibatch_trainer.hpp"

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "loom/core/log.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/metrics.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/stop_signal.hpp"
#include "loom/core/timer.hpp"
#include "loom/feature/cache_policy.hpp"
#include "loom/nn/runtime.hpp"
#include "loom/train/checkpoint.hpp"
#include "loom/train/checkpoint_state.hpp"
#include "loom/train/epoch_driver.hpp"
#include "loom/nn/device.hpp"
#include "loom/nn/gradient_sync.hpp"
#include "loom/train/lr_schedule.hpp"
#include "loom/loader/epoch_stats.hpp"
#include "loom/train/minibatch/evaluation.hpp"
#include "loom/loader/minibatch_data_path.hpp"
#include "loom/train/minibatch/minibatch_memory.hpp"
#include "loom/train/minibatch/model_selection.hpp"
#include "loom/train/minibatch/optimizer.hpp"
#include "loom/train/run_steps.hpp"
#include "loom/loader/store_digests.hpp"
#include "loom/train/training_outputs.hpp"

namespace loom::train {

namespace {

std::string fingerprint(const MinibatchOptions& o, const loader::TrainingData& d) {
  return fmt::format("{}:L{}:H{}:heads{}/{}/{}:F{}:C{}:N{}:K{}", nn::model_kind_name(o.model.kind), o.model.num_layers,
                     o.model.hidden, o.model.heads, o.model.output_heads,
                     core::enum_name(nn::kHeadMergeNames, o.model.head_merge), d.feat_dim, d.num_classes, d.num_nodes(),
                     d.book.num_parts());
}

}  // namespace

loader::LoaderOptions loader_options(const MinibatchOptions& o) {
  return {.store = o.store,
          .seed_labels = o.task == Task::kLink ? loader::SeedLabels::kNone : loader::SeedLabels::kGathered,
          .fanouts = o.fanouts,
          .batch_size = o.batch_size,
          .seed_order = o.seed_order,
          .seed = o.run.seed,
          .epochs = o.run.epochs,
          .max_steps = o.max_steps,
          .eval_fanouts = o.evaluation.fanouts,
          .data_path = o.data_path,
          .cache = o.cache,
          .prefetch = o.prefetch,
          .change = o.change};
}

CheckedMinibatchOptions check(const MinibatchOptions& o) {
  nn::check_model_options(o.model);
  LOOM_CHECK_ARG(o.evaluation.batch_size > 0, "--eval-batch-size", "must be positive, got {}", o.evaluation.batch_size);
  check_run_options(o.run);
  check_checkpoint_options(o.checkpoint);
  for (const int layer : o.weight_decay_layers)
    LOOM_CHECK_ARG(layer >= 0 && layer < o.model.num_layers, "--weight-decay-layers",
                   "layer {} outside the model's layers 0..{}", layer, o.model.num_layers - 1);
  LOOM_CHECK_ARG(o.evaluation.patience >= 0, "--patience", "must be >= 0, got {}", o.evaluation.patience);
  LOOM_CHECK_ARG(!o.run.eval.never() || (o.evaluation.selection == Selection::kLast && o.evaluation.patience == 0),
                 o.evaluation.patience > 0 ? "--patience" : "--selection",
                 "needs validation scores: set --eval-every N > 0");
  LOOM_CHECK_ARG(o.data_path.device_memory_limit == 0 || !o.run.rank.device.is_cpu(), "--device-memory-limit",
                 "applies to --device cuda only");
  MinibatchOptions checked = o;
  checked.data_path.whole_graph_gcn_norm = o.data_path.whole_graph_gcn_norm || o.model.kind == nn::ModelKind::kGcn;
  loader::CheckedLoaderOptions loader = loader::check(loader_options(checked), o.model.num_layers);
  return CheckedMinibatchOptions(std::move(checked), std::move(loader));
}

namespace {

// The model, its optimizer and gradient all-reduce, and the selection of the weights to keep.
struct TrainingModel {
  std::shared_ptr<nn::GnnModel> model;
  std::unique_ptr<torch::optim::Adam> optimizer;
  std::unique_ptr<ModelSelection> selection;
  std::unique_ptr<nn::GradientSync> gradients;
};

TrainingModel build_model(const MinibatchOptions& options, const loader::TrainingData& data, torch::Device device,
                          comm::Communicator& world) {
  nn::ModelOptions model_options = options.model;
  model_options.in_features = data.feat_dim;
  model_options.num_classes = data.num_classes;
  TrainingModel m;
  world.agree_on([&] {
    torch::manual_seed(options.run.seed);
    m.model = std::make_shared<nn::GnnModel>(model_options);
    m.model->to(device);
  });
  m.optimizer = std::make_unique<torch::optim::Adam>(
      make_adam(*m.model, options.run.lr, options.run.weight_decay, options.weight_decay_layers));
  m.selection = std::make_unique<ModelSelection>(options.evaluation.selection, options.evaluation.patience, *m.model);
  m.gradients = std::make_unique<nn::GradientSync>(world, m.model->parameters());
  return m;
}

// Under --device cuda: the device's part of the memory plan against the rank's share of the GPU
// (or --device-memory-limit), on every rank together; rank 0 writes the "device_memory" record.
void check_device_memory(const MemoryPlan& host_plan, const MinibatchOptions& options, const loader::TrainingData& data,
                         torch::Device device, comm::Communicator& world, core::MetricsLog& metrics) {
  const int sharing = nn::ranks_per_device(device, world.ranks_on_this_node());
  const MemoryPlan plan = plan_device_memory(host_plan, options, data);
  const std::optional<nn::DeviceMemory> gpu = nn::device_memory(device);
  world.agree_on([&] {
    check_device_memory_plan(plan, options.data_path.device_memory_limit, gpu ? gpu->free_bytes : -1, sharing,
                             device.str());
  });
  const std::int64_t largest = world.allreduce_max(plan.total(), comm::Channel::control);
  if (world.rank() != 0) return;
  nlohmann::json record = plan.record();
  record["event"] = "device_memory";
  record["estimate_bytes_max"] = largest;
  record["ranks_per_device"] = sharing;
  if (gpu) {
    record["device_free_bytes"] = gpu->free_bytes;
    record["device_total_bytes"] = gpu->total_bytes;
  }
  metrics.write(record);
  spdlog::info("device memory estimate {} per rank on {}{}", core::human_bytes(static_cast<double>(largest)),
               device.str(),
               gpu ? fmt::format(" ({} free of {})", core::human_bytes(static_cast<double>(gpu->free_bytes)),
                                 core::human_bytes(static_cast<double>(gpu->total_bytes)))
                   : "");
}

// Where a run starts: after the epochs and steps of the checkpoint it resumed from (with
// --resume), with this rank's sums of that epoch's steps so far.
struct StartPoint {
  int epoch = 0;
  int step = 0;
  loader::EpochTotals totals;
  std::optional<core::LogPrefix> metrics_log;  // what the metrics log held at the checkpoint
};

// Loads the newest checkpoint (with --resume): where to go on, and the records so far.
StartPoint resume_from_checkpoint(const MinibatchOptions& options, const loader::TrainingData& data, TrainingModel& m,
                                  comm::Communicator& world, MinibatchReport& report) {
  StartPoint start;
  if (!options.checkpoint.resume) return start;
  world.agree_on([&] {
    const std::optional<nlohmann::json> json = load_checkpoint(
        options.checkpoint.dir, *m.model, *m.optimizer, fingerprint(options, data), m.selection->checkpoint_tensors());
    if (!json) return;
    const std::string where = options.checkpoint.dir + " (state.json)";
    const CheckpointState state = parse_checkpoint_state(json->dump(), where);
    start.epoch = state.epochs_done;
    start.step = state.steps_done;
    if (start.step > 0) {
      LOOM_CHECK_ARG(state.epoch_totals.size() == static_cast<std::size_t>(world.size()), "--resume",
                     "{}: stopped mid-epoch with {} ranks, resumed with {}", where, state.epoch_totals.size(),
                     world.size());
      start.totals = loader::unpack_totals(state.epoch_totals[static_cast<std::size_t>(world.rank())], where);
    }
    m.selection->load_state(state.json.value("selection", nlohmann::json::object()));
    report.epochs = state.json.value("epochs", std::vector<nlohmann::json>{});
    start.metrics_log = state.metrics_log;
  });
  if (world.rank() == 0 && (start.epoch > 0 || start.step > 0))
    spdlog::info("resumed from {} after epoch {}{}", options.checkpoint.dir, start.epoch,
                 start.step > 0 ? fmt::format(" and {} steps of epoch {}", start.step, start.epoch + 1) : "");
  return start;
}

struct EpochProgress {
  int steps_done = 0;  // of the epoch, counting those before a resume
  int stopped_by = 0;  // the signal that stopped it at that step, or 0
};

// Stops the run (every rank alike, after the agreeing all-reduce) at the first step whose loss or
// summed gradients are NaN or infinite, naming epoch and step (1-based), before the optimizer
// applies them.
void stop_unless_finite(const nn::StepAgreement& agreed, bool gradients_finite, double loss, int epoch, int step) {
  if (agreed.ranks_loss_not_finite > 0)
    throw Error(fmt::format(
        "epoch {}, step {}: the training loss is not finite ({} on this rank; {} rank{} with a "
        "loss that is not); training stopped before the step was applied. Check the features "
        "(`loom check STORE`) and lower --lr",
        epoch + 1, step + 1, loss, agreed.ranks_loss_not_finite, agreed.ranks_loss_not_finite == 1 ? "" : "s"));
  if (!gradients_finite)
    throw Error(
        fmt::format("epoch {}, step {}: a gradient is not finite (the loss was {}); training stopped before "
                    "the step was applied. Lower --lr or check the features (`loom check STORE`)",
                    epoch + 1, step + 1, loss));
}

// What a step reads back from the device, in one copy: the loss, the training predictions'
// counts and whether this rank's gradients are finite (on a GPU, the step's only wait for it).
struct StepReadout {
  double loss = 0;
  scores::ScoreCounts scores;
  bool gradients_finite = true;
};

StepReadout read_step(const torch::Tensor& loss, const torch::Tensor& logits, const torch::Tensor& labels,
                      scores::ScoreKind scoring, const nn::GradientSync& gradients) {
  const torch::Tensor values = torch::cat({loss.detach().to(torch::kDouble).reshape({1}),
                                           scores::score_values(logits, labels, scoring), gradients.finite_flag()})
                                   .cpu();
  const auto* v = values.data_ptr<double>();
  const auto counts = static_cast<std::size_t>(scores::score_value_count(scoring));
  return {.loss = v[0],
          .scores = scores::scores_from_values({v + 1, counts}, logits.size(0), logits.size(1), scoring),
          .gradients_finite = v[1 + counts] > 0};
}

// Steps of one epoch from `first_step`: forward, loss, backward, gradient all-reduce and optimizer
// step on every batch the pipeline prepares, adding to this rank's `totals`. Dropout draws from
// a stream of (seed, epoch, step). Stops on every rank after the same step when any rank has
// been asked to stop.
EpochProgress train_epoch(TrainingModel& m, const loader::MinibatchDataPath& path, std::uint64_t seed, int epoch,
                          int first_step, loader::EpochTotals& t) {
  const scores::ScoreKind scoring = path.data().scoring;
  loader::PrefetchControl* control = path.prefetch_control();
  m.model->train();
  const std::unique_ptr<loader::BatchPipeline> pipeline = path.pipeline(epoch, first_step);
  const core::Rng epoch_rng = core::Rng(seed).split(static_cast<std::uint64_t>(epoch) + 1);
  EpochProgress progress{.steps_done = first_step};
  loader::PreparedBatch batch;
  double wait = 0;
  while (pipeline->next(batch, wait)) {
    torch::manual_seed(epoch_rng.split(static_cast<std::uint64_t>(progress.steps_done)).seed());
    loader::count_batch(batch, wait, t);
    core::Timer compute;
    m.optimizer->zero_grad();
    double loss_value = 0;
    bool gradients_finite = true;
    if (!batch.sampled.seeds.empty()) {
      const auto logits = m.model->forward(batch.x, batch.graphs);
      const torch::Tensor loss = scoring == scores::ScoreKind::kMicroF1
                                     ? torch::binary_cross_entropy_with_logits(logits, batch.y)
                                     : torch::nn::functional::cross_entropy(logits, batch.y);
      loss.backward();
      const StepReadout read = read_step(loss, logits.detach(), batch.y, scoring, *m.gradients);
      loss_value = read.loss;
      t.loss_sum += loss_value;
      t.train += read.scores;
      gradients_finite = read.gradients_finite;
    }
    t.phases.compute += compute.seconds();
    if (control) control->record_step_seconds(compute.seconds());
    core::Timer reduce;
    const nn::StepAgreement agreed = m.gradients->all_reduce_agreeing(core::stop_signal(), std::isfinite(loss_value));
    stop_unless_finite(agreed, m.gradients->summed_gradients_finite(gradients_finite), loss_value, epoch,
                       progress.steps_done);
    progress.stopped_by = agreed.stop_signal;
    t.phases.allreduce += reduce.seconds();
    core::Timer step;
    m.optimizer->step();
    t.phases.compute += step.seconds();
    ++progress.steps_done;
    if (progress.stopped_by != 0) {
      pipeline->stop_early();
      break;
    }
  }
  return progress;
}

struct EvalScores {
  scores::ScoreCounts valid, test;
  double seconds = 0;
};

// Validation and test scores of the model as it is now, sampled or exact (collective).
EvalScores evaluate(nn::GnnModel& model, const MinibatchOptions& o, const loader::MinibatchDataPath& path, int epoch) {
  const loader::TrainingData& data = path.data();
  const comm::Communicator& comm = path.fetch_comm();
  core::Timer timer;
  EvalScores s;
  if (o.evaluation.mode == EvalMode::kExact) {
    const ExactInference exact = exact_inference(model, data, comm);
    s.valid = exact_scores(exact, path.eval_builder(), data, data.valid_ids, comm);
    s.test = exact_scores(exact, path.eval_builder(), data, data.test_ids, comm);
  } else {
    const auto seed = core::mix_seed(o.run.seed, 0x6576616c + static_cast<std::uint64_t>(epoch));
    s.valid =
        sampled_scores(model, path.eval_builder(), data.valid_ids, o.evaluation.batch_size, seed, comm, data.scoring);
    s.test = sampled_scores(model, path.eval_builder(), data.test_ids, o.evaluation.batch_size, seed + 1, comm,
                            data.scoring);
  }
  s.seconds = timer.seconds();
  return s;
}

// Validation and test scores after epoch `epoch` (the driver asks where --eval-every says), into `record` and
// `report`, observed by model selection. Returns whether selection says to stop early.
bool evaluate_epoch(TrainingModel& m, const MinibatchOptions& options, const loader::MinibatchDataPath& path, int epoch,
                    nlohmann::json& record, MinibatchReport& report) {
  const EvalScores scores = evaluate(*m.model, options, path, epoch);
  report.final_valid = scores::score(scores.valid, report.scoring);
  report.final_test = scores::score(scores.test, report.scoring);
  record["valid_" + scores::score_name(report.scoring)] = report.final_valid;
  record["valid_loss"] = scores::mean_loss(scores.valid);
  record["test_" + scores::score_name(report.scoring)] = report.final_test;
  record["eval_seconds"] = scores.seconds;
  if (m.selection->observe(epoch + 1, report.final_valid, scores::mean_loss(scores.valid))) record["best_valid"] = true;
  return m.selection->should_stop(epoch + 1);
}

void log_epoch(const loader::EpochSummary& s, const nlohmann::json& record) {
  const std::string valid_key = "valid_" + scores::score_name(s.facts.scoring.value_or(scores::ScoreKind::kAccuracy));
  const std::string valid = record.contains(valid_key) ? fmt::format("{:.4f}", record[valid_key].get<double>()) : "-";
  const std::uint64_t to_device = s.comm.sum[comm::Channel::device].bytes_sent;
  spdlog::info(
      "epoch {:>3} | {:.2f}s (sample {:.2f} fetch {:.2f} wait {:.2f} compute {:.2f} allreduce {:.2f}) | "
      "loss {:.4f} | train {:.4f} | valid {} | remote rows {} ({}), cached {}{}",
      s.facts.epoch, s.facts.seconds, s.phases.sample, s.phases.fetch, s.phases.wait, s.phases.compute,
      s.phases.allreduce, s.loss, s.train_score, valid, s.rows_remote,
      core::human_bytes(static_cast<double>(s.feature_bytes)), s.rows_cached,
      to_device > 0 ? fmt::format(" | to device {}", core::human_bytes(static_cast<double>(to_device))) : "");
}

// Exact layer-wise inference of the weights the run ends with: the final scores, the exact_eval
// record, and the outputs of -o.
void final_evaluation(nn::GnnModel& model, const MinibatchOptions& options, const loader::MinibatchDataPath& path,
                      int weights_epoch, core::MetricsLog& metrics, MinibatchReport& report) {
  const loader::TrainingData& data = path.data();
  const comm::Communicator& comm = path.fetch_comm();
  core::Timer timer;
  const ExactInference exact = exact_inference(model, data, comm);
  const scores::ScoreCounts valid = exact_scores(exact, path.eval_builder(), data, data.valid_ids, comm);
  const scores::ScoreCounts test = exact_scores(exact, path.eval_builder(), data, data.test_ids, comm);
  report.final_valid = scores::score(valid, report.scoring);
  report.final_test = scores::score(test, report.scoring);
  const std::string score = scores::score_name(report.scoring);
  nlohmann::json record = {{"event", "exact_eval"},
                           {"valid_" + score, report.final_valid},
                           {"test_" + score, report.final_test},
                           {"selection", core::enum_name(kSelectionNames, options.evaluation.selection)},
                           {"weights_of_epoch", weights_epoch},
                           {"seconds", timer.seconds()}};
  std::string topk;
  if (report.scoring == scores::ScoreKind::kMicroF1) {
    record["valid_topk_micro_f1"] = scores::topk_micro_f1(valid);
    record["test_topk_micro_f1"] = scores::topk_micro_f1(test);
    topk = fmt::format(" | top-k micro_f1 valid {:.4f} test {:.4f}", scores::topk_micro_f1(valid),
                       scores::topk_micro_f1(test));
  }
  if (data.rank == 0) {
    metrics.write(record);
    spdlog::info("exact layer-wise inference: valid {} {:.4f} | test {} {:.4f}{} ({:.1f}s)", score, report.final_valid,
                 score, report.final_test, topk, timer.seconds());
  }
  if (options.output.dir.empty()) return;
  const NodeOutputs rows{.logits = exact.logits,
                         .embeddings = options.output.save_embeddings ? exact.embeddings : torch::Tensor(),
                         .original_ids = data.original_ids,
                         .original_names = data.original_names,
                         .scoring = data.scoring,
                         .num_classes = data.num_classes,
                         .num_nodes = data.num_nodes()};
  write_training_outputs(options.output.dir, options.output.overwrite, rows, comm);
}

// The epoch whose weights the model holds after training: the best validation epoch's where the
// selection restores them, else `last`.
int selected_weights_epoch(TrainingModel& m, int last, scores::ScoreKind scoring, int rank) {
  if (!m.selection->restore_best()) return last;
  if (rank == 0)
    spdlog::info("selected the weights of epoch {} (best validation {} {:.4f})", m.selection->best_epoch(),
                 scores::score_name(scoring), m.selection->best_score());
  return m.selection->best_epoch();
}

// Node classification as a task of the training driver: its data, model and resume point, its
// epochs, evaluation and checkpoints, and the final evaluation of the weights it keeps.
class NodeTask : public TrainingTask {
 public:
  NodeTask(const MinibatchOptions& given, comm::Communicator& world, MinibatchReport& report)
      : given_(given), world_(world), report_(report) {}

  void check() override { checked_ = train::check(given_); }

  OpenedTask open(const nn::RankRuntime& runtime, std::int64_t runtime_bytes) override {
    const MinibatchOptions& options = **checked_;
    runtime_ = runtime;
    data_ = loader::open_training_data(options.store, world_);
    loader::normalize_training_features(*data_, options.data_path.normalize_features, world_);
    world_.agree_on([&] {
      check_model_fits(
          {data_->feat_dim, options.model.hidden, data_->num_classes, options.model.num_layers, options.store},
          options.run.memory_limit, world_.ranks_on_this_node());
    });
    m_ = build_model(options, *data_, runtime.device, world_);
    report_.scoring = data_->scoring;
    start_ = resume_from_checkpoint(options, *data_, m_, world_, report_);
    fingerprint_ = fingerprint(options, *data_);
    world_.agree_on([&] {
      memory_ = plan_minibatch_memory(*checked_, *data_, *m_.model, runtime_bytes);
      check_memory_plan(memory_, options.run.memory_limit, world_.ranks_on_this_node());
    });
    return {.start_epoch = start_.epoch,
            .metrics_log = start_.metrics_log,
            .memory = memory_,
            .checkpoint_dir = world_.rank() == 0 ? options.checkpoint.dir : "",
            .setup = nullptr};
  }

  void prepare(core::MetricsLog& metrics) override {
    const MinibatchOptions& options = **checked_;
    metrics_ = &metrics;
    if (runtime_.device.is_cuda()) check_device_memory(memory_, options, *data_, runtime_.device, world_, metrics);
    path_ = std::make_unique<loader::MinibatchDataPath>(checked_->loader(), std::move(*data_), world_, runtime_.device,
                                                        start_.epoch, metrics);
    data_.reset();
    if (world_.rank() == 0)
      spdlog::info("training {} ({} layers, hidden {}) on {} nodes, {} ranks of {} threads, {} steps per epoch",
                   nn::model_kind_name(options.model.kind), options.model.num_layers, options.model.hidden,
                   path_->data().num_nodes(), world_.size(), runtime_.threads, path_->setting(start_.epoch).steps);
  }

  void finish(const EpochsRun& run, core::MetricsLog& metrics) override {
    const MinibatchOptions& options = **checked_;
    if (run.early_stop && world_.rank() == 0)
      spdlog::info("early stop after epoch {}: no better validation {} for {} epochs (best: epoch {})", run.epochs_done,
                   scores::score_name(report_.scoring), options.evaluation.patience, m_.selection->best_epoch());
    const int weights_epoch = selected_weights_epoch(m_, run.epochs_done, report_.scoring, world_.rank());
    if (options.evaluation.exact || !options.output.dir.empty())
      final_evaluation(*m_.model, options, *path_, weights_epoch, metrics, report_);
  }

  // The epoch's learning rate, its training steps (from the resume point in the epoch resumed)
  // and its record. A signal mid-epoch checkpoints that step and ends the run.
  TrainedEpoch train(int epoch) override {
    const double lr = learning_rate_at(options().run.lr_schedule, options().run.lr, epoch, options().run.epochs);
    set_learning_rate(*m_.optimizer, lr);
    const loader::EpochSetting& setting = path_->setting(epoch);
    if (world_.rank() == 0 && path_->changed(epoch) && epoch == options().change.epoch)
      spdlog::info("epoch {}: conditions change (fanouts {}, batch size {}, {} steps)", epoch + 1,
                   fmt::join(setting.sampler->fanouts(), ","), setting.batch_size, setting.steps);
    const loader::EpochWatch since = loader::watch_epoch(world_, path_->prefetch_control(), path_->prefetch_buffer());
    core::Timer timer;
    const bool resumed_here = epoch == start_.epoch;
    loader::EpochTotals totals = resumed_here ? start_.totals : loader::EpochTotals{};
    const EpochProgress progress =
        train_epoch(m_, *path_, options().run.seed, epoch, resumed_here ? start_.step : 0, totals);
    totals.earlier_seconds += timer.seconds();
    if (progress.steps_done < setting.steps) {
      stop_mid_epoch(epoch, progress, totals);
      return {std::nullopt, progress.stopped_by};
    }
    auto [summary, record] = summarize_and_record(epoch, lr, totals, since);
    summary_ = summary;
    return {std::move(record), progress.stopped_by};
  }

  bool evaluate(int epoch, nlohmann::json& record) override {
    return evaluate_epoch(m_, options(), *path_, epoch, record, report_);
  }
  void log(const nlohmann::json& record) const override { log_epoch(summary_, record); }
  void save(int epochs_done, const std::vector<nlohmann::json>& records) override {
    save_state(epochs_done, records, {});
  }

 private:
  void save_state(CheckpointId id, const std::vector<nlohmann::json>& records, nlohmann::json state) {
    state["fingerprint"] = fingerprint_;
    state["epochs"] = records;
    state["selection"] = m_.selection->state();
    if (metrics_->enabled()) state["metrics_log"] = metrics_->position().to_json();
    world_.agree_on([&] {
      if (world_.rank() == 0)
        save_checkpoint(options().checkpoint.dir, id, *m_.model, *m_.optimizer, state,
                        m_.selection->checkpoint_tensors(), options().checkpoint.keep);
    });
  }

  // A signal stopped epoch `epoch` after `progress.steps_done` steps: every rank's totals go into
  // the checkpoint (where one is due), so that the resumed epoch's record sums the same steps.
  void stop_mid_epoch(int epoch, const EpochProgress& progress, const loader::EpochTotals& totals) {
    const auto all_totals =
        world_.allgatherv(std::span<const double>(loader::pack_totals(totals)), comm::Channel::control);
    if (options().checkpoint.due(epoch + 1, progress.stopped_by))
      save_state({epoch, progress.steps_done}, report_.epochs, {{"epoch_totals", all_totals}});
    log_stopped(progress.stopped_by, fmt::format("step {} of epoch {}", progress.steps_done, epoch + 1),
                options().checkpoint, world_);
  }

  // The epoch's summary over all ranks and its record, with the whole epoch's time at this pace
  // where --max-steps cut it short.
  std::pair<loader::EpochSummary, nlohmann::json> summarize_and_record(int epoch, double lr,
                                                                       const loader::EpochTotals& totals,
                                                                       const loader::EpochWatch& since) const {
    const loader::EpochSetting& setting = path_->setting(epoch);
    const loader::EpochFacts facts{.epoch = epoch + 1,
                                   .seconds = totals.earlier_seconds,
                                   .steps = setting.steps,
                                   .lr = lr,
                                   .changed_conditions = path_->changed(epoch),
                                   .pipelined = options().data_path.pipeline_depth > 0,
                                   .scoring = report_.scoring};
    loader::EpochSummary summary =
        loader::summarize_epoch(facts, totals, since, world_, path_->prefetch_control(), path_->prefetch_buffer());
    nlohmann::json record = loader::epoch_record(summary);
    if (setting.steps < setting.full_steps) {
      record["full_steps"] = setting.full_steps;
      record["projected_epoch_seconds"] = summary.facts.seconds * static_cast<double>(setting.full_steps) /
                                          static_cast<double>(std::max<std::int64_t>(1, setting.steps));
    }
    return {std::move(summary), std::move(record)};
  }

  const MinibatchOptions& options() const { return **checked_; }

  const MinibatchOptions& given_;
  std::optional<CheckedMinibatchOptions> checked_;
  comm::Communicator& world_;
  MinibatchReport& report_;
  nn::RankRuntime runtime_;
  std::optional<loader::TrainingData> data_;  // from open() until prepare() hands it to the data path
  TrainingModel m_;
  StartPoint start_;
  std::string fingerprint_;
  MemoryPlan memory_;
  std::unique_ptr<loader::MinibatchDataPath> path_;
  core::MetricsLog* metrics_ = nullptr;  // the run's, from prepare()
  loader::EpochSummary summary_;         // of the epoch trained last
};

}  // namespace

TrainingOutputs minibatch_outputs(const MinibatchOptions& options, const comm::Communicator& world) {
  return {options.output, options.checkpoint, options.store,
          loader::decision_log_path(options.prefetch.decision_log, world.rank(), world.size())};
}

MinibatchReport run_minibatch(const MinibatchOptions& given, comm::Communicator& world) {
  return run_training_task<NodeTask, MinibatchReport>(given, given.run, minibatch_outputs(given, world), world);
}

}  // namespace loom::train
