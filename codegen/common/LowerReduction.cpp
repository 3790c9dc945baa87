//===- LowerReduction.cpp - Reduce*, ArgMax/ArgMin to linalg ---------------===//
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
// Axes known only at run time (a `dynamic_axes` operand, always with
// keepdims) make one generic that serves any choice of axes: per input dim
// d, a parallel loop o_d over the result's extent O_d (1 where d is
// reduced, else the input's n_d) and a reduction loop r_d over
// R_d = n_d - O_d + 1 (n_d where reduced, else 1), reading the input at
// o_d + r_d. The maps stay affine; a shape-only "window" operand gives the
// r loops their extents, as for pooling. It accumulates in the result
// itself, so there is no workspace whose extents the plan would have to
// compute: the importer casts f16/bf16 and integer means to their
// accumulator type around such a reduction. A mean then divides in place.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

enum class Kind { Sum, Prod, Mean, Max, Min };

/// The value a reduction of `kind` starts from in `type`.
Value identity(OpBuilder &b, Location loc, Type type, Kind kind,
               bool isUnsigned) {
  if (kind == Kind::Sum || kind == Kind::Mean)
    return scalar(b, loc, type, 0);
  if (kind == Kind::Prod)
    return scalar(b, loc, type, 1);
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
  case Kind::Prod:
    return isFloat ? arith::MulFOp::create(b, l, acc, x).getResult()
                   : arith::MulIOp::create(b, l, acc, x).getResult();
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
    if (op.getDynamicAxes())
      return rewriteDynamic(op, rewriter);
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
    SmallVector<Value> reducedExtents;
    for (int64_t d : axes)
      reducedExtents.push_back(tensor::DimOp::create(rewriter, loc, x, d));
    Value count = meanCount(rewriter, loc, acc, reducedExtents);

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
          yield(b, l, finish(b, l, a[0], count, element, isUnsigned));
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// A mean's divisor in `acc` from the reduced extents (at least 1 for
  /// integers: an empty mean is 0 / 1, never a division by zero); null for
  /// other kinds.
  Value meanCount(OpBuilder &b, Location loc, Type acc,
                  ArrayRef<Value> reducedExtents) const {
    if (kind != Kind::Mean)
      return {};
    Value n = arith::ConstantIndexOp::create(b, loc, 1);
    for (Value extent : reducedExtents)
      n = b.createOrFold<arith::MulIOp>(loc, n, extent);
    Value n64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), n);
    if (isa<FloatType>(acc))
      return arith::SIToFPOp::create(b, loc, acc, n64);
    Value one = arith::ConstantIntOp::create(b, loc, 1, 64);
    return convert(b, loc, arith::MaxSIOp::create(b, loc, n64, one), acc,
                   false);
  }

  /// An accumulated value as a result element: divided by `count` (a mean),
  /// then converted to the element type.
  static Value finish(OpBuilder &b, Location l, Value v, Value count,
                      Type element, bool isUnsigned) {
    if (count)
      v = isa<FloatType>(v.getType())
              ? arith::DivFOp::create(b, l, v, count).getResult()
          : isUnsigned ? arith::DivUIOp::create(b, l, v, count).getResult()
                       : arith::DivSIOp::create(b, l, v, count).getResult();
    return convert(b, l, v, element, isUnsigned);
  }

  /// Run-time axes: see the file comment.
  LogicalResult rewriteDynamic(Op op, PatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value x = op.getInput();
    auto inType = cast<RankedTensorType>(x.getType());
    int64_t rank = inType.getRank();
    Type acc = op.getAccType(), element = inType.getElementType();
    bool isUnsigned = op.getIsUnsigned();
    if (acc != element)
      return rewriter.notifyMatchFailure(
          op, "run-time axes need an accumulator of the element type");
    std::optional<SmallVector<Value>> axes =
        smallIntegerElements(rewriter, loc, op.getDynamicAxes());
    if (!axes)
      return rewriter.notifyMatchFailure(op, "axes are not a small tensor");
    SmallVector<Value> flags = reducedDimFlags(rewriter, loc, *axes, rank);

    // The result accumulates; its extents are O_d = n_d - f_d (n_d - 1)
    // (the contract's). The window's are R_d = n_d - O_d + 1, at most n_d
    // (an empty kept dim has no o loop to run the window for), so that it
    // is a slice of the input: a view, whose elements are never read.
    Value result = emptyResult(rewriter, op);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> window;
    for (int64_t d = 0; d < rank; ++d) {
      Value n = rewriter.createOrFold<tensor::DimOp>(loc, x, d);
      Value o = rewriter.createOrFold<tensor::DimOp>(loc, result, d);
      window.push_back(rewriter.createOrFold<arith::MinSIOp>(
          loc, n,
          rewriter.createOrFold<arith::AddIOp>(
              loc, rewriter.createOrFold<arith::SubIOp>(loc, n, o), one)));
    }
    Value init = linalg::FillOp::create(
                     rewriter, loc,
                     identity(rewriter, loc, acc, kind, isUnsigned), result)
                     .getResult(0);
    SmallVector<AffineExpr> inExprs, keptExprs, windowExprs;
    for (int64_t d = 0; d < rank; ++d) {
      keptExprs.push_back(getAffineDimExpr(d, ctx));
      windowExprs.push_back(getAffineDimExpr(rank + d, ctx));
      inExprs.push_back(keptExprs.back() + windowExprs.back());
    }
    // An input with a static empty dim has nothing to read: the result is
    // the identity (the loops would never run, and static out-of-bounds
    // offsets of the empty window must not be built).
    Value reduced = init;
    if (!llvm::is_contained(inType.getShape(), 0)) {
      SmallVector<OpFoldResult> zeros(rank, rewriter.getIndexAttr(0)),
          ones(rank, rewriter.getIndexAttr(1));
      Value windowShape = tensor::ExtractSliceOp::create(
          rewriter, loc,
          RankedTensorType::get(
              SmallVector<int64_t>(rank, ShapedType::kDynamic), element),
          x, zeros, getAsOpFoldResult(window), ones);
      reduced = generic(
          rewriter, loc, {x, windowShape}, init,
          {AffineMap::get(2 * rank, 0, inExprs, ctx),
           AffineMap::get(2 * rank, 0, windowExprs, ctx),
           AffineMap::get(2 * rank, 0, keptExprs, ctx)},
          iterators(rank, rank),
          [&](OpBuilder &b, Location l, ValueRange a) {
            yield(b, l, combine(b, l, kind, isUnsigned, a[2], a[0]));
          });
    }
    // A mean divides its sums in place by the window's element count.
    if (Value count = meanCount(rewriter, loc, acc, window))
      reduced = generic(rewriter, loc, ValueRange{}, reduced,
                        {AffineMap::getMultiDimIdentityMap(rank, ctx)},
                        iterators(rank),
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          yield(b, l, finish(b, l, a[0], count, element,
                                             isUnsigned));
                        });
    rewriter.replaceOp(op, reduced);
    return success();
  }

  Kind kind;
};

