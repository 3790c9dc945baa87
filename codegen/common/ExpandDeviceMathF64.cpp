//===- ExpandDeviceMathF64.cpp - f64 exp and log without a device library -===//
//
// GPUs have exp2/log2 instructions for f32 only, and GPU kernels link no
// device library, so an f64 exp or log (an f64 model's Softmax,
// ReduceLogSumExp, ...) is expanded here into f64 arithmetic, fma, floor
// and integer bit operations, which every GPU has:
//
//   exp(x) = 2^k * p(r), k = round(x / ln 2), r = x - k ln 2 (Cody and
//   Waite's two-part ln 2, so r is exact to ~1e-30), |r| <= ln 2 / 2, p the
//   Taylor polynomial of degree 13 (its error, r^14 / 14!, is below
//   4e-18); 2^k is applied as two exact powers of two so that subnormal
//   results round once.
//
//   log(x) = e ln 2 + log(m), x = m 2^e with m in [sqrt(1/2), sqrt(2)),
//   log(m) = 2 atanh(s) with s = (m - 1) / (m + 1), |s| <= 0.1716, as the
//   odd series to s^21 (next term below 5e-18); subnormal x is scaled by
//   2^54 first.
//
// The special cases are those of C: exp(NaN) = NaN, exp overflows to +inf
// above 709.78 and underflows to 0 below -745.13; log of a negative number
// or NaN is NaN, log(0) = -inf, log(+inf) = +inf. The reduction steps
// must be computed as written (no reassociation, no contraction): then
// both are within 2 ulp of numpy, measured on lavapipe, where the Vulkan
// target decorates f64 arithmetic NoContraction for it
// (vulkan-f64-accuracy.test); expand-device-math.mlir checks the
// structure.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/ExpandDeviceMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace {

/// f64 scalar arithmetic at one location.
struct F64Builder {
  OpBuilder &b;
  Location loc;

  Value c(double v) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  }
  Value i(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value bits(Value x) {
    return arith::BitcastOp::create(b, loc, b.getI64Type(), x);
  }
  Value fromBits(Value x) {
    return arith::BitcastOp::create(b, loc, b.getF64Type(), x);
  }
  /// 2^k for an i64 k in [-1022, 1023], built from its exponent bits.
  Value powerOfTwo(Value k) {
    Value biased = arith::AddIOp::create(b, loc, k, i(1023));
    return fromBits(arith::ShLIOp::create(b, loc, biased, i(52)));
  }
  /// Horner's rule: coefficients from the highest power down.
  Value polynomial(Value x, ArrayRef<double> coefficients) {
    Value p = c(coefficients.front());
    for (double k : coefficients.drop_front())
      p = fma(p, x, c(k));
    return p;
  }
};

// fdlibm's split of ln 2: the high part has 32 trailing zero bits, so k *
// ln2Hi is exact for |k| < 2^20.
constexpr double ln2Hi = 6.93147180369123816490e-01;
constexpr double ln2Lo = 1.90821492927058770002e-10;

struct ExpandExpF64 : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF64())
      return rewriter.notifyMatchFailure(op, "not a scalar f64 exp");
    F64Builder f{rewriter, op.getLoc()};
    using P = arith::CmpFPredicate;
    Value x = op.getOperand();
    // Clamped so that k stays in [-1076, 1025] (the result is replaced
    // outside the finite range anyway) and NaN never reaches fptosi.
    Value clamped = f.select(f.cmp(P::ULT, x, f.c(-746)), f.c(-746),
                             f.select(f.cmp(P::OGT, x, f.c(710)), f.c(710), x));
    Value kf = math::FloorOp::create(
        rewriter, op.getLoc(),
        f.fma(clamped, f.c(1.4426950408889634), f.c(0.5)));
    Value r = f.fma(kf, f.c(-ln2Lo), f.fma(kf, f.c(-ln2Hi), clamped));
    SmallVector<double> taylor; // 1/13!, 1/12!, ..., 1/0!
    for (int n = 13; n >= 0; --n)
      taylor.push_back(1 / std::tgamma(n + 1.0));
    Value p = f.polynomial(r, taylor);
    Value k = arith::FPToSIOp::create(rewriter, op.getLoc(),
                                      rewriter.getI64Type(), kf);
    Value k1 = arith::ShRSIOp::create(rewriter, op.getLoc(), k, f.i(1));
    Value k2 = arith::SubIOp::create(rewriter, op.getLoc(), k, k1);
    Value result = f.mul(f.mul(p, f.powerOfTwo(k1)), f.powerOfTwo(k2));
    result = f.select(f.cmp(P::OLT, x, f.c(-745.1332191019412)), f.c(0),
                      result);
    result = f.select(f.cmp(P::OGT, x, f.c(709.782712893384)),
                      f.c(std::numeric_limits<double>::infinity()), result);
    rewriter.replaceOp(op, f.select(f.cmp(P::UNO, x, x), x, result));
    return success();
  }
};

