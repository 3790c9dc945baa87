//===- Types.cpp - Element types and shapes of the artifact model ---------===//
//
// The small vocabulary shared by the codec, the runtime and the tools:
// element sizes, numpy-style dtype names and shape rendering.
//
//===----------------------------------------------------------------------===//

#include "format/Artifact.h"

namespace tessel::format {

uint32_t dtypeSize(DType t) {
  switch (t) {
  case DType::U8:
  case DType::I8:
  case DType::Bool:
    return 1;
  case DType::U16:
  case DType::I16:
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::I64:
  case DType::F64:
  case DType::U64:
    return 8;
  }
  return 0;
}

const char *dtypeName(DType t) {
  switch (t) {
  case DType::F32:
    return "float32";
  case DType::U8:
    return "uint8";
  case DType::I8:
    return "int8";
  case DType::U16:
    return "uint16";
  case DType::I16:
    return "int16";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  case DType::Bool:
    return "bool";
  case DType::F16:
    return "float16";
  case DType::F64:
    return "float64";
  case DType::U32:
    return "uint32";
  case DType::U64:
    return "uint64";
  case DType::BF16:
    return "bfloat16";
  }
  return "unknown";
}

std::string formatShape(const Shape &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += shape[i].isSymbolic() ? shape[i].symbol
                               : std::to_string(shape[i].value);
  }
  return s + "]";
}

} // namespace tessel::format
