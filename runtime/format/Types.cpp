//===- Types.cpp - Element types and shapes of the artifact model ---------===//
//
// The small vocabulary shared by the codec, the runtime and the tools:
// element sizes, numpy-style dtype names, shape rendering, the names of
// control ops and the implicit region of a plan without control flow.
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
