//===- LowerContraction.cpp - MatMul, Gemm and Conv to linalg --------------===//
//
// Contractions become a linalg.generic with a trailing reduction loop nest
// whose init holds the bias (or zero): numpy matmul with broadcast batch
// dims, Gemm with transposes and alpha/beta, and N-d grouped, strided,
// dilated convolution over a zero-padded input.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

/// acc + a * b (optionally scaled by alpha) as the body of a contraction.
void multiplyAccumulate(OpBuilder &b, Location l, ValueRange args,
                        double alpha = 1.0) {
  Value prod;
  if (isa<FloatType>(args[0].getType())) {
    prod = arith::MulFOp::create(b, l, args[0], args[1]);
    if (alpha != 1.0)
      prod = arith::MulFOp::create(b, l, prod,
                                   scalar(b, l, prod.getType(), alpha));
    yield(b, l, arith::AddFOp::create(b, l, args[2], prod));
    return;
  }
  prod = arith::MulIOp::create(b, l, args[0], args[1]);
  yield(b, l, arith::AddIOp::create(b, l, args[2], prod));
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

    Value init = fill(rewriter, loc, emptyResult(rewriter, op), 0.0);
    SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, lhsExprs, ctx),
                                   AffineMap::get(rank + 1, 0, rhsExprs, ctx),
                                   AffineMap::get(rank + 1, 0, outExprs, ctx)};
    Value result =
        generic(rewriter, loc, {op.getLhs(), op.getRhs()}, init, maps,
                iterators(rank, 1), [](OpBuilder &b, Location l, ValueRange a) {
                  multiplyAccumulate(b, l, a);
                });
    rewriter.replaceOp(op, result);
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
    Value init = emptyResult(rewriter, op); // M from A, N from B
    double beta = op.getBeta().convertToDouble();
    if (Value c = op.getC(); c && beta != 0.0) {
      auto cType = cast<RankedTensorType>(c.getType());
      auto id = AffineMap::getMultiDimIdentityMap(2, ctx);
      init = generic(rewriter, loc, c, init,
                     {broadcastMap(ctx, 2, cType, type), id}, iterators(2),
                     [&](OpBuilder &b, Location l, ValueRange a) {
                       Value v = a[0];
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
    rewriter.replaceOp(op, result);
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

    Value zero = scalar(rewriter, loc, type.getElementType(), 0.0);
    Value input = padSpatial(rewriter, loc, op.getInput(), op.getPads(), zero);

    // Loops: n, f, o[spatial] | c, k[spatial].
    int64_t loops = 2 + 2 * spatial + 1, cLoop = 2 + spatial;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    int64_t group = op.getGroup();
    int64_t perGroupIn = wType.getDimSize(1);
    int64_t perGroupOut = wType.getDimSize(0) / group;
    AffineExpr channel =
        group == 1 ? d(cLoop)
                   : d(1).floorDiv(perGroupOut) * perGroupIn + d(cLoop);
    SmallVector<AffineExpr> inExprs = {d(0), channel},
                            wExprs = {d(1), d(cLoop)}, outExprs = {d(0), d(1)};
    for (int64_t i = 0; i < spatial; ++i) {
      AffineExpr o = d(2 + i), k = d(cLoop + 1 + i);
      inExprs.push_back(o * op.getStrides()[i] + k * op.getDilations()[i]);
      wExprs.push_back(k);
      outExprs.push_back(o);
    }

    Value init = emptyResult(rewriter, op); // the batch from the input
    if (Value bias = op.getBias()) {
      auto biasMap = AffineMap::get(type.getRank(), 0, d(1), ctx);
      auto id = AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
      init = generic(
          rewriter, loc, bias, init, {biasMap, id}, iterators(type.getRank()),
          [](OpBuilder &b, Location l, ValueRange a) { yield(b, l, a[0]); });
    } else {
      init = fill(rewriter, loc, init, 0.0);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                   AffineMap::get(loops, 0, wExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    Value result = generic(rewriter, loc, {input, op.getWeight()}, init, maps,
                           iterators(2 + spatial, 1 + spatial),
                           [](OpBuilder &b, Location l, ValueRange a) {
                             multiplyAccumulate(b, l, a);
                           });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tessel::populateContractionToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMatMul, LowerGemm, LowerConv>(patterns.getContext());
}
