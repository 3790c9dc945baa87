//===- LowerElementwise.cpp - Elementwise graph ops to linalg -------------===//
//
// Every elementwise op (ElementwiseOp.td) becomes one linalg.generic over its
// result, each operand read with its numpy broadcast map and the body built
// by the op itself (ElementwiseOp::buildScalar); inference batch
// normalization and softmax are generics written here.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

/// One generic over the result of an elementwise op, each operand read with
/// its numpy broadcast map (a rank-0 operand by every element), computing
/// an element with the op's buildScalar.
struct LowerElementwiseOp : OpInterfaceRewritePattern<ElementwiseOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(ElementwiseOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    MLIRContext *ctx = op->getContext();
    SmallVector<AffineMap> maps;
    for (Value v : op->getOperands())
      maps.push_back(broadcastMap(ctx, type.getRank(),
                                  cast<RankedTensorType>(v.getType()), type));
    maps.push_back(AffineMap::getMultiDimIdentityMap(type.getRank(), ctx));
    Value init = emptyResult(rewriter, op);
    Value result = generic(rewriter, op->getLoc(), op->getOperands(), init,
                           maps, iterators(type.getRank()),
                           [&](OpBuilder &b, Location l, ValueRange args) {
                             yield(b, l, op.buildScalar(b, l, args.drop_back()));
                           });
    rewriter.replaceOp(op, result);
    return success();
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
                           // In f32 for narrower floats: the GPU targets
                           // have an exp instruction for f32 only.
                           auto t = cast<FloatType>(d.getType());
                           if (t.getWidth() < 32)
                             d = arith::ExtFOp::create(b, l, b.getF32Type(), d);
                           Value e = math::ExpOp::create(b, l, d);
                           if (t.getWidth() < 32)
                             e = arith::TruncFOp::create(b, l, t, e);
                           yield(b, l, e);
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
  patterns.add<LowerElementwiseOp, LowerBatchNorm, LowerSoftmax>(
      patterns.getContext());
}
