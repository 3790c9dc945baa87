//===- DistributeToWorkgroups.cpp - A stage's work over a grid of workgroups ===//
//
// See Passes.td. The choice of which loops to split and by how much is a
// small cost model over the static extents; the rewrite is upstream's
// tileUsingSCF followed by replacing each tile loop with "the iteration of
// this workgroup".
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"
#include "codegen/common/RegisterTile.h"
#include "codegen/common/Stages.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"

namespace tessel {
#define GEN_PASS_DEF_DISTRIBUTETOWORKGROUPSPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// Grid axes: x, y, z.
constexpr unsigned kAxes = 3;

/// One split loop: work dim `dim` in tiles of `tile` iterations.
struct Split {
  unsigned dim;
  int64_t tile;
};

/// The step of loop `dim` in TileAndVectorize's register tile of `op`: two
/// vectors for the output's last loop `n`, 4 for its row loop
/// (registerRowLoop), 1 otherwise and for ops without reductions (which it
/// leaves to LLVM). A workgroup tile is a multiple of it, so that
/// workgroups split a loop between register tiles.
int64_t granule(linalg::LinalgOp op, unsigned dim, unsigned vectorBits) {
  bool reduces = llvm::is_contained(op.getIteratorTypesArray(),
                                    utils::IteratorType::reduction);
  if (!reduces || op.getNumDpsInits() != 1)
    return 1;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (out.getNumResults() == 0 || !out.isProjectedPermutation())
    return 1;
  unsigned n = cast<AffineDimExpr>(out.getResults().back()).getPosition();
  if (dim == n) {
    Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8)
      return 1;
    return tessel::kTileVectors *
           std::max<int64_t>(1, vectorBits / element.getIntOrFloatBitWidth());
  }
  return tessel::registerRowLoop(op, n) == dim ? tessel::kTileRows : 1;
}

/// Which work dims of `op` to split, and by how much, until the grid has
/// about `maxWorkgroups` workgroups of at least
/// `minWork` loop iterations each (counting the reductions). A dynamic dim
/// (a batch, a sequence) is split into tiles of at least `minWork`
/// iterations as far as the static extents tell. Dims that partition the
/// most input data come first; the output's last loop is split only in a
/// MatMul-like op or when it is the only work dim.
SmallVector<Split> chooseSplits(linalg::LinalgOp op, unsigned numWorkDims,
                                int64_t maxWorkgroups, int64_t minWork,
                                unsigned vectorBits) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t work = 1;
  for (int64_t r : ranges)
    if (!ShapedType::isDynamic(r))
      work = r > 0 && work > std::numeric_limits<int64_t>::max() / r
                 ? std::numeric_limits<int64_t>::max()
                 : work * r;
  int64_t wanted = std::clamp<int64_t>(work / std::max<int64_t>(minWork, 1),
                                       1, maxWorkgroups);
  SmallVector<Split> splits;
  std::optional<unsigned> contiguous;
  if (op.getNumDpsInits() == 1) {
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    if (out.getNumResults() > 0)
      if (auto d = dyn_cast<AffineDimExpr>(out.getResults().back()))
        contiguous = d.getPosition();
  }
  // The dims that partition the most input data first (outer first among
  // equals): a workgroup then reads its slice of the largest operand, where
  // a split along another dim makes every workgroup stream all of it (a
  // MatMul's weights when its rows are split, a 1x1 Conv's input when its
  // channels are). The output's last loop only in a MatMul-like op (every
  // index a plain loop; a Conv's vectors run along it) or when it is the
  // only work dim.
  bool matmulLike =
      llvm::is_contained(op.getIteratorTypesArray(),
                         utils::IteratorType::reduction) &&
      llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *in) {
        return op.getMatchingIndexingMap(in).isProjectedPermutation();
      });
  // Per work dim, the static elements of the inputs it indexes.
  SmallVector<int64_t> partitioned(numWorkDims, 0);
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto type = dyn_cast<ShapedType>(in->get().getType());
    if (!type)
      continue;
    int64_t size = 1;
    for (int64_t e : type.getShape())
      if (!ShapedType::isDynamic(e))
        size = std::min<int64_t>(size * e, int64_t(1) << 40);
    for (unsigned d = 0; d < numWorkDims; ++d)
      if (op.getMatchingIndexingMap(in).isFunctionOfDim(d))
        partitioned[d] += size;
  }
  SmallVector<unsigned> order;
  for (unsigned d = 0; d < numWorkDims; ++d)
    if (contiguous != d || matmulLike || numWorkDims == 1)
      order.push_back(d);
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return partitioned[a] > partitioned[b];
  });
  for (unsigned d : order) {
    if (splits.size() == kAxes)
      break;
    int64_t extent = ranges[d];
    int64_t step = granule(op, d, vectorBits);
    if (ShapedType::isDynamic(extent)) {
      // Tiles of at least `minWork` iterations, from the static extents of
      // the other loops (the dynamic ones counted as 1).
      int64_t unit = 1;
      for (auto [i, r] : llvm::enumerate(ranges))
        if (i != d && !ShapedType::isDynamic(r))
          unit = std::min<int64_t>(unit * std::max<int64_t>(r, 1), minWork);
      int64_t tile = (minWork + unit - 1) / unit;
      splits.push_back({d, (tile + step - 1) / step * step});
      continue;
    }
    if (wanted <= 1 || extent <= 1)
      continue;
    // The smallest tile (the most workgroups, at most `wanted`) that
    // divides the extent, so that every tile is full and keeps static
    // sizes; else tiles of about extent / wanted.
    std::optional<int64_t> tile;
    for (int64_t t = step; t < extent && !tile; t += step)
      if (extent % t == 0 && extent / t <= wanted)
        tile = t;
    if (!tile) {
      int64_t t = (extent + wanted - 1) / wanted;
      t = (t + step - 1) / step * step;
      if (t >= extent)
        continue;
      tile = t;
    }
    int64_t count = (extent + *tile - 1) / *tile;
    splits.push_back({d, *tile});
    wanted /= count;
  }
  // Axes in loop order: the tile loops come out that way.
  llvm::sort(splits, [](const Split &a, const Split &b) { return a.dim < b.dim; });
  return splits;
}

