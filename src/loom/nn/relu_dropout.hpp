// relu_dropout(x, p, training) = dropout(relu(x), p): one fused pass forward and one backward on
// CPU, keeping a 1-byte mask instead of float masks and relu outputs. Each element is kept with
// probability 1 - p (quantised to 1/65536) and scaled by 1 / (1 - p). The random stream is drawn
// from torch's default CPU generator (one draw per call, so torch::manual_seed fixes it) and split
// per block of 4096 elements: the mask does not depend on the thread count. When not training or
// p == 0 it is plain relu. Non-CPU tensors take torch::dropout(torch::relu(x)).
// dropout(x, p, training) is the same without relu: torch::dropout's semantics with a 1-byte
// mask instead of a float one (4x less memory held for backward).
#pragma once

#include <torch/types.h>

namespace loom::nn {

torch::Tensor relu_dropout(const torch::Tensor& x, double p, bool training);
torch::Tensor dropout(const torch::Tensor& x, double p, bool training);

}  // namespace loom::nn
