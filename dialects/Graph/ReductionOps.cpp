//===- ReductionOps.cpp - Verifiers of the reductions and LayerNorm -------===//
//
// ReduceSum, ReduceProd, ReduceMean, ReduceMax and ReduceMin: normalized
// axes (or a run-time axes operand of static length), the
// result shape they imply, and the accumulator type each declares (see
// Tessel_ReduceOp in TesselOps.td); ArgMax and ArgMin. LayerNormalization,
// whose statistics
// are reductions with a declared accumulator too.
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
  if (Value dynamic = op.getDynamicAxes()) {
    int64_t count = rankedType(dynamic).getDimSize(0);
    if (!axes.empty())
      return op.emitOpError("has both axes and dynamic_axes");
    if (ShapedType::isDynamic(count) || count < 1 || count > in.getRank())
      return op.emitOpError("dynamic_axes must have a static length in [1, ")
             << in.getRank() << "]";
    // Without keepdims, the importer squeezes the result (tessel.squeeze).
    if (!op.getKeepdims())
      return op.emitOpError("with dynamic_axes must keep the reduced dims");
    if (op.getType().getRank() != in.getRank())
      return op.emitOpError("result has rank ")
             << op.getType().getRank() << ", expected " << in.getRank();
  }
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
  if (op.getDynamicAxes())
    return success(); // which dims the result keeps is known at run time
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
LogicalResult ReduceProdOp::verify() {
  return verifyReduce(*this, true, false);
}
LogicalResult ReduceMeanOp::verify() { return verifyReduce(*this, true, true); }
LogicalResult ReduceMaxOp::verify() { return verifyReduce(*this, false, false); }
LogicalResult ReduceMinOp::verify() { return verifyReduce(*this, false, false); }

template <typename ArgOp> static LogicalResult verifyArgReduce(ArgOp op) {
  RankedTensorType in = rankedType(op.getInput());
  int64_t axis = op.getAxis();
  if (axis < 0 || axis >= in.getRank())
    return op.emitOpError("axis ")
           << axis << " is out of range for rank " << in.getRank();
  if (in.getElementType().isInteger(1))
    return op.emitOpError("cannot compare bools");
  SmallVector<int64_t> expected(in.getShape());
  if (op.getKeepdims())
    expected[axis] = 1;
  else
    expected.erase(expected.begin() + axis);
  return checkShape(op, op.getType(), expected, "result");
}

LogicalResult ArgMaxOp::verify() { return verifyArgReduce(*this); }
LogicalResult ArgMinOp::verify() { return verifyArgReduce(*this); }

LogicalResult LayerNormOp::verify() {
  RankedTensorType in = rankedType(getInput());
  int64_t rank = in.getRank(), axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  auto acc = dyn_cast<FloatType>(getAccType());
  if (!acc || acc.getWidth() < 32)
    return emitOpError("accumulates in ")
           << getAccType() << ", expected f32 or f64";
  for (Value v : {getScale(), getBias()}) {
    if (!v)
      continue;
    RankedTensorType t = rankedType(v);
    StringRef name = v == getScale() ? "scale" : "bias";
    if (t.getElementType() != in.getElementType())
      return emitOpError(name) << " has another element type than the input";
    if (t.getRank() > rank)
      return emitOpError(name) << " has rank " << t.getRank()
                               << ", more than the input's " << rank;
    for (int64_t j = 0; j < t.getRank(); ++j) {
      int64_t d = t.getDimSize(j), x = in.getDimSize(rank - t.getRank() + j);
      if (d != 1 && !runtimeChecked(d, x))
        return emitOpError(name) << " dim " << j << " is " << d
                                 << ", which does not broadcast to " << x;
    }
  }
  if (failed(checkShape(*this, rankedType(getResult()), in.getShape(),
                        "result")))
    return failure();
  if (rankedType(getResult()).getElementType() != in.getElementType())
    return emitOpError("result element type differs from the input's");
  SmallVector<int64_t> stats(in.getShape().take_front(axis));
  stats.append(rank - axis, 1);
  for (Value v : {getMean(), getInvStdDev()}) {
    if (failed(checkShape(*this, rankedType(v), stats,
                          v == getMean() ? "mean" : "inv_std_dev")))
      return failure();
    if (rankedType(v).getElementType() != acc)
      return emitOpError("mean and inv_std_dev must have type acc_type");
  }
  return success();
}
