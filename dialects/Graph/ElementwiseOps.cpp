//===- ElementwiseOps.cpp - The scalar body of every elementwise op -------===//
//
// ElementwiseOp::buildScalar for each elementwise graph op: the arith/math
// computation of one result element from the operand elements at its
// position. The lowering to linalg (codegen/common/LowerElementwise.cpp)
// wraps it in one linalg.generic for every such op, so an elementwise op's
// semantics are written here once, beside its definition.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/TesselDialect.h"
#include "dialects/Graph/NarrowFormats.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tessel;

#include "dialects/Graph/ElementwiseOp.cpp.inc"

namespace {

/// A constant of scalar type `type` (float or integer) with `value`.
Value constant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

/// `fn` on `args` computed in f32 when they are narrower floats (f16,
/// bf16: the math library and the GPU expansions are f32 and f64), with
/// the result rounded back to their type.
Value inF32(OpBuilder &b, Location loc, ValueRange args,
            function_ref<Value(ValueRange)> fn) {
  auto type = cast<FloatType>(args[0].getType());
  if (type.getWidth() >= 32)
    return fn(args);
  SmallVector<Value> wide;
  for (Value v : args)
    wide.push_back(arith::ExtFOp::create(b, loc, b.getF32Type(), v));
  return arith::TruncFOp::create(b, loc, type, fn(wide));
}

/// `MathOp` of one operand, in f32 for narrower floats.
template <typename MathOp>
Value unaryMath(OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a, [&](ValueRange w) {
    return MathOp::create(b, loc, w[0]).getResult();
  });
}

/// `FloatOp` on floats, `IntOp` on integers.
template <typename FloatOp, typename IntOp>
Value arithmetic(OpBuilder &b, Location loc, ValueRange a) {
  if (isa<FloatType>(a[0].getType()))
    return FloatOp::create(b, loc, a[0], a[1]);
  return IntOp::create(b, loc, a[0], a[1]);
}

/// A comparison: ordered on floats (NaN compares false), signed or
/// unsigned on integers.
Value compare(OpBuilder &b, Location loc, ValueRange a, bool isUnsigned,
              arith::CmpFPredicate f, arith::CmpIPredicate s,
              arith::CmpIPredicate u) {
  if (isa<FloatType>(a[0].getType()))
    return arith::CmpFOp::create(b, loc, f, a[0], a[1]);
  return arith::CmpIOp::create(b, loc, isUnsigned ? u : s, a[0], a[1]);
}

} // namespace

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

Value AddOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return arithmetic<arith::AddFOp, arith::AddIOp>(b, loc, a);
}
Value SubOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return arithmetic<arith::SubFOp, arith::SubIOp>(b, loc, a);
}
Value MulOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return arithmetic<arith::MulFOp, arith::MulIOp>(b, loc, a);
}

// Integer division never traps (docs/design.md, "Integer division"):
// arith.divsi/divui are undefined behaviour for a zero divisor and for
// INT_MIN / -1, and x86 raises SIGFPE for both. The divisor is replaced by
// 1 where it would trap, and the quotient by the defined result:
// x / 0 = 0, and x / -1 = 0 - x (wrapping, so INT_MIN / -1 = INT_MIN);
// unsigned x / 0 = 0.
Value DivOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value l = a[0], r = a[1];
  if (isa<FloatType>(l.getType()))
    return arith::DivFOp::create(b, loc, l, r);
  Type t = l.getType();
  Value zero = constant(b, loc, t, 0), one = constant(b, loc, t, 1);
  if (getIsUnsigned()) {
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r, zero);
    Value divisor = arith::SelectOp::create(b, loc, isZero, one, r);
    Value quotient = arith::DivUIOp::create(b, loc, l, divisor);
    return arith::SelectOp::create(b, loc, isZero, zero, quotient);
  }
  Value minusOne = constant(b, loc, t, -1);
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r, zero);
  Value isMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r, minusOne);
  Value special = arith::OrIOp::create(b, loc, isZero, isMinusOne);
  Value divisor = arith::SelectOp::create(b, loc, special, one, r);
  Value quotient = arith::DivSIOp::create(b, loc, l, divisor);
  Value negated = arith::SubIOp::create(b, loc, zero, l);
  Value result =
      arith::SelectOp::create(b, loc, isMinusOne, negated, quotient);
  return arith::SelectOp::create(b, loc, isZero, zero, result);
}

/// powf (C semantics); the GPU targets expand it (ExpandDeviceMath.cpp).
Value PowOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a, [&](ValueRange w) {
    return math::PowFOp::create(b, loc, w[0], w[1]).getResult();
  });
}

