//===- LowerContraction.cpp - MatMul, Gemm and Conv to linalg --------------===//
//
// Contractions become a linalg.generic with a trailing reduction loop nest
// whose init holds the bias (or zero): numpy matmul with broadcast batch
// dims, Gemm with transposes and alpha/beta, and N-d grouped, strided,
// dilated convolution over a zero-padded input. Sums are kept in the op's
// accumulator type (f32 for f16/bf16 elements) and rounded once at the end.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

/// `v` converted to the wider type `to` (an accumulator); integers are
/// sign-extended unless `isUnsigned`.
Value widen(OpBuilder &b, Location l, Value v, Type to,
            bool isUnsigned = false) {
  if (v.getType() == to)
    return v;
  if (isa<FloatType>(to))
    return arith::ExtFOp::create(b, l, to, v);
  if (isUnsigned)
    return arith::ExtUIOp::create(b, l, to, v);
  return arith::ExtSIOp::create(b, l, to, v);
}

/// acc + a * b (optionally scaled by alpha) as the body of a contraction,
/// in the accumulator's type (args[2]). Float products may contract into
/// the sum (fastmath `contract`): one fused multiply-add per step, rounded
/// once, where a separate multiply and add take two instructions and two
/// roundings (LLVM fuses only what carries the flag; on Intel cores the
/// two share the FMA ports, so a register tile of vmulps + vaddps runs at
/// half the speed of one of vfmadd).
///
/// `lhsUnsigned`: the first operand's integers are unsigned (u8
/// activations, `input_unsigned`), zero-extended.
void multiplyAccumulate(OpBuilder &b, Location l, ValueRange args,
                        double alpha = 1.0, bool lhsUnsigned = false) {
  Type acc = args[2].getType();
  Value x = widen(b, l, args[0], acc, lhsUnsigned);
  Value y = widen(b, l, args[1], acc);
  Value prod;
  if (isa<FloatType>(acc)) {
    auto contract = arith::FastMathFlags::contract;
    prod = arith::MulFOp::create(b, l, x, y, contract);
    if (alpha != 1.0)
      prod = arith::MulFOp::create(
          b, l, prod, scalar(b, l, prod.getType(), alpha), contract);
    yield(b, l, arith::AddFOp::create(b, l, args[2], prod, contract));
    return;
  }
  prod = arith::MulIOp::create(b, l, x, y);
  yield(b, l, arith::AddIOp::create(b, l, args[2], prod));
}

/// The init of a contraction's sums: `result` (the op's empty result)
/// retyped to the accumulator when that differs.
Value accumulatorInit(OpBuilder &b, Location loc, Value result, Type acc) {
  auto type = cast<RankedTensorType>(result.getType());
  if (type.getElementType() == acc)
    return result;
  return tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, result),
                                 acc)
      .getResult();
}

/// The sums rounded to the element type of `result` (an empty tensor of the
/// op's result type), once; `sums` itself when it has that type.
Value roundSums(OpBuilder &b, Location loc, Value sums, Value result) {
  auto type = cast<RankedTensorType>(result.getType());
  Type element = type.getElementType();
  if (cast<RankedTensorType>(sums.getType()).getElementType() == element)
    return sums;
  auto id = AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  return generic(b, loc, sums, result, {id, id}, iterators(type.getRank()),
                 [&](OpBuilder &nb, Location l, ValueRange a) {
                   Value v = isa<FloatType>(element)
                                 ? arith::TruncFOp::create(nb, l, element, a[0])
                                       .getResult()
                                 : arith::TruncIOp::create(nb, l, element, a[0])
                                       .getResult();
                   yield(nb, l, v);
                 });
}

struct LowerMatMul : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatMulOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
    RankedTensorType type = op.getType();
    bool vecA = lhsType.getRank() == 1, vecB = rhsType.getRank() == 1;
    int64_t rank = type.getRank();
    int64_t batch = rank - (vecA ? 0 : 1) - (vecB ? 0 : 1);
    int64_t mLoop = batch, nLoop = batch + (vecA ? 0 : 1), kLoop = rank;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };

    // Batch dims of an operand, aligned right against the result's.
    auto batchExprs = [&](RankedTensorType t, SmallVectorImpl<AffineExpr> &e) {
      int64_t own = t.getRank() - 2;
      for (int64_t j = 0; j < own; ++j) {
        int64_t loop = batch - own + j;
        if (t.getDimSize(j) == 1 && type.getDimSize(loop) != 1)
          e.push_back(getAffineConstantExpr(0, ctx));
        else
          e.push_back(d(loop));
      }
    };
    SmallVector<AffineExpr> lhsExprs, rhsExprs, outExprs;
    if (vecA) {
      lhsExprs.push_back(d(kLoop));
    } else {
      batchExprs(lhsType, lhsExprs);
      lhsExprs.append({d(mLoop), d(kLoop)});
    }
    if (vecB) {
      rhsExprs.push_back(d(kLoop));
    } else {
      batchExprs(rhsType, rhsExprs);
      rhsExprs.append({d(kLoop), d(nLoop)});
    }
    for (int64_t i = 0; i < rank; ++i)
      outExprs.push_back(d(i));

    Value empty = emptyResult(rewriter, op);
    Value init = fill(
        rewriter, loc,
        accumulatorInit(rewriter, loc, empty, op.getAccumulatorType()), 0.0);
    SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, lhsExprs, ctx),
                                   AffineMap::get(rank + 1, 0, rhsExprs, ctx),
                                   AffineMap::get(rank + 1, 0, outExprs, ctx)};
    bool lhsUnsigned = op.getInputUnsigned();
    Value result = generic(rewriter, loc, {op.getLhs(), op.getRhs()}, init,
                           maps, iterators(rank, 1),
                           [&](OpBuilder &b, Location l, ValueRange a) {
                             multiplyAccumulate(b, l, a, 1.0, lhsUnsigned);
                           });
    rewriter.replaceOp(op, roundSums(rewriter, loc, result, empty));
    return success();
  }
};

