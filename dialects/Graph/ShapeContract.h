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

#include <optional>
#include <string>

namespace tessel {

/// An assumption of a kernel about its operands' extents: `lhs` == `rhs`.
/// `what` says it for people ("dim 1 of input 0 and dim 0 of input 1 must
/// be equal"); the runtime adds the ONNX node and the two values.
struct ShapeAssumption {
  mlir::Value lhs, rhs;
  std::string what;
};

/// What a shape contract is given about an op's operands: the extent of
/// every operand dim (`operands[i][d]`, one index value each, constants
/// where static) and, for small integer operands whose elements the caller
/// knows (host values and constants in partitioning, elements read from the
/// operand in a kernel), those elements as index values in row-major order.
/// An op whose extents depend on an operand's values (Slice bounds, an
/// Expand or ConstantOfShape shape) reads them with `values(i)`.
class ShapeOperands {
public:
  ShapeOperands(llvm::ArrayRef<llvm::SmallVector<mlir::Value>> dims,
                llvm::ArrayRef<std::optional<llvm::SmallVector<mlir::Value>>>
                    values = {})
      : dims(dims), elementValues(values) {}

  const llvm::SmallVector<mlir::Value> &operator[](unsigned i) const {
    return dims[i];
  }
  size_t size() const { return dims.size(); }
  auto begin() const { return dims.begin(); }
  auto end() const { return dims.end(); }
  /// The elements of operand `i`, when the caller knows them.
  std::optional<llvm::ArrayRef<mlir::Value>> values(unsigned i) const {
    if (i < elementValues.size() && elementValues[i])
      return llvm::ArrayRef<mlir::Value>(*elementValues[i]);
    return std::nullopt;
  }

private:
  llvm::ArrayRef<llvm::SmallVector<mlir::Value>> dims;
  llvm::ArrayRef<std::optional<llvm::SmallVector<mlir::Value>>> elementValues;
};

} // namespace tessel

#include "dialects/Graph/ShapeContract.h.inc"

#endif // TESSEL_DIALECTS_GRAPH_SHAPECONTRACT_H
