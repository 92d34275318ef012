#include "loom/train/minibatch/link_trainer.hpp"

#include <cmath>

#include <fmt/format.h>
#include <torch/torch.h>

#include "loom/core/log.hpp"
#include "loom/core/memory.hpp"
#include "loom/core/metrics.hpp"
#include "loom/core/rng.hpp"
#include "loom/core/stop_signal.hpp"
#include "loom/core/timer.hpp"
#include "loom/nn/device.hpp"
#include "loom/train/epoch_driver.hpp"
#include "loom/nn/gradient_sync.hpp"
#include "loom/loader/epoch_stats.hpp"
#include "loom/train/minibatch/link_evaluation.hpp"
#include "loom/loader/link_split.hpp"
#include "loom/loader/minibatch_data_path.hpp"
#include "loom/train/memory_plan.hpp"
#include "loom/train/minibatch/minibatch_trainer.hpp"
#include "loom/train/run_steps.hpp"
#include "loom/train/training_outputs.hpp"
#include "loom/loader/store_digests.hpp"

namespace loom::train {

void check_link_task_options(const MinibatchOptions& o) {
  check_link_options(o.link);
  LOOM_CHECK_ARG(o.checkpoint.dir.empty() && !o.checkpoint.resume,
                 o.checkpoint.resume ? "--resume" : "--checkpoint-dir", "checkpoints are kept for --task node only");
  LOOM_CHECK_ARG(o.evaluation.selection == Selection::kLast && o.evaluation.patience == 0,
                 o.evaluation.patience > 0 ? "--patience" : "--selection", "model selection is for --task node only");
  LOOM_CHECK_ARG(o.output.dir.empty(), "--output", "predictions are written for --task node only");
  LOOM_CHECK_ARG(o.change.epoch < 0, "--change-epoch", "changing conditions is for --task node only");
  LOOM_CHECK_ARG(o.evaluation.mode == EvalMode::kSampled, "--eval-mode",
                 "link prediction evaluates with --eval-fanouts (-1: every neighbour, exact)");
}

namespace {

// The encoder, the decoder, one optimizer over both and their gradient all-reduce.
struct LinkPredictor {
  std::shared_ptr<nn::GnnModel> encoder;
  nn::LinkDecoder decoder{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer;
  std::unique_ptr<nn::GradientSync> gradients;
};

LinkPredictor build_link_predictor(const MinibatchOptions& options, const loader::TrainingData& data,
                                   torch::Device device, comm::Communicator& world) {
  nn::ModelOptions encoder_options = options.model;
  encoder_options.in_features = data.feat_dim;
  encoder_options.num_classes = options.model.hidden;  // the embedding width
  LinkPredictor m;
  world.agree_on([&] {
    torch::manual_seed(options.run.seed);
    m.encoder = std::make_shared<nn::GnnModel>(encoder_options);
    m.decoder = nn::LinkDecoder(options.link.decoder, options.model.hidden);
    m.encoder->to(device);
    m.decoder->to(device);
  });
  std::vector<torch::Tensor> parameters = m.encoder->parameters();
  for (const auto& p : m.decoder->parameters()) parameters.push_back(p);
  m.optimizer = std::make_unique<torch::optim::Adam>(
      parameters, torch::optim::AdamOptions(options.run.lr).weight_decay(options.run.weight_decay));
  m.gradients = std::make_unique<nn::GradientSync>(world, parameters);
  return m;
}

// How far an epoch got: its steps, and the signal every rank agreed to stop on after the last of
// them (0: none).
struct LinkProgress {
  std::int64_t steps_done = 0;
  int stopped_by = 0;
};

// One epoch's steps over the plan: embed, score, binary cross-entropy, all-reduce, step; until a
// stop signal, which rides in a step's all-reduce so that every rank stops after the same step.
LinkProgress train_link_epoch(LinkPredictor& m, const loader::MinibatchDataPath& path, loader::LinkEpochPlan plan,
                              std::uint64_t seed, int epoch, loader::EpochTotals& t) {
  m.encoder->train();
  m.decoder->train();
  const std::unique_ptr<loader::BatchPipeline> pipeline = path.pipeline_of(std::move(plan.steps));
  const core::Rng epoch_rng = core::Rng(seed).split(static_cast<std::uint64_t>(epoch) + 1);
  loader::PreparedBatch batch;
  double wait = 0;
  LinkProgress progress;
  for (std::size_t step = 0; pipeline->next(batch, wait); ++step) {
    torch::manual_seed(epoch_rng.split(step).seed());
    loader::count_batch(batch, wait, t);
    core::Timer compute;
    m.optimizer->zero_grad();
    double loss_value = 0;
    const loader::LinkTargets& targets = plan.targets[step];
    if (!targets.label.empty()) {
      const torch::Tensor z = m.encoder->forward(batch.x, batch.graphs);
      const torch::Tensor logits =
          m.decoder->forward(z, nn::vector_on(targets.src_row, z.device()), nn::vector_on(targets.dst_row, z.device()));
      const torch::Tensor labels = nn::vector_on(targets.label, z.device());
      const torch::Tensor loss = torch::binary_cross_entropy_with_logits(logits, labels);
      loss.backward();
      loss_value = loss.item<double>();
      t.loss_sum += loss_value;
    }
    t.phases.compute += compute.seconds();
    core::Timer reduce;
    const nn::StepAgreement agreed = m.gradients->all_reduce_agreeing(core::stop_signal(), std::isfinite(loss_value));
    LOOM_CHECK(agreed.ranks_loss_not_finite == 0,
               "epoch {}, step {}: the training loss is not finite; lower --lr or check the features (`loom check`)",
               epoch + 1, step + 1);
    t.phases.allreduce += reduce.seconds();
    core::Timer apply;
    m.optimizer->step();
    t.phases.compute += apply.seconds();
    progress = {static_cast<std::int64_t>(step) + 1, agreed.stop_signal};
    if (agreed.stop_signal != 0) {
      pipeline->stop_early();
      break;
    }
  }
  return progress;
}

void record_metrics(nlohmann::json& record, const std::string& split, const scores::LinkMetrics& m) {
  record[split + "_auc"] = m.auc;
  record[split + "_mrr"] = m.mrr;
  for (const auto& [k, hits] : m.hits) record[split + "_" + scores::hits_name(k)] = hits;
}

// The held-out pairs' metrics, into the record and the report (collective).
void evaluate_links(LinkPredictor& m, const MinibatchOptions& o, const loader::MinibatchDataPath& path,
                    const loader::LinkSplit& split, int epoch, nlohmann::json& record, LinkReport& report) {
  core::Timer timer;
  const comm::Communicator& comm = path.fetch_comm();
  const auto seed = core::mix_seed(o.run.seed, 0x6576616c + static_cast<std::uint64_t>(epoch));
  const PairScores valid =
      score_pairs(*m.encoder, m.decoder, path.eval_builder(), split.valid, o.evaluation.batch_size, seed, comm);
  const PairScores test =
      score_pairs(*m.encoder, m.decoder, path.eval_builder(), split.test, o.evaluation.batch_size, seed + 1, comm);
  report.valid = scores::link_metrics(valid.positive, valid.negative, o.link.hits_at, comm);
  report.test = scores::link_metrics(test.positive, test.negative, o.link.hits_at, comm);
  record_metrics(record, "valid", report.valid);
  record_metrics(record, "test", report.test);
  record["eval_seconds"] = timer.seconds();
}

void log_link_epoch(const loader::EpochSummary& s, const nlohmann::json& record, int hits_k) {
  const auto shown = [&](const std::string& key) {
    return record.contains(key) ? fmt::format("{:.4f}", record[key].get<double>()) : std::string("-");
  };
  spdlog::info(
      "epoch {:>3} | {:.2f}s (sample {:.2f} fetch {:.2f} wait {:.2f} compute {:.2f} allreduce {:.2f}) | loss {:.4f} | "
      "valid auc {} {} {} | test auc {} | remote rows {} ({}), cached {}",
      s.facts.epoch, s.facts.seconds, s.phases.sample, s.phases.fetch, s.phases.wait, s.phases.compute,
      s.phases.allreduce, s.loss, shown("valid_auc"), scores::hits_name(hits_k),
      shown("valid_" + scores::hits_name(hits_k)), shown("test_auc"), s.rows_remote,
      core::human_bytes(static_cast<double>(s.feature_bytes)), s.rows_cached);
}

// Holds out the validation and test edges (on every rank alike): batches are then sampled on the
// rest, and the cache policies take every own node as a seed.
loader::LinkSplit hold_out_edges(const MinibatchOptions& options, loader::TrainingData& data,
                                 comm::Communicator& world) {
  loader::LinkSplitOptions split_options = options.link.split;
  split_options.seed = options.run.seed;
  loader::LinkSplit split;
  world.agree_on([&] { split = loader::split_links(data, split_options); });
  data.message_graph = std::move(split.message_graph);  // unset when nothing is held out
  data.train_ids = loader::own_ids(data);
  return split;
}

// The steps per epoch (the most any rank needs), after the `link_split` record and the log line.
std::int64_t announce_link_run(const MinibatchOptions& options, const loader::LinkSplit& split,
                               const loader::MinibatchDataPath& path, comm::Communicator& world,
                               core::MetricsLog& metrics) {
  const auto sum = [&](const loader::LinkPairs& p) {
    return world.allreduce_sum(static_cast<std::int64_t>(p.size()), comm::Channel::control);
  };
  const std::int64_t steps = world.allreduce_max(
      loader::link_steps(static_cast<std::int64_t>(split.train.size()), options.batch_size), comm::Channel::control);
  const std::int64_t train = sum(split.train), valid = sum(split.valid), test = sum(split.test);
  LOOM_CHECK(steps > 0 || options.run.epochs == 0, "{}: no training edges on any rank", options.store);
  if (world.rank() != 0) return steps;
  const std::string decoder = core::enum_name(nn::kLinkDecoderNames, options.link.decoder);
  metrics.write({{"event", "link_split"},
                 {"train_edges", train},
                 {"valid_pairs", valid},
                 {"test_pairs", test},
                 {"decoder", decoder},
                 {"negatives", core::enum_name(loader::kNegativeSamplingNames, options.link.negatives)}});
  spdlog::info(
      "link prediction: {} ({} layers, {} wide, {} decoder) on {} nodes, {} training edges, {} / {} "
      "valid / test pairs, {} ranks, {} steps per epoch",
      nn::model_kind_name(options.model.kind), options.model.num_layers, options.model.hidden, decoder,
      path.data().num_nodes(), train, valid, test, world.size(), steps);
  return steps;
}

// Link prediction as a task of the training driver: its data with the held-out edges, its
// model, its epochs and held-out metrics (no checkpoints or memory plan: check_link_task_options
// refuses --checkpoint-dir).
class LinkTask : public TrainingTask {
 public:
  LinkTask(const MinibatchOptions& given, comm::Communicator& world, LinkReport& report)
      : given_(given), world_(world), report_(report) {}

