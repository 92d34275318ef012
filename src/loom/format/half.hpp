// 16-bit float storage types and their conversions (round-to-nearest-even): IEEE 754 binary16
// (Half: float16 feature storage and the float16 wire format) and bfloat16 (BFloat16: float32's
// exponent with 8 bits of mantissa, float16's bytes without its overflow above 65504). Arithmetic
// is done in float.
#pragma once

#include <cstdint>
#include <cstring>

namespace loom::format {

struct Half {
  std::uint16_t bits = 0;
};

inline Half float_to_half(float value) {
  std::uint32_t x;
  std::memcpy(&x, &value, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return {static_cast<std::uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u))};
  if (abs >= 0x477ff000u) return {static_cast<std::uint16_t>(sign | 0x7c00u)};  // overflow -> inf
  if (abs < 0x38800000u) {                                                      // subnormal or zero
    if (abs < 0x33000000u) return {static_cast<std::uint16_t>(sign)};
    const std::uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 126 - static_cast<int>(abs >> 23);  // value = h * 2^-24 with h = mant >> shift
    std::uint32_t h = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1);
    const std::uint32_t half_point = 1u << (shift - 1);
    if (rem > half_point || (rem == half_point && (h & 1u))) ++h;
    return {static_cast<std::uint16_t>(sign | h)};
  }
  std::uint32_t h = ((abs - 0x38000000u) >> 13);
  const std::uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return {static_cast<std::uint16_t>(sign | h)};
}

inline float half_to_float(Half h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h.bits & 0x8000u) << 16;
  std::uint32_t exp = (h.bits >> 10) & 0x1fu;
  std::uint32_t mant = h.bits & 0x3ffu;
  std::uint32_t x;
  if (exp == 0x1fu) {
    x = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (static_cast<std::uint32_t>(112 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else {
    x = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

struct BFloat16 {
  std::uint16_t bits = 0;
};

inline BFloat16 float_to_bfloat16(float value) {
  std::uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return {static_cast<std::uint16_t>((x >> 16) | 0x0040u)};  // NaN stays NaN
  x += 0x7fffu + ((x >> 16) & 1u);
  return {static_cast<std::uint16_t>(x >> 16)};
}

inline float bfloat16_to_float(BFloat16 b) {
  const std::uint32_t x = static_cast<std::uint32_t>(b.bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace loom::format
