//===- LogicalOps.cpp - Comparisons, bool logic and Where ------------------===//
//
// Verifiers and folders of Equal, Less, LessOrEqual, Greater,
// GreaterOrEqual, And, Or, Xor, Not and Where. The folders evaluate integer
// and bool constants: exporters compute masks and shapes with these ops
// (PyTorch's `Where(Equal(shape, -1), ...)` around Expand), and the
// importer needs them as constants.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOpUtils.h"
#include "dialects/Graph/TesselDialect.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::graph_detail;

namespace {

/// Folds a comparison of integer (or bool) constants with `pred`, given
/// the two elements and whether they are unsigned.
OpFoldResult foldCompare(Operation *op, Attribute lhs, Attribute rhs,
                         bool isUnsigned,
                         bool (*pred)(const APInt &, const APInt &, bool)) {
  return foldIntBroadcast(op, {lhs, rhs}, [&](ArrayRef<APInt> x) {
    return APInt(1, pred(x[0], x[1], isUnsigned));
  });
}

} // namespace

#define COMPARE(Op, expr)                                                      \
  LogicalResult Op::verify() { return verifyBroadcastResult(*this); }          \
  OpFoldResult Op::fold(FoldAdaptor adaptor) {                                 \
    return foldCompare(*this, adaptor.getLhs(), adaptor.getRhs(),              \
                       getIsUnsigned(),                                        \
                       [](const APInt &x, const APInt &y, bool u) -> bool {    \
                         (void)u;                                              \
                         return expr;                                          \
                       });                                                     \
  }
COMPARE(EqualOp, x == y)
COMPARE(LessOp, u ? x.ult(y) : x.slt(y))
COMPARE(LessOrEqualOp, u ? x.ule(y) : x.sle(y))
COMPARE(GreaterOp, u ? x.ugt(y) : x.sgt(y))
COMPARE(GreaterOrEqualOp, u ? x.uge(y) : x.sge(y))
#undef COMPARE

#define LOGICAL(Op, expr)                                                      \
  LogicalResult Op::verify() { return verifyBroadcastResult(*this); }          \
  OpFoldResult Op::fold(FoldAdaptor adaptor) {                                 \
    return foldIntBroadcast(                                                   \
        *this, {adaptor.getLhs(), adaptor.getRhs()},                           \
        [](ArrayRef<APInt> v) -> std::optional<APInt> { return expr; });       \
  }
LOGICAL(AndOp, v[0] & v[1])
LOGICAL(OrOp, v[0] | v[1])
LOGICAL(XorOp, v[0] ^ v[1])
#undef LOGICAL

LogicalResult BitShiftOp::verify() { return verifyBroadcastResult(*this); }

LogicalResult BitcastOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto bits = [](Type t) {
    return t.isInteger(1) ? 8u : t.getIntOrFloatBitWidth();
  };
  if (bits(in.getElementType()) != bits(getType().getElementType()))
    return emitOpError("needs element types of one width, not ")
           << in.getElementType() << " and " << getType().getElementType();
  if (in.getShape() != getType().getShape())
    return emitOpError("result shape differs from the input's");
  return success();
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  // not(not(x)) = x
  if (auto inner = getInput().getDefiningOp<NotOp>())
    return inner.getInput();
  return foldIntBroadcast(*this, {adaptor.getInput()},
                          [](ArrayRef<APInt> v) -> std::optional<APInt> {
                            return ~v[0];
                          });
}

LogicalResult WhereOp::verify() { return verifyBroadcastResult(*this); }

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  // A condition that is all true (or all false) picks one operand, when no
  // broadcasting changes it.
  if (auto cond = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getCondition());
      cond && cond.isSplat()) {
    Value picked = cond.getSplatValue<APInt>().isOne() ? getX() : getY();
    if (picked.getType() == type)
      return picked;
  }
  // Everything constant: select element by element (any element type).
  auto cond = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getCondition());
  auto x = dyn_cast_or_null<DenseElementsAttr>(adaptor.getX());
  auto y = dyn_cast_or_null<DenseElementsAttr>(adaptor.getY());
  if (!cond || !x || !y || !type.hasStaticShape())
    return {};
  SmallVector<APInt> c(cond.getValues<APInt>());
  SmallVector<Attribute> xs(x.getValues<Attribute>()),
      ys(y.getValues<Attribute>());
  int64_t rank = type.getRank();
  SmallVector<int64_t> index(rank, 0);
  auto flatIndex = [&](RankedTensorType t) {
    int64_t flat = 0;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      int64_t i = index[rank - t.getRank() + d];
      flat = flat * t.getDimSize(d) + (t.getDimSize(d) == 1 ? 0 : i);
    }
    return flat;
  };
  SmallVector<Attribute> out;
  for (int64_t n = 0; n < type.getNumElements(); ++n) {
    out.push_back(c[flatIndex(cast<RankedTensorType>(cond.getType()))].isOne()
                      ? xs[flatIndex(cast<RankedTensorType>(x.getType()))]
                      : ys[flatIndex(cast<RankedTensorType>(y.getType()))]);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == type.getDimSize(d); --d)
      index[d] = 0;
  }
  return DenseElementsAttr::get(type, out);
}
