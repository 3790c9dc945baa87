//===- LowerElementwise.cpp - Elementwise graph ops to linalg -------------===//
//
// Binary arithmetic with numpy broadcasting, the activations, inference
// batch normalization and softmax, each as linalg.generic ops whose bodies
// hold the scalar arith/math computation.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

/// The scalar computation of a binary op on `lhs` and `rhs`.
template <typename Op>
Value binaryScalar(OpBuilder &b, Location loc, Value lhs, Value rhs);

template <>
Value binaryScalar<AddOp>(OpBuilder &b, Location loc, Value l, Value r) {
  if (isa<FloatType>(l.getType()))
    return arith::AddFOp::create(b, loc, l, r);
  return arith::AddIOp::create(b, loc, l, r);
}
template <>
Value binaryScalar<SubOp>(OpBuilder &b, Location loc, Value l, Value r) {
  if (isa<FloatType>(l.getType()))
    return arith::SubFOp::create(b, loc, l, r);
  return arith::SubIOp::create(b, loc, l, r);
}
template <>
Value binaryScalar<MulOp>(OpBuilder &b, Location loc, Value l, Value r) {
  if (isa<FloatType>(l.getType()))
    return arith::MulFOp::create(b, loc, l, r);
  return arith::MulIOp::create(b, loc, l, r);
}
/// `fn` on `args` computed in f32 when they are narrower floats (f16,
/// bf16: the math library and the GPU expansions are f32 and f64), with the
/// result rounded back to their type.
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

/// powf (C semantics); the GPU targets expand it (ExpandDeviceMath.cpp).
template <>
Value binaryScalar<PowOp>(OpBuilder &b, Location loc, Value l, Value r) {
  return inF32(b, loc, {l, r}, [&](ValueRange a) {
    return math::PowFOp::create(b, loc, a[0], a[1]).getResult();
  });
}

/// An integer constant of `l`'s type.
Value intConstant(OpBuilder &b, Location loc, Value l, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(l.getType(), v));
}

// Integer division never traps (docs/design.md, "Integer division"):
// arith.divsi/divui are undefined behaviour for a zero divisor and for
// INT_MIN / -1, and x86 raises SIGFPE for both. The divisor is replaced by
// 1 where it would trap, and the quotient by the defined result:
// x / 0 = 0, and x / -1 = 0 - x (wrapping, so INT_MIN / -1 = INT_MIN).

template <>
Value binaryScalar<DivOp>(OpBuilder &b, Location loc, Value l, Value r) {
  if (isa<FloatType>(l.getType()))
    return arith::DivFOp::create(b, loc, l, r);
  Value zero = intConstant(b, loc, l, 0), one = intConstant(b, loc, l, 1),
        minusOne = intConstant(b, loc, l, -1);
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r, zero);
  Value isMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r, minusOne);
  Value special = arith::OrIOp::create(b, loc, isZero, isMinusOne);
  Value divisor = arith::SelectOp::create(b, loc, special, one, r);
  Value quotient = arith::DivSIOp::create(b, loc, l, divisor);
  Value negated = arith::SubIOp::create(b, loc, zero, l);
  Value result = arith::SelectOp::create(b, loc, isMinusOne, negated, quotient);
  return arith::SelectOp::create(b, loc, isZero, zero, result);
}

/// Unsigned integer division (DivOp with is_unsigned): x / 0 = 0.
Value unsignedDiv(OpBuilder &b, Location loc, Value l, Value r) {
  Value zero = intConstant(b, loc, l, 0), one = intConstant(b, loc, l, 1);
  Value isZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r, zero);
  Value divisor = arith::SelectOp::create(b, loc, isZero, one, r);
  Value quotient = arith::DivUIOp::create(b, loc, l, divisor);
  return arith::SelectOp::create(b, loc, isZero, zero, quotient);
}

template <typename Op> struct LowerBinary : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    MLIRContext *ctx = op.getContext();
    SmallVector<Value> operands = {op.getLhs(), op.getRhs()};
    Value init = emptyResult(rewriter, op);
    SmallVector<AffineMap> maps;
    for (Value v : operands)
      maps.push_back(broadcastMap(ctx, type.getRank(),
                                  cast<RankedTensorType>(v.getType()), type));
    maps.push_back(AffineMap::getMultiDimIdentityMap(type.getRank(), ctx));
    bool isUnsigned = false;
    if constexpr (std::is_same_v<Op, DivOp>)
      isUnsigned = op.getIsUnsigned();
    Value result =
        generic(rewriter, loc, operands, init, maps, iterators(type.getRank()),
                [&](OpBuilder &b, Location l, ValueRange args) {
                  yield(b, l,
                        isUnsigned ? unsignedDiv(b, l, args[0], args[1])
                                   : binaryScalar<Op>(b, l, args[0], args[1]));
                });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Applies `fn` elementwise to the single operand of `op`.