/// The op whose shape decides the split of a stage: its only linalg op,
/// or, for a stage of several (a contraction with its initialization and
/// epilogue, tessel-fuse-epilogues), the one with a reduction, when every
/// op has the stage's work dims as its leading parallel loops over the
/// same output, so that one split fits all. Nothing otherwise.
std::optional<linalg::LinalgOp> splitRoot(ArrayRef<linalg::LinalgOp> ops,
                                          unsigned numWorkDims) {
  if (ops.empty() || !llvm::all_of(ops, [](linalg::LinalgOp op) {
        return op.hasPureBufferSemantics() &&
               isa<TilingInterface>(op.getOperation());
      }))
    return std::nullopt;
  if (ops.size() == 1)
    return ops.front();
  std::optional<linalg::LinalgOp> root;
  Value out;
  for (linalg::LinalgOp op : ops) {
    if (!tessel::writesLeadingLoops(op, numWorkDims))
      return std::nullopt;
    Value init = op.getDpsInitOperand(0)->get();
    if (out && init != out)
      return std::nullopt;
    out = init;
    if (!root && op.getNumReductionLoops() > 0)
      root = op;
  }
  return root ? root : ops.front();
}

struct DistributeToWorkgroupsPass
    : tessel::impl::DistributeToWorkgroupsPassBase<DistributeToWorkgroupsPass> {
  using DistributeToWorkgroupsPassBase::DistributeToWorkgroupsPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    Location loc = func.getLoc();
    // The workgroup id (x, y, z) and count (x, y, z): trailing arguments
    // on every stage, so that the CPU entry point is the same for all.
    unsigned first = func.getNumArguments();
    for (unsigned i = 0; i < 2 * kAxes; ++i)
      if (failed(func.insertArgument(func.getNumArguments(),
                                     b.getIndexType(), {}, loc)))
        return signalPassFailure();
    Block &entry = func.getBody().front();
    auto workDims = func->getAttrOfType<ArrayAttr>("tessel.work_dims");
    if (!workDims) {
      func.emitError("a stage without tessel.work_dims");
      return signalPassFailure();
    }

    SmallVector<Split> splits;
    SmallVector<linalg::LinalgOp> ops(entry.getOps<linalg::LinalgOp>());
    std::optional<linalg::LinalgOp> main = splitRoot(ops, workDims.size());
    if (main)
      splits = chooseSplits(*main, workDims.size(), maxWorkgroups, minWork,
                            vectorBits);
    IRRewriter rewriter(ctx);
    // Every op of the stage gets the same tiles of the work dims (they are
    // its leading loops), each tile loop the workgroup's iteration.
    for (linalg::LinalgOp op : splits.empty() ? SmallVector<linalg::LinalgOp>()
                                              : ops) {
      rewriter.setInsertionPoint(op);
      SmallVector<OpFoldResult> sizes(op.getNumLoops(),
                                      rewriter.getIndexAttr(0));
      for (const Split &s : splits)
        sizes[s.dim] = rewriter.getIndexAttr(s.tile);
      scf::SCFTilingOptions options;
      options.setTileSizes(sizes);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled) || tiled->loops.size() != splits.size()) {
        op.emitError("cannot split the stage into workgroups");
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
      // Loop i (outermost first) runs only this workgroup's iteration:
      // iv = lb + id[i] * step. The runtime launches ceil(extent / tile)
      // workgroups along the axis, so the iteration exists.
      for (auto [axis, loop] : llvm::enumerate(tiled->loops)) {
        auto forOp = cast<scf::ForOp>(loop.getOperation());
        rewriter.setInsertionPoint(forOp);
        Value id = entry.getArgument(first + axis);
        Value iv = arith::AddIOp::create(
            rewriter, forOp.getLoc(), forOp.getLowerBound(),
            arith::MulIOp::create(rewriter, forOp.getLoc(), id,
                                  forOp.getStep()));
        Block *body = forOp.getBody();
        rewriter.eraseOp(body->getTerminator());
        rewriter.inlineBlockBefore(body, forOp, ValueRange{iv});
        rewriter.eraseOp(forOp);
      }
    }

    // What the runtime needs to launch the grid (LaunchConfig).
    SmallVector<tessel::WorkgroupAxis> axes;
    for (const Split &s : splits)
      axes.push_back({s.tile, {s.dim}});
    tessel::setLaunchConfig(func, {1, 1, 1}, axes);
  }
};

} // namespace
