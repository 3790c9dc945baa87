//===- NarrowFormats.cpp - float8, float4 and sub-byte integers -----------===//
//
// The scalar conversions of the narrow formats, in integer arithmetic on the
// bits of f32/f64 values (see NarrowFormats.h). Written from ONNX's Cast
// specification (opset 25) and its float8/float4/int4 notes.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/NarrowFormats.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/bit.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace tessel {

bool isNarrowFormat(int32_t t) { return t >= kFloat8E4M3FN && t <= kInt2; }

bool isNarrowIntFormat(int32_t t) {
  return t == kUInt4 || t == kInt4 || t == kUInt2 || t == kInt2;
}

bool isNarrowFloatFormat(int32_t t) {
  return isNarrowFormat(t) && !isNarrowIntFormat(t);
}

namespace {

/// A float format with a sign, `exponentBits` and `mantissaBits` (E8M0, with
/// neither sign nor mantissa, is handled on its own).
struct FloatFormat {
  unsigned exponentBits, mantissaBits;
  int bias;
  uint64_t maxCode;  ///< the largest finite value's bits, sign clear
  bool ieeeInf;      ///< E5M2: infinities at S.11111.00, NaN above
  bool unsignedZero; ///< FNUZ: 0x80 is the only NaN, no -0
  bool hasNan;       ///< float4 has neither NaN nor infinities
  unsigned width() const { return 1 + exponentBits + mantissaBits; }
};

FloatFormat floatFormat(int32_t format) {
  switch (format) {
  case kFloat8E4M3FN: // NaN is S.1111.111; max 448
    return {4, 3, 7, 0x7E, false, false, true};
  case kFloat8E4M3FNUZ: // max 240
    return {4, 3, 8, 0x7F, false, true, true};
  case kFloat8E5M2: // IEEE-like; max 57344
    return {5, 2, 15, 0x7B, true, false, true};
  case kFloat8E5M2FNUZ: // max 57344
    return {5, 2, 16, 0x7F, false, true, true};
  case kFloat4E2M1: // max 6
    return {2, 1, 1, 0x7, false, false, false};
  default:
    llvm_unreachable("not a float format with a sign and a mantissa");
  }
}

/// Builds scalar arith on integers of one width and floats.
struct Arith {
  OpBuilder &b;
  Location loc;

  Value c(Type t, uint64_t v) {
    return arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(t, APInt(t.getIntOrFloatBitWidth(), v)));
  }
  Value cf(Type t, double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
  }
  Value andi(Value x, uint64_t v) {
    return arith::AndIOp::create(b, loc, x, c(x.getType(), v));
  }
  Value shl(Value x, uint64_t v) {
    return arith::ShLIOp::create(b, loc, x, c(x.getType(), v));
  }
  Value shr(Value x, uint64_t v) {
    return arith::ShRUIOp::create(b, loc, x, c(x.getType(), v));
  }
  Value cmp(arith::CmpIPredicate p, Value x, uint64_t v) {
    return arith::CmpIOp::create(b, loc, p, x, c(x.getType(), v));
  }
  Value select(Value cond, Value t, Value f) {
    return arith::SelectOp::create(b, loc, cond, t, f);
  }
  Value select(Value cond, uint64_t t, Value f) {
    return select(cond, c(f.getType(), t), f);
  }
  Value zext(Value cond, Type t) {
    return arith::ExtUIOp::create(b, loc, t, cond);
  }
};

using P = arith::CmpIPredicate;

} // namespace

