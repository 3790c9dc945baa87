//===- Elementwise.cpp - Arithmetic, activations, Pow, Clip, Cast ----------===//
//
// Binary arithmetic with numpy broadcasting (Pow included), the float
// unary ops (activations, Sqrt, Erf), Clip and Cast.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImportContext.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

namespace {

template <typename Op> LogicalResult importBinary(NodeContext &n) {
  Value lhs = n.input(0), rhs = n.input(1);
  if (!lhs || !rhs)
    return failure();
  RankedTensorType a = n.inputType(0), b = n.inputType(1);
  if (a.getElementType() != b.getElementType())
    return n.error("operands have different element types");
  if (!a.getElementType().isIntOrFloat() || a.getElementType().isInteger(1))
    return n.error("unsupported element type");
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(a.getShape(), b.getShape());
  if (failed(shape))
    return n.error("operand shapes do not broadcast");
  auto type = RankedTensorType::get(*shape, a.getElementType());
  auto op = Op::create(n.b, n.loc, type, lhs, rhs);
  if constexpr (std::is_same_v<Op, DivOp>)
    op.setIsUnsigned(isUnsigned(n.inputOnnxType(0)));
  n.setOutput(0, op);
  return success();
}

template <typename Op> LogicalResult importUnary(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  if (!isa<FloatType>(n.inputType(0).getElementType()))
    return n.error("expects a floating-point input");
  n.setOutput(0, Op::create(n.b, n.loc, x));
  return success();
}

/// Pow: a float base; the exponent is converted to the base's type when
/// it has another (Pow-12 allows integer exponents; an integral exponent up
/// to 2^24 converts exactly to float, larger ones overflow any base but
/// 0 and +-1).
LogicalResult importPow(NodeContext &n) {
  Value base = n.input(0), exponent = base ? n.input(1) : Value();
  if (!exponent)
    return failure();
  RankedTensorType bt = n.inputType(0), et = n.inputType(1);
  if (!isa<FloatType>(bt.getElementType()))
    return n.unsupported("Pow with an integer base is not supported (only "
                         "floating-point bases)");
  if (et.getElementType().isInteger(1) || !et.getElementType().isIntOrFloat())
    return n.error("the exponent must be a number");
  if (et.getElementType() != bt.getElementType()) {
    auto type = RankedTensorType::get(et.getShape(), bt.getElementType());
    exponent = CastOp::create(n.b, n.loc, type, exponent,
                              isUnsigned(n.inputOnnxType(1)), false);
  }
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(bt.getShape(), et.getShape());
  if (failed(shape))
    return n.error("operand shapes do not broadcast");
  auto type = RankedTensorType::get(*shape, bt.getElementType());
  n.setOutput(0, PowOp::create(n.b, n.loc, type, base, exponent));
  return success();
}

/// Cast to the ONNX type `to`; types the dialect has no element type for
/// (strings, float8, 4-bit) are unsupported, not invalid.
LogicalResult importCast(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  const onnx::AttributeProto *toAttr = n.attr("to");
  if (!toAttr)
    return n.error("missing attribute 'to'");
  int32_t to = static_cast<int32_t>(toAttr->i());
  Type element = n.ctx.elementType(to);
  if (!element)
    return n.unsupported("Cast to ONNX data type " + Twine(to) +
                         " is not supported");
  RankedTensorType in = n.inputType(0);
  auto type = RankedTensorType::get(in.getShape(), element);
  auto op = CastOp::create(n.b, n.loc, type, x, isUnsigned(n.inputOnnxType(0)),
                           isUnsigned(to));
  n.setOutput(0, op, to);
  return success();
}

/// Clip: bounds from attributes (opsets 6-10) or from optional scalar
/// inputs (11+); an absent bound does not bound.
LogicalResult importClip(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  Type element = n.inputType(0).getElementType();
  if (!element.isIntOrFloat() || element.isInteger(1) ||
      (n.opset < 11 && !isa<FloatType>(element)))
    return n.error("unsupported element type");
  Value bounds[2];
  for (auto [i, name] : {std::pair{1, "min"}, std::pair{2, "max"}}) {
    Value &bound = bounds[i - 1];
    if (n.opset < 11) {
      if (const onnx::AttributeProto *a = n.attr(name))
        bound = ConstantOp::create(
            n.b, n.loc,
            DenseElementsAttr::get(RankedTensorType::get({}, element),
                                   FloatAttr::get(element, a->f())));
    } else if (n.hasInput(i)) {
      bound = n.input(i);
      if (!bound)
        return failure();
      RankedTensorType t = n.inputType(i);
      if (t.getRank() != 0 || t.getElementType() != element)
        return n.error(Twine(name) +
                       " must be a scalar of the input's element type");
    }
  }
  auto op = ClipOp::create(n.b, n.loc, n.inputType(0), x, bounds[0],
                           bounds[1], isUnsigned(n.inputOnnxType(0)));
  n.setOutput(0, op);
  return success();
}

} // namespace

void onnx_import::registerElementwiseOps(OpRegistry &r) {
  // Opsets 1 and 6 broadcast only with the legacy `broadcast`/`axis`
  // attributes; numpy broadcasting starts at 7.
  r.add("Add", 7, importBinary<AddOp>);
  r.add("Sub", 7, importBinary<SubOp>);
  r.add("Mul", 7, importBinary<MulOp>);
  r.add("Div", 7, importBinary<DivOp>);
  // Later versions only add element types (opset 1's consumed_inputs is a
  // legacy hint without effect).
  r.add("Relu", 1, importUnary<ReluOp>);
  r.add("Sigmoid", 1, importUnary<SigmoidOp>);
  r.add("Tanh", 1, importUnary<TanhOp>);
  r.add("Sqrt", 1, importUnary<SqrtOp>);
  r.add("Erf", 9, importUnary<ErfOp>);
  // Pow-7 broadcasts (numpy); 12 lets the exponent have another type, 13
  // and 15 add bfloat16.
  r.add("Pow", 7, importPow);
  // Clip-6 takes its bounds as attributes; from 11 as optional inputs, and
  // 12 adds integer types (read at any version from 11).
  r.add("Clip", 6, importClip);
  // Cast-6 names `to` by data type number; 13 and 19 add types (bfloat16,
  // float8), which the handler accepts or reports per type.
  r.add("Cast", 6, importCast);
}
