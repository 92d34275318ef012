#include "loom/embed/sgns_checkpoint.hpp"

#include <cmath>

#include <atomic>

#include <cstring>
#include <functional>
#include <numeric>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "loom/format/checkpoint_dir.hpp"
#include "loom/core/error.hpp"
#include "loom/core/parallel.hpp"
#include "loom/format/npy.hpp"
#include "loom/core/stop_signal.hpp"

namespace loom::embed {

void check(const SgnsCheckpoints& c) {
  LOOM_CHECK_ARG(!c.resume || !c.dir.empty(), "--resume", "needs --checkpoint-dir");
  LOOM_CHECK_ARG(c.every >= 0, "--checkpoint-every", "must be >= 0, got {}", c.every);
  LOOM_CHECK_ARG(c.keep >= 0, "--keep-checkpoints", "must be >= 0, got {}", c.keep);
}

namespace {

// Everything a checkpoint's weights depend on but the seed's draws: a run resumes only from its own.
std::string fingerprint(std::span<const std::int64_t> counts, const SgnsOptions& o, const SyncOptions& sync,
                        int ranks) {
  const std::int64_t tokens = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  return fmt::format(
      "sgns vocab={} tokens={} dim={} window={} negative={} sample={} epochs={} alpha={} init_range={} "
      "min_alpha={} kernel={} cbow={} seed={} ranks={} rounds={} combiner={} half={} local={}",
      counts.size(), tokens, o.dim, o.window, o.negative, o.sample, o.epochs, o.alpha, o.init_range,
      o.min_alpha_fraction, sgns_kernel_name(o.kernel), o.cbow, o.seed, ranks, ranks > 1 ? sync.rounds : 0,
      ranks > 1 ? combiner_name(sync.combiner) : "-", ranks > 1 && sync.half_updates, ranks > 1 && sync.local_corpus);
}

// Runs `step`; with other ranks, so that an exception on any rank throws on every rank.
void agreed(const comm::Communicator* comm, const std::function<void()>& step) {
  if (comm == nullptr)
    step();
  else
    comm->agree_on(step);
}

void write_matrix(const std::string& path, const EmbeddingMatrix& m) {
  format::write_npy(path, format::DType::kFloat32, {m.rows(), m.stride()}, m.data());
}

void read_matrix(const std::string& path, EmbeddingMatrix& m) {
  const format::NpyArray array = format::NpyArray::map(path);
  const std::vector<std::int64_t> shape{m.rows(), m.stride()};
  if (array.shape() != shape)
    throw Error::in_file(path, 0,
                         fmt::format("holds a {} array, this run's weights are {}", fmt::join(array.shape(), " x "),
                                     fmt::join(shape, " x ")));
  const auto values = array.span<float>();
  std::memcpy(m.data(), values.data(), values.size_bytes());
}

// With --resume: loads the newest intact checkpoint of DIR into `model` (every rank reads the
// same one) and returns where it was taken, or the start when DIR has none.
format::CheckpointId load_newest(const std::string& dir, const std::string& print, SgnsModel& model,
                                 const comm::Communicator* comm) {
  std::optional<format::CheckpointId> id;
  const auto load = [&] {
    id = format::newest_intact_checkpoint(dir);
    if (!id) return;
    const std::string path = format::checkpoint_path(dir, *id);
    const format::CheckpointRecord state =
        format::parse_checkpoint_record(core::read_text_file(path + "/state.json"), path + "/state.json");
    if (state.fingerprint != print)
      throw Error::in_file(
          path, 0,
          "checkpoint was written by a run with other data or options (" + state.fingerprint + " vs " + print + ")");
    read_matrix(path + "/input.npy", model.input);
    read_matrix(path + "/output.npy", model.output);
  };
  agreed(comm, load);
  if (comm != nullptr) {
    const std::int64_t mine = id ? (std::int64_t{id->epochs} << 32) + id->steps : -1;
    comm->agree(
        comm->allreduce_max(mine, comm::Channel::control) == mine,
        fmt::format("{}: the ranks see different newest checkpoints (a directory not shared by every rank?)", dir));
  }
  if (id && (comm == nullptr || comm->rank() == 0)) spdlog::info("resumed from {}", format::checkpoint_path(dir, *id));
  return id.value_or(format::CheckpointId{});
}

// Weights that are not finite (a learning rate far too large) would be written as vectors of NaN.
void check_converged(const SgnsModel& model, const SgnsOptions& options) {
  const float* w = model.input.data();
  const std::int64_t n = model.input.rows() * model.input.stride();
  std::atomic<bool> finite{true};
  core::parallel_for_blocks(n, std::int64_t{1} << 16, [&](std::int64_t begin, std::int64_t end, std::int64_t) {
    for (std::int64_t i = begin; i < end; ++i)
      if (!std::isfinite(w[i])) {
        finite = false;
        return;
      }
  });
  LOOM_CHECK_ARG(finite, "--alpha",
                 "training diverged with learning rate {}: the vectors hold values that are not finite (word2vec "
                 "starts at 0.025 for skip-gram, 0.05 for CBOW)",
                 options.alpha);
}

}  // namespace

SgnsStats train_sgns_checkpointed(const Corpus& corpus, std::span<const std::int64_t> counts,
                                  const SgnsOptions& options, const SyncOptions& sync,
                                  const SgnsCheckpoints& checkpoints, SgnsModel& model, SyncStats* sync_stats) {
  check(checkpoints);
  const comm::Communicator* comm = sync.comm != nullptr && sync.comm->size() > 1 ? sync.comm : nullptr;
  const bool writer = comm == nullptr || comm->rank() == 0;
  const std::string print = fingerprint(counts, options, sync, comm == nullptr ? 1 : comm->size());
  SgnsSteps steps;
  if (checkpoints.resume) steps.start = load_newest(checkpoints.dir, print, model, comm);
  if (checkpoints.replace && !checkpoints.resume && !checkpoints.dir.empty() && writer)
    format::remove_checkpoints(checkpoints.dir);
  int stopped_by = 0;
  const auto save = [&](format::CheckpointId id) {
    if (!writer) return;
    format::write_checkpoint(
        checkpoints.dir, id,
        [&](const core::OutputDir& out) {
          write_matrix(out.file("input.npy"), model.input);
          write_matrix(out.file("output.npy"), model.output);
        },
        {{"fingerprint", print}}, checkpoints.keep);
  };
  steps.at_boundary = [&](format::CheckpointId reached) {
    stopped_by =
        comm == nullptr ? core::stop_signal() : comm->allreduce_max(core::stop_signal(), comm::Channel::control);
    const bool due = checkpoints.every > 0 && reached.steps == 0 && reached.epochs % checkpoints.every == 0;
    if (!checkpoints.dir.empty() && (due || stopped_by != 0)) agreed(comm, [&] { save(reached); });
    if (stopped_by != 0 && writer)
      spdlog::warn("stopped by signal {} after {}: {}", stopped_by, reached.name(),
                   checkpoints.dir.empty() ? "nothing saved (no --checkpoint-dir)"
                                           : "checkpoint in " + checkpoints.dir + "; continue with --resume");
    return stopped_by != 0;
  };
  SgnsStats stats = train_sgns_synced(corpus, counts, options, sync, model, sync_stats, steps);
  stats.stopped_by = stopped_by;
  check_converged(model, options);
  return stats;
}

}  // namespace loom::embed