struct LowerGemm : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType type = op.getType();
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    bool transA = op.getTransA(), transB = op.getTransB();
    Value empty = emptyResult(rewriter, op); // M from A, N from B
    Type acc = op.getAccumulatorType();
    Value init = accumulatorInit(rewriter, loc, empty, acc);
    double beta = op.getBeta().convertToDouble();
    if (Value c = op.getC(); c && beta != 0.0) {
      auto cType = cast<RankedTensorType>(c.getType());
      auto id = AffineMap::getMultiDimIdentityMap(2, ctx);
      init = generic(rewriter, loc, c, init,
                     {broadcastMap(ctx, 2, cType, type), id}, iterators(2),
                     [&](OpBuilder &b, Location l, ValueRange a) {
                       Value v = widen(b, l, a[0], acc);
                       if (beta != 1.0)
                         v = arith::MulFOp::create(
                             b, l, v, scalar(b, l, v.getType(), beta));
                       yield(b, l, v);
                     });
    } else {
      init = fill(rewriter, loc, init, 0.0);
    }
    // Loops (m, n, k).
    auto aMap = AffineMap::get(3, 0,
                               transA ? ArrayRef<AffineExpr>{d(2), d(0)}
                                      : ArrayRef<AffineExpr>{d(0), d(2)},
                               ctx);
    auto bMap = AffineMap::get(3, 0,
                               transB ? ArrayRef<AffineExpr>{d(1), d(2)}
                                      : ArrayRef<AffineExpr>{d(2), d(1)},
                               ctx);
    auto outMap = AffineMap::get(3, 0, {d(0), d(1)}, ctx);
    double alpha = op.getAlpha().convertToDouble();
    Value result = generic(rewriter, loc, {op.getA(), op.getB()}, init,
                           {aMap, bMap, outMap}, iterators(2, 1),
                           [&](OpBuilder &b, Location l, ValueRange a) {
                             multiplyAccumulate(b, l, a, alpha);
                           });
    rewriter.replaceOp(op, roundSums(rewriter, loc, result, empty));
    return success();
  }
};