LogicalResult lowerUnary(Operation *op, PatternRewriter &rewriter,
                         function_ref<Value(OpBuilder &, Location, Value)> fn) {
  if (failed(checkResultExtents(op, rewriter)))
    return failure();
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Value init = emptyResult(rewriter, op); // the input's dims
  auto id = AffineMap::getMultiDimIdentityMap(type.getRank(), op->getContext());
  Value result =
      generic(rewriter, loc, input, init, {id, id}, iterators(type.getRank()),
              [&](OpBuilder &b, Location l, ValueRange args) {
                yield(b, l, fn(b, l, args[0]));
              });
  rewriter.replaceOp(op, result);
  return success();
}

struct LowerRelu : OpRewritePattern<ReluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReluOp op,
                                PatternRewriter &rewriter) const override {
    return lowerUnary(op, rewriter, [](OpBuilder &b, Location l, Value x) {
      return arith::MaximumFOp::create(b, l, x, scalar(b, l, x.getType(), 0));
    });
  }
};

struct LowerSigmoid : OpRewritePattern<SigmoidOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SigmoidOp op,
                                PatternRewriter &rewriter) const override {
    return lowerUnary(op, rewriter, [](OpBuilder &b, Location l, Value x) {
      Value one = scalar(b, l, x.getType(), 1);
      Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
      return arith::DivFOp::create(b, l, one,
                                   arith::AddFOp::create(b, l, one, e));
    });
  }
};

struct LowerTanh : OpRewritePattern<TanhOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TanhOp op,
                                PatternRewriter &rewriter) const override {
    return lowerUnary(op, rewriter, [](OpBuilder &b, Location l, Value x) {
      return math::TanhOp::create(b, l, x);
    });
  }
};

struct LowerSqrt : OpRewritePattern<SqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SqrtOp op,
                                PatternRewriter &rewriter) const override {
    return lowerUnary(op, rewriter, [](OpBuilder &b, Location l, Value x) {
      return math::SqrtOp::create(b, l, x);
    });
  }
};

/// erf, in f32 for narrower floats; the GPU targets expand it
/// (ExpandDeviceMath.cpp), the CPU calls the math library.
struct LowerErf : OpRewritePattern<ErfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ErfOp op,
                                PatternRewriter &rewriter) const override {
    return lowerUnary(op, rewriter, [](OpBuilder &b, Location l, Value x) {
      return inF32(b, l, x, [&](ValueRange a) {
        return math::ErfOp::create(b, l, a[0]).getResult();
      });
    });
  }
};

/// min(max(x, lo), hi), each bound only where the op has it; the bounds
/// are scalars read by every element. NaN stays NaN.
struct LowerClip : OpRewritePattern<ClipOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClipOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value init = emptyResult(rewriter, op);
    MLIRContext *ctx = op.getContext();
    int64_t rank = type.getRank();
    auto id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    auto scalarMap = AffineMap::get(rank, 0, ctx);
    SmallVector<Value> inputs = {op.getInput()};
    SmallVector<AffineMap> maps = {id};
    for (Value bound : {op.getMin(), op.getMax()})
      if (bound) {
        inputs.push_back(bound);
        maps.push_back(scalarMap);
      }
    maps.push_back(id);
    bool isUnsigned = op.getIsUnsigned(), hasMin = bool(op.getMin());
    bool isFloat = isa<FloatType>(type.getElementType());
    Value result = generic(
        rewriter, loc, inputs, init, maps, iterators(rank),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0];
          auto clamp = [&](Value c, bool upper) -> Value {
            // Floats: a compare and a select, not minimumf/maximumf. A NaN
            // x stays NaN either way (both compares are false), and the
            // select vectorizes, where LLVM expands maximum/minimum of an
            // unknown bound into branches per element (their -0 < +0
            // order); the two differ only in the sign of a zero result.
            if (isFloat) {
              Value out = arith::CmpFOp::create(
                  b, l,
                  upper ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
                  x, c);
              return arith::SelectOp::create(b, l, out, c, x);
            }
            if (isUnsigned)
              return upper ? arith::MinUIOp::create(b, l, x, c).getResult()
                           : arith::MaxUIOp::create(b, l, x, c).getResult();
            return upper ? arith::MinSIOp::create(b, l, x, c).getResult()
                         : arith::MaxSIOp::create(b, l, x, c).getResult();
          };
          unsigned next = 1;
          if (hasMin)
            x = clamp(args[next++], /*upper=*/false);
          if (op.getMax())
            x = clamp(args[next], /*upper=*/true);
          yield(b, l, x);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// One element converted from `x` to `to` with CastOp's rules.
Value castScalar(OpBuilder &b, Location l, Value x, Type to, bool fromUnsigned,
                 bool toUnsigned) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (to.isInteger(1)) // != 0 (NaN is true, as in C)
    return fromFloat ? arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE,
                                             x, scalar(b, l, from, 0))
                           .getResult()
                     : arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, x,
                                             scalar(b, l, from, 0))
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
      return scalar(b, l, from, d);
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
    Value isNan =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
    return arith::SelectOp::create(b, l, isNan, scalar(b, l, to, 0),
                                   converted);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  if (fromWidth > toInt.getWidth())
    return arith::TruncIOp::create(b, l, to, x);
  return fromUnsigned || from.isInteger(1)
             ? arith::ExtUIOp::create(b, l, to, x).getResult()
             : arith::ExtSIOp::create(b, l, to, x).getResult();
}

