#include "loom/embed/matrix.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include "loom/core/error.hpp"

namespace loom::embed {

EmbeddingMatrix::EmbeddingMatrix(std::int64_t rows, std::int64_t dim)
    : rows_(rows), dim_(dim), stride_((dim + kLanes - 1) / kLanes * kLanes) {
  LOOM_CHECK(rows >= 0 && dim >= 1, "embedding matrix: bad shape {} x {}", rows, dim);
  const auto bytes = static_cast<std::size_t>(std::max<std::int64_t>(rows, 1) * stride_) * sizeof(float);
  auto* p = static_cast<float*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  data_.reset(p);
}

}  // namespace loom::embed