Value decodeNarrowFloat(OpBuilder &b, Location loc, Value bits,
                        int32_t format) {
  Arith a{b, loc};
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Value c = arith::ExtUIOp::create(b, loc, i32, bits);
  Value nan = a.cf(f32, std::numeric_limits<double>::quiet_NaN());
  if (format == kFloat8E8M0) {
    // 2^(c - 127): c is the f32 exponent field, except 0 (2^-127, which f32
    // holds as a subnormal) and 0xFF (NaN).
    Value normal = arith::BitcastOp::create(b, loc, f32, a.shl(c, 23));
    Value v = a.select(a.cmp(P::eq, c, 0), a.cf(f32, std::ldexp(1.0, -127)),
                       normal);
    return a.select(a.cmp(P::eq, c, 0xFF), nan, v);
  }
  FloatFormat f = floatFormat(format);
  unsigned e = f.exponentBits, m = f.mantissaBits;
  c = a.andi(c, (1u << f.width()) - 1); // float4: the low four bits
  Value magnitude = a.andi(c, (1u << (e + m)) - 1);
  Value negative = a.cmp(P::ne, a.andi(c, 1u << (e + m)), 0);
  Value exponent = a.shr(magnitude, m);
  Value mantissa = a.andi(magnitude, (1u << m) - 1);
  // Normal: 1.mantissa * 2^(exponent - bias), as f32 bits.
  Value rebiased =
      arith::AddIOp::create(b, loc, exponent, a.c(i32, 127 - f.bias));
  Value normalBits = arith::OrIOp::create(b, loc, a.shl(rebiased, 23),
                                          a.shl(mantissa, 23 - m));
  Value normal = arith::BitcastOp::create(b, loc, f32, normalBits);
  // Subnormal: mantissa * 2^(1 - bias - m), exact in f32.
  Value subnormal = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, f32, mantissa),
      a.cf(f32, std::ldexp(1.0, 1 - f.bias - int(m))));
  Value v = a.select(a.cmp(P::eq, exponent, 0), subnormal, normal);
  v = a.select(negative, arith::NegFOp::create(b, loc, v), v);
  if (f.ieeeInf) {
    Value inf = a.cf(f32, std::numeric_limits<double>::infinity());
    Value signedInf =
        a.select(negative, arith::NegFOp::create(b, loc, inf), inf);
    Value special = a.select(a.cmp(P::eq, mantissa, 0), signedInf, nan);
    v = a.select(a.cmp(P::eq, exponent, (1u << e) - 1), special, v);
  } else if (f.unsignedZero) {
    v = a.select(a.cmp(P::eq, c, 0x80), nan, v);
  } else if (f.hasNan) {
    v = a.select(a.cmp(P::eq, magnitude, (1u << (e + m)) - 1), nan, v);
  }
  return v;
}

