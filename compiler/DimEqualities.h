//===- DimEqualities.h - Operand dims an op requires to be equal -*- C++ -*-===//
//
// A broadcast of two dynamic dims, a contraction dim, Concat's other dims:
// the kernels assume such dims are equal. Partitioning asks this list for
// each op and turns every pair that is not known to hold into a run-time
// check of the plan (`plan.assert_eq`), so inputs of unequal extents are an
// error naming the node instead of an out-of-bounds access.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_DIMEQUALITIES_H
#define TESSEL_COMPILER_DIMEQUALITIES_H

#include "mlir/IR/Operation.h"

namespace tessel {

/// Dim `dim` of operand `operand`.
struct OperandDim {
  unsigned operand;
  int64_t dim;
};

/// Two operand dims that `op`'s kernel assumes equal.
struct DimEquality {
  OperandDim lhs, rhs;
};

/// The dims of its operands that `op` (a graph op) requires to be equal.
/// Fails, at the op, for an op whose requirements are not known: an op
/// without a case here cannot be partitioned (fail closed).
mlir::LogicalResult
collectDimEqualities(mlir::Operation *op,
                     llvm::SmallVectorImpl<DimEquality> &equalities);

} // namespace tessel

#endif // TESSEL_COMPILER_DIMEQUALITIES_H
