//===- Importer.h - ONNX ModelProto -> Tessel graph dialect -----*- C++ -*-===//
//
// The frontend's public entry point: parse an .onnx file (with its external
// data) and build a module holding one func.func in the graph dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_FRONTEND_ONNX_IMPORTER_H
#define TESSEL_FRONTEND_ONNX_IMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessel {

/// Imports the ONNX model at `path`. Errors are reported as MLIR diagnostics
/// at a location naming the file and, where one is at fault, the ONNX node
/// and op ("model.onnx: node 'conv1' (Conv): ..."); returns null then, and
/// sets `*unsupported` (when given) if the error was that an op, or its
/// opset, is not supported.
/// The function is named `main`; its arguments are the graph inputs that
/// are not initializers and carry `tessel.arg_symbols`.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxModel(mlir::MLIRContext &context,
                                                  const std::string &path,
                                                  bool *unsupported = nullptr);

/// One op the importer has a handler for, and the opsets of its domain it
/// handles: [firstOpset, lastOpset], lastOpset 0 for "and every later one".
struct SupportedOnnxOp {
  std::string domain; ///< "ai.onnx" for the default domain
  std::string opType;
  int64_t firstOpset = 1;
  int64_t lastOpset = 0;
  std::string range; ///< "13+", "1-12"
};

/// Every handler of the importer, by domain, op type and opset. Ops without
/// a handler are imported when ONNX defines them as a function of these.
std::vector<SupportedOnnxOp> supportedOnnxOps();

} // namespace tessel

#endif // TESSEL_FRONTEND_ONNX_IMPORTER_H