//===----------------------------------------------------------------------===//
// Activations and math
//===----------------------------------------------------------------------===//

Value ReluOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return arith::MaximumFOp::create(b, loc, a[0],
                                   constant(b, loc, a[0].getType(), 0));
}

Value SigmoidOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value one = constant(b, loc, a[0].getType(), 1);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, a[0]));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

Value TanhOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return math::TanhOp::create(b, loc, a[0]);
}

Value SqrtOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return math::SqrtOp::create(b, loc, a[0]);
}

/// erf, in f32 for narrower floats; the GPU targets expand it
/// (ExpandDeviceMath.cpp), the CPU uses a polynomial (ExpandMath).
Value ErfOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::ErfOp>(b, loc, a);
}

/// exp and log in f32 for narrower floats: the GPU targets map only f32
/// exp and log to instructions.
Value ExpOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::ExpOp>(b, loc, a);
}
Value LogOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::LogOp>(b, loc, a);
}

Value SinOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::SinOp>(b, loc, a);
}
Value CosOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::CosOp>(b, loc, a);
}
Value TanOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::TanOp>(b, loc, a);
}
Value AsinOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::AsinOp>(b, loc, a);
}
Value AcosOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::AcosOp>(b, loc, a);
}
Value AtanOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::AtanOp>(b, loc, a);
}
Value SinhOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::SinhOp>(b, loc, a);
}
Value CoshOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::CoshOp>(b, loc, a);
}
Value AsinhOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::AsinhOp>(b, loc, a);
}
Value AcoshOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::AcoshOp>(b, loc, a);
}
Value AtanhOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::AtanhOp>(b, loc, a);
}
/// Half to even, as ONNX Round.
Value RoundOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::RoundEvenOp>(b, loc, a);
}

Value IsNaNOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a[0], a[0]);
}

Value IsInfOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  Type t = x.getType();
  auto inf = [&](bool negative) {
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(t, APFloat::getInf(cast<FloatType>(t).getFloatSemantics(),
                                          negative)));
  };
  Value result = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  for (auto [detect, negative] :
       {std::pair{getDetectNegative(), true}, std::pair{getDetectPositive(), false}})
    if (detect)
      result = arith::OrIOp::create(
          b, loc, result,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                                inf(negative)));
  return result;
}

Value ReciprocalOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return arith::DivFOp::create(b, loc, constant(b, loc, a[0].getType(), 1),
                               a[0]);
}

// Floor, Ceil, Max and Min of narrower floats go through f32 (exactly:
// the result is representable in the narrow type): LLVM legalizes them on
// bf16 by promoting and would round back with a runtime library call.
Value FloorOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::FloorOp>(b, loc, a);
}
Value CeilOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return unaryMath<math::CeilOp>(b, loc, a);
}

Value SoftplusOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return inF32(b, loc, a, [&](ValueRange w) {
    Value x = w[0];
    Value zero = constant(b, loc, x.getType(), 0);
    Value negAbs =
        arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
    // log1p(e) for e = exp(-|x|) in (0, 1], with log alone (every target
    // has it): below 1/64 the series e - e^2/2 + e^3/3 - e^4/4 (the next
    // term is about 1e-8 of the result), above it log(1 + e), whose
    // argument is then far enough from 1 that a GPU's approximate log
    // (absolute error about 2^-22 near 1) stays accurate relative to it.
    Type t = x.getType();
    auto c = [&](double v) { return constant(b, loc, t, v); };
    Value e = math::ExpOp::create(b, loc, negAbs);
    Value series = c(0.25);
    for (double k : {1.0 / 3, 0.5, 1.0})
      series = arith::SubFOp::create(
          b, loc, c(k), arith::MulFOp::create(b, loc, e, series));
    series = arith::MulFOp::create(b, loc, e, series);
    Value direct = math::LogOp::create(b, loc,
                                       arith::AddFOp::create(b, loc, c(1), e));
    Value small = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, e,
                                        c(1.0 / 64));
    Value tail = arith::SelectOp::create(b, loc, small, series, direct);
    return arith::AddFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, zero),
                                 tail)
        .getResult();
  });
}

Value SoftsignOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  Value denom = arith::AddFOp::create(b, loc, constant(b, loc, x.getType(), 1),
                                      math::AbsFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, x, denom);
}

/// x < 0 ? neg : x, as a compare and a select (a NaN x stays NaN).
static Value negativePart(OpBuilder &b, Location loc, Value x, Value neg) {
  Value isNeg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                      constant(b, loc, x.getType(), 0));
  return arith::SelectOp::create(b, loc, isNeg, neg, x);
}

