// The option groups shared by `loom train` and `loom fullgraph` (train/run_options.hpp): the run
// (epochs, optimizer and schedule, seed, threads, device, link emulation, memory limit), the
// checkpoints, and the outputs (metrics, predictions, embeddings); and the job both run as.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "loom/cli/checkpoint_args.hpp"
#include "loom/cli/typed_options.hpp"
#include "loom/comm/mpi_session.hpp"
#include "loom/core/log.hpp"
#include "loom/core/memory.hpp"
#include "loom/train/run_options.hpp"

namespace loom::cli {

inline void add_lr_schedule_options(CLI::App& sub, train::LrSchedule& schedule) {
  add_enum_option(sub, "--lr-schedule", schedule.kind, train::kLrScheduleNames,
                  "step: x --lr-gamma every --lr-step epochs; cosine: to 0");
  sub.add_option("--lr-gamma", schedule.gamma, "step schedule: factor")->capture_default_str();
  sub.add_option("--lr-step", schedule.step, "step schedule: epochs per step")->capture_default_str();
}

inline void add_memory_limit_option(CLI::App& sub, std::int64_t& limit) {
  add_parsed_option(
      sub, "--memory-limit", limit,
      [](const std::string& text) { return core::parse_memory_size(text, "--memory-limit"); },
      "Memory one rank may use, e.g. 4G (default: what the machine has available); the run stops at "
      "start-up where its estimate does not fit")
      ->option_text("SIZE");
}

// Runs `train(world)` (which returns the signal that stopped it, or 0) as an MPI job whose log
// lines name their rank; exits 128 + that signal (its checkpoint written), else 0.
template <class Train>
int run_training_job(Train train) {
  return comm::run_job([&](comm::Communicator& world) {
    core::set_log_rank(world.rank(), world.size());
    const int stopped_by = train(world);
    return stopped_by == 0 ? 0 : 128 + stopped_by;
  });
}

inline void add_run_options(CLI::App& sub, train::RunOptions& run, const std::string& seed_help) {
  sub.add_option("--epochs", run.epochs, "Epochs")->capture_default_str();
  sub.add_option("--lr", run.lr, "Adam learning rate")->capture_default_str();
  sub.add_option("--weight-decay", run.weight_decay, "Adam weight decay (L2)")->capture_default_str();
  add_lr_schedule_options(sub, run.lr_schedule);
  sub.add_option("--seed", run.seed, seed_help)->capture_default_str();
  sub.add_option("--threads", run.rank.threads, "Threads per rank (0 = cores / ranks on this machine)")
      ->capture_default_str();
  add_parsed_option(
      sub, "--device", run.rank.device, [](const std::string& text) { return nn::parse_device_choice(text); },
      "Compute on cpu | cuda (GPU rank % count) | cuda:N (default cpu)")
      ->option_text("DEVICE");
  add_link_options(sub, run.rank.link);
  add_memory_limit_option(sub, run.memory_limit);
  sub.add_option("--eval-every", run.eval.every,
                 "Validation/test scores after every N-th epoch and after the last (0 = never; N >= --epochs: the "
                 "last only)")
      ->capture_default_str();
}

inline void add_checkpoint_group(CLI::App& sub, train::CheckpointOptions& checkpoint, const std::string& dir_help) {
  add_checkpoint_options(sub, checkpoint.dir, checkpoint.every, checkpoint.keep, checkpoint.resume, dir_help);
}

inline void add_output_group(CLI::App& sub, train::OutputOptions& output, const std::string& metrics_help) {
  sub.add_option("--metrics", output.metrics_path, metrics_help);
  sub.add_option("-o,--output", output.dir, "Write predictions (and embeddings) keyed by original id here");
  sub.add_flag("--save-embeddings", output.save_embeddings, "Also write node embeddings (input of the last layer)");
  sub.add_flag("--overwrite", output.overwrite, "Replace an existing --output directory");
  sub.add_flag("--quiet", output.quiet, "No per-epoch log lines");
}

}  // namespace loom::cli
