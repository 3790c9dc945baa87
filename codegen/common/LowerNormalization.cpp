//===- LowerNormalization.cpp - Batch (training) and layer normalization ---===//
//
// Training-mode batch normalization: the batch's statistics per channel
// (dim 1): a sum, the mean, a sum of squared deviations, the population
// variance; then the normalized output and the running statistics, each a
// linalg.generic.
//
// Layer normalization: per index of the dims before `axis`, in acc_type: a
// sum, the mean, a sum of squared deviations from it (two passes, so no
// cancellation as in E[x^2] - E[x]^2), InvStdDev; then the output, and
// Mean and InvStdDev copied into their keepdims-shaped results.
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

struct LowerLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value x = op.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type element = type.getElementType(), acc = op.getAccType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    auto widen = [&](OpBuilder &b, Location l, Value v) -> Value {
      return v.getType() == acc ? v : arith::ExtFOp::create(b, l, acc, v);
    };

    // Statistics: one per index of the dims before `axis` (parallel loops),
    // over the rest (reduction loops), so x's map is the identity.
    auto id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<AffineExpr> outer;
    SmallVector<int64_t> statShape;
    SmallVector<DimSource> statSources;
    for (int64_t d = 0; d < axis; ++d) {
      outer.push_back(getAffineDimExpr(d, ctx));
      statShape.push_back(type.getDimSize(d));
      statSources.push_back({x, d});
    }
    auto statMap = AffineMap::get(rank, 0, outer, ctx);
    auto statType = RankedTensorType::get(statShape, acc);
    Value statInit = emptyTensor(rewriter, loc, statType, statSources);
    auto statId = AffineMap::getMultiDimIdentityMap(axis, ctx);

    // The element count of the normalized dims.
    Value n = arith::ConstantIndexOp::create(rewriter, loc, 1);
    for (int64_t d = axis; d < rank; ++d)
      n = arith::MulIOp::create(rewriter, loc, n,
                                tensor::DimOp::create(rewriter, loc, x, d));
    Value count = arith::SIToFPOp::create(
        rewriter, loc, acc,
        arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), n));

    Value sum = generic(rewriter, loc, x, fill(rewriter, loc, statInit, 0.0),
                        {id, statMap}, iterators(axis, rank - axis),
                        [&](OpBuilder &b, Location l, ValueRange a) {
                          yield(b, l,
                                arith::AddFOp::create(b, l, a[1],
                                                      widen(b, l, a[0])));
                        });
    Value mean = generic(rewriter, loc, sum, statInit, {statId, statId},
                         iterators(axis),
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           yield(b, l, arith::DivFOp::create(b, l, a[0], count));
                         });
    Value squares = generic(
        rewriter, loc, {x, mean}, fill(rewriter, loc, statInit, 0.0),
        {id, statMap, statMap}, iterators(axis, rank - axis),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value dev = arith::SubFOp::create(b, l, widen(b, l, a[0]), a[1]);
          yield(b, l,
                arith::AddFOp::create(b, l, a[2],
                                      arith::MulFOp::create(b, l, dev, dev)));
        });
    double eps = op.getEpsilon().convertToDouble();
    Value invStd = generic(
        rewriter, loc, squares, statInit, {statId, statId}, iterators(axis),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value var = arith::DivFOp::create(b, l, a[0], count);
          Value root = math::SqrtOp::create(
              b, l, arith::AddFOp::create(b, l, var, scalar(b, l, acc, eps)));
          yield(b, l, arith::DivFOp::create(b, l, scalar(b, l, acc, 1), root));
        });

    // y = cast((x - mean) * invStd) * scale + bias, as ONNX's function body.
    SmallVector<Value> inputs = {x, mean, invStd, op.getScale()};
    SmallVector<AffineMap> maps = {id, statMap, statMap};
    if (op.getBias())
      inputs.push_back(op.getBias());
    for (Value v : ArrayRef(inputs).drop_front(3))
      maps.push_back(
          broadcastMap(ctx, rank, cast<RankedTensorType>(v.getType()), type));
    maps.push_back(id);
    bool hasBias = bool(op.getBias());
    Value y = generic(
        rewriter, loc, inputs, emptyResult(rewriter, op, 0), maps,
        iterators(rank), [&](OpBuilder &b, Location l, ValueRange a) {
          Value dev = arith::SubFOp::create(b, l, widen(b, l, a[0]), a[1]);
          Value normalized = arith::MulFOp::create(b, l, dev, a[2]);
          if (element != acc)
            normalized = arith::TruncFOp::create(b, l, element, normalized);
          Value out = arith::MulFOp::create(b, l, normalized, a[3]);
          if (hasBias)
            out = arith::AddFOp::create(b, l, out, a[4]);
          yield(b, l, out);
        });

    // Mean and InvStdDev with the normalized dims as extent 1.
    auto keepdims = [&](Value stat, unsigned result) {
      return generic(rewriter, loc, stat, emptyResult(rewriter, op, result),
                     {statMap, id}, iterators(rank),
                     [](OpBuilder &b, Location l, ValueRange a) {
                       yield(b, l, a[0]);
                     });
    };
    rewriter.replaceOp(op, {y, keepdims(mean, 1), keepdims(invStd, 2)});
    return success();
  }
};

} // namespace

void tessel::populateNormalizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerBatchNormTraining, LowerLayerNorm>(patterns.getContext());
}
