//===- ShapeContract.h - What a graph op declares about shapes --*- C++ -*-===//
//
// The shape contract interface (ShapeContract.td) and the helpers its
// implementations share. Include TesselDialect.h to use it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECTS_GRAPH_SHAPECONTRACT_H
#define TESSEL_DIALECTS_GRAPH_SHAPECONTRACT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include <string>

namespace tessel {

/// An assumption of a kernel about its operands' extents: `lhs` == `rhs`.
/// `what` says it for people ("dim 1 of input 0 and dim 0 of input 1 must
/// be equal"); the runtime adds the ONNX node and the two values.
struct ShapeAssumption {
  mlir::Value lhs, rhs;
  std::string what;
};

} // namespace tessel

#include "dialects/Graph/ShapeContract.h.inc"

#endif // TESSEL_DIALECTS_GRAPH_SHAPECONTRACT_H
