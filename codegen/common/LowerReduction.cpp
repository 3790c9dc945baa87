//===- LowerReduction.cpp - ReduceSum/Mean/Max/Min to linalg ---------------===//
//
// Two generics per reduction. The first reduces into a tensor of the kept
// dims in the op's accumulator type (acc_type): its loops are the kept
// dims (parallel) then the reduced ones (reduction), so a stage's work is
// its output elements; each element is converted to the accumulator
// (extf, extsi or extui) before it is added (or compared). The second
// writes the result: a mean divides by the element count (a signed or
// unsigned integer division for integers, by at least 1 so that an empty
// reduction gives 0 and never traps), the accumulator is converted back to
// the element type, and with keepdims the reduced dims are extent 1.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

enum class Kind { Sum, Mean, Max, Min };

/// The value a reduction of `kind` starts from in `type`.
Value identity(OpBuilder &b, Location loc, Type type, Kind kind,
               bool isUnsigned) {
  if (kind == Kind::Sum || kind == Kind::Mean)
    return scalar(b, loc, type, 0);
  bool max = kind == Kind::Max;
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(f, max ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity()));
  unsigned w = type.getIntOrFloatBitWidth();
  APInt v = isUnsigned ? (max ? APInt::getZero(w) : APInt::getMaxValue(w))
                       : (max ? APInt::getSignedMinValue(w)
                              : APInt::getSignedMaxValue(w));
  return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, v));
}

Value combine(OpBuilder &b, Location l, Kind kind, bool isUnsigned, Value acc,
              Value x) {
  bool isFloat = isa<FloatType>(acc.getType());
  switch (kind) {
  case Kind::Sum:
  case Kind::Mean:
    return isFloat ? arith::AddFOp::create(b, l, acc, x).getResult()
                   : arith::AddIOp::create(b, l, acc, x).getResult();
  case Kind::Max:
    if (isFloat) // NaN propagates, as numpy's max
      return arith::MaximumFOp::create(b, l, acc, x);
    return isUnsigned ? arith::MaxUIOp::create(b, l, acc, x).getResult()
                      : arith::MaxSIOp::create(b, l, acc, x).getResult();
  case Kind::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, l, acc, x);
    return isUnsigned ? arith::MinUIOp::create(b, l, acc, x).getResult()
                      : arith::MinSIOp::create(b, l, acc, x).getResult();
  }
  llvm_unreachable("unknown reduction");
}

/// `x` widened (or narrowed) to `to`, integers as unsigned with `isUnsigned`.
Value convert(OpBuilder &b, Location l, Value x, Type to, bool isUnsigned) {
  Type from = x.getType();
  if (from == to)
    return x;
  if (isa<FloatType>(from))
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? arith::ExtFOp::create(b, l, to, x).getResult()
               : arith::TruncFOp::create(b, l, to, x).getResult();
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return arith::TruncIOp::create(b, l, to, x);
  return isUnsigned ? arith::ExtUIOp::create(b, l, to, x).getResult()
                    : arith::ExtSIOp::create(b, l, to, x).getResult();
}

template <typename Op> struct LowerReduce : OpRewritePattern<Op> {
  LowerReduce(MLIRContext *ctx, Kind kind)
      : OpRewritePattern<Op>(ctx), kind(kind) {}

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value x = op.getInput();
    auto inType = cast<RankedTensorType>(x.getType());
    int64_t rank = inType.getRank();
    ArrayRef<int64_t> axes = op.getAxes();
    Type acc = op.getAccType(), element = inType.getElementType();
    bool isUnsigned = op.getIsUnsigned();

    // Loops: the kept dims in order, then the reduced ones.
    SmallVector<AffineExpr> inExprs(rank), keptExprs;
    SmallVector<int64_t> keptShape;
    SmallVector<DimSource> keptSources;
    int64_t kept = rank - axes.size(), nextKept = 0, nextReduced = kept;
    for (int64_t d = 0; d < rank; ++d) {
      if (llvm::is_contained(axes, d)) {
        inExprs[d] = getAffineDimExpr(nextReduced++, ctx);
        continue;
      }
      keptExprs.push_back(getAffineDimExpr(nextKept, ctx));
      inExprs[d] = getAffineDimExpr(nextKept++, ctx);
      keptShape.push_back(inType.getDimSize(d));
      keptSources.push_back({x, d});
    }
    auto accType = RankedTensorType::get(keptShape, acc);
    Value accInit = linalg::FillOp::create(
                        rewriter, loc,
                        identity(rewriter, loc, acc, kind, isUnsigned),
                        emptyTensor(rewriter, loc, accType, keptSources))
                        .getResult(0);
    Value reduced = generic(
        rewriter, loc, x, accInit,
        {AffineMap::get(rank, 0, inExprs, ctx),
         AffineMap::get(rank, 0, keptExprs, ctx)},
        iterators(kept, rank - kept),
        [&](OpBuilder &b, Location l, ValueRange a) {
          yield(b, l,
                combine(b, l, kind, isUnsigned, a[1],
                        convert(b, l, a[0], acc, isUnsigned)));
        });

    // A mean's count: the product of the reduced extents.
    Value count;
    if (kind == Kind::Mean) {
      Value n = arith::ConstantIndexOp::create(rewriter, loc, 1);
      for (int64_t d : axes)
        n = arith::MulIOp::create(rewriter, loc, n,
                                  tensor::DimOp::create(rewriter, loc, x, d));
      Value n64 = arith::IndexCastOp::create(rewriter, loc,
                                             rewriter.getI64Type(), n);
      if (isa<FloatType>(acc)) {
        count = arith::SIToFPOp::create(rewriter, loc, acc, n64);
      } else {
        // At least 1: an empty mean is 0 / 1, never a division by zero.
        Value one = arith::ConstantIntOp::create(rewriter, loc, 1, 64);
        count = convert(rewriter, loc,
                        arith::MaxSIOp::create(rewriter, loc, n64, one), acc,
                        false);
      }
    }

    // The result: kept dims read from the accumulator, reduced ones 1.
    RankedTensorType type = op.getType();
    SmallVector<AffineExpr> fromResult;
    for (int64_t d = 0, r = 0; d < rank; ++d) {
      bool isReduced = llvm::is_contained(axes, d);
      if (!isReduced)
        fromResult.push_back(getAffineDimExpr(r, ctx));
      if (!isReduced || op.getKeepdims())
        ++r;
    }
    Value result = generic(
        rewriter, loc, reduced, emptyResult(rewriter, op),
        {AffineMap::get(type.getRank(), 0, fromResult, ctx),
         AffineMap::getMultiDimIdentityMap(type.getRank(), ctx)},
        iterators(type.getRank()),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value v = a[0];
          if (count)
            v = isa<FloatType>(acc)
                    ? arith::DivFOp::create(b, l, v, count).getResult()
                : isUnsigned ? arith::DivUIOp::create(b, l, v, count).getResult()
                             : arith::DivSIOp::create(b, l, v, count).getResult();
          yield(b, l, convert(b, l, v, element, isUnsigned));
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  Kind kind;
};

} // namespace

void tessel::populateReductionToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<LowerReduce<ReduceSumOp>>(ctx, Kind::Sum);
  patterns.add<LowerReduce<ReduceMeanOp>>(ctx, Kind::Mean);
  patterns.add<LowerReduce<ReduceMaxOp>>(ctx, Kind::Max);
  patterns.add<LowerReduce<ReduceMinOp>>(ctx, Kind::Min);
}