/// alpha * (exp(x) - 1), in f32 for narrower floats.
static Value expMinusOne(OpBuilder &b, Location loc, Value x, double alpha) {
  return inF32(b, loc, x, [&](ValueRange w) {
    Value e = math::ExpOp::create(b, loc, w[0]);
    Value m1 = arith::SubFOp::create(b, loc, e, constant(b, loc, e.getType(), 1));
    return arith::MulFOp::create(b, loc, m1, constant(b, loc, e.getType(), alpha))
        .getResult();
  });
}

Value LeakyReluOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  Value scaled = arith::MulFOp::create(
      b, loc, x, constant(b, loc, x.getType(), getAlpha().convertToDouble()));
  return negativePart(b, loc, x, scaled);
}

Value EluOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return negativePart(b, loc, a[0],
                      expMinusOne(b, loc, a[0], getAlpha().convertToDouble()));
}

/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
Value CeluOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  double alpha = getAlpha().convertToDouble();
  Value x = a[0];
  Value scaled =
      arith::DivFOp::create(b, loc, x, constant(b, loc, x.getType(), alpha));
  return negativePart(b, loc, x, expMinusOne(b, loc, scaled, alpha));
}

/// gamma * (x > 0 ? x : alpha * (exp(x) - 1)).
Value SeluOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  Value isPos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                      constant(b, loc, x.getType(), 0));
  Value inner = arith::SelectOp::create(
      b, loc, isPos, x,
      expMinusOne(b, loc, x, getAlpha().convertToDouble()));
  return arith::MulFOp::create(
      b, loc, inner,
      constant(b, loc, x.getType(), getGamma().convertToDouble()));
}

/// max(0, min(1, alpha * x + beta)); NaN stays NaN.
Value HardSigmoidOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  Type t = x.getType();
  Value y = arith::AddFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, x,
                            constant(b, loc, t, getAlpha().convertToDouble())),
      constant(b, loc, t, getBeta().convertToDouble()));
  Value zero = constant(b, loc, t, 0), one = constant(b, loc, t, 1);
  Value low = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, zero);
  y = arith::SelectOp::create(b, loc, low, zero, y);
  Value high = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, y, one);
  return arith::SelectOp::create(b, loc, high, one, y);
}

/// x > alpha ? x : 0.
Value ThresholdedReluOp::buildScalar(OpBuilder &b, Location loc,
                                     ValueRange a) {
  Value x = a[0];
  Type t = x.getType();
  Value above = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OGT, x,
      constant(b, loc, t, getAlpha().convertToDouble()));
  return arith::SelectOp::create(b, loc, above, x, constant(b, loc, t, 0));
}

Value NegOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  if (isa<FloatType>(x.getType()))
    return arith::NegFOp::create(b, loc, x);
  return arith::SubIOp::create(b, loc, constant(b, loc, x.getType(), 0), x);
}

Value AbsOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  if (isa<FloatType>(x.getType()))
    return math::AbsFOp::create(b, loc, x);
  if (getIsUnsigned())
    return x;
  return math::AbsIOp::create(b, loc, x);
}

Value SignOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  Type t = x.getType();
  Value zero = constant(b, loc, t, 0), one = constant(b, loc, t, 1);
  if (isa<FloatType>(t)) {
    Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
    Value r = arith::SelectOp::create(b, loc, pos, one, x); // 0, -0, NaN stay
    return arith::SelectOp::create(b, loc, neg, constant(b, loc, t, -1), r);
  }
  Value pos = arith::CmpIOp::create(
      b, loc, getIsUnsigned() ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt,
      x, zero);
  Value r = arith::SelectOp::create(b, loc, pos, one, zero);
  if (getIsUnsigned())
    return r;
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  return arith::SelectOp::create(b, loc, neg, constant(b, loc, t, -1), r);
}

Value MaxOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  if (isa<FloatType>(a[0].getType()))
    return inF32(b, loc, a, [&](ValueRange w) {
      return arith::MaximumFOp::create(b, loc, w[0], w[1]).getResult();
    });
  if (getIsUnsigned())
    return arith::MaxUIOp::create(b, loc, a[0], a[1]);
  return arith::MaxSIOp::create(b, loc, a[0], a[1]);
}

Value MinOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  if (isa<FloatType>(a[0].getType()))
    return inF32(b, loc, a, [&](ValueRange w) {
      return arith::MinimumFOp::create(b, loc, w[0], w[1]).getResult();
    });
  if (getIsUnsigned())
    return arith::MinUIOp::create(b, loc, a[0], a[1]);
  return arith::MinSIOp::create(b, loc, a[0], a[1]);
}

