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

/// A number: an integer or float element type, not bool.
bool isNumber(Type element) {
  return element.isIntOrFloat() && !element.isInteger(1);
}

/// `Op` of two operands `a` and `b` with numpy broadcasting, built at the
/// node; fails with an error when their shapes do not broadcast.
template <typename Op>
FailureOr<Value> broadcastBinary(NodeContext &n, Value a, Value b) {
  auto at = cast<RankedTensorType>(a.getType()),
       bt = cast<RankedTensorType>(b.getType());
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(at.getShape(), bt.getShape());
  if (failed(shape))
    return n.error("operand shapes do not broadcast");
  auto type = RankedTensorType::get(*shape, at.getElementType());
  return Op::create(n.b, n.loc, type, a, b).getResult();
}

template <typename Op> LogicalResult importBinary(NodeContext &n) {
  Value lhs = n.input(0), rhs = n.input(1);
  if (!lhs || !rhs)
    return failure();
  Type element = n.inputType(0).getElementType();
  if (element != n.inputType(1).getElementType())
    return n.error("operands have different element types");
  if (!isNumber(element))
    return n.error("unsupported element type");
  FailureOr<Value> result = broadcastBinary<Op>(n, lhs, rhs);
  if (failed(result))
    return failure();
  if constexpr (std::is_same_v<Op, DivOp>)
    cast<DivOp>(result->getDefiningOp())
        .setIsUnsigned(isUnsigned(n.inputOnnxType(0)));
  n.setOutput(0, *result);
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

/// IsNaN, IsInf: a bool per float element.
LogicalResult importIsNaN(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  RankedTensorType t = n.inputType(0);
  if (!isa<FloatType>(t.getElementType()))
    return n.error("expects a floating-point input");
  auto type = RankedTensorType::get(t.getShape(), n.b.getI1Type());
  n.setOutput(0, IsNaNOp::create(n.b, n.loc, type, x), onnx::TensorProto::BOOL);
  return success();
}

LogicalResult importIsInf(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  RankedTensorType t = n.inputType(0);
  if (!isa<FloatType>(t.getElementType()))
    return n.error("expects a floating-point input");
  auto type = RankedTensorType::get(t.getShape(), n.b.getI1Type());
  n.setOutput(0,
              IsInfOp::create(n.b, n.loc, type, x,
                              n.getInt("detect_negative", 1) != 0,
                              n.getInt("detect_positive", 1) != 0),
              onnx::TensorProto::BOOL);
  return success();
}

/// A float unary op with float attributes: ONNX's name and default each,
/// in the op's order.
template <typename Op, typename... Attrs>
LogicalResult importUnaryWith(NodeContext &n, Attrs... attrs) {
  Value x = n.input(0);
  if (!x)
    return failure();
  if (!isa<FloatType>(n.inputType(0).getElementType()))
    return n.error("expects a floating-point input");
  n.setOutput(0, Op::create(n.b, n.loc, x,
                            n.b.getF32FloatAttr(n.getFloat(attrs.first,
                                                           attrs.second))...));
  return success();
}

LogicalResult importLeakyRelu(NodeContext &n) {
  return importUnaryWith<LeakyReluOp>(n, std::pair{"alpha", 0.01f});
}
LogicalResult importElu(NodeContext &n) {
  return importUnaryWith<EluOp>(n, std::pair{"alpha", 1.0f});
}
LogicalResult importCelu(NodeContext &n) {
  return importUnaryWith<CeluOp>(n, std::pair{"alpha", 1.0f});
}
LogicalResult importSelu(NodeContext &n) {
  return importUnaryWith<SeluOp>(n, std::pair{"alpha", 1.67326319217681884765625f},
                                 std::pair{"gamma", 1.05070102214813232421875f});
}
LogicalResult importHardSigmoid(NodeContext &n) {
  return importUnaryWith<HardSigmoidOp>(n, std::pair{"alpha", 0.2f},
                                        std::pair{"beta", 0.5f});
}
LogicalResult importThresholdedRelu(NodeContext &n) {
  return importUnaryWith<ThresholdedReluOp>(n, std::pair{"alpha", 1.0f});
}

/// Neg, Abs, Sign: numbers of any type (bool is not a number).
template <typename Op> LogicalResult importNumericUnary(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  Type element = n.inputType(0).getElementType();
  if (!isNumber(element))
    return n.error("expects a numeric input");
  auto op = Op::create(n.b, n.loc, x);
  op.setIsUnsigned(isUnsigned(n.inputOnnxType(0)));
  n.setOutput(0, op);
  return success();
}

/// Max, Min, Sum, Mean (opset 8+): a chain of the binary op over all inputs
/// in order, with numpy broadcasting; Mean divides the sum by the count.
template <typename Op, bool mean = false>
LogicalResult importVariadic(NodeContext &n) {
  if (n.numInputs() < 1)
    return n.error("expects at least one input");
  Value acc = n.input(0);
  if (!acc)
    return failure();
  Type element = n.inputType(0).getElementType();
  if (!isNumber(element))
    return n.error("expects numeric inputs");
  if (mean && !isa<FloatType>(element))
    return n.error("Mean expects floating-point inputs");
  bool isUns = isUnsigned(n.inputOnnxType(0));
  for (int i = 1; i < n.numInputs(); ++i) {
    Value next = n.input(i);
    if (!next)
      return failure();
    if (n.inputType(i).getElementType() != element)
      return n.error("inputs have different element types");
    FailureOr<Value> r = broadcastBinary<Op>(n, acc, next);
    if (failed(r))
      return failure();
    if constexpr (std::is_same_v<Op, MaxOp> || std::is_same_v<Op, MinOp>)
      cast<Op>(r->getDefiningOp()).setIsUnsigned(isUns);
    acc = *r;
  }
  if (mean && n.numInputs() > 1) {
    auto count = ConstantOp::create(
        n.b, n.loc,
        DenseElementsAttr::get(RankedTensorType::get({}, element),
                               FloatAttr::get(element, n.numInputs())));
    FailureOr<Value> r = broadcastBinary<DivOp>(n, acc, count);
    if (failed(r))
      return failure();
    acc = *r;
  }
  if (n.numInputs() == 1)
    acc = IdentityOp::create(n.b, n.loc, acc);
  n.setOutput(0, acc);
  return success();
}

/// Mod: integers floored (fmod 0, Python's %) or truncated (fmod 1);
/// floats only with fmod 1, as ONNX requires.
LogicalResult importMod(NodeContext &n) {
  Value a = n.input(0), b = a ? n.input(1) : Value();
  if (!b)
    return failure();
  Type element = n.inputType(0).getElementType();
  if (element != n.inputType(1).getElementType())
    return n.error("operands have different element types");
  if (!isNumber(element))
    return n.error("expects numeric inputs");
  bool fmod = n.getInt("fmod", 0) != 0;
  if (!fmod && isa<FloatType>(element))
    return n.error("floating-point inputs need fmod = 1");
  FailureOr<Value> r = broadcastBinary<ModOp>(n, a, b);
  if (failed(r))
    return failure();
  auto op = cast<ModOp>(r->getDefiningOp());
  op.setFmod(fmod);
  op.setIsUnsigned(isUnsigned(n.inputOnnxType(0)));
  n.setOutput(0, op);
  return success();
}

/// Pow of an integer base (Pow-12): the result has the base's type.
/// A float exponent: pow in f64, truncated toward zero (ONNX Runtime's
/// std::pow and cast), a result within 1e-9 relative of an integer taken
/// as that integer (so that exact powers stay exact where pow is not). An
/// integer one: exact powers by squaring, wrapping in the base's width as
/// numpy's integer power does, one step per bit the exponent can have (as
/// many as a constant one has); a negative exponent gives the truncated
/// 1 / base^-e: 1 for base 1, +-1 for base -1 (signed bases only), else 0.
LogicalResult importIntegerPow(NodeContext &n, Value base, Value exponent) {
  RankedTensorType bt = n.inputType(0), et = n.inputType(1);
  Type element = bt.getElementType();
  bool baseUnsigned = isUnsigned(n.inputOnnxType(0)),
       expUnsigned = isUnsigned(n.inputOnnxType(1));
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(bt.getShape(), et.getShape());
  if (failed(shape))
    return n.error("operand shapes do not broadcast");
  auto resultType = RankedTensorType::get(*shape, element);
  OpBuilder &b = n.b;
  Location loc = n.loc;
  if (isa<FloatType>(et.getElementType())) {
    Type f64 = b.getF64Type();
    Value x = CastOp::create(b, loc, bt.clone(f64), base, baseUnsigned, false);
    Value y = CastOp::create(b, loc, et.clone(f64), exponent, false, false);
    auto wide = resultType.clone(f64);
    Value p = PowOp::create(b, loc, wide, x, y);
    // A power that is an integer (an integral exponent, 4^0.5) must not
    // truncate to the integer below when pow is a few ulp short of it (the
    // GPUs' exp(y log x)): within 1e-9 relative of an integer it is one.
    auto f64Scalar = [&](double v) -> Value {
      auto type = RankedTensorType::get({}, f64);
      return ConstantOp::create(b, loc,
                                DenseElementsAttr::get(type, APFloat(v)));
    };
    Value nearest = RoundOp::create(b, loc, p);
    Value gap = AbsOp::create(b, loc, SubOp::create(b, loc, wide, p, nearest));
    Value scale = MaxOp::create(b, loc, wide,
                                AbsOp::create(b, loc, nearest), f64Scalar(1));
    Value tolerance = MulOp::create(b, loc, wide, scale, f64Scalar(1e-9));
    Value close = LessOrEqualOp::create(b, loc, wide.clone(b.getI1Type()),
                                        gap, tolerance);
    Value snapped = WhereOp::create(b, loc, wide, close, nearest, p);
    n.setOutput(0,
                CastOp::create(b, loc, resultType, snapped, false, baseUnsigned));
    return success();
  }
  // The exponent as i64; its magnitude's bits are the squaring steps.
  Type i64 = b.getI64Type();
  Value e = et.getElementType() == i64
                ? exponent
                : CastOp::create(b, loc, et.clone(i64), exponent, expUnsigned,
                                 false)
                      .getResult();
  int64_t steps = et.getElementTypeBitWidth() - (expUnsigned ? 0 : 1);
  if (std::optional<DenseElementsAttr> c = n.constantInput(1)) {
    uint64_t largest = 0;
    for (const APInt &v : c->getValues<APInt>())
      largest = std::max<uint64_t>(
          largest, expUnsigned ? v.getZExtValue()
                               : uint64_t(std::max<int64_t>(v.getSExtValue(), 0)));
    steps = std::max<int64_t>(llvm::bit_width(largest), 1);
  }
  auto scalar = [&](Type t, int64_t v) -> Value {
    auto type = RankedTensorType::get({}, t);
    return ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, APInt(t.getIntOrFloatBitWidth(),
                                                   uint64_t(v), true)));
  };
  auto typeOf = [](Value v) { return cast<RankedTensorType>(v.getType()); };
  auto broadcastType = [&](Value x, Value y, Type elem) {
    return RankedTensorType::get(
        *broadcastShapes(typeOf(x).getShape(), typeOf(y).getShape()), elem);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return MulOp::create(b, loc, broadcastType(x, y, element), x, y);
  };
  auto select = [&](Value c, Value x, Value y) -> Value {
    SmallVector<int64_t> s(*broadcastShapes(typeOf(c).getShape(),
                                            typeOf(x).getShape()));
    s = *broadcastShapes(s, typeOf(y).getShape());
    return WhereOp::create(b, loc, RankedTensorType::get(s, element), c, x, y);
  };
  Value zero64 = scalar(i64, 0), one64 = scalar(i64, 1), two64 = scalar(i64, 2);
  auto isOdd = [&](Value k) -> Value {
    auto mod = ModOp::create(b, loc, typeOf(k), k, two64);
    return EqualOp::create(b, loc, typeOf(k).clone(b.getI1Type()), mod, one64);
  };
  Value negative =
      LessOp::create(b, loc, typeOf(e).clone(b.getI1Type()), e, zero64);
  Value k = MaxOp::create(b, loc, typeOf(e), e, zero64);
  Value one = scalar(element, 1);
  Value result = one, square = base;
  for (int64_t i = 0; i < steps; ++i) {
    result = select(isOdd(k), mul(result, square), result);
    if (i + 1 < steps) {
      square = mul(square, square);
      k = DivOp::create(b, loc, typeOf(k), k, two64);
    }
  }
  // Negative exponents: 1 / base^-e truncated.
  Value minusOne = scalar(element, -1);
  Value isOne =
      EqualOp::create(b, loc, bt.clone(b.getI1Type()), base, one);
  Value isMinusOne =
      EqualOp::create(b, loc, bt.clone(b.getI1Type()), base, minusOne);
  Value signOfMinusOne = select(isOdd(e), minusOne, one);
  // An unsigned base has no -1 (its all-ones value is the largest, whose
  // reciprocal truncates to 0).
  Value reciprocal =
      baseUnsigned
          ? select(isOne, one, scalar(element, 0))
          : select(isOne, one,
                   select(isMinusOne, signOfMinusOne, scalar(element, 0)));
  if (!baseUnsigned || !expUnsigned)
    result = select(negative, reciprocal, result);
  // At least one step broadcasts the base against the exponent.
  assert(typeOf(result) == resultType && "the steps broadcast to the result");
  n.setOutput(0, result);
  return success();
}

