#include "loom/format/dtype.hpp"

#include <fmt/format.h>

#include "loom/core/error.hpp"

namespace loom::format {

DType parse_feat_dtype(const std::string& text, const std::string& path) {
  for (const auto& [name, dtype] : kFeatDTypeNames)
    if (text == name) return dtype;
  throw Error::in_file(path, 0,
                       fmt::format("feat_dtype must be {}, found '{}'", core::enum_choices(kFeatDTypeNames), text));
}

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kUInt8: return 1;
    case DType::kFloat16:
    case DType::kBFloat16: return 2;
    case DType::kInt32:
    case DType::kFloat32: return 4;
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kFloat64: return 8;
  }
  return 0;
}

std::string dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kBool: return "bool";
    case DType::kInt8: return "int8";
    case DType::kUInt8: return "uint8";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kUInt64: return "uint64";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
  }
  return "?";
}

}  // namespace loom::format
