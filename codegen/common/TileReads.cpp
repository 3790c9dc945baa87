//===- TileReads.cpp - How a register tile's operands are read ------------===//
//
// The reads tessel-tile-and-vectorize leaves in its tiles, lowered into
// what the CPU loads well: see populateRegisterTileReadPatterns.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/RegisterTile.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace {

/// A read of V elements at stride c (Conv's or pooling's `ow * 2 + kw` in a
/// tile) as one contiguous read of (V - 1) * c + 1 elements, the same first
/// and last element, and a shuffle that keeps every c-th: vector loads
/// instead of V scalar ones. An n-d read (pooling's 4 rows) is done row by
/// row. The view (possibly rank-reducing) must have the stride on its last
/// dim. Every read reads V * c elements per row (LLVM scalarizes loads of
/// other widths) under a mask: the first (V - 1) * c + 1, or for a masked
/// read of last mask size n the first (n - 1) * c + 1, and none for a row
/// outside the leading sizes.
struct ReadStridedAsShuffle : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto view = read.getBase().getDefiningOp<memref::SubViewOp>();
    VectorType type = read.getVectorType();
    if (!view || !read.getPermutationMap().isMinorIdentity() ||
        type.getRank() != view.getType().getRank() || type.isScalable() ||
        !llvm::all_of(read.getInBoundsValues(), [](bool b) { return b; }))
      return failure();
    int64_t sourceRank = view.getSourceType().getRank();
    llvm::SmallBitVector dropped = view.getDroppedDims();
    std::optional<int64_t> stride =
        getConstantIntValue(view.getMixedStrides().back());
    if (dropped.test(sourceRank - 1) || !stride || *stride <= 1)
      return failure();
    Location loc = read.getLoc();
    AffineExpr i = rewriter.getAffineDimExpr(0),
               o = rewriter.getAffineSymbolExpr(0);
    int64_t lanes = type.getShape().back();
    ArrayRef<int64_t> rows = type.getShape().drop_back();
    // The sizes of the original mask, if any.
    SmallVector<OpFoldResult> maskSizes;
    if (Value old = read.getMask()) {
      if (auto c = old.getDefiningOp<vector::ConstantMaskOp>())
        for (int64_t d : c.getMaskDimSizes())
          maskSizes.push_back(rewriter.getIndexAttr(d));
      else if (auto c = old.getDefiningOp<vector::CreateMaskOp>())
        maskSizes = getAsOpFoldResult(c.getOperands());
      else
        return failure();
    }
    bool masked = !maskSizes.empty();
    // Always V * c elements under a mask: LLVM splits a load of (V - 1) *
    // c + 1 into whole vectors and scalarizes the odd rest (15 scalar
    // loads and inserts per row of a stride-2 tile of 32).
    int64_t wide = lanes * *stride;
    auto wideType = VectorType::get({wide}, type.getElementType());
    SmallVector<int64_t> every;
    for (int64_t k = 0; k < lanes; ++k)
      every.push_back(k * *stride);
    SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
    SmallVector<OpFoldResult> strides = view.getMixedStrides();
    Value result = ub::PoisonOp::create(rewriter, loc, type);
    int64_t count = 1;
    for (int64_t r : rows)
      count *= r;
    for (int64_t linear = 0; linear < count; ++linear) {
      // The row's position in the leading dims.
      SmallVector<int64_t> row(rows.size());
      for (int64_t d = rows.size() - 1, rest = linear; d >= 0; --d) {
        row[d] = rest % rows[d];
        rest /= rows[d];
      }
      // Indices into the view's source: offset + index * stride per kept
      // dim (plus the row in the leading ones).
      SmallVector<Value> indices;
      unsigned next = 0;
      for (int64_t d = 0; d < sourceRank; ++d) {
        if (dropped.test(d)) {
          indices.push_back(
              getValueOrCreateConstantIndexOp(rewriter, loc, offsets[d]));
          continue;
        }
        int64_t shift = next < row.size() ? row[next] : 0;
        indices.push_back(affine::makeComposedAffineApply(
            rewriter, loc, (i + shift) * rewriter.getAffineSymbolExpr(1) + o,
            {OpFoldResult(read.getIndices()[next]), offsets[d], strides[d]}));
        ++next;
      }
      Value mask;
      if (!masked) {
        mask = vector::ConstantMaskOp::create(
            rewriter, loc, VectorType::get({wide}, rewriter.getI1Type()),
            ArrayRef<int64_t>{(lanes - 1) * *stride + 1});
      } else {
        // (n - 1) * c + 1 elements if every leading size exceeds the row.
        Value size = getValueOrCreateConstantIndexOp(
            rewriter, loc,
            affine::makeComposedFoldedAffineApply(
                rewriter, loc, (i - 1) * *stride + 1, {maskSizes.back()}));
        Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        for (auto [d, at] : llvm::enumerate(row)) {
          Value bound = getValueOrCreateConstantIndexOp(rewriter, loc,
                                                        maskSizes[d]);
          Value inside = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::sgt, bound,
              arith::ConstantIndexOp::create(rewriter, loc, at));
          size = arith::SelectOp::create(rewriter, loc, inside, size, zero);
        }
        mask = vector::CreateMaskOp::create(
            rewriter, loc, VectorType::get({wide}, rewriter.getI1Type()),
            size);
      }
      auto part = vector::TransferReadOp::create(
          rewriter, loc, wideType, view.getSource(), indices,
          read.getPadding(), ArrayRef<bool>{true});
      if (mask)
        part.getMaskMutable().assign(mask);
      Value picked = vector::ShuffleOp::create(rewriter, loc, part, part, every);
      if (rows.empty())
        result = picked;
      else
        result = vector::InsertOp::create(rewriter, loc, picked, result, row);
    }
    rewriter.replaceOp(read, result);
    return success();
  }
};

