//===- ExpandDeviceMath.cpp - Math without a device library ----------------===//
//
// GPU kernels link no device library (libdevice, ocml), so the math ops
// that have no instruction are expanded into ones that do before the
// kernels become LLVM: erf into MLIR's f32 polynomial approximation
// (arith and fma only), powf into exp(y * log|x|) with C's sign and special
// cases, |x| into a bit mask, ceil into -floor(-x) and tanh into exp and a
// polynomial (ExpandTanh, which the CPU's tessel-expand-math uses too).
// exp and log then map to the vendor's exp2/log2 instructions
// (tessel-gpu-math-to-intrinsics); f64 exp and log have expansions of
// their own (ExpandDeviceMathF64.cpp), so the expansions built on them
// (tanh, sinh, cosh and their inverses) serve f64 too. The graph lowering
// computes f16 and bf16 in f32; an f64 erf, sin, cos or tan is an error at
// the ONNX node.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/ExpandDeviceMath.h"
#include "codegen/common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "dialects/Graph/TesselDialect.h"

#include <limits>

namespace tessel {
#define GEN_PASS_DEF_EXPANDMATHPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// powf(x, y) = exp(y * log|x|), negated for a negative x and an odd
/// integral y, NaN for a negative x and a non-integral y; 1 when y is 0 or
/// x is 1 (even for NaN), as C's pow. f64 takes the f64 exp and log
/// expansions.
struct ExpandPowF : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!type.isF32() && !type.isF64())
      return rewriter.notifyMatchFailure(op, "only f32 and f64 are expanded");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto constant = [&](double v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
    };
    auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) -> Value {
      return arith::CmpFOp::create(b, loc, p, l, r);
    };
    Value x = op.getLhs(), y = op.getRhs();
    Value negative = cmp(arith::CmpFPredicate::OLT, x, constant(0));
    // |x| as a select: the GPU conversions take fabs for a library call.
    Value abs = arith::SelectOp::create(b, loc, negative,
                                        arith::NegFOp::create(b, loc, x), x);
    Value magnitude = math::ExpOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, y, math::LogOp::create(b, loc, abs)));
    Value integral = cmp(arith::CmpFPredicate::OEQ,
                         math::FloorOp::create(b, loc, y), y);
    Value half = arith::MulFOp::create(b, loc, y, constant(0.5));
    Value odd = arith::AndIOp::create(
        b, loc, integral,
        cmp(arith::CmpFPredicate::ONE, math::FloorOp::create(b, loc, half),
            half));
    Value result = arith::SelectOp::create(
        b, loc, arith::AndIOp::create(b, loc, negative, odd),
        arith::NegFOp::create(b, loc, magnitude), magnitude);
    Value notIntegral = arith::XOrIOp::create(
        b, loc, integral,
        arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
    result = arith::SelectOp::create(
        b, loc, arith::AndIOp::create(b, loc, negative, notIntegral),
        constant(std::numeric_limits<double>::quiet_NaN()), result);
    Value one = arith::OrIOp::create(
        b, loc, cmp(arith::CmpFPredicate::OEQ, y, constant(0)),
        cmp(arith::CmpFPredicate::OEQ, x, constant(1)));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, one, constant(1), result);
    return success();
  }
};

/// Marks an exp whose special cases are taken care of.
constexpr llvm::StringLiteral kGuardedExp = "tessel.guarded";

/// f32 exp(x) (scalar or vector) as select(x is NaN: x; x > ln(FLT_MAX):
/// +inf; x < ln(FLT_MIN): 0; else exp(x)), the inner exp marked for MLIR's
/// polynomial approximation, which clamps its argument to [-87.8, 88.8]
/// (so would be finite where exp overflows) and converts a NaN to an
/// integer (poison in LLVM). Results below FLT_MIN flush to zero.
struct GuardExp : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32() || op->hasAttr(kGuardedExp))
      return rewriter.notifyMatchFailure(op, "not an unguarded f32 exp");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto constant = [&](float v) -> Value {
      TypedAttr attr = b.getF32FloatAttr(v);
      if (auto vector = dyn_cast<VectorType>(type))
        attr = DenseElementsAttr::get(vector, attr);
      return arith::ConstantOp::create(b, loc, attr);
    };
    auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) -> Value {
      return arith::CmpFOp::create(b, loc, p, l, r);
    };
    Value x = op.getOperand();
    auto inner = math::ExpOp::create(b, loc, x);
    inner->setAttr(kGuardedExp, b.getUnitAttr());
    Value result = arith::SelectOp::create(
        b, loc, cmp(arith::CmpFPredicate::OLT, x, constant(-87.3365448f)),
        constant(0), inner);
    result = arith::SelectOp::create(
        b, loc, cmp(arith::CmpFPredicate::OGT, x, constant(88.7228394f)),
        constant(std::numeric_limits<float>::infinity()), result);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(
        op, cmp(arith::CmpFPredicate::UNO, x, x), x, result);
    return success();
  }
};

