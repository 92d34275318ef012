// configure_cpu_runtime(threads): the process-wide CPU settings that training wants, in one call
// at startup: the thread count (set_cpu_threads: LibTorch's intra-op pool, Loom's OpenMP loops
// and OpenBLAS when loaded, at most OMP_THREAD_LIMIT; a later call changes it for what follows), and glibc
// malloc thresholds that keep freed activation-sized blocks (up to 32 MiB) in the heap instead of
// returning them to the kernel, so each training step does not page-fault its tensors in again
// (10-15% of a CPU step otherwise). threads <= 0 keeps the defaults.
// cpu_threads_per_rank(requested, ranks_on_node): `requested` when positive, else this machine's
// cores shared among the ranks on it (at least 1): ranks that each start a team of all cores
// oversubscribe them, and OpenMP's spinning waits then take the cores from the threads that work
// (a 32-layer full-graph epoch on 4 ranks and 2 cores took 4x longer); never above
// OMP_THREAD_LIMIT.
#pragma once

namespace loom::nn {

void configure_cpu_runtime(int threads);
void set_cpu_threads(int threads);  // <= 0: no change
int cpu_threads_per_rank(int requested, int ranks_on_node);
int machine_cores();  // the cores this process may run on

}  // namespace loom::nn
