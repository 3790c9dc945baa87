//===- NodeOrder.h - Topological order of ONNX nodes ------------*- C++ -*-===//
//
// ONNX requires a graph's nodes to be listed in topological order, but
// exporters do not always manage it and ONNX Runtime accepts such models,
// so the importer sorts them itself.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_FRONTEND_ONNX_NODEORDER_H
#define TESSEL_FRONTEND_ONNX_NODEORDER_H

#include "frontend/onnx/ImportContext.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace tessel::onnx_import {

/// `nodes` ordered so that each comes after the nodes that compute its
/// inputs; nodes that are already in order keep their order. `defined`
/// says whether a value exists before any of the nodes runs (graph inputs,
/// initializers, the inputs of a function body). An input that neither
/// exists nor is computed by a node, a value computed twice, and a cycle are
/// errors reported at the node (through `context`); returns failure then.
mlir::FailureOr<llvm::SmallVector<const onnx::NodeProto *>> sortTopologically(
    llvm::ArrayRef<const onnx::NodeProto *> nodes,
    llvm::function_ref<bool(llvm::StringRef)> defined,
    llvm::function_ref<NodeContext(const onnx::NodeProto &)> context);

} // namespace tessel::onnx_import

#endif // TESSEL_FRONTEND_ONNX_NODEORDER_H
