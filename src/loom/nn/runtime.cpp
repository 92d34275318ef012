#include "loom/nn/runtime.hpp"

#include <dlfcn.h>
#include <malloc.h>
#include <omp.h>

#include <algorithm>

#include <torch/torch.h>

#include "loom/core/parallel.hpp"

namespace loom::nn {

void set_cpu_threads(int threads) {
  if (threads <= 0) return;
  // OMP_THREAD_LIMIT caps every OpenMP team below what was asked, and OpenBLAS's threaded GEMM,
  // told of more threads than the team it gets, waits forever for the missing ones: ask no more.
  threads = std::min(threads, omp_get_thread_limit());
  core::set_num_threads(threads);
  torch::set_num_threads(threads);
  // LibTorch's GEMMs run in the BLAS library's own pool (OpenBLAS here), which otherwise keeps
  // one thread per core spinning beside OpenMP's; found at run time so any BLAS links.
  using SetThreads = void (*)(int);
  if (auto set_blas = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set_blas(threads);
  }
}

void configure_cpu_runtime(int threads) {
  set_cpu_threads(threads);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest allowed value on 64-bit
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

int machine_cores() { return omp_get_num_procs(); }

int cpu_threads_per_rank(int requested, int ranks_on_node) {
  const int wanted = requested > 0 ? requested : std::max(1, machine_cores() / std::max(1, ranks_on_node));
  return std::min(wanted, omp_get_thread_limit());
}

}  // namespace loom::nn
