// EmbeddingMatrix: a rows x dim float32 matrix owned in one 64-byte aligned block, each row padded
// to a multiple of kLanes floats (stride) with zeros, so SGNS kernels run whole-lane loops with no
// tail. The padding stays zero under SGNS updates (every update is a combination of rows whose
// padding is zero). Move-only. Used for the input/output weights of the trainer.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>

namespace loom::embed {

constexpr std::int64_t kLanes = 16;

class EmbeddingMatrix {
 public:
  EmbeddingMatrix() = default;
  // Zero-filled.
  EmbeddingMatrix(std::int64_t rows, std::int64_t dim);

  std::int64_t rows() const { return rows_; }
  std::int64_t dim() const { return dim_; }
  std::int64_t stride() const { return stride_; }
  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  float* row(std::int64_t r) { return data_.get() + r * stride_; }
  const float* row(std::int64_t r) const { return data_.get() + r * stride_; }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::int64_t rows_ = 0, dim_ = 0, stride_ = 0;
  std::unique_ptr<float[], Free> data_;
};

}  // namespace loom::embed
