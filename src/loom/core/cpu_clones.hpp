// LOOM_CPU_CLONES compiles a hot kernel three times, for AVX-512, for AVX2+FMA and for baseline
// x86-64, and the loader picks the clone the CPU supports (GCC function multi-versioning): one
// portable binary whose inner loops use the widest vectors the machine has. Only on a plain
// (non-template) function, and only its own body: loops in lambdas or non-inlined callees run
// the baseline, so helpers are LOOM_ALWAYS_INLINE. Not under ThreadSanitizer, whose
// instrumentation of the clone resolver runs before TSan starts; not with clang.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define LOOM_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LOOM_CPU_CLONES
#endif
#define LOOM_ALWAYS_INLINE inline __attribute__((always_inline))
