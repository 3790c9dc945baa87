//===- LowerIndexing.cpp - Gather and Slice as generics with tensor.extract ===//
//
// Ops that read their input at computed positions: one linalg.generic over
// the result whose body reads the element with tensor.extract.
//
// Gather: out[i_0..i_{a-1}, j..., k...] = data[i_0..i_{a-1}, idx[j...], k...].
// A negative index counts from the end; an index outside [-n, n) is clamped
// into range (ONNX calls it an error; the kernel must never read out of
// bounds, and the plan checks that the axis is not empty).
//
// GatherElements: out[i...] = data[i... with idx[i...] on the axis].
//
// CountOutOfRange: the number of indices outside [-n, n) of the dims they
// index, one reduction over the indices (the check the importer puts
// beside the index ops; their kernels clamp).
//
// Trilu: out[..., i, j] = in[..., i, j] where j - i is on the kept side of
// k, else 0.
//
// Slice: out[..., i, ...] = in[..., first + i * step, ...] on each sliced
// axis, with `first` from the same sliceRange the shape contract uses.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

/// The position an ONNX index `raw` (i32 or i64) names in an axis of
/// `extent` elements: negative counts from the end, and anything outside
/// [-extent, extent) is clamped into range so the kernel never reads out of
/// bounds (the contract makes sure the axis has an element).
Value indexInto(OpBuilder &b, Location l, Value raw, Value extent) {
  Value zero = arith::ConstantIndexOp::create(b, l, 0);
  Value one = arith::ConstantIndexOp::create(b, l, 1);
  Value i = arith::IndexCastOp::create(b, l, b.getIndexType(), raw);
  Value negative =
      arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(b, l, negative,
                              arith::AddIOp::create(b, l, i, extent), i);
  return arith::MaxSIOp::create(
      b, l, zero,
      arith::MinSIOp::create(b, l, i,
                             arith::SubIOp::create(b, l, extent, one)));
}

struct LowerGather : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value init = emptyResult(rewriter, op);
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
        rewriter, loc, indices, init, maps, iters,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value i = indexInto(b, l, args[0], extent);
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

/// GatherElements: one generic over the result (the indices' shape) that
/// reads data at its own coordinates with the axis's replaced by the index.
struct LowerGatherElements : OpRewritePattern<GatherElementsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherElementsOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value init = emptyResult(rewriter, op);
    Value data = op.getData();
    int64_t rank = op.getType().getRank(), axis = op.getAxis();
    auto id = AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext());
    SmallVector<utils::IteratorType> iters(rank,
                                           utils::IteratorType::parallel);
    Value extent = tensor::DimOp::create(rewriter, loc, data, axis);
    Value result = generic(
        rewriter, loc, op.getIndices(), init, {id, id}, iters,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d)
            coords.push_back(d == axis ? indexInto(b, l, args[0], extent)
                                       : linalg::IndexOp::create(b, l, d));
          yield(b, l, tensor::ExtractOp::create(b, l, data, coords));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// CountOutOfRange: one reduction over every index into a scalar count. An
