//===- Types.cpp - Element types and shapes of the artifact model ---------===//
//
// The small vocabulary shared by the codec, the runtime and the tools:
// element sizes, numpy-style dtype names, shape rendering, the names of
// control ops and the implicit region of a plan without control flow.
//
//===----------------------------------------------------------------------===//

#include "format/Artifact.h"

#include <cstring>

namespace tessel::format {

DType storageDType(DType t) {
  switch (t) {
  case DType::F32:
  case DType::F64:
  case DType::F16:
  case DType::BF16:
  case DType::Bool:
    return t;
  default:
    break;
  }
  // Every other dtype is an integer or a narrow format: by its width.
  switch (dtypeSize(t)) {
  case 1:
    return DType::I8;
  case 2:
    return DType::I16;
  case 4:
    return DType::I32;
  case 8:
    return DType::I64;
  default:
    return t; // unknown
  }
}

uint32_t dtypeSize(DType t) {
  switch (t) {
  case DType::U8:
  case DType::I8:
  case DType::Bool:
  case DType::F8E4M3FN:
  case DType::F8E4M3FNUZ:
  case DType::F8E5M2:
  case DType::F8E5M2FNUZ:
  case DType::U4:
  case DType::I4:
  case DType::F4E2M1:
  case DType::F8E8M0:
  case DType::U2:
  case DType::I2:
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
  // ml_dtypes' names, which numpy users of these types know.
  case DType::F8E4M3FN:
    return "float8_e4m3fn";
  case DType::F8E4M3FNUZ:
    return "float8_e4m3fnuz";
  case DType::F8E5M2:
    return "float8_e5m2";
  case DType::F8E5M2FNUZ:
    return "float8_e5m2fnuz";
  case DType::U4:
    return "uint4";
  case DType::I4:
    return "int4";
  case DType::F4E2M1:
    return "float4_e2m1fn";
  case DType::F8E8M0:
    return "float8_e8m0fnu";
  case DType::U2:
    return "uint2";
  case DType::I2:
    return "int2";
  }
  return "unknown";
}

uint32_t dtypePackedBits(DType t) {
  switch (t) {
  case DType::U4:
  case DType::I4:
  case DType::F4E2M1:
    return 4;
  case DType::U2:
  case DType::I2:
    return 2;
  default:
    return 8 * dtypeSize(t);
  }
}

uint64_t packedByteSize(DType t, uint64_t count) {
  uint64_t bits = dtypePackedBits(t);
  return bits >= 8 ? count * (bits / 8) : (count * bits + 7) / 8;
}

void unpackElements(DType t, const uint8_t *packed, uint64_t count,
                    uint8_t *out) {
  if (count == 0)
    return; // an empty tensor's buffers may be null, which memcpy forbids
  uint32_t bits = dtypePackedBits(t);
  if (bits >= 8) {
    std::memcpy(out, packed, count * (bits / 8));
    return;
  }
  uint32_t perByte = 8 / bits, mask = (1u << bits) - 1;
  bool isSigned = t == DType::I4 || t == DType::I2;
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t v = (packed[i / perByte] >> (bits * (i % perByte))) & mask;
    if (isSigned && (v >> (bits - 1)))
      v |= ~mask; // sign-extend into the byte
    out[i] = static_cast<uint8_t>(v);
  }
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

Region implicitRegion(const Artifact &artifact) {
  Region region;
  auto append = [&](Step::Kind kind, size_t count) {
    for (size_t i = 0; i < count; ++i)
      region.steps.push_back({kind, static_cast<uint32_t>(i)});
  };
  append(Step::Kind::Shape, artifact.shapeProgram.size());
  append(Step::Kind::HostValues, artifact.hostValues.size());
  append(Step::Kind::Launch, artifact.plan.size());
  return region;
}

std::string describeControlOp(const ControlOp &op, size_t index) {
  const char *kind = op.kind == ControlOp::Kind::If     ? "If"
                     : op.kind == ControlOp::Kind::Loop ? "Loop"
                                                        : "unknown";
  std::string s = "control op " + std::to_string(index) + " (";
  if (op.onnxNode.empty() && op.onnxOp.empty())
    return s + kind + ")";
  return s + "ONNX node '" + op.onnxNode + "', " +
         (op.onnxOp.empty() ? kind : op.onnxOp) + ")";
}

} // namespace tessel::format
