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

/// The shape contract of an elementwise op (ElementwiseOp.td): numpy
/// broadcasting of all its operands, a dynamic dim never broadcasting.
mlir::LogicalResult broadcastShapeContract(
    mlir::Operation *op, mlir::OpBuilder &b, const ShapeOperands &operands,
    llvm::SmallVectorImpl<llvm::SmallVector<mlir::Value>> &results,
    llvm::SmallVectorImpl<ShapeAssumption> &assumptions);

/// One element converted from `x` to `to` with CastOp's rules: floats to
/// integers truncate and saturate (NaN gives 0), anything to bool is
/// `!= 0`, integers are signed unless marked unsigned.
mlir::Value castScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       mlir::Type to, bool fromUnsigned, bool toUnsigned);

} // namespace tessel

#include "dialects/Graph/ElementwiseOp.h.inc"
#include "dialects/Graph/ShapeContract.h.inc"

#endif // TESSEL_DIALECTS_GRAPH_SHAPECONTRACT_H
