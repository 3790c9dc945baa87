//===- GpuWorkgroupTiles.cpp - A GPU's block tiles ------------------------===//
//
// See Passes.td. Shared by every GPU target; the tiling itself is
// passes/tiling's.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"
#include "passes/tiling/Passes.h"
#include "passes/tiling/Tiles.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace tessel {
#define GEN_PASS_DEF_GPUWORKGROUPTILESPASS
#define GEN_PASS_DEF_GPUSPLITREDUCTIONSPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// Threads of a block that share one row reduction (see Passes.td).
constexpr llvm::StringLiteral kLanesAttr = "tessel.gpu_reduction_lanes";

/// The combiner of `op`, a reduction whose only reduction loop is its last
/// and whose payload folds each element into its one output with a single
/// op that has a neutral element (addf, maximumf, ...); else null.
Operation *rowCombiner(linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumResults() != 1 || op.hasIndexSemantics() ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return nullptr;
  AffineMap init = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!init.isProjectedPermutation() ||
      init.isFunctionOfDim(op.getNumLoops() - 1))
    return nullptr;
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || combiners[0]->getNumOperands() != 2 ||
      !arith::getNeutralElement(combiners[0]))
    return nullptr;
  return combiners[0];
}

/// Marks the row reductions of `root`'s group for splitting over the
/// threads a block has to spare: with `rows` elements of the root per
/// block, up to `threads / rows` threads per row, a power of two that
/// divides the (static) reduced extent.
void markReductionLanes(linalg::LinalgOp root, int64_t rows, int64_t threads) {
  Attribute group = root->getAttr(tessel::kGroupAttr);
  int64_t spare = threads / std::max<int64_t>(rows, 1);
  if (!group || spare < 2)
    return;
  root->getParentOp()->walk([&](linalg::GenericOp op) {
    if (op->getAttr(tessel::kGroupAttr) != group || !rowCombiner(op))
      return;
    int64_t extent = op.getStaticLoopRanges().back();
    if (ShapedType::isDynamic(extent))
      return;
    int64_t lanes = 1;
    while (lanes * 2 <= spare && extent % (lanes * 2) == 0)
      lanes *= 2;
    if (lanes >= 2)
      op->setAttr(kLanesAttr, IntegerAttr::get(
                                  IntegerType::get(op.getContext(), 64), lanes));
  });
}

/// Splits the row reduction `op` (see rowCombiner) over `lanes` partial
/// results per row: lane t folds the elements t, t + lanes, ... (k = k' *
/// lanes + t), then one combine folds each row's partials, in lane order,
/// into the original output.
LogicalResult splitRowReduction(RewriterBase &rewriter, linalg::GenericOp op,
                                int64_t lanes) {
  Operation *combiner = rowCombiner(op);
  if (!combiner)
    return failure();
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  unsigned n = op.getNumLoops(), k = n - 1;
  // Loops of the split op: the parallel ones, the lane t, then k'.
  SmallVector<AffineExpr> replace;
  for (unsigned i = 0; i < k; ++i)
    replace.push_back(getAffineDimExpr(i, ctx));
  replace.push_back(getAffineDimExpr(n, ctx) * lanes + getAffineDimExpr(k, ctx));
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands())
    maps.push_back(op.getMatchingIndexingMap(input).replaceDimsAndSymbols(
        replace, {}, n + 1, 0));
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap initMap = op.getMatchingIndexingMap(init);
  SmallVector<AffineExpr> partialExprs(initMap.getResults());
  partialExprs.push_back(getAffineDimExpr(k, ctx));
  maps.push_back(AffineMap::get(n + 1, 0, partialExprs, ctx));

  rewriter.setInsertionPoint(op);
  auto initType = cast<RankedTensorType>(init->get().getType());
  SmallVector<int64_t> shape(initType.getShape());
  shape.push_back(lanes);
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < initType.getRank(); ++d)
    if (initType.isDynamicDim(d))
      dynamic.push_back(tensor::DimOp::create(rewriter, loc, init->get(), d));
  Value empty = tensor::EmptyOp::create(rewriter, loc, shape,
                                        initType.getElementType(), dynamic);
  Value neutral = arith::ConstantOp::create(
      rewriter, loc, *arith::getNeutralElement(combiner));
  Value partials =
      linalg::FillOp::create(rewriter, loc, neutral, empty).getResult(0);
  SmallVector<utils::IteratorType> iterators(n + 1,
                                             utils::IteratorType::parallel);
  iterators[n] = utils::IteratorType::reduction;
  // k' and t appear in the inputs only as k' * T + t: an operand indexed
  // by them (never read) gives their ranges, as linalg requires.
  int64_t extent = op.getStaticLoopRanges()[k];
  Value ranges = tensor::EmptyOp::create(
      rewriter, loc, SmallVector<int64_t>{extent / lanes, lanes},
      rewriter.getI1Type());
  SmallVector<Value> inputs(op.getDpsInputs());
  inputs.push_back(ranges);
  maps.insert(maps.end() - 1,
              AffineMap::get(n + 1, 0,
                             {getAffineDimExpr(n, ctx), getAffineDimExpr(k, ctx)},
                             ctx));
  auto split = linalg::GenericOp::create(rewriter, loc, partials.getType(),
                                         inputs, ValueRange{partials}, maps,
                                         iterators);
  rewriter.cloneRegionBefore(op.getRegion(), split.getRegion(),
                             split.getRegion().end());
  split.getRegion().front().insertArgument(op.getNumDpsInputs(),
                                           rewriter.getI1Type(), loc);

  // The combine: over the output's dims and the lanes, the lanes reduced.
  unsigned rank = initType.getRank();
  SmallVector<AffineMap> combineMaps = {
      AffineMap::getMultiDimIdentityMap(rank + 1, ctx),
      AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
  SmallVector<utils::IteratorType> combineIterators(
      rank + 1, utils::IteratorType::parallel);
  combineIterators[rank] = utils::IteratorType::reduction;
  BlockArgument carried = op.getRegionOutputArgs()[0];
  auto combine = linalg::GenericOp::create(
      rewriter, loc, op->getResultTypes(), split.getResult(0), init->get(),
      combineMaps, combineIterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        IRMapping map;
        for (Value operand : combiner->getOperands())
          map.map(operand, operand == carried ? args[1] : args[0]);
        Operation *folded = b.clone(*combiner, map);
        linalg::YieldOp::create(b, l, folded->getResult(0));
      });
  rewriter.replaceOp(op, combine->getResults());
  return success();
}

