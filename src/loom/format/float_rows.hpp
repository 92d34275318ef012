// Float values in a storage dtype (float32, float16 or bfloat16; format::kFeatDTypeNames): narrowed
// from float32 when written and widened back when read, one value at a time, round-to-nearest-even
// (half.hpp). Serial: callers split large arrays across threads.
#pragma once

#include <span>
#include <vector>

#include "loom/format/npy.hpp"

namespace loom::format {

// in.size() values written as `dtype` at out (in.size() * dtype_size(dtype) bytes).
void narrow_floats(std::span<const float> in, DType dtype, void* out);
// out.size() values of `dtype` read from in.
void widen_floats(const void* in, DType dtype, std::span<float> out);

// `values` narrowed into a byte buffer of `dtype`, split across threads.
std::vector<char> narrowed(std::span<const float> values, DType dtype);

}  // namespace loom::format
