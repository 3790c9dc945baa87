//===- LowerNormalization.cpp - Training-mode batch normalization ----------===//
//
// The batch's statistics per channel (dim 1): a sum, the mean, a sum of
// squared deviations, the population variance; then the normalized output
// and the running statistics, each a linalg.generic.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

struct LowerBatchNormTraining : OpRewritePattern<BatchNormTrainingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormTrainingOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value x = op.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type element = type.getElementType();
    int64_t rank = type.getRank();
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };

    // Loops for the statistics: channel first (parallel), then the rest.
    SmallVector<AffineExpr> xExprs = {d(1), d(0)};
    for (int64_t i = 2; i < rank; ++i)
      xExprs.push_back(d(i));
    auto xMap = AffineMap::get(rank, 0, xExprs, ctx);
    auto channel = AffineMap::get(rank, 0, d(0), ctx);
    auto vectorType = cast<RankedTensorType>(op.getMean().getType());
    Value vectorInit = emptyTensor(rewriter, loc, vectorType, {{x, 1}});

    // Elements per channel: every dim but dim 1.
    Value count = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t i = 0; i < rank; ++i)
      if (i != 1)
        count = arith::MulIOp::create(
            rewriter, loc, count, tensor::DimOp::create(rewriter, loc, x, i));
    Value countF = arith::SIToFPOp::create(
        rewriter, loc, element,
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                   count));

    auto sumOver =
        [&](ValueRange inputs, ArrayRef<AffineMap> inputMaps,
            function_ref<Value(OpBuilder &, Location, ValueRange)> term) {
          SmallVector<AffineMap> maps(inputMaps);
          maps.push_back(channel);
          return generic(
              rewriter, loc, inputs, fill(rewriter, loc, vectorInit, 0.0), maps,
              iterators(1, rank - 1),
              [&](OpBuilder &b, Location l, ValueRange a) {
                yield(b, l,
                      arith::AddFOp::create(b, l, a.back(), term(b, l, a)));
              });
        };
    auto idVector = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto divideByCount = [&](Value sum) {
      return generic(rewriter, loc, sum, vectorInit, {idVector, idVector},
                     iterators(1), [&](OpBuilder &b, Location l, ValueRange a) {
                       yield(b, l, arith::DivFOp::create(b, l, a[0], countF));
                     });
    };
    Value mean = divideByCount(sumOver(
        x, {xMap}, [](OpBuilder &, Location, ValueRange a) { return a[0]; }));
    Value variance = divideByCount(sumOver(
        {x, mean}, {xMap, channel}, [](OpBuilder &b, Location l, ValueRange a) {
          Value dev = arith::SubFOp::create(b, l, a[0], a[1]);
          return arith::MulFOp::create(b, l, dev, dev);
        }));

    // y = (x - mean) / sqrt(var + eps) * scale + bias, per channel.
    auto id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    auto dim1 = AffineMap::get(rank, 0, d(1), ctx);
    double eps = op.getEpsilon().convertToDouble();
    Value y = generic(
        rewriter, loc, {x, op.getScale(), op.getBias(), mean, variance},
        emptyResult(rewriter, op, 0), {id, dim1, dim1, dim1, dim1, id},
        iterators(rank), [&](OpBuilder &b, Location l, ValueRange a) {
          Value denom = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, a[4], scalar(b, l, element, eps)));
          Value centered = arith::SubFOp::create(b, l, a[0], a[3]);
          Value scaled = arith::DivFOp::create(
              b, l, arith::MulFOp::create(b, l, centered, a[1]), denom);
          yield(b, l, arith::AddFOp::create(b, l, scaled, a[2]));
        });

    // running = input_running * momentum + batch * (1 - momentum)
    double momentum = op.getMomentum().convertToDouble();
    auto blend = [&](Value running, Value batch) {
      return generic(rewriter, loc, {running, batch}, vectorInit,
                     {idVector, idVector, idVector}, iterators(1),
                     [&](OpBuilder &b, Location l, ValueRange a) {
                       Value kept = arith::MulFOp::create(
                           b, l, a[0], scalar(b, l, element, momentum));
                       Value added = arith::MulFOp::create(
                           b, l, a[1], scalar(b, l, element, 1.0 - momentum));
                       yield(b, l, arith::AddFOp::create(b, l, kept, added));
                     });
    };
    rewriter.replaceOp(
        op, {y, blend(op.getMean(), mean), blend(op.getVariance(), variance)});
    return success();
  }
};

} // namespace

void tessel::populateNormalizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerBatchNormTraining>(patterns.getContext());
}
