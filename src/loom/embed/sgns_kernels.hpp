// Check-free SGNS update kernels for one (already subsampled) sentence; called by train_sgns,
// which validates everything first. Rows are EmbeddingMatrix rows (stride a multiple of kLanes,
// zero padding). Each returns the summed negative-sampling loss and adds the number of
// predictions to `predictions`. Scratch is per thread and sized once. The semantics of each kernel
// (SgnsKernel in sgns.hpp) are pinned by scalar references in tests/embed/sgns_kernels_test.cpp,
// including the order of random draws: per centre, the window shrink, then the negatives (per
// context for hogwild, once per window otherwise).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/core/rng.hpp"
#include "loom/embed/matrix.hpp"
#include "loom/embed/sampling.hpp"

namespace loom::embed::detail {

struct KernelParams {
  float* input = nullptr;
  float* output = nullptr;
  std::int64_t stride = 0;
  int window = 5;
  int negative = 5;
  const NegativeSampler* negatives = nullptr;
};

class KernelScratch {
 public:
  KernelScratch(int window, int negative, std::int64_t stride);
  std::int32_t* contexts() { return contexts_.data(); }
  std::int32_t* targets() { return targets_.data(); }
  float* gradients() { return gradients_.data(); }               // (2 window) x (negative + 1)
  float* dots() { return dots_.data(); }                         // negative + 1
  float* column() { return column_.data(); }                     // negative + 1
  const float** context_rows() { return context_rows_.data(); }  // 2 window
  float** target_rows() { return target_rows_.data(); }          // negative + 1
  float* rows() { return rows_.row(0); }                         // (2 window) x stride
  float* vec_a() { return vecs_.row(0); }                        // stride
  float* vec_b() { return vecs_.row(1); }                        // stride

 private:
  std::vector<std::int32_t> contexts_, targets_;
  std::vector<float> gradients_, dots_, column_;
  std::vector<const float*> context_rows_;
  std::vector<float*> target_rows_;
  EmbeddingMatrix rows_, vecs_;
};

double sg_hogwild(const KernelParams& p, std::span<const std::int32_t> sentence, float alpha, core::Rng& rng,
                  KernelScratch& scratch, std::int64_t& predictions);
double sg_shared(const KernelParams& p, std::span<const std::int32_t> sentence, float alpha, core::Rng& rng,
                 KernelScratch& scratch, std::int64_t& predictions);
double sg_batched(const KernelParams& p, std::span<const std::int32_t> sentence, float alpha, core::Rng& rng,
                  KernelScratch& scratch, std::int64_t& predictions);
double cbow(const KernelParams& p, std::span<const std::int32_t> sentence, float alpha, core::Rng& rng,
            KernelScratch& scratch, std::int64_t& predictions);

}  // namespace loom::embed::detail
