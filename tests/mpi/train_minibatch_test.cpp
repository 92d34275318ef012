// Multi-rank mini-batch training: every rank trains on its own part, features move between
// ranks through the fetcher, and bad inputs fail on every rank together.
#include <cmath>
#include <filesystem>
#include <numeric>

#include <gtest/gtest.h>

#include "loom/comm/communicator.hpp"
#include "loom/graph/generate/sbm.hpp"
#include "loom/partition/write_partitioned.hpp"
#include "loom/train/minibatch/minibatch_trainer.hpp"
#include "loom/loader/training_data.hpp"
#include "mpi/mpi_support.hpp"

namespace loom::train {
namespace {

std::string make_parts(const comm::Communicator& world, const std::string& dir, int parts,
                       format::DType feat_dtype = format::DType::kFloat32) {
  if (world.rank() == 0) {
    graph::generate::SbmOptions o;
    o.nodes = 1600;
    o.classes = 4;
    o.avg_degree = 12;
    o.homophily = 0.9;
    o.feat_dim = 16;
    o.feat_noise = 0.6;
    o.train = 0.3;
    o.valid = 0.2;
    o.seed = 5;
    graph::generate::generate_sbm_store(o, dir + "/sbm", {.feat_dtype = feat_dtype});
    partition::PartitionOptions p;
    p.source = dir + "/sbm";
    p.output = dir + "/parts";
    p.num_parts = parts;
    partition::partition_store(p);
  }
  world.barrier();
  return dir + "/parts";
}

MinibatchOptions options_for(const std::string& store) {
  MinibatchOptions o;
  o.store = store;
  o.model.num_layers = 2;
  o.model.hidden = 32;
  o.model.dropout = 0.1;
  o.fanouts = {10, 5};
  o.batch_size = 64;
  o.run.epochs = 5;
  o.run.lr = 0.01;
  o.run.rank.threads = 1;
  o.output.quiet = true;
  return o;
}

// A static cache changes where rows come from, never their values: the same seed trains to the
// same loss with fewer remote rows.
TEST(MinibatchMpi, StaticCacheMovesFewerRowsAndTrainsIdentically) {
  auto world = comm::Communicator::world();
  const mpi_test::SharedScratch scratch(world, "cache");
  const std::string& dir = scratch.path();
  auto options = options_for(make_parts(world, dir, world.size()));
  options.run.epochs = 2;
  options.evaluation.exact = false;
  const auto plain = run_minibatch(options, world);
  options.cache.policy = feature::CachePolicy::kVip;
  options.cache.alpha = 0.3;
  const auto cached = run_minibatch(options, world);
  for (std::size_t e = 0; e < plain.epochs.size(); ++e) {
    const auto& a = plain.epochs[e];
    const auto& b = cached.epochs[e];
    EXPECT_DOUBLE_EQ(a["loss"].get<double>(), b["loss"].get<double>()) << "epoch " << e;
    EXPECT_EQ(a["rows_cached"].get<std::int64_t>(), 0);
    EXPECT_GT(b["rows_cached"].get<std::int64_t>(), 0);
    EXPECT_LT(b["rows_remote"].get<std::int64_t>(), a["rows_remote"].get<std::int64_t>());
    EXPECT_EQ(a["rows_remote"].get<std::int64_t>(),
              b["rows_remote"].get<std::int64_t>() + b["rows_cached"].get<std::int64_t>());
  }
  options.cache.alpha = -1;
  EXPECT_THROW(run_minibatch(options, world), Error);
}

// The device tier (SALIENT++ storage tiers; on CPU a second copy of the hottest own rows) changes
// where own rows come from, never their values: with a cache and a prefetch buffer beside it, the
// same seed trains to the same loss, and the hottest half of the own rows by VIP serves more than
// half of the own-row reads.
TEST(MinibatchMpi, DeviceTierServesHottestOwnRowsAndTrainsIdentically) {
  auto world = comm::Communicator::world();
  const mpi_test::SharedScratch scratch(world, "device");
  auto options = options_for(make_parts(world, scratch.path(), world.size()));
  options.run.epochs = 2;
  options.cache.policy = feature::CachePolicy::kVip;
  options.cache.alpha = 0.2;
  options.prefetch.controller.kind = control::ControllerKind::kPeriodic;
  options.prefetch.buffer.fraction = 0.2;
  const auto plain = run_minibatch(options, world);
  options.data_path.device_rows = 0.5;
  const auto tiered = run_minibatch(options, world);
  for (std::size_t e = 0; e < plain.epochs.size(); ++e) {
    const auto& a = plain.epochs[e];
    const auto& b = tiered.epochs[e];
    EXPECT_DOUBLE_EQ(a["loss"].get<double>(), b["loss"].get<double>()) << "epoch " << e;
    EXPECT_EQ(a["rows_local"], b["rows_local"]);
    EXPECT_EQ(a["rows_remote"], b["rows_remote"]);
    EXPECT_EQ(a["rows_device"].get<std::int64_t>(), 0);
    EXPECT_GT(2 * b["rows_device"].get<std::int64_t>(), b["rows_local"].get<std::int64_t>()) << "epoch " << e;
  }
  EXPECT_DOUBLE_EQ(plain.final_test, tiered.final_test);
  // Own rows read in place (--host-reads mapped), beside the tier and alone: the same training.
  options.data_path.host_reads = loader::HostReads::kMapped;
  for (const double rows : {0.5, 0.0}) {
    options.data_path.device_rows = rows;
    const auto mapped = run_minibatch(options, world);
    for (std::size_t e = 0; e < plain.epochs.size(); ++e) {
      EXPECT_DOUBLE_EQ(plain.epochs[e]["loss"].get<double>(), mapped.epochs[e]["loss"].get<double>()) << rows;
      EXPECT_EQ(plain.epochs[e]["rows_local"], mapped.epochs[e]["rows_local"]) << rows;
      EXPECT_EQ(tiered.epochs[e]["rows_device"].get<std::int64_t>() * (rows > 0 ? 1 : 0),
                mapped.epochs[e]["rows_device"].get<std::int64_t>())
          << rows;
    }
    EXPECT_DOUBLE_EQ(plain.final_test, mapped.final_test) << rows;
  }
  options.data_path.superbatch = 2;
  EXPECT_THROW(run_minibatch(options, world), Error);
  options.data_path.superbatch = 1;
  options.data_path.host_reads = loader::HostReads::kStaged;
  options.data_path.device_rows = 1.5;
  EXPECT_THROW(run_minibatch(options, world), Error);
  options.data_path.device_rows = 0.5;
  EXPECT_THROW(nn::parse_device_choice("tpu"), Error);
}

// A prefetch buffer, whatever its controller, serves rows without changing them; evictions bring
// rows in with the minibatch requests, and an unreachable LLM falls back without stopping training.
TEST(MinibatchMpi, PrefetchBufferServesRowsAndTrainsIdentically) {
  auto world = comm::Communicator::world();
  const mpi_test::SharedScratch scratch(world, "prefetch");
  const std::string& dir = scratch.path();
  auto options = options_for(make_parts(world, dir, world.size()));
  options.run.epochs = 2;
  options.batch_size = 16;
  options.evaluation.exact = false;
  const auto plain = run_minibatch(options, world);
  options.prefetch.buffer.fraction = 0.3;
  options.prefetch.buffer.initial = feature::PrefetchStart::kEmpty;
  options.prefetch.buffer.period = 4;
  options.prefetch.window = 4;
  for (const control::ControllerKind controller :
       {control::ControllerKind::kPeriodic, control::ControllerKind::kRules, control::ControllerKind::kLlm}) {
    options.prefetch.controller.kind = controller;
    const std::string name = core::enum_name(control::kControllerNames, controller);
    options.prefetch.controller.period = 8;
    options.prefetch.controller.llm_url = "http://127.0.0.1:1";  // nothing listens there
    const auto run = run_minibatch(options, world);
    std::int64_t hits = 0, evictions = 0, fallbacks = 0;
    for (std::size_t e = 0; e < plain.epochs.size(); ++e) {
      const auto& a = plain.epochs[e];
      const auto& b = run.epochs[e];
      EXPECT_DOUBLE_EQ(a["loss"].get<double>(), b["loss"].get<double>()) << name << " epoch " << e;
      const auto& p = b["prefetch"];
      hits += p["hits"].get<std::int64_t>();
      evictions += p["evictions"].get<std::int64_t>();
      fallbacks += p["fallbacks"].get<std::int64_t>();
      EXPECT_EQ(b["rows_remote"].get<std::int64_t>(),
                a["rows_remote"].get<std::int64_t>() - p["hits"].get<std::int64_t>() + p["rows_in"].get<std::int64_t>())
          << name;
    }
    EXPECT_GT(evictions, 0) << name;
    EXPECT_GT(hits, 0) << name;
    if (controller == control::ControllerKind::kLlm) {
      EXPECT_GT(fallbacks, 0);
    }
  }
  options.prefetch.buffer.fraction = 1.5;
  EXPECT_THROW(run_minibatch(options, world), Error);
}

// Lookahead admission: with the next minibatches in sight, the buffer keeps fetched rows they
// use, so fewer rows travel than with the same buffer held static, and training is unchanged.
TEST(MinibatchMpi, LookaheadKeepsFetchedRowsAndMovesFewerRows) {
  auto world = comm::Communicator::world();
  const mpi_test::SharedScratch scratch(world, "lookahead");
  auto options = options_for(make_parts(world, scratch.path(), world.size()));
  options.run.epochs = 2;
  options.batch_size = 16;
  options.evaluation.exact = false;
  options.prefetch.controller.kind = control::ControllerKind::kNever;
  options.prefetch.buffer.fraction = 0.2;
  const auto fixed = run_minibatch(options, world);
  options.prefetch.buffer.lookahead = 3;
  const auto ahead = run_minibatch(options, world);
  for (std::size_t e = 0; e < fixed.epochs.size(); ++e) {
    const auto& a = fixed.epochs[e];
    const auto& b = ahead.epochs[e];
    EXPECT_DOUBLE_EQ(a["loss"].get<double>(), b["loss"].get<double>()) << "epoch " << e;
    EXPECT_LT(b["rows_remote"].get<std::int64_t>(), a["rows_remote"].get<std::int64_t>()) << "epoch " << e;
    EXPECT_EQ(a["prefetch"]["rows_admitted"].get<std::int64_t>(), 0);
    EXPECT_GT(b["prefetch"]["rows_admitted"].get<std::int64_t>(), 0);
  }
  // --controller lookahead is the same with 4 minibatches in sight.
  options.prefetch.controller.kind = control::ControllerKind::kLookahead;
  options.prefetch.buffer.lookahead = 0;
  const auto named = run_minibatch(options, world);
  EXPECT_GT(named.epochs[0]["prefetch"]["rows_admitted"].get<std::int64_t>(), 0);
  EXPECT_LT(named.epochs[0]["rows_remote"].get<std::int64_t>(), fixed.epochs[0]["rows_remote"].get<std::int64_t>());
  options.prefetch.buffer.lookahead = -1;
  EXPECT_THROW(run_minibatch(options, world), Error);
}

// A superbatch gathers the rows of several steps at once, each distinct row once: the same
// batches and weights as step by step, with at most as many rows moved, for float16 rows (held as
// float16 until their step) and float32 rows, a static cache, a pipeline, and a last group cut
// short by the end of the epoch.
TEST(MinibatchMpi, SuperbatchFetchesDistinctRowsOnceAndTrainsIdentically) {
  auto world = comm::Communicator::world();
  const mpi_test::SharedScratch scratch(world, "superbatch");
  for (const format::DType dtype : {format::DType::kFloat16, format::DType::kFloat32}) {
    const std::string dir = scratch.path() + "/" + format::dtype_name(dtype);
    auto options = options_for(make_parts(world, dir, world.size(), dtype));
    options.run.epochs = 2;
    options.batch_size = 24;
    options.evaluation.exact = false;
    for (const auto cache : {feature::CachePolicy::kNone, feature::CachePolicy::kVip}) {
      options.cache.policy = cache;
      options.cache.alpha = cache == feature::CachePolicy::kNone ? 0 : 0.1;
      options.data_path.superbatch = 1;
      const auto single = run_minibatch(options, world);
      options.data_path.superbatch = 3;
      for (const int depth : {0, 2}) {
        options.data_path.pipeline_depth = depth;
        const auto grouped = run_minibatch(options, world);
        for (std::size_t e = 0; e < single.epochs.size(); ++e) {
          const auto& a = single.epochs[e];
          const auto& b = grouped.epochs[e];
          EXPECT_DOUBLE_EQ(a["loss"].get<double>(), b["loss"].get<double>()) << dir << " epoch " << e;
          EXPECT_EQ(a["steps"].get<std::int64_t>(), b["steps"].get<std::int64_t>());
          EXPECT_LT(b["rows_remote"].get<std::int64_t>(), a["rows_remote"].get<std::int64_t>()) << dir;
          EXPECT_LT(b["feature_bytes"].get<std::int64_t>(), a["feature_bytes"].get<std::int64_t>()) << dir;
        }
      }
    }
    options.data_path.superbatch = 0;
    EXPECT_THROW(run_minibatch(options, world), Error);
    options.data_path.superbatch = 2;
    options.prefetch.controller.kind = control::ControllerKind::kNever;
    EXPECT_THROW(run_minibatch(options, world), Error);
  }
}

TEST(MinibatchMpi, ConditionsChangeAtTheGivenEpoch) {
  auto world = comm::Communicator::world();
  const mpi_test::SharedScratch scratch(world, "change");
  const std::string& dir = scratch.path();
  auto options = options_for(make_parts(world, dir, world.size()));
  options.run.epochs = 2;
  options.evaluation.exact = false;
  options.change.epoch = 1;
  options.change.batch_size = 32;
  options.change.fanouts = {5, 5};
  options.change.train_fraction = 0.5;
  const auto report = run_minibatch(options, world);
  ASSERT_EQ(report.epochs.size(), 2u);
  EXPECT_FALSE(report.epochs[0].contains("changed_conditions"));
  EXPECT_TRUE(report.epochs[1]["changed_conditions"].get<bool>());
  // Half the seeds in batches of half the size: about as many steps, fewer sampled edges.
  EXPECT_LT(report.epochs[1]["sampled_edges"].get<std::int64_t>(),
            report.epochs[0]["sampled_edges"].get<std::int64_t>());
  options.change.fanouts = {5};
  EXPECT_THROW(run_minibatch(options, world), Error);
}

TEST(MinibatchMpi, RanksTrainTogetherAndFetchRemoteRows) {
  auto world = comm::Communicator::world();
  const mpi_test::SharedScratch scratch(world, "train");
  const std::string& dir = scratch.path();
  const auto report = run_minibatch(options_for(make_parts(world, dir, world.size())), world);
  EXPECT_GT(report.final_test, 0.85);
  const auto& last = report.epochs.back();
  EXPECT_GT(last["rows_remote"].get<std::int64_t>(), 0);
  EXPECT_GT(last["comm"]["sum"]["features"]["bytes_received"].get<std::int64_t>(), 0);
  EXPECT_GT(last["comm"]["sum"]["gradients"]["bytes_sent"].get<std::int64_t>(), 0);
  // Every rank computed the same (all-reduced) loss.
  const double loss = last["loss"].get<double>();
  const auto losses = world.allgather(loss, comm::Channel::control);
  for (double l : losses) EXPECT_DOUBLE_EQ(l, loss);
}

// --normalize-features standard fits on the training nodes of every rank together: each rank's
// rows equal the rows one process standardises with the whole training split (source ids through
// the parts' original ids).
TEST(MinibatchMpi, StandardNormalisationFitsOnEveryRanksTrainingNodes) {
  auto world = comm::Communicator::world();
  const mpi_test::SharedScratch scratch(world, "norm");
  const std::string parts = make_parts(world, scratch.path(), world.size());
  loader::TrainingData data = loader::open_training_data(parts, world);
  loader::normalize_training_features(data, graph::FeatureNorm::kStandard, world);

  const auto source = graph::GraphStore::open(scratch.path() + "/sbm");
  const std::int64_t dim = source.meta().feat_dim;
  std::vector<float> expected(static_cast<std::size_t>(source.num_nodes() * dim));
  std::vector<std::int64_t> all(static_cast<std::size_t>(source.num_nodes()));
  std::iota(all.begin(), all.end(), 0);
  feature::RowTable::view(source.feat()).gather(all, expected.data());
  const auto train = source.split("train");
  graph::standardize_columns(expected, dim, graph::column_moments(expected, dim, {train.begin(), train.end()}));

  ASSERT_EQ(static_cast<std::int64_t>(data.original_ids.size()), data.num_local);
  std::vector<float> row(static_cast<std::size_t>(dim));
  double max_error = 0;
  for (std::int64_t i = 0; i < data.num_local; ++i) {
    data.features.row(i, row.data());
    for (std::int64_t c = 0; c < dim; ++c)
      max_error = std::max(max_error, std::abs(static_cast<double>(row[c] - expected[data.original_ids[i] * dim + c])));
  }
  EXPECT_LT(max_error, 1e-4) << "rank " << world.rank();
}

TEST(MinibatchMpi, PartCountMustMatchRanksOnEveryRank) {
  auto world = comm::Communicator::world();
  const mpi_test::SharedScratch scratch(world, "mismatch");
  const std::string& dir = scratch.path();
  const std::string parts = make_parts(world, dir, world.size() + 1);
  try {
    run_minibatch(options_for(parts), world);
    ADD_FAILURE() << "expected an error";
  } catch (const comm::AgreedError& e) {
    EXPECT_NE(std::string(e.what()).find("parts but the job has"), std::string::npos) << e.what();
  }
  try {
    run_minibatch(options_for(dir + "/sbm"), world);
    ADD_FAILURE() << "expected an error";
  } catch (const comm::AgreedError& e) {
    EXPECT_NE(std::string(e.what()).find("not partitioned"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace loom::train
