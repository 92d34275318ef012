// The element types of Loom's arrays (.npy files, feature rows, caches), their sizes and names,
// and the tables of the float types options and meta.json may name.
#pragma once

#include <cstddef>
#include <string>

#include "loom/core/enum_names.hpp"

namespace loom::format {

// kBFloat16 is stored with numpy's descr '<V2' (numpy has no bfloat16; np.load gives 2-byte
// voids: `a.view('<u2').astype('<u4') << 16` viewed as float32 widens them).
enum class DType { kBool, kInt8, kUInt8, kInt32, kInt64, kUInt64, kFloat16, kBFloat16, kFloat32, kFloat64 };

// The float dtypes cache rows may be stored in: "float32" | "float16".
inline constexpr core::EnumNames<DType, 2> kFloatDTypeNames{
    {{"float32", DType::kFloat32}, {"float16", DType::kFloat16}}};
// The float dtypes a store's features may be stored in (widened to float32 on gather).
inline constexpr core::EnumNames<DType, 3> kFeatDTypeNames{
    {{"float32", DType::kFloat32}, {"float16", DType::kFloat16}, {"bfloat16", DType::kBFloat16}}};

// The feature dtype a store's meta.json names (kFeatDTypeNames); Error naming `path` otherwise.
DType parse_feat_dtype(const std::string& text, const std::string& path);

std::size_t dtype_size(DType dtype);
// float16, bfloat16, float32 or float64.
constexpr bool is_floating(DType d) {
  return d == DType::kFloat16 || d == DType::kBFloat16 || d == DType::kFloat32 || d == DType::kFloat64;
}
std::string dtype_name(DType dtype);  // "float32", "int64", ...

}  // namespace loom::format