/// Pow: a float base; the exponent is converted to the base's type when
/// it has another (Pow-12 allows integer exponents; an integral exponent up
/// to 2^24 converts exactly to float, larger ones overflow any base but
/// 0 and +-1). An integer base: importIntegerPow.
LogicalResult importPow(NodeContext &n) {
  Value base = n.input(0), exponent = base ? n.input(1) : Value();
  if (!exponent)
    return failure();
  RankedTensorType bt = n.inputType(0), et = n.inputType(1);
  if (et.getElementType().isInteger(1) || !et.getElementType().isIntOrFloat() ||
      bt.getElementType().isInteger(1) || !bt.getElementType().isIntOrFloat())
    return n.error("the base and the exponent must be numbers");
  if (!isa<FloatType>(bt.getElementType()))
    return importIntegerPow(n, base, exponent);
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

/// A Cast of `x` to ONNX type `to`: the unsigned marks, and for a narrow
/// format (float8, float4, 4- and 2-bit integers: i8 elements) the formats
/// and Cast's `saturate` (19+) and `round_mode` (25+, float8 E8M0).
LogicalResult buildCast(NodeContext &n, Value x, int32_t to, Type element) {
  int32_t from = n.inputOnnxType(0);
  auto type = RankedTensorType::get(n.inputType(0).getShape(), element);
  auto op = CastOp::create(n.b, n.loc, type, x, isUnsigned(from),
                           isUnsigned(to));
  if (isNarrowFormat(from))
    op.setInputFormat(from);
  if (isNarrowFormat(to))
    op.setResultFormat(to);
  op.setSaturate(n.getInt("saturate", 1) != 0);
  std::string roundMode = n.getString("round_mode", "up");
  if (roundMode != "up" && roundMode != "down" && roundMode != "nearest")
    return n.error("round_mode must be 'up', 'down' or 'nearest', not '" +
                   roundMode + "'");
  op.setE8m0Rounding(roundMode == "up" ? 0 : roundMode == "down" ? 1 : 2);
  n.setOutput(0, op, to);
  return success();
}

/// Cast to the ONNX type `to`; types the dialect has no element type for
/// (strings) are unsupported, not invalid.
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
  return buildCast(n, x, to, element);
}

