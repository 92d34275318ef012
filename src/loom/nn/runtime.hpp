// configure_cpu_runtime(threads): the process-wide CPU settings that training wants, in one call
// at startup: the thread count of LibTorch's intra-op pool, of Loom's OpenMP loops and of
// OpenBLAS (when loaded), and glibc
// malloc thresholds that keep freed activation-sized blocks (up to 32 MiB) in the heap instead of
// returning them to the kernel, so each training step does not page-fault its tensors in again
// (10-15% of a CPU step otherwise). threads <= 0 keeps the defaults.
#pragma once

namespace loom::nn {

void configure_cpu_runtime(int threads);

}  // namespace loom::nn
