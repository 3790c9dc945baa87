//===- TileAndVectorize.cpp - Register tiles for a stage's reductions -----===//
//
// See Passes.td. The plan of each op is computed from its indexing maps
// alone; the rewrites are upstream's (tileUsingSCF, loop peeling,
// linalg::vectorize, transfer hoisting), composed here.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"

#include <functional>

namespace tessel {
#define GEN_PASS_DEF_TILEANDVECTORIZEPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// Rows of the register tile, and its width in vectors.
constexpr int64_t kTileRows = 4;
constexpr int64_t kTileVectors = 2;

/// The loop of `map`'s last result when it is a plain loop dim.
std::optional<unsigned> lastLoop(AffineMap map) {
  if (map.getNumResults() == 0)
    return std::nullopt;
  if (auto d = dyn_cast<AffineDimExpr>(map.getResults().back()))
    return d.getPosition();
  return std::nullopt;
}

bool hasReduction(linalg::LinalgOp op) {
  return llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
    return t == utils::IteratorType::reduction;
  });
}

/// The op's single output and the loop `n` of its last dim, if parallel.
std::optional<unsigned> contiguousOutputLoop(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  std::optional<unsigned> n =
      lastLoop(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
  if (!n || op.getIteratorTypesArray()[*n] != utils::IteratorType::parallel)
    return std::nullopt;
  return n;
}

/// `expr` as a sum of coefficient * loop, when it is one (no constant term:
/// padding is a separate stage).
std::optional<SmallVector<int64_t>> linearForm(AffineExpr expr,
                                               unsigned numLoops) {
  SmallVector<int64_t> coefficients(numLoops, 0);
  std::function<bool(AffineExpr, int64_t)> add = [&](AffineExpr e,
                                                     int64_t scale) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      coefficients[d.getPosition()] += scale;
      return true;
    }
    auto bin = dyn_cast<AffineBinaryOpExpr>(e);
    if (!bin)
      return false;
    if (bin.getKind() == AffineExprKind::Add)
      return add(bin.getLHS(), scale) && add(bin.getRHS(), scale);
    if (bin.getKind() != AffineExprKind::Mul)
      return false;
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return add(bin.getLHS(), scale * c.getValue());
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
      return add(bin.getRHS(), scale * c.getValue());
    return false;
  };
  if (!add(expr, 1))
    return std::nullopt;
  return coefficients;
}

/// A register tile: `rows` x `cols` outputs, every other loop stepped by 1.
struct RegisterTile {
  SmallVector<int64_t> sizes; ///< per loop
  unsigned n;                 ///< the output's contiguous loop (the vectors)
  std::optional<unsigned> m;  ///< the loop of the tile's rows, if any
};

/// The register tile of a contraction-like op (MatMul, Gemm, Conv,
/// pooling), or nothing when the op is not one. Inside a tile every loop
/// but `m` and `n` has extent 1, so each input index is (a multiple of)
/// `m`, `n` or a constant there: see specializeTile.
std::optional<RegisterTile> registerTile(linalg::LinalgOp op,
                                         unsigned vectorBits) {
  std::optional<unsigned> n = contiguousOutputLoop(op);
  if (!n || !hasReduction(op) ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0))
           .isProjectedPermutation())
    return std::nullopt;
  Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8 ||
      element.getIntOrFloatBitWidth() > vectorBits)
    return std::nullopt;
  unsigned numLoops = op.getNumLoops();
  // Each input index must be linear; `n` may only index an input's last
  // dim, with unit stride.
  SmallVector<bool> usedWithN(numLoops, false);
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    for (auto [r, expr] : llvm::enumerate(map.getResults())) {
      std::optional<SmallVector<int64_t>> form = linearForm(expr, numLoops);
      if (!form)
        return std::nullopt;
      // A strided `n` (Conv with stride 2) would need gathers; LLVM does
      // better on the interchanged loop nest.
      if ((*form)[*n] != 0 && (r + 1 != map.getNumResults() || (*form)[*n] != 1))
        return std::nullopt;
    }
    if (map.isFunctionOfDim(*n))
      for (unsigned d = 0; d < numLoops; ++d)
        usedWithN[d] = usedWithN[d] || map.isFunctionOfDim(d);
  }
  // The rows: an output loop the vector operands do not use (MatMul's M,
  // Conv's output channels), so one vector load feeds a whole column of
  // the tile; else the output's second-to-last loop.
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  std::optional<unsigned> m;
  for (AffineExpr e : llvm::reverse(out.getResults().drop_back())) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    if (!usedWithN[d]) {
      m = d;
      break;
    }
  }
  if (!m && out.getNumResults() >= 2)
    m = cast<AffineDimExpr>(out.getResults().drop_back().back()).getPosition();
  // A tile index may hold `m` or `n`, not both.
  for (OpOperand *input : op.getDpsInputOperands())
    for (AffineExpr expr : op.getMatchingIndexingMap(input).getResults())
      if (m && expr.isFunctionOfDim(*m) && expr.isFunctionOfDim(*n))
        return std::nullopt;
  RegisterTile tile;
  tile.sizes.assign(numLoops, 1);
  tile.n = *n;
  tile.sizes[*n] = kTileVectors * (vectorBits / element.getIntOrFloatBitWidth());
  if (m && op.getIteratorTypesArray()[*m] == utils::IteratorType::parallel) {
    tile.m = m;
    tile.sizes[*m] = kTileRows;
  }
  return tile;
}

