// index_tensor: a 1-D int64 tensor holding a copy of `ids` (shape [0] when empty), for the
// index_select / index_add_ / index_copy_ calls of full-graph training.
#pragma once

#include <cstdint>
#include <span>

#include <torch/torch.h>

namespace loom::train {

inline torch::Tensor index_tensor(std::span<const std::int64_t> ids) {
  auto t = torch::empty({static_cast<std::int64_t>(ids.size())}, torch::kLong);
  std::copy(ids.begin(), ids.end(), t.data_ptr<std::int64_t>());
  return t;
}

}  // namespace loom::train
