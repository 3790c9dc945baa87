//===- ControlFlowOps.cpp - If, Loop, dispatch regions and their yield -----===//
//
// Verifiers of the graph dialect's structured control flow. A branch or body
// yields tensors that the op's results (or the next iteration) receive:
// element types and ranks must agree exactly; a static dim must agree with
// a static dim on the other side, while a dynamic one on either side is
// bound or checked when the op runs.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/TesselDialect.h"

using namespace mlir;
using namespace tessel;

/// Whether a value of type `from` can be received where `to` is expected:
/// the same element type and rank, and equal dims where both are static.
static bool receivable(Type from, Type to) {
  auto a = cast<RankedTensorType>(from), b = cast<RankedTensorType>(to);
  if (a.getElementType() != b.getElementType() || a.getRank() != b.getRank())
    return false;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape()))
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return false;
  return true;
}

static LogicalResult verifyOneElement(Operation *op, Value v, StringRef what) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.hasStaticShape() && type.getNumElements() != 1)
    return op->emitOpError() << what << " must have one element, not "
                             << type.getNumElements();
  return success();
}

LogicalResult IfOp::verify() {
  if (failed(verifyOneElement(*this, getCond(), "the condition")))
    return failure();
  for (auto [name, region] : {std::pair<StringRef, Region *>{"then", &getThenRegion()},
                              {"else", &getElseRegion()}}) {
    auto yield = cast<YieldOp>(region->front().getTerminator());
    if (yield.getValues().size() != getNumResults())
      return emitOpError() << "the " << name << " branch yields "
                           << yield.getValues().size() << " values for "
                           << getNumResults() << " results";
    for (auto [i, v, r] : llvm::enumerate(yield.getValues(), getResults()))
      if (!receivable(v.getType(), r.getType()))
        return emitOpError() << "the " << name << " branch yields "
                             << v.getType() << " for result " << i
                             << " of type " << r.getType();
  }
  return success();
}

LogicalResult LoopOp::verify() {
  if (getTripCount() &&
      failed(verifyOneElement(*this, getTripCount(), "the trip count")))
    return failure();
  if (getCond() && failed(verifyOneElement(*this, getCond(), "the condition")))
    return failure();
  unsigned carried = getInits().size();
  if (getNumResults() < carried)
    return emitOpError() << "has " << getNumResults() << " results for "
                         << carried << " carried values";
  Block &body = getBody().front();
  auto i64 = RankedTensorType::get({}, IntegerType::get(getContext(), 64));
  auto i1 = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  if (body.getNumArguments() != carried + 2 ||
      body.getArgument(0).getType() != i64 ||
      body.getArgument(1).getType() != i1)
    return emitOpError() << "the body takes the iteration number "
                         << "(tensor<i64>), the condition (tensor<i1>) and "
                         << carried << " carried values";
  for (unsigned k = 0; k < carried; ++k) {
    Type arg = body.getArgument(k + 2).getType();
    if (!receivable(getInits()[k].getType(), arg) ||
        !receivable(arg, getResult(k).getType()))
      return emitOpError() << "carried value " << k << ": initial "
                           << getInits()[k].getType() << ", in the body "
                           << arg << ", result " << getResult(k).getType();
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  ValueRange yielded = yield.getValues();
  if (yielded.size() != 1 + getNumResults())
    return emitOpError() << "the body yields " << yielded.size()
                         << " values; it must yield the condition and "
                         << getNumResults() << " more";
  auto cond = cast<RankedTensorType>(yielded[0].getType());
  if (!cond.getElementType().isInteger(1) ||
      failed(verifyOneElement(*this, yielded[0], "the yielded condition")))
    return emitOpError() << "the body yields a condition of type " << cond;
  for (unsigned k = 0; k < carried; ++k)
    if (!receivable(yielded[1 + k].getType(), body.getArgument(k + 2).getType()))
      return emitOpError() << "the body yields " << yielded[1 + k].getType()
                           << " for carried value " << k << " of type "
                           << body.getArgument(k + 2).getType();
  for (unsigned k = carried; k < getNumResults(); ++k) {
    auto scan = cast<RankedTensorType>(yielded[1 + k].getType());
    auto result = cast<RankedTensorType>(getResult(k).getType());
    if (result.getRank() != scan.getRank() + 1 ||
        !receivable(RankedTensorType::get(
                        llvm::to_vector(llvm::concat<const int64_t>(
                            ArrayRef<int64_t>{result.getDimSize(0)},
                            scan.getShape())),
                        scan.getElementType()),
                    result))
      return emitOpError() << "scan output " << k - carried << ": the body "
                           << "yields " << scan << ", the result is "
                           << result;
  }
  return success();
}

LogicalResult DispatchRegionOp::verify() {
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().getTypes()
                         << " for results of types " << getResultTypes();
  for (Operation &op : getBody().front().without_terminator())
    if (op.getNumRegions() != 0)
      return emitOpError() << "holds '" << op.getName()
                           << "', an op with regions";
  return success();
}
