//===- TileViews.cpp - The views of a register tile's operands ------------===//
//
// What tessel-tile-and-vectorize does to a tile before linalg's vectorizer
// sees it: indices such as Conv's `ow * s + kw` become strided views
// indexed by plain loops (specializeTile), and the loops of extent 1 go
// (collapseTile, through tileView), so that the vectors carry no unit
// dims. See RegisterTile.h.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/RegisterTile.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using tessel::linearForm;
using tessel::RegisterTile;

LogicalResult tessel::specializeTile(RewriterBase &rewriter,
                                     linalg::GenericOp op,
                                     const RegisterTile &tile) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  rewriter.setInsertionPoint(op);
  SmallVector<Range> ranges = cast<linalg::LinalgOp>(op.getOperation())
                                  .createLoopRanges(rewriter, op.getLoc());
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = maps[input->getOperandNumber()];
    if (map.isProjectedPermutation())
      continue;
    SmallVector<AffineExpr> results;
    SmallVector<OpFoldResult> offsets, sizes, strides;
    llvm::SmallBitVector used(numLoops);
    // Loops of extent 1 that this map does not use otherwise stand in for
    // the indices that are constant inside the tile.
    SmallVector<unsigned> spare;
    for (unsigned d = 0; d < numLoops; ++d)
      if (d != tile.n && d != tile.m && !map.isFunctionOfDim(d))
        spare.push_back(d);
    for (AffineExpr expr : map.getResults()) {
      SmallVector<int64_t> form = *linearForm(expr, numLoops);
      offsets.push_back(rewriter.getIndexAttr(0));
      std::optional<unsigned> vary;
      for (unsigned d : {tile.n, tile.m.value_or(tile.n)})
        if (form[d] != 0)
          vary = d;
      if (vary) {
        results.push_back(rewriter.getAffineDimExpr(*vary));
        sizes.push_back(ranges[*vary].size);
        strides.push_back(rewriter.getIndexAttr(form[*vary]));
        used.set(*vary);
        continue;
      }
      // Constant (0) inside the tile: any loop of extent 1 not used yet.
      std::optional<unsigned> unit;
      for (unsigned d = 0; d < numLoops && !unit; ++d)
        if (form[d] != 0 && !used.test(d))
          unit = d;
      if (!unit) {
        if (spare.empty())
          return failure();
        unit = spare.pop_back_val();
      }
      results.push_back(rewriter.getAffineDimExpr(*unit));
      sizes.push_back(rewriter.getIndexAttr(1));
      strides.push_back(rewriter.getIndexAttr(1));
      used.set(*unit);
    }
    AffineMap specialized =
        AffineMap::get(numLoops, 0, results, rewriter.getContext());
    if (!specialized.isProjectedPermutation())
      return failure();
    Value view = memref::SubViewOp::create(rewriter, op.getLoc(), input->get(),
                                           offsets, sizes, strides);
    input->set(view);
    maps[input->getOperandNumber()] = specialized;
  }
  op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  return success();
}

FailureOr<std::pair<linalg::GenericOp, SmallVector<int64_t>>>
tessel::collapseTile(RewriterBase &rewriter, linalg::GenericOp op,
                     const RegisterTile &tile) {
  if (!op.getBody()->getOps<linalg::IndexOp>().empty())
    return failure();
  // Rows first, then the vectors' loop, whichever comes first in the op.
  SmallVector<unsigned> kept;
  if (tile.m)
    kept.push_back(*tile.m);
  kept.push_back(tile.n);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    // A scalar (a fill's value) stays one.
    if (!isa<MemRefType>(operand.get().getType())) {
      operands.push_back(operand.get());
      maps.push_back(AffineMap::get(kept.size(), 0, {}, op.getContext()));
      continue;
    }
    FailureOr<std::pair<Value, AffineMap>> view =
        tessel::tileView(rewriter, loc, operand.get(), map, kept);
    if (failed(view))
      return failure();
    operands.push_back(view->first);
    maps.push_back(view->second);
  }
  SmallVector<utils::IteratorType> iterators(kept.size(),
                                             utils::IteratorType::parallel);
  unsigned numInputs = op.getNumDpsInputs();
  auto collapsed = linalg::GenericOp::create(
      rewriter, loc, TypeRange{}, ArrayRef(operands).take_front(numInputs),
      ArrayRef(operands).drop_front(numInputs), maps, iterators);
  rewriter.inlineRegionBefore(op.getRegion(), collapsed.getRegion(),
                              collapsed.getRegion().end());
  rewriter.eraseOp(op);
  SmallVector<int64_t> vectorShape;
  for (unsigned d : kept)
    vectorShape.push_back(tile.sizes[d]);
  return std::make_pair(collapsed, vectorShape);
}

FailureOr<std::pair<Value, AffineMap>>
tessel::tileView(RewriterBase &rewriter, Location loc, Value operand,
                 AffineMap map, ArrayRef<unsigned> kept) {
  // A view at offset 0 and unit strides (tiling's, specializeTile's) is
  // composed into the new one, so a stride stays visible on one view.
  Value source = operand;
  SmallVector<OpFoldResult> baseOffsets, baseStrides;
  if (auto view = source.getDefiningOp<memref::SubViewOp>())
    if (view.getSourceType().getRank() == view.getType().getRank()) {
      source = view.getSource();
      baseOffsets = view.getMixedOffsets();
      baseStrides = view.getMixedStrides();
    }
  auto type = cast<MemRefType>(operand.getType());
  SmallVector<OpFoldResult> offsets, sizes, strides;
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> results;
  for (auto [r, expr] : llvm::enumerate(map.getResults())) {
    unsigned d = cast<AffineDimExpr>(expr).getPosition();
    offsets.push_back(rewriter.getIndexAttr(0));
    strides.push_back(rewriter.getIndexAttr(1));
    auto position = llvm::find(kept, d);
    if (position == kept.end()) {
      sizes.push_back(rewriter.getIndexAttr(1));
      continue;
    }
    // A kept dim of static size 1 would make the rank reduction ambiguous
    // (which unit dim is dropped?); such a degenerate tile stays scalar.
    if (type.getDimSize(r) == 1)
      return failure();
    sizes.push_back(memref::getMixedSize(rewriter, loc, operand, r));
    shape.push_back(type.getDimSize(r));
    results.push_back(
        rewriter.getAffineDimExpr(std::distance(kept.begin(), position)));
  }
  if (source != operand) {
    offsets = baseOffsets;
    strides = baseStrides;
  }
  MemRefType reduced = memref::SubViewOp::inferRankReducedResultType(
      shape, cast<MemRefType>(source.getType()), offsets, sizes, strides);
  Value view = memref::SubViewOp::create(rewriter, loc, reduced, source,
                                         offsets, sizes, strides);
  return std::make_pair(
      view, AffineMap::get(kept.size(), 0, results, rewriter.getContext()));
}