struct GpuSplitReductionsPass
    : tessel::impl::GpuSplitReductionsPassBase<GpuSplitReductionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> marked;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->hasAttr(kLanesAttr))
        marked.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : marked) {
      int64_t lanes = op->getAttrOfType<IntegerAttr>(kLanesAttr).getInt();
      op->removeAttr(kLanesAttr);
      // Only inside a workgroup's tile, where the partials are the
      // block's own (shared memory).
      if (!op->getParentOfType<scf::ForallOp>())
        continue;
      if (failed(splitRowReduction(rewriter, op, lanes))) {
        op.emitError("cannot split the reduction over ") << lanes << " lanes";
        return signalPassFailure();
      }
    }
  }
};

struct GpuWorkgroupTilesPass
    : tessel::impl::GpuWorkgroupTilesPassBase<GpuWorkgroupTilesPass> {
  using GpuWorkgroupTilesPassBase::GpuWorkgroupTilesPassBase;

  void runOnOperation() override {
    getOperation().walk([&](linalg::LinalgOp root) {
      auto loops = root->getAttrOfType<DenseI64ArrayAttr>(tessel::kLoopsAttr);
      if (!loops)
        return;
      SmallVector<int64_t> ranges = root.getStaticLoopRanges();
      SmallVector<int64_t> tiles(root.getNumLoops(), 0);
      // The bytes of workgroup memory per element of the tile.
      auto perUnit =
          root->getAttrOfType<IntegerAttr>(tessel::kWorkgroupTempBytesAttr);
      int64_t unitBytes = perUnit ? perUnit.getInt() : 0;
      int64_t elements = threads;
      if (unitBytes > 0)
        elements = std::clamp<int64_t>(maxTempBytes / unitBytes, 1, threads);
      // Innermost first, a loop that fits whole stays whole; with
      // temporaries the run-time loops first, which they need split.
      SmallVector<int64_t> order(llvm::reverse(loops.asArrayRef()));
      if (unitBytes > 0)
        std::stable_partition(order.begin(), order.end(), [&](int64_t d) {
          return ShapedType::isDynamic(ranges[d]);
        });
      unsigned split = 0;
      for (int64_t d : order) {
        if (split == 3)
          break;
        int64_t extent = ranges[d];
        int64_t tile = std::max<int64_t>(elements, 1);
        if (!ShapedType::isDynamic(extent) && extent <= tile) {
          elements = std::max<int64_t>(1, elements / std::max<int64_t>(extent, 1));
          continue;
        }
        tiles[d] = tile;
        elements = 1;
        ++split;
      }
      // Loops left whole (past three splits) scale the temporaries too:
      // halve the largest split tile while they exceed the limit.
      auto tempBytes = [&] {
        return tessel::workgroupTempBytes(unitBytes, loops.asArrayRef(), tiles,
                                          ranges);
      };
      // With every split tile at 1, a static split loop shorter than the
      // longest whole one is left whole in its place (a depthwise Conv's
      // 7 columns whole, its 960 channels split, where 960 whole channels
      // of a padded 7x7 plane overflowed).
      while (unitBytes > 0 && tempBytes() > maxTempBytes) {
        int64_t *largest = nullptr;
        for (int64_t d : loops.asArrayRef())
          if (tiles[d] > 1 && (!largest || tiles[d] > *largest))
            largest = &tiles[d];
        if (largest) {
          *largest = (*largest + 1) / 2;
          continue;
        }
        std::optional<int64_t> whole, shortest;
        for (int64_t d : loops.asArrayRef()) {
          if (ShapedType::isDynamic(ranges[d]))
            continue;
          if (tiles[d] == 0 && (!whole || ranges[d] > ranges[*whole]))
            whole = d;
          if (tiles[d] != 0 && (!shortest || ranges[d] < ranges[*shortest]))
            shortest = d;
        }
        if (!whole || ranges[*whole] <= 1)
          break; // too large even so: the target reports the kernel's size
        if (split < 3) {
          ++split;
        } else if (shortest && ranges[*shortest] < ranges[*whole]) {
          tiles[*shortest] = 0;
        } else {
          break;
        }
        tiles[*whole] = 1;
      }
      root->setAttr(tessel::kWorkgroupTilesAttr,
                    DenseI64ArrayAttr::get(root.getContext(), tiles));
      // The root's elements per block: the rows a block reduces.
      int64_t rows = 1;
      for (int64_t d : loops.asArrayRef()) {
        int64_t t = tiles[d] != 0 ? tiles[d] : ranges[d];
        if (ShapedType::isDynamic(t))
          return;
        rows *= t;
      }
      markReductionLanes(root, rows, threads);
    });
  }
};

} // namespace