/// The bits of float `x` (scalar) as an integer, ANDed with `mask`.
Value maskedBits(PatternRewriter &rewriter, Location loc, Value x,
                 const APInt &mask) {
  auto bits = rewriter.getIntegerType(mask.getBitWidth());
  Value i = arith::BitcastOp::create(rewriter, loc, bits, x);
  Value m = arith::ConstantOp::create(rewriter, loc,
                                      rewriter.getIntegerAttr(bits, mask));
  return arith::AndIOp::create(rewriter, loc, i, m);
}

/// |x| as x's bits with the sign bit cleared: exact for every float width,
/// -0 and NaN included, with integer instructions every GPU has (NVVM
/// would otherwise call the device library's fabs for some widths).
struct ExpandAbsF : OpRewritePattern<math::AbsFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsFOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "vectors are not expanded");
    Value magnitude =
        maskedBits(rewriter, op.getLoc(), op.getOperand(),
                   APInt::getSignedMaxValue(type.getWidth()));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, magnitude);
    return success();
  }
};

/// copysign(x, y) as bits: x's magnitude with y's sign bit (the polynomial
/// approximations of asin, acos and atan use it).
struct ExpandCopySign : OpRewritePattern<math::CopySignOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::CopySignOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "vectors are not expanded");
    Location loc = op.getLoc();
    unsigned w = type.getWidth();
    Value magnitude = maskedBits(rewriter, loc, op.getLhs(),
                                 APInt::getSignedMaxValue(w));
    Value sign = maskedBits(rewriter, loc, op.getRhs(), APInt::getSignMask(w));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(
        op, type, arith::OrIOp::create(rewriter, loc, magnitude, sign));
    return success();
  }
};

/// ceil(x) = -floor(-x): exact (negation is), and floor has an instruction
/// on every GPU.
struct ExpandCeil : OpRewritePattern<math::CeilOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::CeilOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value neg = arith::NegFOp::create(rewriter, loc, op.getOperand());
    Value floor = math::FloorOp::create(rewriter, loc, neg);
    rewriter.replaceOpWithNewOp<arith::NegFOp>(op, floor);
    return success();
  }
};

/// tanh(x) = copysign(t, x) with a = |x|: below 0.4 the Maclaurin series
/// t = a (1 + c1 a^2 + c2 a^4 + ...), to a^13 for f32 and a^29 for f64
/// (the truncation error is below 4e-9 and 2e-18 relative); from 0.4,
/// t = 1 - 2 / (exp(2a) + 1), where t >= 0.38 so the subtraction loses
/// little, and which is 1 once exp overflows. NaN stays NaN, -0 stays -0.
/// (MLIR's expansion uses the second form for every a, which cancels to
/// nothing near 0: tanh(1e-6) was 0 in f32.) Scalars and vectors of f32
/// or f64; other types are left.
struct ExpandTanh : OpRewritePattern<math::TanhOp> {
  using OpRewritePattern::OpRewritePattern;

  // The Maclaurin coefficients of tanh, 2^2n (2^2n - 1) B_2n / (2n)! for
  // n = 1..15 (B_2n the Bernoulli numbers): 1, -1/3, 2/15, -17/315, ...
  static constexpr double kSeries[] = {
      1.0,
      -0.3333333333333333,
      0.13333333333333333,
      -0.05396825396825397,
      0.021869488536155203,
      -0.008863235529902197,
      0.003592128036572481,
      -0.0014558343870513183,
      0.000590027440945586,
      -0.00023912911424355248,
      9.691537956929451e-05,
      -3.927832388331683e-05,
      1.5918905069328964e-05,
      -6.451689215655431e-06,
      2.6147711512907546e-06};

