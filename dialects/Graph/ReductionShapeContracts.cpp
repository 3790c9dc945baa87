//===- ReductionShapeContracts.cpp - Reductions and run-time axes --------===//
//
// The shape contracts of the reductions (Reduce*, ArgMax/ArgMin) and of the
// ops whose axes may be known only at run time (a reduction's dynamic_axes,
// tessel.squeeze/unsqueeze): from their values the host computes one 0/1
// flag per dim, and the result extents as arithmetic on the flags.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/ShapeBuilder.h"
#include "dialects/Graph/TesselDialect.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::contract;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

SmallVector<Value> tessel::reducedDimFlags(OpBuilder &b, Location loc,
                                           ArrayRef<Value> axes,
                                           int64_t rank) {
  ShapeBuilder s(b, loc);
  SmallVector<Value> flags;
  for (int64_t d = 0; d < rank; ++d) {
    Value flag = s.constant(0);
    for (Value axis : axes)
      flag = s.max(flag, s.add(s.equal(axis, s.constant(d)),
                               s.equal(axis, s.constant(d - rank))));
    flags.push_back(flag);
  }
  return flags;
}

SmallVector<Value> tessel::keptDimPositions(OpBuilder &b, Location loc,
                                            ArrayRef<Value> flags) {
  ShapeBuilder s(b, loc);
  SmallVector<Value> positions;
  Value kept = s.constant(0);
  for (Value flag : flags) {
    positions.push_back(kept);
    kept = s.add(kept, s.sub(s.constant(1), flag));
  }
  return positions;
}

/// The flags of reducedDimFlags for the run-time `axes` (operand `index`)
/// of `op` over `rank` dims, with the assumption that they name
/// `axes.size()` distinct dims; failure when the caller does not know them.
static FailureOr<SmallVector<Value>>
runtimeAxisFlags(Operation *op, OpBuilder &b, const ShapeOperands &operands,
                 unsigned index, int64_t rank,
                 SmallVectorImpl<ShapeAssumption> &assumptions) {
  std::optional<ArrayRef<Value>> axes = operands.values(index);
  if (!axes)
    return op->emitOpError("needs the values of its axes operand (an int64 "
                           "tensor of static length)");
  ShapeBuilder s(b, op->getLoc());
  SmallVector<Value> flags = reducedDimFlags(b, op->getLoc(), *axes, rank);
  Value named = s.constant(0);
  for (Value flag : flags)
    named = s.add(named, flag);
  int64_t count = axes->size();
  assumptions.push_back(
      {named, s.constant(count),
       "the " + std::to_string(count) + " axes must be distinct and in [" +
           std::to_string(-rank) + ", " + std::to_string(rank) + ")"});
  return flags;
}

/// The input's dims without the reduced ones (extent 1 with keepdims).
/// With run-time axes (always with keepdims), a dim's extent is
/// n - f * (n - 1) for its flag f.
template <typename ReduceOp>
static LogicalResult reduceContract(ReduceOp op, OpBuilder &b,
                                    const ShapeOperands &operands,
                                    SmallVectorImpl<Dims> &results,
                                    SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, op.getLoc());
  Dims dims;
  if (op.getDynamicAxes()) {
    const Dims &in = operands[0];
    FailureOr<SmallVector<Value>> flags =
        runtimeAxisFlags(op, b, operands, 1, in.size(), assumptions);
    if (failed(flags))
      return failure();
    for (auto [n, f] : llvm::zip(in, *flags))
      dims.push_back(s.sub(n, s.mul(f, s.sub(n, s.constant(1)))));
    addResult(s, op.getResult(), std::move(dims), results);
    return success();
  }
  for (auto [d, extent] : llvm::enumerate(operands[0])) {
    if (!llvm::is_contained(op.getAxes(), static_cast<int64_t>(d)))
      dims.push_back(extent);
    else if (op.getKeepdims())
      dims.push_back(s.constant(1));
  }
  addResult(s, op.getResult(), std::move(dims), results);
  return success();
}

#define REDUCE(Op)                                                             \
  LogicalResult Op::reifyShapeContract(                                        \
      OpBuilder &b, const ShapeOperands &operands,                             \
      SmallVectorImpl<Dims> &results,                                          \
      SmallVectorImpl<ShapeAssumption> &assumptions) {                         \
    return reduceContract(*this, b, operands, results, assumptions);           \
  }                                                                            \
  bool Op::isShapeOperand(unsigned index) { return index == 1; }