Value encodeNarrowFloat(OpBuilder &b, Location loc, Value x, int32_t format,
                        bool saturate, E8M0Rounding rounding) {
  Arith a{b, loc};
  // f16 and bf16 widen exactly; f32 and f64 are encoded from their bits.
  if (cast<FloatType>(x.getType()).getWidth() < 32)
    x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  auto source = cast<FloatType>(x.getType());
  unsigned width = source.getWidth();
  unsigned sourceMantissa = width == 64 ? 52 : 23;
  int sourceBias = width == 64 ? 1023 : 127;
  Type iw = b.getIntegerType(width);
  Value bits = arith::BitcastOp::create(b, loc, iw, x);
  uint64_t signBit = uint64_t(1) << (width - 1);
  Value negative = a.cmp(P::ne, a.andi(bits, signBit), 0);
  Value abs = a.andi(bits, signBit - 1); // |x|'s bits, ordered as |x|
  uint64_t infBits = ((uint64_t(1) << (width - 1 - sourceMantissa)) - 1)
                     << sourceMantissa;
  Value isNan = a.cmp(P::ugt, abs, infBits);
  Value isInf = a.cmp(P::eq, abs, infBits);
  auto result = [&](Value code) {
    return arith::TruncIOp::create(b, loc, b.getI8Type(), code);
  };
  auto power = [&](int exponent) { // the bits of 2^exponent in the source
    double v = std::ldexp(1.0, exponent);
    if (width == 64)
      return llvm::bit_cast<uint64_t>(v);
    return uint64_t(llvm::bit_cast<uint32_t>(static_cast<float>(v)));
  };

  if (format == kFloat8E8M0) {
    // The code is |x|'s f32 exponent field (bias 127), rounded by the
    // fraction; ONNX's reference (numpy_helper.to_float8e8m0) rounds "up"
    // on any fraction and "nearest" on its top bit. The sign is ignored
    // (negative values are unspecified).
    Value fraction = a.andi(abs, (uint64_t(1) << sourceMantissa) - 1);
    Value code = arith::SubIOp::create(b, loc, a.shr(abs, sourceMantissa),
                                       a.c(iw, sourceBias - 127));
    Value tiny; // |x| below 2^-126, the smallest normal f32
    switch (rounding) {
    case E8M0Rounding::Up:
      code = arith::AddIOp::create(b, loc, code,
                                   a.zext(a.cmp(P::ne, fraction, 0), iw));
      tiny = a.zext(a.cmp(P::ne, abs, 0), iw);
      break;
    case E8M0Rounding::Nearest:
      code = arith::AddIOp::create(b, loc, code,
                                   a.shr(fraction, sourceMantissa - 1));
      tiny = a.zext(a.cmp(P::ugt, abs, power(-127)), iw);
      break;
    case E8M0Rounding::Down:
      tiny = a.c(iw, 0);
      break;
    }
    code = a.select(a.cmp(P::ult, abs, power(-126)), tiny, code);
    Value over = arith::OrIOp::create(b, loc, a.cmp(P::ugt, code, 0xFE), isInf);
    code = a.select(over, saturate ? 0xFE : 0xFF, code);
    return result(a.select(isNan, 0xFF, code));
  }

  FloatFormat f = floatFormat(format);
  unsigned m = f.mantissaBits, shift = sourceMantissa - m;
  // Normal results: the mantissa rounded to m bits, ties to even, in the
  // source's bits (a carry moves into the exponent), then rebiased.
  Value lsb = a.andi(a.shr(abs, shift), 1);
  Value rounded = arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, abs,
                                    a.c(iw, (uint64_t(1) << (shift - 1)) - 1)),
      lsb);
  Value normal =
      arith::SubIOp::create(b, loc, a.shr(rounded, shift),
                            a.c(iw, uint64_t(sourceBias - f.bias) << m));
  // Subnormal results (|x| < 2^(1 - bias)): |x| in units of the smallest
  // subnormal, 2^(1 - bias - m), rounded to an integer, ties to even: the
  // source's significand shifted right, in integers (a float trick such as
  // adding and removing 2^p is undone by GPU compilers that reassociate).
  Value exponent = a.shr(abs, sourceMantissa);
  Value isSourceNormal = a.cmp(P::ne, exponent, 0);
  Value significand = arith::OrIOp::create(
      b, loc, a.andi(abs, (uint64_t(1) << sourceMantissa) - 1),
      a.select(isSourceNormal, a.c(iw, uint64_t(1) << sourceMantissa),
               a.c(iw, 0)));
  Value effectiveExponent = a.select(isSourceNormal, exponent, a.c(iw, 1));
  // |x| = significand * 2^(e - sourceBias - sourceMantissa), so the shift
  // is (sourceMantissa + sourceBias) - e + (1 - bias - m); past
  // sourceMantissa + 2 every bit is gone and the result is 0 either way.
  Value shiftBy = arith::MinUIOp::create(
      b, loc,
      arith::SubIOp::create(
          b, loc,
          a.c(iw, uint64_t(int(sourceMantissa) + sourceBias + 1 - f.bias -
                           int(m))),
          effectiveExponent),
      a.c(iw, sourceMantissa + 2));
  Value quotient = arith::ShRUIOp::create(b, loc, significand, shiftBy);
  Value remainder = arith::SubIOp::create(
      b, loc, significand,
      arith::ShLIOp::create(b, loc, quotient, shiftBy));
  Value half = arith::ShLIOp::create(
      b, loc, a.c(iw, 1), arith::SubIOp::create(b, loc, shiftBy, a.c(iw, 1)));
  Value aboveHalf = arith::CmpIOp::create(b, loc, P::ugt, remainder, half);
  Value tieToOdd = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, P::eq, remainder, half),
      a.cmp(P::ne, a.andi(quotient, 1), 0));
  Value subnormal = arith::AddIOp::create(
      b, loc, quotient,
      a.zext(arith::OrIOp::create(b, loc, aboveHalf, tieToOdd), iw));
  Value code =
      a.select(a.cmp(P::ult, abs, power(1 - f.bias)), subnormal, normal);
  // Beyond the largest finite value: saturate, or NaN (E5M2: infinity).
  // float4 has neither and always saturates.
  Value over =
      arith::OrIOp::create(b, loc, a.cmp(P::ugt, code, f.maxCode), isInf);
  uint64_t nanCode = f.unsignedZero ? 0x80 : f.ieeeInf ? 0x7E : 0x7F;
  uint64_t overCode = saturate || !f.hasNan ? f.maxCode
                      : f.ieeeInf           ? 0x7C
                                            : nanCode;
  code = a.select(over, overCode, code);
  // NaN: the format's NaN; float4 gives its largest value, +6.
  code = a.select(isNan, f.hasNan ? nanCode : f.maxCode, code);
  // The sign: FNUZ has no -0, and float4's NaN result is positive.
  Value keepSign = negative;
  if (f.unsignedZero)
    keepSign = arith::AndIOp::create(b, loc, keepSign, a.cmp(P::ne, code, 0));
  if (!f.hasNan)
    keepSign = arith::AndIOp::create(
        b, loc, keepSign,
        arith::XOrIOp::create(b, loc, isNan, a.c(b.getI1Type(), 1)));
  Value withSign = arith::OrIOp::create(
      b, loc, code, a.c(iw, uint64_t(1) << (f.width() - 1)));
  return result(a.select(keepSign, withSign, code));
}