struct LowerConv : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType type = op.getType();
    auto wType = cast<RankedTensorType>(op.getWeight().getType());
    int64_t spatial = type.getRank() - 2;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (i != 0 && type.isDynamicDim(i))
        return rewriter.notifyMatchFailure(op, "only the batch may be dynamic");
    if (!wType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "weights must be static");

    // The padding is the real 0: the input's zero point, if it has one.
    Type inElement =
        cast<RankedTensorType>(op.getInput().getType()).getElementType();
    Value zero = scalar(rewriter, loc, inElement, 0.0);
    if (std::optional<int64_t> point = op.getInputZeroPoint())
      zero = arith::ConstantOp::create(
          rewriter, loc,
          IntegerAttr::get(inElement,
                           APInt(inElement.getIntOrFloatBitWidth(),
                                 uint64_t(*point), /*isSigned=*/*point < 0)));
    Value input = padSpatial(rewriter, loc, op.getInput(), op.getPads(), zero);
    int64_t group = op.getGroup();
    int64_t perGroupIn = wType.getDimSize(op.getChannelDim());
    int64_t perGroupOut = op.getFilterCount() / group;
    // Padded rows of filters-last weights: a view of the filters' columns.
    Value weight = op.getWeight();
    if (op.getFiltersLast() && wType.getShape().back() != op.getFilterCount()) {
      SmallVector<OpFoldResult> offsets(wType.getRank(),
                                        rewriter.getIndexAttr(0)),
          sizes, strides(wType.getRank(), rewriter.getIndexAttr(1));
      for (int64_t d : wType.getShape())
        sizes.push_back(rewriter.getIndexAttr(d));
      sizes.back() = rewriter.getIndexAttr(op.getFilterCount());
      weight = tensor::ExtractSliceOp::create(rewriter, loc, weight, offsets,
                                              sizes, strides);
    }
    Value empty = emptyResult(rewriter, op); // the batch from the input
    Type acc = op.getAccumulatorType();

    // Groups of several filters get a loop of their own: loops n, g, f, o
    // | c, k, over views with the channels split into [G, C/G] and the
    // filters into [G, F/G]. Every index is then linear in the loops. With
    // one loop over all F filters, a filter's input channels would be
    // (f floordiv (F/G)) * (C/G) + c, and a tile of the f loop whose start
    // is not a multiple of F/G reads the wrong channels: tiling rebases a
    // map at the tile's start, which is exact only for linear maps. A group
    // of one filter (depthwise) keeps the single loop: f * (C/G) + c is
    // linear.
    bool splitGroups = group > 1 && perGroupOut > 1;
    int64_t g = splitGroups ? 1 : 0;
    int64_t fLoop = 1 + g, oLoop = 2 + g, cLoop = oLoop + spatial;
    int64_t loops = cLoop + 1 + spatial, outRank = oLoop + spatial;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> inExprs = {d(0)}, wExprs = {d(cLoop)},
                            outExprs = {d(0)};
    SmallVector<AffineExpr> filter; // the filter's dims in the weight
    if (splitGroups) {
      inExprs.append({d(1), d(cLoop)});
      filter = {d(1), d(fLoop)};
      outExprs.append({d(1), d(fLoop)});
    } else {
      inExprs.push_back(group == 1 ? d(cLoop) : d(1) * perGroupIn + d(cLoop));
      filter = {d(1)};
      outExprs.push_back(d(1));
    }
    for (int64_t i = 0; i < spatial; ++i) {
      AffineExpr o = d(oLoop + i), k = d(cLoop + 1 + i);
      inExprs.push_back(o * op.getStrides()[i] + k * op.getDilations()[i]);
      wExprs.push_back(k);
      outExprs.push_back(o);
    }
    // F x C x K... or, with filters_last, C x K... x F.
    if (op.getFiltersLast())
      wExprs.append(filter);
    else
      wExprs.insert(wExprs.begin(), filter.begin(), filter.end());

    Value out = empty;
    if (splitGroups) {
      // dim `at` of `v` split into [group, rest].
      auto split = [&](Value v, int64_t at) -> Value {
        auto t = cast<RankedTensorType>(v.getType());
        SmallVector<int64_t> shape(t.getShape());
        shape[at] = t.getDimSize(at) / group;
        shape.insert(shape.begin() + at, group);
        SmallVector<ReassociationIndices> groups;
        for (int64_t i = 0; i < t.getRank(); ++i)
          groups.push_back(i < at    ? ReassociationIndices{i}
                           : i == at ? ReassociationIndices{i, i + 1}
                                     : ReassociationIndices{i + 1});
        return tensor::ExpandShapeOp::create(
            rewriter, loc, RankedTensorType::get(shape, t.getElementType()),
            v, groups);
      };
      input = split(input, 1);
      weight = split(weight, op.getFiltersLast() ? wType.getRank() - 1 : 0);
      out = split(empty, 1);
    }
    Value init = accumulatorInit(rewriter, loc, out, acc);
    if (Value bias = op.getBias()) {
      if (splitGroups)
        bias = tensor::ExpandShapeOp::create(
            rewriter, loc,
            RankedTensorType::get(
                {group, perGroupOut},
                cast<RankedTensorType>(bias.getType()).getElementType()),
            bias, SmallVector<ReassociationIndices>{{0, 1}});
      // The filter's loops come first in both nests (n, g, f, o...).
      auto biasMap = AffineMap::get(outRank, 0, filter, ctx);
      auto id = AffineMap::getMultiDimIdentityMap(outRank, ctx);
      init = generic(rewriter, loc, bias, init, {biasMap, id},
                     iterators(outRank),
                     [&](OpBuilder &b, Location l, ValueRange a) {
                       yield(b, l, widen(b, l, a[0], acc));
                     });
    } else {
      init = fill(rewriter, loc, init, 0.0);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                   AffineMap::get(loops, 0, wExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    bool inputUnsigned = op.getInputUnsigned();
    Value result = generic(rewriter, loc, {input, weight}, init, maps,
                           iterators(outRank, 1 + spatial),
                           [&](OpBuilder &b, Location l, ValueRange a) {
                             multiplyAccumulate(b, l, a, 1.0, inputUnsigned);
                           });
    result = roundSums(rewriter, loc, result, out);
    if (splitGroups) {
      SmallVector<ReassociationIndices> groups = {{0}, {1, 2}};
      for (int64_t i = 0; i < spatial; ++i)
        groups.push_back({3 + i});
      result = tensor::CollapseShapeOp::create(rewriter, loc, type, result,
                                               groups);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tessel::populateContractionToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMatMul, LowerGemm, LowerConv>(patterns.getContext());
}