  LogicalResult matchAndRewrite(math::TanhOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    Type element = getElementTypeOrSelf(type);
    if (!element.isF32() && !element.isF64())
      return rewriter.notifyMatchFailure(op, "not f32 or f64");
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto constant = [&](double v) -> Value {
      TypedAttr attr = b.getFloatAttr(element, v);
      if (auto vector = dyn_cast<VectorType>(type))
        attr = DenseElementsAttr::get(vector, attr);
      return arith::ConstantOp::create(b, loc, attr);
    };
    Value x = op.getOperand();
    Value a = math::AbsFOp::create(b, loc, x);
    // Small: a * P(a^2) by Horner's rule, highest power first.
    size_t terms = element.isF32() ? 7 : 15;
    Value a2 = arith::MulFOp::create(b, loc, a, a);
    Value p = constant(kSeries[terms - 1]);
    for (size_t i = terms - 1; i-- > 0;)
      p = math::FmaOp::create(b, loc, p, a2, constant(kSeries[i]));
    Value small = arith::MulFOp::create(b, loc, a, p);
    // Large: 1 - 2 / (exp(2a) + 1).
    Value e = math::ExpOp::create(b, loc, arith::AddFOp::create(b, loc, a, a));
    Value large = arith::SubFOp::create(
        b, loc, constant(1),
        arith::DivFOp::create(b, loc, constant(2),
                              arith::AddFOp::create(b, loc, e, constant(1))));
    Value t = arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a,
                              constant(0.4)),
        small, large);
    rewriter.replaceOpWithNewOp<math::CopySignOp>(op, t, x);
    return success();
  }
};

/// See Passes.td.
struct ExpandMathPass : tessel::impl::ExpandMathPassBase<ExpandMathPass> {
  void runOnOperation() override {
    RewritePatternSet guards(&getContext());
    // tanh first: the exp it makes is guarded with the others.
    guards.add<ExpandTanh, GuardExp>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(guards))))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateErfPattern(patterns);
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return name == math::ExpOp::getOperationName();
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void tessel::populateDeviceMathExpansionPatterns(RewritePatternSet &patterns) {
  patterns.add<ExpandTanh, ExpandPowF, ExpandAbsF, ExpandCeil,
               ExpandCopySign>(patterns.getContext());
  populateDeviceMathF64Patterns(patterns);
  // tan as sin / cos, the hyperbolic functions and their inverses with exp,
  // log and sqrt, round-half-even with floor; then sin, cos and the inverse
  // trigonometric functions as MLIR's f32 polynomials.
  math::populateExpansionPatterns(
      patterns, {"tan", "sinh", "cosh", "asinh", "acosh", "atanh", "roundeven",
                 "round"});
  populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
    return name == math::SinOp::getOperationName() ||
           name == math::CosOp::getOperationName() ||
           name == math::AsinOp::getOperationName() ||
           name == math::AcosOp::getOperationName() ||
           name == math::AtanOp::getOperationName();
  });
  populatePolynomialApproximateErfPattern(patterns);
}

LogicalResult tessel::checkDeviceMathExpanded(Operation *root) {
  WalkResult result = root->walk([](Operation *op) {
    // erf, pow and the trigonometric functions are left only where they
    // had no expansion (f64 for erf, sin, cos, tan); exp and log map to
    // f32 instructions, are expanded for f64, and would need a device
    // library at other widths.
    bool unexpanded =
        isa<math::ErfOp, math::PowFOp, math::SinOp, math::CosOp, math::TanOp,
            math::AsinOp, math::AcosOp, math::AtanOp, math::SinhOp,
            math::CoshOp, math::AsinhOp, math::AcoshOp, math::AtanhOp,
            math::RoundEvenOp, math::RoundOp>(op);
    bool noInstruction =
        isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op,
            math::TanhOp>(op) &&
        !getElementTypeOrSelf(op->getResult(0).getType()).isF32();
    if (!unexpanded && !noInstruction)
      return WalkResult::advance();
    std::string where = describeLoc(op->getLoc());
    op->emitError() << (where.empty() ? "" : where + ": ") << "'"
                    << op->getName() << "' on " << op->getResult(0).getType()
                    << " has no GPU expansion (GPU kernels link no device "
                       "library, and this op has no expansion for this type)";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}
