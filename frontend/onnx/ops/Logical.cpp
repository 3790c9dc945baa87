//===- Logical.cpp - Comparisons, Not/And/Or/Xor, Where --------------------===//
//
// Equal, Less, LessOrEqual, Greater and GreaterOrEqual compare numbers (and
// Equal bools) with numpy broadcasting into bool; Not, And, Or and Xor work
// on bools; Where selects between two tensors of any one type. Integer and
// bool constants fold while importing (setOutput), so the masks and shapes
// exporters compute with them become constants.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImportContext.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

namespace {

/// The broadcast result type of inputs `which` with element type `element`.
FailureOr<RankedTensorType> broadcastType(NodeContext &n,
                                          ArrayRef<int> which, Type element) {
  SmallVector<int64_t> shape;
  for (int i : which) {
    FailureOr<SmallVector<int64_t>> s =
        broadcastShapes(shape, n.inputType(i).getShape());
    if (failed(s))
      return n.error("input shapes do not broadcast");
    shape = *s;
  }
  return RankedTensorType::get(shape, element);
}

template <typename Op> LogicalResult importCompare(NodeContext &n) {
  Value lhs = n.input(0), rhs = lhs ? n.input(1) : Value();
  if (!rhs)
    return failure();
  Type a = n.inputType(0).getElementType(), b = n.inputType(1).getElementType();
  if (a != b || isUnsigned(n.inputOnnxType(0)) != isUnsigned(n.inputOnnxType(1)))
    return n.error("inputs have different element types");
  if (!a.isIntOrFloat() || (a.isInteger(1) && !std::is_same_v<Op, EqualOp>))
    return n.error("unsupported element type");
  FailureOr<RankedTensorType> type = broadcastType(n, {0, 1}, n.b.getI1Type());
  if (failed(type))
    return failure();
  auto op = Op::create(n.b, n.loc, *type, lhs, rhs,
                       isUnsigned(n.inputOnnxType(0)));
  n.setOutput(0, op, onnx::TensorProto::BOOL);
  return success();
}

/// The inputs `which` of a bool op; an error unless they are bools.
LogicalResult boolInputs(NodeContext &n, ArrayRef<int> which) {
  for (int i : which) {
    if (!n.input(i))
      return failure();
    if (n.inputOnnxType(i) != onnx::TensorProto::BOOL)
      return n.error("input " + Twine(i) + " must be bool");
  }
  return success();
}

template <typename Op> LogicalResult importLogical(NodeContext &n) {
  if (failed(boolInputs(n, {0, 1})))
    return failure();
  FailureOr<RankedTensorType> type = broadcastType(n, {0, 1}, n.b.getI1Type());
  if (failed(type))
    return failure();
  n.setOutput(0, Op::create(n.b, n.loc, *type, n.input(0), n.input(1)),
              onnx::TensorProto::BOOL);
  return success();
}

LogicalResult importNot(NodeContext &n) {
  if (failed(boolInputs(n, {0})))
    return failure();
  n.setOutput(0, NotOp::create(n.b, n.loc, n.input(0)),
              onnx::TensorProto::BOOL);
  return success();
}

/// The inputs `which` of a bitwise op: integers (not bool) of one type.
LogicalResult integerInputs(NodeContext &n, ArrayRef<int> which) {
  for (int i : which) {
    if (!n.input(i))
      return failure();
    Type t = n.inputType(i).getElementType();
    if (!t.isSignlessInteger() || t.isInteger(1))
      return n.error("input " + Twine(i) + " must be an integer");
    if (n.inputOnnxType(i) != n.inputOnnxType(which[0]))
      return n.error("inputs have different element types");
  }
  return success();
}

/// BitwiseAnd/Or/Xor-18: the logical ops on integers, bit by bit.
template <typename Op> LogicalResult importBitwise(NodeContext &n) {
  if (failed(integerInputs(n, {0, 1})))
    return failure();
  FailureOr<RankedTensorType> type =
      broadcastType(n, {0, 1}, n.inputType(0).getElementType());
  if (failed(type))
    return failure();
  n.setOutput(0, Op::create(n.b, n.loc, *type, n.input(0), n.input(1)));
  return success();
}

LogicalResult importBitwiseNot(NodeContext &n) {
  if (failed(integerInputs(n, {0})))
    return failure();
  n.setOutput(0, NotOp::create(n.b, n.loc, n.input(0)));
  return success();
}

/// BitShift-11: unsigned integers shifted LEFT or RIGHT.
LogicalResult importBitShift(NodeContext &n) {
  if (failed(integerInputs(n, {0, 1})))
    return failure();
  if (!isUnsigned(n.inputOnnxType(0)))
    return n.error("BitShift takes unsigned integers");
  std::string direction = n.getString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return n.error("direction must be LEFT or RIGHT, not '" + direction + "'");
  FailureOr<RankedTensorType> type =
      broadcastType(n, {0, 1}, n.inputType(0).getElementType());
  if (failed(type))
    return failure();
  n.setOutput(0, BitShiftOp::create(n.b, n.loc, *type, n.input(0), n.input(1),
                                    direction == "LEFT"));
  return success();
}

/// BitCast-26: the input's bits as ONNX type `to`, of the same width.
LogicalResult importBitCast(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int32_t to = static_cast<int32_t>(n.getInt("to", 0));
  Type element = n.ctx.elementType(to);
  if (!element || isNarrowFormat(to))
    return n.unsupported("BitCast to ONNX data type " + Twine(to) +
                         " is not supported");
  Type from = n.inputType(0).getElementType();
  auto bits = [](Type t) {
    return t.isInteger(1) ? 8u : t.getIntOrFloatBitWidth();
  };
  if (bits(from) != bits(element))
    return n.error("BitCast needs types of one width: " + Twine(bits(from)) +
                   " bits to " + Twine(bits(element)));
  auto type = RankedTensorType::get(n.inputType(0).getShape(), element);
  n.setOutput(0, BitcastOp::create(n.b, n.loc, type, x), to);
  return success();
}

LogicalResult importWhere(NodeContext &n) {
  if (failed(boolInputs(n, {0})) || !n.input(1) || !n.input(2))
    return failure();
  Type element = n.inputType(1).getElementType();
  if (element != n.inputType(2).getElementType())
    return n.error("X and Y have different element types");
  FailureOr<RankedTensorType> type = broadcastType(n, {0, 1, 2}, element);
  if (failed(type))
    return failure();
  n.setOutput(0,
              WhereOp::create(n.b, n.loc, *type, n.input(0), n.input(1),
                              n.input(2)),
              n.inputOnnxType(1));
  return success();
}

} // namespace

void onnx_import::registerLogicalOps(OpRegistry &r) {
  // Before 7 these broadcast only with the legacy `broadcast` attribute;
  // later versions add element types (Equal-19 strings, which the dialect
  // has no type for).
  r.add("Equal", 7, importCompare<EqualOp>);
  r.add("Less", 7, importCompare<LessOp>);
  r.add("Greater", 7, importCompare<GreaterOp>);
  r.add("LessOrEqual", 12, importCompare<LessOrEqualOp>);
  r.add("GreaterOrEqual", 12, importCompare<GreaterOrEqualOp>);
  r.add("And", 7, importLogical<AndOp>);
  r.add("Or", 7, importLogical<OrOp>);
  r.add("Xor", 7, importLogical<XorOp>);
  r.add("Not", 1, importNot);
  r.add("BitwiseAnd", 18, importBitwise<AndOp>);
  r.add("BitwiseOr", 18, importBitwise<OrOp>);
  r.add("BitwiseXor", 18, importBitwise<XorOp>);
  r.add("BitwiseNot", 18, importBitwiseNot);
  r.add("BitShift", 11, importBitShift);
  r.add("BitCast", 26, importBitCast);
  // Where-16 adds bfloat16.
  r.add("Where", 9, importWhere);
}