  void check() override {
    checked_ = train::check(given_);
    check_link_task_options(**checked_);
  }

  OpenedTask open(const nn::RankRuntime& runtime, std::int64_t) override {
    const MinibatchOptions& o = options();
    device_ = runtime.device;
    data_ = loader::open_training_data(o.store, world_, loader::DataUse::kLinks);
    loader::normalize_training_features(*data_, o.data_path.normalize_features, world_);
    split_ = hold_out_edges(o, *data_, world_);
    world_.agree_on([&] {  // the encoder's output is `hidden` wide
      check_model_fits({data_->feat_dim, o.model.hidden, o.model.hidden, o.model.num_layers, o.store},
                       o.run.memory_limit, world_.ranks_on_this_node());
    });
    m_ = build_link_predictor(o, *data_, device_, world_);
    return {};
  }

  void prepare(core::MetricsLog& metrics) override {
    path_ =
        std::make_unique<loader::MinibatchDataPath>(checked_->loader(), std::move(*data_), world_, device_, 0, metrics);
    data_.reset();
    negatives_ = std::make_unique<loader::NegativeSampler>(path_->data().graph(), options().link.negatives);
    steps_ = announce_link_run(options(), split_, *path_, world_, metrics);
  }

  void finish(const EpochsRun&, core::MetricsLog&) override {}