/// ArgMax/ArgMin: one generic over the kept dims then the axis, with two
/// outputs (the extreme so far and its index, workspaces of the kept dims)
/// and a second generic that writes the indices in the result's shape.
template <typename Op> struct LowerArgReduce : OpRewritePattern<Op> {
  LowerArgReduce(MLIRContext *ctx, bool max)
      : OpRewritePattern<Op>(ctx), max(max) {}

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value x = op.getInput();
    auto inType = cast<RankedTensorType>(x.getType());
    int64_t rank = inType.getRank(), axis = op.getAxis();
    Type element = inType.getElementType();
    bool isUnsigned = op.getIsUnsigned(), last = op.getSelectLastIndex();

    SmallVector<AffineExpr> inExprs(rank), keptExprs;
    SmallVector<int64_t> keptShape;
    SmallVector<DimSource> keptSources;
    for (int64_t d = 0, k = 0; d < rank; ++d) {
      if (d == axis) {
        inExprs[d] = getAffineDimExpr(rank - 1, ctx);
        continue;
      }
      keptExprs.push_back(getAffineDimExpr(k, ctx));
      inExprs[d] = getAffineDimExpr(k++, ctx);
      keptShape.push_back(inType.getDimSize(d));
      keptSources.push_back({x, d});
    }
    auto valueType = RankedTensorType::get(keptShape, element);
    auto indexType = RankedTensorType::get(keptShape, rewriter.getI64Type());
    Value values =
        linalg::FillOp::create(
            rewriter, loc,
            identity(rewriter, loc, element, max ? Kind::Max : Kind::Min,
                     isUnsigned),
            emptyTensor(rewriter, loc, valueType, keptSources))
            .getResult(0);
    Value indices = fill(rewriter, loc,
                         emptyTensor(rewriter, loc, indexType, keptSources), 0);
    AffineMap kept = AffineMap::get(rank, 0, keptExprs, ctx);
    auto search = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, indexType}, ValueRange{x},
        ValueRange{values, indices},
        SmallVector<AffineMap>{AffineMap::get(rank, 0, inExprs, ctx), kept,
                               kept},
        iterators(rank - 1, 1), [&](OpBuilder &b, Location l, ValueRange a) {
          Value v = a[0], best = a[1];
          Value take = better(b, l, v, best, isUnsigned, last);
          Value i = arith::IndexCastOp::create(
              b, l, b.getI64Type(), linalg::IndexOp::create(b, l, rank - 1));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, v, best),
                         arith::SelectOp::create(b, l, take, i, a[2])});
        });

    // The result: the kept dims from the indices, the axis 1 or gone.
    RankedTensorType type = op.getType();
    SmallVector<AffineExpr> fromResult;
    for (int64_t d = 0, r = 0; d < rank; ++d) {
      if (d != axis)
        fromResult.push_back(getAffineDimExpr(r, ctx));
      if (d != axis || op.getKeepdims())
        ++r;
    }
    Value result = generic(
        rewriter, loc, search.getResult(1), emptyResult(rewriter, op),
        {AffineMap::get(type.getRank(), 0, fromResult, ctx),
         AffineMap::getMultiDimIdentityMap(type.getRank(), ctx)},
        iterators(type.getRank()),
        [&](OpBuilder &b, Location l, ValueRange a) { yield(b, l, a[0]); });
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Whether `v` replaces `best`: strictly more extreme, or as extreme when
  /// the last index is wanted; a NaN beats any number (numpy), the first
  /// NaN stays unless the last is wanted.
  Value better(OpBuilder &b, Location l, Value v, Value best, bool isUnsigned,
               bool last) const {
    if (isa<FloatType>(v.getType())) {
      using P = arith::CmpFPredicate;
      P p = max ? (last ? P::OGE : P::OGT) : (last ? P::OLE : P::OLT);
      Value ordered = arith::CmpFOp::create(b, l, p, v, best);
      Value vNaN = arith::CmpFOp::create(b, l, P::UNO, v, v);
      Value nanTakes = vNaN;
      if (!last) {
        Value bestNumber = arith::CmpFOp::create(b, l, P::ORD, best, best);
        nanTakes = arith::AndIOp::create(b, l, vNaN, bestNumber);
      }
      return arith::OrIOp::create(b, l, ordered, nanTakes);
    }
    using P = arith::CmpIPredicate;
    P p = max ? (isUnsigned ? (last ? P::uge : P::ugt)
                            : (last ? P::sge : P::sgt))
              : (isUnsigned ? (last ? P::ule : P::ult)
                            : (last ? P::sle : P::slt));
    return arith::CmpIOp::create(b, l, p, v, best);
  }

  bool max;
};

} // namespace

void tessel::populateReductionToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<LowerReduce<ReduceSumOp>>(ctx, Kind::Sum);
  patterns.add<LowerReduce<ReduceProdOp>>(ctx, Kind::Prod);
  patterns.add<LowerReduce<ReduceMeanOp>>(ctx, Kind::Mean);
  patterns.add<LowerReduce<ReduceMaxOp>>(ctx, Kind::Max);
  patterns.add<LowerReduce<ReduceMinOp>>(ctx, Kind::Min);
  patterns.add<LowerArgReduce<ArgMaxOp>>(ctx, true);
  patterns.add<LowerArgReduce<ArgMinOp>>(ctx, false);
}
