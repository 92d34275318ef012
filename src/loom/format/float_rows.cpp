#include "loom/format/float_rows.hpp"

#include <cstring>

#include "loom/core/error.hpp"
#include "loom/format/half.hpp"
#include "loom/core/parallel.hpp"

namespace loom::format {

void narrow_floats(std::span<const float> in, DType dtype, void* out) {
  switch (dtype) {
    case DType::kFloat32: std::memcpy(out, in.data(), in.size_bytes()); return;
    case DType::kFloat16: {
      auto* dst = static_cast<Half*>(out);
      for (std::size_t i = 0; i < in.size(); ++i) dst[i] = float_to_half(in[i]);
      return;
    }
    case DType::kBFloat16: {
      auto* dst = static_cast<BFloat16*>(out);
      for (std::size_t i = 0; i < in.size(); ++i) dst[i] = float_to_bfloat16(in[i]);
      return;
    }
    default: throw Error("narrow_floats: rows cannot be stored as " + dtype_name(dtype));
  }
}

void widen_floats(const void* in, DType dtype, std::span<float> out) {
  switch (dtype) {
    case DType::kFloat32: std::memcpy(out.data(), in, out.size_bytes()); return;
    case DType::kFloat16: {
      const auto* src = static_cast<const Half*>(in);
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = half_to_float(src[i]);
      return;
    }
    case DType::kBFloat16: {
      const auto* src = static_cast<const BFloat16*>(in);
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = bfloat16_to_float(src[i]);
      return;
    }
    default: throw Error("widen_floats: rows cannot be read as " + dtype_name(dtype));
  }
}

std::vector<char> narrowed(std::span<const float> values, DType dtype) {
  const std::size_t width = dtype_size(dtype);
  std::vector<char> out(values.size() * width);
  constexpr std::int64_t kBlock = 1 << 16;
  const auto n = static_cast<std::int64_t>(values.size());
  core::parallel_for((n + kBlock - 1) / kBlock,
                     [&](std::int64_t b) {
                       const std::int64_t begin = b * kBlock, end = std::min(n, begin + kBlock);
                       narrow_floats(
                           values.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin)),
                           dtype, out.data() + static_cast<std::size_t>(begin) * width);
                     },
                     1);
  return out;
}

}  // namespace loom::format