Value wrapNarrowInt(OpBuilder &b, Location loc, Value x, int32_t format) {
  Arith a{b, loc};
  unsigned bits = format == kInt4 || format == kUInt4 ? 4 : 2;
  if (format == kUInt4 || format == kUInt2)
    return a.andi(x, (1u << bits) - 1);
  return arith::ShRSIOp::create(b, loc, a.shl(x, 8 - bits),
                                a.c(x.getType(), 8 - bits));
}

Value roundHalfToEven(OpBuilder &b, Location loc, Value x) {
  Arith a{b, loc};
  auto type = cast<FloatType>(x.getType());
  Type i64 = b.getI64Type();
  using F = arith::CmpFPredicate;
  // Truncate toward zero in integers, then step away from zero when the
  // dropped fraction (exact: x - trunc(x)) exceeds one half, or is one half
  // and the truncation is odd. |x| >= 2^62 (and NaN) is integral as it is.
  Value limit = a.cf(type, std::ldexp(1.0, 62));
  Value small = arith::AndIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, F::OLT, x, limit),
      arith::CmpFOp::create(b, loc, F::OGT, x,
                            arith::NegFOp::create(b, loc, limit)));
  Value safe = arith::SelectOp::create(b, loc, small, x, a.cf(type, 0));
  Value t = arith::FPToSIOp::create(b, loc, i64, safe);
  Value fraction = arith::SubFOp::create(
      b, loc, safe, arith::SIToFPOp::create(b, loc, type, t));
  Value absFraction = arith::SelectOp::create(
      b, loc, arith::CmpFOp::create(b, loc, F::OLT, fraction, a.cf(type, 0)),
      arith::NegFOp::create(b, loc, fraction), fraction);
  Value halfway = arith::CmpFOp::create(b, loc, F::OEQ, absFraction,
                                        a.cf(type, 0.5));
  Value away = arith::OrIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, F::OGT, absFraction, a.cf(type, 0.5)),
      arith::AndIOp::create(b, loc, halfway,
                            a.cmp(P::ne, a.andi(t, 1), 0)));
  Value step = a.select(
      arith::CmpFOp::create(b, loc, F::OLT, fraction, a.cf(type, 0)),
      a.c(i64, uint64_t(-1)), a.c(i64, 1));
  Value rounded = arith::SIToFPOp::create(
      b, loc, type,
      arith::AddIOp::create(b, loc, t, a.select(away, step, a.c(i64, 0))));
  return arith::SelectOp::create(b, loc, small, rounded, x);
}

} // namespace tessel