Value ModOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0], y = a[1];
  Type t = x.getType();
  if (isa<FloatType>(t)) // fmod: the verifier requires it on floats
    return arith::RemFOp::create(b, loc, x, y);
  Value zero = constant(b, loc, t, 0);
  Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  // A divisor of 0 (and -1, whose remainder is 0 but whose INT_MIN
  // quotient traps) is replaced by 1 before dividing.
  Value safe = arith::SelectOp::create(b, loc, isZero, constant(b, loc, t, 1), y);
  if (getIsUnsigned()) {
    Value r = arith::RemUIOp::create(b, loc, x, safe);
    return arith::SelectOp::create(b, loc, isZero, x, r);
  }
  Value isMinusOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                                           constant(b, loc, t, -1));
  safe = arith::SelectOp::create(b, loc, isMinusOne, constant(b, loc, t, 1), safe);
  Value r = arith::RemSIOp::create(b, loc, x, safe); // the dividend's sign
  if (!getFmod()) {
    // Floored: a nonzero remainder whose sign differs from the divisor's
    // moves by one divisor.
    Value rNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
    Value yNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero);
    Value rNonZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
    Value differ = arith::AndIOp::create(
        b, loc, rNonZero, arith::XOrIOp::create(b, loc, rNeg, yNeg));
    r = arith::SelectOp::create(b, loc, differ,
                                arith::AddIOp::create(b, loc, r, y), r);
  }
  return arith::SelectOp::create(b, loc, isZero, x, r);
}

/// min(max(x, lo), hi), each bound only where the op has it; the bounds
/// are scalars read by every element. NaN stays NaN.
Value ClipOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  bool isFloat = isa<FloatType>(x.getType());
  auto clamp = [&](Value c, bool upper) -> Value {
    // Floats: a compare and a select, not minimumf/maximumf. A NaN x stays
    // NaN either way (both compares are false), and the select vectorizes,
    // where LLVM expands maximum/minimum of an unknown bound into branches
    // per element (their -0 < +0 order); the two differ only in the sign
    // of a zero result.
    if (isFloat) {
      Value out = arith::CmpFOp::create(
          b, loc, upper ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
          x, c);
      return arith::SelectOp::create(b, loc, out, c, x);
    }
    if (getIsUnsigned())
      return upper ? arith::MinUIOp::create(b, loc, x, c).getResult()
                   : arith::MaxUIOp::create(b, loc, x, c).getResult();
    return upper ? arith::MinSIOp::create(b, loc, x, c).getResult()
                 : arith::MaxSIOp::create(b, loc, x, c).getResult();
  };
  unsigned next = 1;
  if (getMin())
    x = clamp(a[next++], /*upper=*/false);
  if (getMax())
    x = clamp(a[next], /*upper=*/true);
  return x;
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

Value tessel::castScalar(OpBuilder &b, Location l, Value x, Type to,
                         bool fromUnsigned, bool toUnsigned) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (to.isInteger(1)) // != 0 (NaN is true, as in C)
    return fromFloat ? arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE,
                                             x, constant(b, l, from, 0))
                           .getResult()
                     : arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, x,
                                             constant(b, l, from, 0))
                           .getResult();
  if (fromFloat && toFloat)
    return fromFloat.getWidth() < toFloat.getWidth()
               ? arith::ExtFOp::create(b, l, to, x).getResult()
               : arith::TruncFOp::create(b, l, to, x).getResult();
  if (toFloat)
    return fromUnsigned || from.isInteger(1)
               ? arith::UIToFPOp::create(b, l, to, x).getResult()
               : arith::SIToFPOp::create(b, l, to, x).getResult();
  auto toInt = cast<IntegerType>(to);
  if (fromFloat) {
    // Saturate into the integer's range first: fptosi of a value outside
    // it is undefined; NaN becomes 0.
    unsigned w = toInt.getWidth();
    APInt lo = toUnsigned ? APInt::getZero(w) : APInt::getSignedMinValue(w);
    APInt hi = toUnsigned ? APInt::getMaxValue(w) : APInt::getSignedMaxValue(w);
    auto bound = [&](const APInt &v) {
      double d = toUnsigned ? v.roundToDouble(false) : v.roundToDouble(true);
      return constant(b, l, from, d);
    };
    Value clamped = arith::MinimumFOp::create(
        b, l, arith::MaximumFOp::create(b, l, x, bound(lo)), bound(hi));
    Value converted =
        toUnsigned ? arith::FPToUIOp::create(b, l, to, clamped).getResult()
                   : arith::FPToSIOp::create(b, l, to, clamped).getResult();
    // Rounding can push the upper bound past the range (2^63 for int64):
    // the largest value then stays the largest.
    Value tooBig = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE,
                                         clamped, bound(hi));
    converted = arith::SelectOp::create(
        b, l, tooBig, arith::ConstantOp::create(b, l, IntegerAttr::get(to, hi)),
        converted);
    Value isNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
    return arith::SelectOp::create(b, l, isNan, constant(b, l, to, 0),
                                   converted);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  if (fromWidth > toInt.getWidth())
    return arith::TruncIOp::create(b, l, to, x);
  return fromUnsigned || from.isInteger(1)
             ? arith::ExtUIOp::create(b, l, to, x).getResult()
             : arith::ExtSIOp::create(b, l, to, x).getResult();
}