/// A 1-d read broadcast along a tile's vectors, `(d0) -> (d0, 0)` (the row
/// operand of a register tile: a MatMul's A, a Conv's weights when the
/// vectors run along its columns, its input when they run along its
/// channels), as one scalar load and broadcast per row. The generic
/// lowering reads the rows as one vector and transposes its broadcast,
/// which LLVM turns into a shuffle per row; a scalar broadcast folds into
/// the multiply-add that uses it. Rows outside a mask read the last row
/// inside it (their results are never written).
struct ReadColumnBroadcast : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    VectorType type = read.getVectorType();
    auto source = dyn_cast<MemRefType>(read.getBase().getType());
    AffineMap map = read.getPermutationMap();
    MLIRContext *ctx = read.getContext();
    if (!source || source.getRank() != 1 || type.getRank() != 2 ||
        type.isScalable() || map.getNumResults() != 2 ||
        map.getResult(0) != getAffineDimExpr(0, ctx) ||
        map.getResult(1) != getAffineConstantExpr(0, ctx))
      return failure();
    Location loc = read.getLoc();
    int64_t rows = type.getDimSize(0);
    // The rows inside the mask: a constant, a value, or all.
    std::optional<int64_t> constantRows;
    Value rowCount;
    if (Value mask = read.getMask()) {
      if (auto c = mask.getDefiningOp<vector::ConstantMaskOp>())
        constantRows = c.getMaskDimSizes().front();
      else if (auto c = mask.getDefiningOp<vector::CreateMaskOp>())
        rowCount = c.getOperand(0);
      else
        return failure();
    } else if (!read.getInBoundsValues().front()) {
      return failure();
    } else {
      constantRows = rows;
    }
    auto rowType = VectorType::get({type.getDimSize(1)}, type.getElementType());
    Value result = ub::PoisonOp::create(rewriter, loc, type);
    Value base = read.getIndices().front();
    AffineExpr i = rewriter.getAffineDimExpr(0);
    for (int64_t r = 0; r < rows; ++r) {
      if (constantRows && r >= *constantRows)
        break;
      OpFoldResult offset = rewriter.getIndexAttr(r);
      if (rowCount && r > 0) {
        // min(r, count - 1), at least 0.
        Value last = affine::makeComposedAffineApply(rewriter, loc, i - 1,
                                                     {OpFoldResult(rowCount)});
        Value clamped = arith::MinSIOp::create(
            rewriter, loc, last,
            arith::ConstantIndexOp::create(rewriter, loc, r));
        offset = arith::MaxSIOp::create(
                     rewriter, loc, clamped,
                     arith::ConstantIndexOp::create(rewriter, loc, 0))
                     .getResult();
      }
      Value index = affine::makeComposedAffineApply(
          rewriter, loc, i + rewriter.getAffineDimExpr(1),
          {OpFoldResult(base), offset});
      Value scalar =
          memref::LoadOp::create(rewriter, loc, read.getBase(), index);
      Value row = vector::BroadcastOp::create(rewriter, loc, rowType, scalar);
      result = vector::InsertOp::create(rewriter, loc, row, result, r);
    }
    rewriter.replaceOp(read, result);
    return success();
  }
};

} // namespace

void tessel::populateRegisterTileReadPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ReadColumnBroadcast>(context, /*benefit=*/2);
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  patterns.add<ReadStridedAsShuffle>(context);
}