REDUCE(ReduceSumOp)
REDUCE(ReduceProdOp)
REDUCE(ReduceMeanOp)
REDUCE(ReduceMaxOp)
REDUCE(ReduceMinOp)
#undef REDUCE

/// ArgMax/ArgMin: the input's dims without the axis (1 with keepdims); the
/// axis must have an element to point at.
template <typename ArgOp>
static LogicalResult argReduceContract(ArgOp op, OpBuilder &b,
                                       const ShapeOperands &operands,
                                       SmallVectorImpl<Dims> &results,
                                       SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, op.getLoc());
  int64_t axis = op.getAxis();
  Value extent = operands[0][axis];
  assumptions.push_back({s.max(extent, s.constant(1)), extent,
                         "dim " + std::to_string(axis) +
                             " of input 0 (the searched axis) must not be "
                             "empty"});
  Dims dims(operands[0]);
  if (op.getKeepdims())
    dims[axis] = s.constant(1);
  else
    dims.erase(dims.begin() + axis);
  addResult(s, op.getResult(), std::move(dims), results);
  return success();
}

#define ARG_REDUCE(Op)                                                         \
  LogicalResult Op::reifyShapeContract(                                        \
      OpBuilder &b, const ShapeOperands &operands,                             \
      SmallVectorImpl<Dims> &results,                                          \
      SmallVectorImpl<ShapeAssumption> &assumptions) {                         \
    return argReduceContract(*this, b, operands, results, assumptions);        \
  }
ARG_REDUCE(ArgMaxOp)
ARG_REDUCE(ArgMinOp)
#undef ARG_REDUCE

//===----------------------------------------------------------------------===//
// Squeeze, Unsqueeze (run-time axes)
//===----------------------------------------------------------------------===//

LogicalResult
SqueezeOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,
                              SmallVectorImpl<Dims> &results,
                              SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  const Dims &in = operands[0];
  int64_t rank = in.size();
  FailureOr<SmallVector<Value>> flags =
      runtimeAxisFlags(*this, b, operands, 1, rank, assumptions);
  if (failed(flags))
    return failure();
  // Every named dim has extent 1: as many named dims of extent 1 as axes.
  Value ones = s.constant(0);
  for (auto [n, f] : llvm::zip(in, *flags))
    ones = s.add(ones, s.mul(f, s.equal(n, s.constant(1))));
  int64_t count = rank - getType().getRank();
  assumptions.push_back(
      {ones, s.constant(count), "every squeezed dim must have extent 1"});
  // Result dim j is the kept dim whose position among the kept is j.
  SmallVector<Value> positions = keptDimPositions(b, getLoc(), *flags);
  Dims dims;
  for (int64_t j = 0; j < rank - count; ++j) {
    Value extent = s.constant(0);
    for (int64_t d = 0; d < rank; ++d)
      extent = s.add(extent,
                     s.mul(in[d], s.mul(s.sub(s.constant(1), (*flags)[d]),
                                        s.equal(positions[d], s.constant(j)))));
    dims.push_back(extent);
  }
  addResult(s, getResult(), std::move(dims), results);
  return success();
}

bool SqueezeOp::isShapeOperand(unsigned index) { return index == 1; }

LogicalResult
UnsqueezeOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,
                                SmallVectorImpl<Dims> &results,
                                SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  const Dims &in = operands[0];
  int64_t rank = getType().getRank();
  FailureOr<SmallVector<Value>> flags =
      runtimeAxisFlags(*this, b, operands, 1, rank, assumptions);
  if (failed(flags))
    return failure();
  // Result dim j is 1 where an axis names it, else the input dim whose
  // index is the number of unnamed dims before j.
  SmallVector<Value> positions = keptDimPositions(b, getLoc(), *flags);
  Dims dims;
  for (int64_t j = 0; j < rank; ++j) {
    Value extent = s.constant(0);
    for (auto [d, n] : llvm::enumerate(in))
      extent = s.add(extent, s.mul(n, s.equal(positions[j],
                                              s.constant(int64_t(d)))));
    Value f = (*flags)[j];
    dims.push_back(s.add(f, s.mul(s.sub(s.constant(1), f), extent)));
  }
  addResult(s, getResult(), std::move(dims), results);
  return success();
}

bool UnsqueezeOp::isShapeOperand(unsigned index) { return index == 1; }
