#include "loom/core/parallel.hpp"

namespace loom::core {

void set_num_threads(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
}

int num_threads() { return omp_get_max_threads(); }

}  // namespace loom::core
