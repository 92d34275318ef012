#include "loom/loader/loader_options.hpp"

#include "loom/core/error.hpp"
#include "loom/sample/fanouts.hpp"

namespace loom::loader {

namespace {

void check_data_path(const LoaderOptions& o) {
  const DataPathOptions& d = o.data_path;
  LOOM_CHECK_ARG(d.pipeline_depth >= 0, "--pipeline-depth", "must be >= 0, got {}", d.pipeline_depth);
  LOOM_CHECK_ARG(d.sample_workers >= 0, "--sample-workers", "must be >= 0, got {}", d.sample_workers);
  LOOM_CHECK_ARG(d.superbatch >= 1, "--superbatch", "must be >= 1, got {}", d.superbatch);
  LOOM_CHECK_ARG(d.superbatch == 1 || o.prefetch.controller.kind == control::ControllerKind::kNone, "--superbatch",
                 "fetches rows for several steps at once, which a prefetch buffer (--controller) does not allow");
  LOOM_CHECK_ARG(d.superbatch == 1 || (d.device_rows == 0 && d.host_reads == HostReads::kStaged), "--superbatch",
                 "is not combined with a device tier (--device-rows) or --host-reads mapped");
  LOOM_CHECK_ARG(d.device_rows >= 0 && d.device_rows <= 1, "--device-rows", "must be in [0, 1], got {}", d.device_rows);
  LOOM_CHECK_ARG(d.device_memory_limit >= 0, "--device-memory-limit", "must be >= 0, got {}", d.device_memory_limit);
}

void check_remote_rows(const LoaderOptions& o) {
  LOOM_CHECK_ARG(o.cache.alpha >= 0, "--alpha", "must be >= 0, got {}", o.cache.alpha);
  LOOM_CHECK_ARG(o.cache.memory_bytes >= 0, "--cache-memory", "must be >= 0, got {}", o.cache.memory_bytes);
  LOOM_CHECK_ARG(o.cache.memory_bytes == 0 || o.cache.alpha == 0, "--cache-memory",
                 "sizes the cache in bytes where --alpha sizes it in rows: give one of them");
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

void check_change(const ChangeOptions& c) {
  LOOM_CHECK_ARG(c.epoch >= -1, "--change-epoch", "must be an epoch number or -1, got {}", c.epoch);
  LOOM_CHECK_ARG(c.batch_size >= 0, "--change-batch-size", "must be >= 0, got {}", c.batch_size);
  LOOM_CHECK_ARG(c.train_fraction > 0 && c.train_fraction <= 1, "--change-train-fraction", "must be in (0, 1], got {}",
                 c.train_fraction);
}

}  // namespace

CheckedLoaderOptions check(const LoaderOptions& o, int layers) {
  LOOM_CHECK_ARG(o.batch_size > 0, "--batch-size", "must be positive, got {}", o.batch_size);
  LOOM_CHECK_ARG(o.max_steps >= 0, "--max-steps", "must be >= 0, got {}", o.max_steps);
  LOOM_CHECK_ARG(o.epochs >= 0, "--epochs", "must be >= 0, got {}", o.epochs);
  sample::Fanouts fanouts(o.fanouts, "--fanouts", layers);
  check_data_path(o);
  check_remote_rows(o);
  check_change(o.change);
  sample::Fanouts changed =
      o.change.fanouts.empty() ? fanouts : sample::Fanouts(o.change.fanouts, "--change-fanouts", layers);
  sample::Fanouts eval(o.eval_fanouts, "--eval-fanouts", layers, sample::Fanouts::Layers::kOneForAll);
  return CheckedLoaderOptions(o, std::move(fanouts), std::move(eval), std::move(changed));
}

}  // namespace loom::loader
