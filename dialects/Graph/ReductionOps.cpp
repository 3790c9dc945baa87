//===- ReductionOps.cpp - Verifiers of the reductions ----------------------===//
//
// ReduceSum, ReduceMean, ReduceMax and ReduceMin: normalized axes, the
// result shape they imply, and the accumulator type each declares (see
// Tessel_ReduceOp in TesselOps.td).
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOpUtils.h"
#include "dialects/Graph/TesselDialect.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::graph_detail;

Type tessel::reductionAccumulator(Type element, bool sums, bool mean) {
  if (!sums)
    return element;
  MLIRContext *ctx = element.getContext();
  if (auto f = dyn_cast<FloatType>(element))
    return f.getWidth() < 32 ? Float32Type::get(ctx) : element;
  unsigned width = element.getIntOrFloatBitWidth();
  return IntegerType::get(ctx, mean || width > 32 ? 64 : 32);
}

/// The checks every reduction shares.
template <typename ReduceOp>
static LogicalResult verifyReduce(ReduceOp op, bool sums, bool mean) {
  RankedTensorType in = rankedType(op.getInput());
  Type element = in.getElementType();
  ArrayRef<int64_t> axes = op.getAxes();
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= in.getRank())
      return op.emitOpError("axis ")
             << axis << " is out of range for rank " << in.getRank();
    if (i > 0 && axes[i - 1] >= axis)
      return op.emitOpError("axes must be sorted and unique");
  }
  if (element.isInteger(1))
    return op.emitOpError("cannot reduce bools");
  Type acc = op.getAccType();
  if (acc != reductionAccumulator(element, sums, mean))
    return op.emitOpError("accumulates in ")
           << acc << ", expected " << reductionAccumulator(element, sums, mean)
           << " for " << element;
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (!llvm::is_contained(axes, d))
      expected.push_back(in.getDimSize(d));
    else if (op.getKeepdims())
      expected.push_back(1);
  }
  return checkShape(op, op.getType(), expected, "result");
}

LogicalResult ReduceSumOp::verify() { return verifyReduce(*this, true, false); }
LogicalResult ReduceMeanOp::verify() { return verifyReduce(*this, true, true); }
LogicalResult ReduceMaxOp::verify() { return verifyReduce(*this, false, false); }
LogicalResult ReduceMinOp::verify() { return verifyReduce(*this, false, false); }