struct ExpandLogF64 : OpRewritePattern<math::LogOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::LogOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF64())
      return rewriter.notifyMatchFailure(op, "not a scalar f64 log");
    Location loc = op.getLoc();
    F64Builder f{rewriter, loc};
    using P = arith::CmpFPredicate;
    Value x = op.getOperand();
    // Subnormals (and 0, replaced below) scaled into the normal range.
    Value tiny = f.cmp(P::OLT, x, f.c(std::ldexp(1.0, -1022)));
    Value scaled = f.select(tiny, f.mul(x, f.c(std::ldexp(1.0, 54))), x);
    Value bits = f.bits(scaled);
    Value exponent = arith::SubIOp::create(
        rewriter, loc,
        arith::AndIOp::create(
            rewriter, loc, arith::ShRUIOp::create(rewriter, loc, bits, f.i(52)),
            f.i(0x7ff)),
        f.i(1023));
    // The mantissa with the exponent of 1: m in [1, 2); halved above
    // sqrt(2), which moves one into the exponent.
    Value mantissaBits = arith::AndIOp::create(rewriter, loc, bits,
                                               f.i((int64_t(1) << 52) - 1));
    Value m = f.fromBits(
        arith::OrIOp::create(rewriter, loc, mantissaBits, f.i(int64_t(1023) << 52)));
    Value big = f.cmp(P::OGT, m, f.c(M_SQRT2));
    m = f.select(big, f.mul(m, f.c(0.5)), m);
    Value e = arith::SIToFPOp::create(
        rewriter, loc, rewriter.getF64Type(),
        arith::AddIOp::create(
            rewriter, loc, exponent,
            arith::ExtUIOp::create(rewriter, loc, rewriter.getI64Type(), big)));
    e = f.select(tiny, f.sub(e, f.c(54)), e);
    Value s = f.div(f.sub(m, f.c(1)), f.add(m, f.c(1)));
    Value s2 = f.mul(s, s);
    // 2 atanh(s) = 2 s (1 + s^2/3 + s^4/5 + ... + s^20/21).
    SmallVector<double> odd;
    for (int n = 21; n >= 1; n -= 2)
      odd.push_back(2.0 / n);
    Value logM = f.mul(s, f.polynomial(s2, odd));
    Value result = f.fma(e, f.c(ln2Hi), f.fma(e, f.c(ln2Lo), logM));
    double inf = std::numeric_limits<double>::infinity();
    result = f.select(f.cmp(P::OEQ, x, f.c(0)), f.c(-inf), result);
    result = f.select(f.cmp(P::OEQ, x, f.c(inf)), f.c(inf), result);
    // Negative numbers and NaN.
    result = f.select(f.cmp(P::ULT, x, f.c(0)),
                      f.c(std::numeric_limits<double>::quiet_NaN()), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// round (half away from zero) from floor, which both vendors have for f64
/// (MLIR's own expansion covers f32 only): with a = |x| and r = floor(a),
/// a - r is exact, so a - r >= 0.5 decides without the double rounding of
/// floor(a + 0.5) (wrong for 0.49999999999999994). Infinities and NaN come
/// through floor unchanged (inf - inf is NaN, which compares false).
struct ExpandRoundF64 : OpRewritePattern<math::RoundOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::RoundOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF64())
      return rewriter.notifyMatchFailure(op, "not a scalar f64 round");
    F64Builder f{rewriter, op.getLoc()};
    Value x = op.getOperand();
    Value a = math::AbsFOp::create(rewriter, op.getLoc(), x);
    Value r = math::FloorOp::create(rewriter, op.getLoc(), a);
    Value up = f.cmp(arith::CmpFPredicate::OGE, f.sub(a, r), f.c(0.5));
    Value magnitude = f.select(up, f.add(r, f.c(1)), r);
    rewriter.replaceOp(
        op, math::CopySignOp::create(rewriter, op.getLoc(), magnitude, x));
    return success();
  }
};

} // namespace

void tessel::populateDeviceMathF64Patterns(RewritePatternSet &patterns) {
  patterns.add<ExpandExpF64, ExpandLogF64, ExpandRoundF64>(patterns.getContext());
}