/// Rewrites the inputs of tile `op` (every loop but `m` and `n` of extent
/// 1) whose indices are not plain loops, such as Conv's `ow * s + kw`:
/// loops of extent 1 contribute 0 inside the tile, so the index is
/// `c * m`, `c * n` or 0, and the input becomes a view with stride `c`
/// indexed by the plain loop. The vectorizer then sees only projected
/// permutations.
LogicalResult specializeTile(RewriterBase &rewriter, linalg::GenericOp op,
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

/// Parallel loops first, then reductions, each in their original order.
SmallVector<int64_t> parallelFirst(linalg::LinalgOp op) {
  SmallVector<int64_t> order, reductions;
  for (auto [i, kind] : llvm::enumerate(op.getIteratorTypesArray()))
    (kind == utils::IteratorType::parallel ? order : reductions).push_back(i);
  llvm::append_range(order, reductions);
  return order;
}

/// Marks the tiles of one op (tiling and peeling clone attributes).
constexpr llvm::StringLiteral kTileMarker = "tessel.register_tile";

/// Tiles `op` to `tile` and peels the loops with tiles wider than 1, so
/// that only the last tile of such a loop is partial.
LogicalResult tileAndPeel(RewriterBase &rewriter, linalg::LinalgOp op,
                          ArrayRef<int64_t> tile) {
  scf::SCFTilingOptions options;
  SmallVector<OpFoldResult> sizes;
  for (int64_t t : tile)
    sizes.push_back(rewriter.getIndexAttr(t));
  SmallVector<int64_t> order = parallelFirst(op);
  options.setTileSizes(sizes).setInterchange(order);
  op->setAttr(kTileMarker, rewriter.getUnitAttr());
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return op.emitError("cannot tile into registers");
  rewriter.eraseOp(op);
  // The tile loops come in `order`; peel those of the register tile.
  for (auto [loop, dim] : llvm::zip(tiled->loops, order)) {
    auto forOp = dyn_cast<scf::ForOp>(loop.getOperation());
    if (!forOp || tile[dim] == 1)
      continue;
    scf::ForOp partial;
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, partial);
  }
  return success();
}

/// Vectorizes every marked tile with the tile as its vector shape (masked
/// where a tile may be partial). A tile the vectorizer rejects stays a
/// scalar loop nest: slower, never wrong.
void vectorizeTiles(RewriterBase &rewriter, func::FuncOp func,
                    const RegisterTile &tile) {
  SmallVector<linalg::GenericOp> tiles;
  func.walk([&](linalg::GenericOp t) {
    if (t->hasAttr(kTileMarker))
      tiles.push_back(t);
  });
  SmallVector<bool> scalable(tile.sizes.size(), false);
  for (linalg::GenericOp t : tiles) {
    t->removeAttr(kTileMarker);
    if (failed(specializeTile(rewriter, t, tile)) ||
        failed(linalg::vectorizeOpPrecondition(t, tile.sizes, scalable)))
      continue;
    rewriter.setInsertionPoint(t);
    if (succeeded(linalg::vectorize(rewriter, t, tile.sizes, scalable)))
      rewriter.eraseOp(t);
  }
}

