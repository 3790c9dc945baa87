//===- LowerGather.cpp - Gather as a linalg.generic with tensor.extract ----===//
//
// out[i_0..i_{a-1}, j..., k...] = data[i_0..i_{a-1}, idx[j...], k...]: one
// generic over the result, reading the index from `indices` and the element
// from `data` with tensor.extract. A negative index counts from the end; an
// index outside [-n, n) is clamped into range (ONNX calls it an error; the
// kernel must never read out of bounds, and the plan checks that the axis
// is not empty).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

struct LowerGather : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<Value> init = emptyResult(rewriter, op);
    if (failed(init))
      return rewriter.notifyMatchFailure(op, "result extents unknown");
    Value data = op.getData(), indices = op.getIndices();
    int64_t rank = op.getType().getRank(), axis = op.getAxis();
    auto dataType = cast<RankedTensorType>(data.getType());
    int64_t indexRank = cast<RankedTensorType>(indices.getType()).getRank();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> indexDims;
    for (int64_t j = 0; j < indexRank; ++j)
      indexDims.push_back(getAffineDimExpr(axis + j, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, indexDims, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iters(rank,
                                           utils::IteratorType::parallel);
    Value extent = tensor::DimOp::create(rewriter, loc, data, axis);
    Value result = generic(
        rewriter, loc, indices, *init, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value i = arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value negative =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, zero);
          i = arith::SelectOp::create(
              b, l, negative, arith::AddIOp::create(b, l, i, extent), i);
          i = arith::MaxSIOp::create(
              b, l, zero,
              arith::MinSIOp::create(
                  b, l, i, arith::SubIOp::create(b, l, extent, one)));
          SmallVector<Value> coords;
          for (int64_t d = 0; d < dataType.getRank(); ++d) {
            if (d == axis)
              coords.push_back(i);
            else
              coords.push_back(linalg::IndexOp::create(
                  b, l, d < axis ? d : d - 1 + indexRank));
          }
          yield(b, l, tensor::ExtractOp::create(b, l, data, coords));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tessel::populateGatherToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGather>(patterns.getContext());
}
