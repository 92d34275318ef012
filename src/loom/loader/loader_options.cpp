#include "loom/loader/loader_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/core/error.hpp"
#include "loom/sample/neighbor_sampler.hpp"

namespace loom::loader {

namespace {

void check_layer_count(std::span<const std::int32_t> fanouts, const std::string& argument, int layers) {
  sample::check_fanouts(fanouts, argument);
  LOOM_CHECK_ARG(static_cast<int>(fanouts.size()) == layers, argument,
                 "{} fanouts ({}) for a {}-layer model (--layers): give one fanout per layer", fanouts.size(),
                 fmt::join(fanouts, ","), layers);
}

void check_data_path(const LoaderOptions& o) {
  const DataPathOptions& d = o.data_path;
  LOOM_CHECK_ARG(d.pipeline_depth >= 0, "--pipeline-depth", "must be >= 0, got {}", d.pipeline_depth);
  LOOM_CHECK_ARG(d.sample_workers >= 0, "--sample-workers", "must be >= 0, got {}", d.sample_workers);
  LOOM_CHECK_ARG(d.superbatch >= 1, "--superbatch", "must be >= 1, got {}", d.superbatch);
  LOOM_CHECK_ARG(d.superbatch == 1 || o.prefetch.controller.kind == control::ControllerKind::kNone, "--superbatch",
                 "fetches rows for several steps at once, which a prefetch buffer (--controller) does not allow");
  LOOM_CHECK_ARG(d.superbatch == 1 || (d.device_rows == 0 && d.host_reads == HostReads::kStaged), "--superbatch",
                 "is not combined with a device tier (--device-rows) or --host-reads mapped");
  LOOM_CHECK_ARG(d.device_rows >= 0 && d.device_rows <= 1, "--device-rows", "must be in [0, 1], got {}",
                 d.device_rows);
  LOOM_CHECK_ARG(d.device_memory_limit >= 0, "--device-memory-limit", "must be >= 0, got {}", d.device_memory_limit);
}

void check_remote_rows(const LoaderOptions& o) {
  LOOM_CHECK_ARG(o.cache.alpha >= 0, "--alpha", "must be >= 0, got {}", o.cache.alpha);
  LOOM_CHECK_ARG(o.cache.simulation_epochs > 0, "--cache-epochs", "must be positive, got {}",
                 o.cache.simulation_epochs);
  LOOM_CHECK_ARG(o.cache.dtype == format::DType::kFloat32 || o.cache.dtype == format::DType::kFloat16, "--cache-dtype",
                 "must be float32 or float16, got {}", format::dtype_name(o.cache.dtype));
  if (o.prefetch.controller.kind != control::ControllerKind::kNone) {
    feature::check(o.prefetch.buffer);
    control::check(o.prefetch.controller);
  }
  LOOM_CHECK_ARG(o.prefetch.window > 0, "--control-window", "must be positive, got {}", o.prefetch.window);
}

void check_change(const ChangeOptions& c, int layers) {
  LOOM_CHECK_ARG(c.epoch >= -1, "--change-epoch", "must be an epoch number or -1, got {}", c.epoch);
  LOOM_CHECK_ARG(c.batch_size >= 0, "--change-batch-size", "must be >= 0, got {}", c.batch_size);
  LOOM_CHECK_ARG(c.train_fraction > 0 && c.train_fraction <= 1, "--change-train-fraction", "must be in (0, 1], got {}",
                 c.train_fraction);
  if (!c.fanouts.empty()) check_layer_count(c.fanouts, "--change-fanouts", layers);
}

}  // namespace

CheckedLoaderOptions check(const LoaderOptions& o, int layers) {
  LOOM_CHECK_ARG(o.batch_size > 0, "--batch-size", "must be positive, got {}", o.batch_size);
  LOOM_CHECK_ARG(o.max_steps >= 0, "--max-steps", "must be >= 0, got {}", o.max_steps);
  LOOM_CHECK_ARG(o.epochs >= 0, "--epochs", "must be >= 0, got {}", o.epochs);
  check_layer_count(o.fanouts, "--fanouts", layers);
  check_data_path(o);
  check_remote_rows(o);
  check_change(o.change, layers);
  LoaderOptions checked = o;
  sample::check_fanouts(o.eval_fanouts, "--eval-fanouts");
  if (o.eval_fanouts.size() == 1) checked.eval_fanouts.assign(static_cast<std::size_t>(layers), o.eval_fanouts[0]);
  check_layer_count(checked.eval_fanouts, "--eval-fanouts", layers);
  return CheckedLoaderOptions(std::move(checked));
}

}  // namespace loom::loader