/// Makes the loop of the output's last dim innermost when every input that
/// uses it has it in its last dim (unit or constant stride there).
void interchangeForContiguity(RewriterBase &rewriter, linalg::GenericOp op) {
  std::optional<unsigned> n = contiguousOutputLoop(op);
  if (!n || !hasReduction(op) || *n + 1 == op.getNumLoops())
    return;
  bool contiguousSomewhere = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(*n))
      continue;
    if (map.getNumResults() == 0 || !map.getResults().back().isFunctionOfDim(*n))
      return;
    for (AffineExpr e : map.getResults().drop_back())
      if (e.isFunctionOfDim(*n))
        return;
    contiguousSomewhere = true;
  }
  if (!contiguousSomewhere)
    return;
  SmallVector<unsigned> order;
  for (unsigned i = 0; i < op.getNumLoops(); ++i)
    if (i != *n)
      order.push_back(i);
  order.push_back(*n);
  rewriter.setInsertionPoint(op);
  (void)linalg::interchangeGenericOp(rewriter, op, order);
}

/// Folds what tiling, peeling and vectorization leave behind: constant tile
/// sizes, all-true masks, subviews (into the transfers that use them).
LogicalResult cleanUp(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  RewritePatternSet patterns(context);
  memref::populateFoldMemRefAliasOpPatterns(patterns);
  for (StringRef dialect : {"vector", "scf", "affine", "arith", "memref"})
    context->getLoadedDialect(dialect)->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName name : context->getRegisteredOperations())
    if (llvm::is_contained({StringRef("vector"), StringRef("scf"),
                            StringRef("affine"), StringRef("arith"),
                            StringRef("memref")},
                           name.getDialectNamespace()))
      name.getCanonicalizationPatterns(patterns, context);
  return applyPatternsGreedily(func, std::move(patterns));
}

struct TileAndVectorizePass
    : tessel::impl::TileAndVectorizePassBase<TileAndVectorizePass> {
  using TileAndVectorizePassBase::TileAndVectorizePassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    if (vectorBits < 64 || !llvm::isPowerOf2_32(vectorBits)) {
      func.emitError("vector-bits must be a power of two >= 64, got ")
          << static_cast<unsigned>(vectorBits);
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> ops;
    for (Operation &op : func.getBody().front())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        if (linalgOp.hasPureBufferSemantics())
          ops.push_back(linalgOp);

    IRRewriter rewriter(context);
    bool vectorized = false;
    for (linalg::LinalgOp op : ops) {
      std::optional<RegisterTile> tile;
      if (isa<linalg::GenericOp>(op.getOperation()))
        tile = registerTile(op, vectorBits);
      if (tile) {
        if (failed(tileAndPeel(rewriter, op, tile->sizes)) ||
            failed(cleanUp(func)))
          return signalPassFailure();
        vectorizeTiles(rewriter, func, *tile);
        vectorized = true;
      } else if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
        interchangeForContiguity(rewriter, generic);
      }
    }
    if (!vectorized)
      return;

    // Masks first: all-true ones (full tiles) fold away, the others move
    // into the transfers they guard, so that nothing else has to rewrite
    // inside a vector.mask region.
    RewritePatternSet masks(context);
    vector::MaskOp::getCanonicalizationPatterns(masks, context);
    vector::CreateMaskOp::getCanonicalizationPatterns(masks, context);
    vector::ConstantMaskOp::getCanonicalizationPatterns(masks, context);
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(masks);
    if (failed(applyPatternsGreedily(func, std::move(masks))))
      return signalPassFailure();
    // Transfers then index the kernel's memrefs directly, and the
    // accumulators of full tiles leave the reduction loops.
    if (failed(cleanUp(func)))
      return signalPassFailure();
    linalg::hoistRedundantVectorTransfers(func);

    // Transfers that broadcast (the `m` operand of a contraction) become a
    // minor-identity transfer and a broadcast, which the generic transfer
    // lowering handles, masked or not.
    RewritePatternSet lowering(context);
    vector::populateVectorTransferPermutationMapLoweringPatterns(lowering);
    if (failed(applyPatternsGreedily(func, std::move(lowering))))
      return signalPassFailure();
  }
};

} // namespace