struct LowerCast : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    Type to = op.getType().getElementType();
    bool fromUnsigned = op.getInputUnsigned(),
         toUnsigned = op.getResultUnsigned();
    return lowerUnary(op, rewriter, [&](OpBuilder &b, Location l, Value x) {
      return castScalar(b, l, x, to, fromUnsigned, toUnsigned);
    });
  }
};

/// y = (x - mean) * scale / sqrt(variance + epsilon) + bias, per channel.
struct LowerBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto type = op.getType();
    int64_t rank = type.getRank();
    MLIRContext *ctx = op.getContext();
    Value init = emptyResult(rewriter, op); // the input's dims
    auto id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    auto channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
    double eps = op.getEpsilon().convertToDouble();
    Value result =
        generic(rewriter, loc,
                {op.getInput(), op.getScale(), op.getBias(), op.getMean(),
                 op.getVariance()},
                init, {id, channel, channel, channel, channel, id},
                iterators(rank), [&](OpBuilder &b, Location l, ValueRange a) {
                  Value denom = math::SqrtOp::create(
                      b, l,
                      arith::AddFOp::create(b, l, a[4],
                                            scalar(b, l, a[4].getType(), eps)));
                  Value centered = arith::SubFOp::create(b, l, a[0], a[3]);
                  Value scaled = arith::DivFOp::create(
                      b, l, arith::MulFOp::create(b, l, centered, a[1]), denom);
                  yield(b, l, arith::AddFOp::create(b, l, scaled, a[2]));
                });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// softmax(x) = exp(x - max) / sum(exp(x - max)) along `axis`, as three
/// generics: a max reduction, exp with a sum reduction, and the division.
struct LowerSoftmax : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    MLIRContext *ctx = op.getContext();
    Type element = type.getElementType();
    Value input = op.getInput();

    // Loops: every dim but `axis` in order (parallel), then `axis`.
    SmallVector<AffineExpr> full, reduced;
    for (int64_t i = 0, p = 0; i < rank; ++i) {
      if (i == axis) {
        full.push_back(getAffineDimExpr(rank - 1, ctx));
        continue;
      }
      full.push_back(getAffineDimExpr(p, ctx));
      reduced.push_back(getAffineDimExpr(p++, ctx));
    }
    auto fullMap = AffineMap::get(rank, 0, full, ctx);
    auto reducedMap = AffineMap::get(rank, 0, reduced, ctx);
    SmallVector<int64_t> reducedShape;
    SmallVector<DimSource> reducedSources;
    for (int64_t i = 0; i < rank; ++i)
      if (i != axis) {
        reducedShape.push_back(type.getDimSize(i));
        reducedSources.push_back({input, i});
      }
    auto reducedType = RankedTensorType::get(reducedShape, element);
    Value reducedInit = emptyTensor(rewriter, loc, reducedType, reducedSources);

    Value maxInit = fill(rewriter, loc, reducedInit,
                         -std::numeric_limits<double>::infinity());
    Value max = generic(
        rewriter, loc, input, maxInit, {fullMap, reducedMap},
        iterators(rank - 1, 1), [](OpBuilder &b, Location l, ValueRange a) {
          yield(b, l, arith::MaximumFOp::create(b, l, a[0], a[1]));
        });
    Value expInit = emptyLike(rewriter, loc, type, input);
    Value exps = generic(rewriter, loc, {input, max}, expInit,
                         {fullMap, reducedMap, fullMap}, iterators(rank),
                         [](OpBuilder &b, Location l, ValueRange a) {
                           Value d = arith::SubFOp::create(b, l, a[0], a[1]);
                           yield(b, l, math::ExpOp::create(b, l, d));
                         });
    Value sumInit = fill(rewriter, loc, reducedInit, 0.0);
    Value sum = generic(rewriter, loc, exps, sumInit, {fullMap, reducedMap},
                        iterators(rank - 1, 1),
                        [](OpBuilder &b, Location l, ValueRange a) {
                          yield(b, l, arith::AddFOp::create(b, l, a[0], a[1]));
                        });
    Value outInit = emptyResult(rewriter, op); // the input's dims
    Value result = generic(
        rewriter, loc, {exps, sum}, outInit, {fullMap, reducedMap, fullMap},
        iterators(rank), [](OpBuilder &b, Location l, ValueRange a) {
          yield(b, l, arith::DivFOp::create(b, l, a[0], a[1]));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tessel::populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerBinary<AddOp>, LowerBinary<SubOp>, LowerBinary<MulOp>,
               LowerBinary<DivOp>, LowerBinary<PowOp>, LowerRelu, LowerSigmoid,
               LowerTanh, LowerSqrt, LowerErf, LowerClip, LowerCast,
               LowerBatchNorm, LowerSoftmax>(patterns.getContext());
}