/// CastLike: Cast to the element type of the second input.
LogicalResult importCastLike(NodeContext &n) {
  Value x = n.input(0), like = x ? n.input(1) : Value();
  if (!like)
    return failure();
  return buildCast(n, x, n.inputOnnxType(1), n.inputType(1).getElementType());
}

/// Clip: bounds from attributes (opsets 6-10) or from optional scalar
/// inputs (11+); an absent bound does not bound.
LogicalResult importClip(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  Type element = n.inputType(0).getElementType();
  if (!isNumber(element) ||
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
  r.add("Exp", 6, importUnary<ExpOp>);
  r.add("Log", 6, importUnary<LogOp>);
  r.add("Reciprocal", 6, importUnary<ReciprocalOp>);
  r.add("Floor", 6, importUnary<FloorOp>);
  r.add("Ceil", 6, importUnary<CeilOp>);
  r.add("Sin", 7, importUnary<SinOp>);
  r.add("Cos", 7, importUnary<CosOp>);
  r.add("Tan", 7, importUnary<TanOp>);
  r.add("Asin", 7, importUnary<AsinOp>);
  r.add("Acos", 7, importUnary<AcosOp>);
  r.add("Atan", 7, importUnary<AtanOp>);
  r.add("Sinh", 9, importUnary<SinhOp>);
  r.add("Cosh", 9, importUnary<CoshOp>);
  r.add("Asinh", 9, importUnary<AsinhOp>);
  r.add("Acosh", 9, importUnary<AcoshOp>);
  r.add("Atanh", 9, importUnary<AtanhOp>);
  r.add("Round", 11, importUnary<RoundOp>);
  r.add("IsNaN", 9, importIsNaN);
  r.add("IsInf", 10, importIsInf);
  r.add("Softplus", 1, importUnary<SoftplusOp>);
  r.add("Softsign", 1, importUnary<SoftsignOp>);
  r.add("LeakyRelu", 6, importLeakyRelu);
  r.add("Elu", 6, importElu);
  r.add("Celu", 12, importCelu);
  r.add("Selu", 6, importSelu);
  r.add("HardSigmoid", 6, importHardSigmoid);
  r.add("ThresholdedRelu", 10, importThresholdedRelu);
  // Neg and Abs take integers from 6, Sign from 9; 13 adds bfloat16.
  r.add("Neg", 6, importNumericUnary<NegOp>);
  r.add("Abs", 6, importNumericUnary<AbsOp>);
  r.add("Sign", 9, importNumericUnary<SignOp>);
  // Max, Min, Sum and Mean broadcast (numpy) from 8; 12 adds integers to
  // Max and Min.
  r.add("Max", 8, importVariadic<MaxOp>);
  r.add("Min", 8, importVariadic<MinOp>);
  r.add("Sum", 8, importVariadic<AddOp>);
  r.add("Mean", 8, importVariadic<AddOp, /*mean=*/true>);
  r.add("Mod", 10, importMod);
  // Pow-7 broadcasts (numpy); 12 lets the exponent have another type, 13
  // and 15 add bfloat16.
  r.add("Pow", 7, importPow);
  // Clip-6 takes its bounds as attributes; from 11 as optional inputs, and
  // 12 adds integer types (read at any version from 11).
  r.add("Clip", 6, importClip);
  // Cast-6 names `to` by data type number; 13 and 19 add types (bfloat16,
  // float8), which the handler accepts or reports per type.
  r.add("Cast", 6, importCast);
  // CastLike-15 (19 and 21 add types): Cast to the second input's type.
  r.add("CastLike", 15, importCastLike);
}
