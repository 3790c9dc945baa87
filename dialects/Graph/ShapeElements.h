//===- ShapeElements.h - The values of shape tensors, as index values -*- C++ -*-===//
//
// Exporters compute shapes in the graph: Shape, then Gather, Slice, Concat,
// Unsqueeze and integer arithmetic on small int64 tensors. Two places follow
// the values of such tensors element by element, as index values built
// with an OpBuilder: the importer, which reads them as products of symbols
// (frontend/onnx/SymbolicShapes.cpp), and partitioning, which makes them
// plan arithmetic instead of kernels (compiler/Partition.cpp `host values`).
// Both use evaluateShapeElements, the one description of what each op does
// to such values. (The folders compute the same on constants, in the
// attribute form MLIR's folding needs.)
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECTS_GRAPH_SHAPEELEMENTS_H
#define TESSEL_DIALECTS_GRAPH_SHAPEELEMENTS_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace tessel {

/// What the caller knows of an op's operands.
struct ShapeElementSource {
  /// The elements of an operand, one index value each in row-major order,
  /// or nullopt when they are not known.
  llvm::function_ref<std::optional<llvm::SmallVector<mlir::Value>>(mlir::Value)>
      elements;
  /// The extents of a tensor operand (one index value per dim), or nullopt.
  llvm::function_ref<std::optional<llvm::SmallVector<mlir::Value>>(mlir::Value)>
      dims;
  /// Whether a signed division that is not of constants is built from floor
  /// division and comparisons (the plan's shape program has no truncating
  /// division) rather than as `arith.divsi` (which the importer reads as an
  /// exact quotient of products).
  bool floorDivisionOnly = false;
};

/// The elements of the one result of `op`, built with `b` at `op`'s location
/// (createOrFold, so constants fold): Shape and Size from the input's dims;
/// Concat (1-D), Reshape/Squeeze/Unsqueeze (the same elements; a Reshape's
/// target must be known to be the result's static shape) and Cast (int64 to
/// int64) from the input's elements; Gather and Slice of 1-D data at
/// constant indices and bounds; Add, Sub, Mul, Max, Min and signed Div
/// (truncating, as ONNX) of equal sizes or one element against many. An
/// operation of constants is computed here, checked: one that overflows (or
/// divides by zero) is not evaluated. nullopt for any other op, or when
/// what it needs is not known.
std::optional<llvm::SmallVector<mlir::Value>>
evaluateShapeElements(mlir::OpBuilder &b, mlir::Operation *op,
                      const ShapeElementSource &source);

/// Whether `op` is one evaluateShapeElements may evaluate (given what it
/// needs): the ops that carry shape values.
bool carriesShapeElements(mlir::Operation *op);

} // namespace tessel

#endif // TESSEL_DIALECTS_GRAPH_SHAPEELEMENTS_H