Value CastOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value x = a[0];
  Type to = getType().getElementType();
  int32_t from = getInputFormat().value_or(0);
  int32_t format = getResultFormat().value_or(0);
  bool fromUnsigned = getInputUnsigned();
  if (isNarrowFloatFormat(from)) {
    x = decodeNarrowFloat(b, loc, x, from);
    fromUnsigned = false;
  }
  if (isNarrowFloatFormat(format)) {
    // Integers go through f64: exact below 2^53, one rounding to the format.
    if (!isa<FloatType>(x.getType()))
      x = castScalar(b, loc, x, b.getF64Type(), fromUnsigned, false);
    return encodeNarrowFloat(b, loc, x, format, getSaturate(),
                             static_cast<E8M0Rounding>(getE8m0Rounding()));
  }
  if (isNarrowIntFormat(format)) {
    if (isa<FloatType>(x.getType())) {
      x = castScalar(b, loc, roundHalfToEven(b, loc, x), b.getI32Type(),
                     false, false);
      fromUnsigned = false;
    }
    // Truncating to i8 keeps the low bits, which the format keeps.
    return wrapNarrowInt(b, loc, castScalar(b, loc, x, to, fromUnsigned, false),
                         format);
  }
  return castScalar(b, loc, x, to, fromUnsigned, getResultUnsigned());
}

//===----------------------------------------------------------------------===//
// Comparisons, logic, Where
//===----------------------------------------------------------------------===//

using F = arith::CmpFPredicate;
using I = arith::CmpIPredicate;

Value EqualOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return compare(b, loc, a, getIsUnsigned(), F::OEQ, I::eq, I::eq);
}
Value LessOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return compare(b, loc, a, getIsUnsigned(), F::OLT, I::slt, I::ult);
}
Value LessOrEqualOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return compare(b, loc, a, getIsUnsigned(), F::OLE, I::sle, I::ule);
}
Value GreaterOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return compare(b, loc, a, getIsUnsigned(), F::OGT, I::sgt, I::ugt);
}
Value GreaterOrEqualOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return compare(b, loc, a, getIsUnsigned(), F::OGE, I::sge, I::uge);
}

Value AndOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return arith::AndIOp::create(b, loc, a[0], a[1]);
}
Value OrOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return arith::OrIOp::create(b, loc, a[0], a[1]);
}
Value XorOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return arith::XOrIOp::create(b, loc, a[0], a[1]);
}
Value NotOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Value ones = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(a[0].getType(), -1)); // true for i1
  return arith::XOrIOp::create(b, loc, a[0], ones);
}

Value BitShiftOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Type type = a[0].getType();
  Value shifted =
      getLeft() ? arith::ShLIOp::create(b, loc, a[0], a[1]).getResult()
                : arith::ShRUIOp::create(b, loc, a[0], a[1]).getResult();
  // Shifting by the width or more is poison in arith: every bit goes.
  Value tooFar = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::uge, a[1],
      constant(b, loc, type, type.getIntOrFloatBitWidth()));
  return arith::SelectOp::create(b, loc, tooFar, constant(b, loc, type, 0),
                                 shifted);
}

Value BitcastOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  Type to = getType().getElementType();
  Type from = a[0].getType();
  if (from.isInteger(1))
    return arith::ExtUIOp::create(b, loc, to, a[0]);
  if (to.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, a[0],
                                 constant(b, loc, from, 0));
  if (from == to)
    return a[0];
  return arith::BitcastOp::create(b, loc, to, a[0]);
}

Value WhereOp::buildScalar(OpBuilder &b, Location loc, ValueRange a) {
  return arith::SelectOp::create(b, loc, a[0], a[1], a[2]);
}