  // The epoch's steps over this epoch's positives and negatives, and its record.
  TrainedEpoch train(int epoch) override {
    const MinibatchOptions& o = options();
    const loader::EpochWatch since = loader::watch_epoch(world_, path_->prefetch_control(), path_->prefetch_buffer());
    core::Timer timer;
    loader::EpochTotals totals;
    const loader::LinkEpochOptions epoch_options{.batch_size = o.batch_size,
                                                 .negative_ratio = o.link.negative_ratio,
                                                 .drop_positive_edges = o.link.drop_positive_edges,
                                                 .run_seed = o.run.seed};
    const LinkProgress progress = train_link_epoch(
        m_, *path_, loader::plan_link_epoch(split_.train, *negatives_, steps_, epoch_options, epoch, world_.rank()),
        o.run.seed, epoch, totals);
    if (progress.steps_done < steps_) {
      log_stopped(progress.stopped_by, fmt::format("step {} of epoch {}", progress.steps_done, epoch + 1), o.checkpoint,
                  world_);
      return {std::nullopt, progress.stopped_by};
    }
    const loader::EpochFacts facts{.epoch = epoch + 1,
                                   .seconds = timer.seconds(),
                                   .steps = steps_,
                                   .lr = o.run.lr,
                                   .pipelined = o.data_path.pipeline_depth > 0,
                                   .scoring = std::nullopt};  // a link task is scored by its held-out metrics
    summary_ =
        loader::summarize_epoch(facts, totals, since, world_, path_->prefetch_control(), path_->prefetch_buffer());
    nlohmann::json record = loader::epoch_record(summary_);
    record["task"] = "link";
    return {std::move(record), progress.stopped_by};
  }

  bool evaluate(int epoch, nlohmann::json& record) override {
    evaluate_links(m_, options(), *path_, split_, epoch, record, report_);
    return false;
  }
  void log(const nlohmann::json& record) const override {
    log_link_epoch(summary_, record, options().link.hits_at.empty() ? 50 : options().link.hits_at.back());
  }

 private:
  const MinibatchOptions& options() const { return **checked_; }

  const MinibatchOptions& given_;
  std::optional<CheckedMinibatchOptions> checked_;
  comm::Communicator& world_;
  LinkReport& report_;
  torch::Device device_ = torch::kCPU;
  std::optional<loader::TrainingData> data_;  // from open() until prepare() hands it to the data path
  loader::LinkSplit split_;
  LinkPredictor m_;
  std::unique_ptr<loader::MinibatchDataPath> path_;
  std::unique_ptr<loader::NegativeSampler> negatives_;
  std::int64_t steps_ = 0;
  loader::EpochSummary summary_;  // of the epoch trained last
};

}  // namespace

LinkReport run_link_prediction(const MinibatchOptions& given, comm::Communicator& world) {
  return run_training_task<LinkTask, LinkReport>(given, given.run, minibatch_outputs(given, world), world);
}

}  // namespace loom::train