/// index tuple's entry j (the last loop) meets dim axis + j of the data.
/// An index i is outside when i < -n or i > n - 1, compared in the
/// indices' own width: for int32 the bounds clamp to int32's range, where
/// they still say the same (no sign extension in the loop, and 32-bit
/// compares on the GPUs).
struct LowerCountOutOfRange : OpRewritePattern<CountOutOfRangeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CountOutOfRangeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value indices = op.getIndices();
    auto indexType = cast<RankedTensorType>(indices.getType());
    Type element = indexType.getElementType();
    int64_t rank = indexType.getRank();
    int64_t k = op.getTuples() ? indexType.getShape().back() : 1;
    auto i64 = [&](int64_t v) {
      return arith::ConstantIntOp::create(rewriter, loc, v, 64).getResult();
    };
    // Per entry: the lowest and the highest valid index.
    SmallVector<Value> lows, highs;
    for (int64_t j = 0; j < k; ++j) {
      Value n = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(),
          tensor::DimOp::create(rewriter, loc, op.getData(), op.getAxis() + j));
      Value low = arith::SubIOp::create(rewriter, loc, i64(0), n);
      Value high = arith::SubIOp::create(rewriter, loc, n, i64(1));
      if (!element.isInteger(64)) {
        low = arith::TruncIOp::create(
            rewriter, loc, element,
            arith::MaxSIOp::create(rewriter, loc, low,
                                   i64(std::numeric_limits<int32_t>::min())));
        high = arith::TruncIOp::create(
            rewriter, loc, element,
            arith::MinSIOp::create(rewriter, loc, high,
                                   i64(std::numeric_limits<int32_t>::max())));
      }
      lows.push_back(low);
      highs.push_back(high);
    }
    Value zero = arith::ConstantIntOp::create(rewriter, loc, 0, 64);
    Value init = linalg::FillOp::create(rewriter, loc, zero,
                                        emptyResult(rewriter, op))
                     .getResult(0);
    Value result = generic(
        rewriter, loc, indices, init,
        {AffineMap::getMultiDimIdentityMap(rank, ctx),
         AffineMap::get(rank, 0, {}, ctx)},
        iterators(0, rank), [&](OpBuilder &b, Location l, ValueRange a) {
          // The entry's bounds: entry j of a tuple selects extent j.
          auto pick = [&](ArrayRef<Value> perEntry) {
            Value v = perEntry[0];
            for (int64_t e = 1; e < k; ++e)
              v = arith::SelectOp::create(
                  b, l,
                  arith::CmpIOp::create(
                      b, l, arith::CmpIPredicate::eq,
                      linalg::IndexOp::create(b, l, rank - 1),
                      arith::ConstantIndexOp::create(b, l, e)),
                  perEntry[e], v);
            return v;
          };
          Value below = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                              a[0], pick(lows));
          Value above = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt,
                                              a[0], pick(highs));
          Value outside = arith::OrIOp::create(b, l, below, above);
          yield(b, l,
                arith::AddIOp::create(
                    b, l, a[1],
                    arith::ExtUIOp::create(b, l, b.getI64Type(), outside)));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Trilu: one generic over the result (the input's shape) that keeps an
/// element where its diagonal offset j - i is on the kept side of k.
struct LowerTrilu : OpRewritePattern<TriluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TriluOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = op.getType().getRank();
    auto id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<Value> inputs = {op.getInput()};
    SmallVector<AffineMap> maps = {id};
    if (Value k = op.getK()) {
      inputs.push_back(k); // a 0-D tensor: every iteration reads it
      maps.push_back(AffineMap::get(rank, 0, {}, ctx));
    }
    maps.push_back(id);
    bool upper = op.getUpper();
    Type element = op.getType().getElementType();
    // The diagonal offset j - i lies in [1 - rows, cols - 1], so k clamped
    // to [-rows, cols] keeps the same elements, and the comparison is in
    // index arithmetic (32-bit on the GPUs) without truncating a huge k.
    Value rows, cols;
    if (op.getK()) {
      auto extent = [&](int64_t d) -> Value {
        Value e = rewriter.createOrFold<tensor::DimOp>(loc, op.getInput(), d);
        return arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                          e);
      };
      rows = extent(rank - 2);
      cols = extent(rank - 1);
    }
    Value result = generic(
        rewriter, loc, inputs, emptyResult(rewriter, op), maps,
        iterators(rank), [&](OpBuilder &b, Location l, ValueRange a) {
          Value offset =
              arith::SubIOp::create(b, l, linalg::IndexOp::create(b, l, rank - 1),
                                    linalg::IndexOp::create(b, l, rank - 2));
          Value k = arith::ConstantIndexOp::create(b, l, 0);
          if (op.getK()) {
            Value low = arith::SubIOp::create(
                b, l, arith::ConstantIntOp::create(b, l, 0, 64), rows);
            Value clamped = arith::MinSIOp::create(
                b, l, arith::MaxSIOp::create(b, l, a[1], low), cols);
            k = arith::IndexCastOp::create(b, l, b.getIndexType(), clamped);
          }
          Value keep = arith::CmpIOp::create(
              b, l, upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
              offset, k);
          Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(element));
          yield(b, l, arith::SelectOp::create(b, l, keep, a[0], zero));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value init = emptyResult(rewriter, op);
    Value input = op.getInput();
    int64_t rank = op.getType().getRank();
    // The first index of each sliced axis, from the input's extent and the
    // bounds' values (constants fold).
    SmallVector<Value> first(rank);
    SmallVector<int64_t> step(rank, 1);
    auto bound = [&](Value bounds, int64_t i) -> Value {
      Value at = arith::ConstantIndexOp::create(rewriter, loc, i);
      Value v = tensor::ExtractOp::create(rewriter, loc, bounds, at);
      return rewriter.createOrFold<arith::IndexCastOp>(
          loc, rewriter.getIndexType(), v);
    };
    for (auto [i, axis, k] : llvm::enumerate(op.getAxes(), op.getSteps())) {
      Value n = tensor::DimOp::create(rewriter, loc, input, axis);
      first[axis] = sliceRange(rewriter, loc, n, bound(op.getStarts(), i),
                               bound(op.getEnds(), i), k)
                        .first;
      step[axis] = k;
    }
    auto id = AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext());
    SmallVector<utils::IteratorType> iters(rank,
                                           utils::IteratorType::parallel);
    Value result = generic(
        rewriter, loc, ValueRange{}, init, {id}, iters,
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = linalg::IndexOp::create(b, l, d);
            if (first[d])
              i = arith::AddIOp::create(
                  b, l, first[d],
                  arith::MulIOp::create(
                      b, l, i, arith::ConstantIndexOp::create(b, l, step[d])));
            coords.push_back(i);
          }
          yield(b, l, tensor::ExtractOp::create(b, l, input, coords));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Split: each result is a slice of the input along the axis, at the sum
/// of the extents before it (the contract's extents, so static sizes are
/// constants).
struct LowerSplit : OpRewritePattern<SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    int64_t rank = cast<RankedTensorType>(op.getInput().getType()).getRank();
    int64_t axis = op.getAxis();
    Value offset = arith::ConstantIndexOp::create(rewriter, loc, 0);
    SmallVector<Value> parts;
    for (OpResult result : op->getResults()) {
      Value empty = emptyResult(rewriter, op, result.getResultNumber());
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, empty);
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      offsets[axis] = offset;
      parts.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, cast<RankedTensorType>(result.getType()),
          op.getInput(), offsets, sizes, strides));
      offset = rewriter.createOrFold<arith::AddIOp>(
          loc, offset,
          getValueOrCreateConstantIndexOp(rewriter, loc, sizes[axis]));
    }
    rewriter.replaceOp(op, parts);
    return success();
  }
};

} // namespace

void tessel::populateIndexingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerGather, LowerGatherElements, LowerCountOutOfRange,
               LowerTrilu, LowerSlice, LowerSplit>(patterns.getContext());
}
