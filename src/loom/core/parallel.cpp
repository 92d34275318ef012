#include "loom/core/parallel.hpp"

#include "loom/core/error.hpp"

namespace loom::core {

int max_threads() { return kThreadsPerCoreLimit * omp_get_num_procs(); }

void check_thread_count(std::int64_t threads, const std::string& argument) {
  LOOM_CHECK_ARG(threads >= 0, argument, "must be >= 0, got {}", threads);
  LOOM_CHECK_ARG(threads <= max_threads(), argument,
                 "{} threads on a host of {} cores: at most {} ({} per core; more only thrash)", threads,
                 omp_get_num_procs(), max_threads(), kThreadsPerCoreLimit);
}

void set_num_threads(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
}

int num_threads() { return omp_get_max_threads(); }

}  // namespace loom::core
