//===- TileAndVectorize.cpp - Register tiles for a stage's reductions -----===//
//
// See Passes.td. The plan of each op is computed from its indexing maps
// alone; the rewrites are upstream's (tileUsingSCF, loop peeling,
// linalg::vectorize, transfer hoisting), composed here.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"
#include "codegen/common/DotTiles.h"
#include "codegen/common/EpilogueTiles.h"
#include "codegen/common/PackOperands.h"
#include "codegen/common/RegisterTile.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace tessel {
#define GEN_PASS_DEF_TILEANDVECTORIZEPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

using tessel::kTileVectors;
using tessel::DotTile;
using tessel::dotTile;
using tessel::dotTileShape;
using tessel::emitDotTile;
using tessel::stepReduction;
using tessel::linearForm;
using tessel::RegisterTile;
using tessel::staticLoopExtent;
using tessel::tileOneLoop;
using tessel::chunkForPacking;
using tessel::collapseTile;
using tessel::specializeTile;
using tessel::dividesIntegers;
using tessel::packStreamedOperand;

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

/// The reduction steps of multiply-adds that a channel-vector tile's two
/// transposes (its output in and out) cost about as much as (measured: see
/// channelVectorLoop).
constexpr int64_t kTransposedTileSteps = 192;

/// The output-channel loop `f` along which a contraction's vectors run
/// instead of the output's last loop `w` (see registerVectorLoop): `w` has
/// a static extent shorter than a register tile's two vectors, or an input
/// reads it through a window or a stride; `f` is a parallel loop of the
/// output, of at least one vector (or a run-time share of one), that some
/// input (the weights) indexes in its last dim and no input uses elsewhere.
/// A 3x3 Conv on a 7x7 image fills 7 of 16 lanes along `w`, all 16 along
/// `f`. The output tile is then written transposed, once per tile after its
/// whole reduction.
std::optional<unsigned> channelVectorLoop(linalg::LinalgOp op,
                                          unsigned vectorBits) {
  std::optional<unsigned> w = contiguousOutputLoop(op);
  AffineMap out = w ? op.getMatchingIndexingMap(op.getDpsInitOperand(0))
                    : AffineMap();
  if (!w || !hasReduction(op) || !out.isProjectedPermutation())
    return std::nullopt;
  // Float sums, or an integer contraction's i32 sums (int8 quantization).
  Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  if (!isa<FloatType>(element) && !element.isInteger(32))
    return std::nullopt;
  int64_t lanes = tessel::lanesOf(element, vectorBits);
  std::optional<int64_t> width = staticLoopExtent(op, *w);
  // A window or a stride along `w` (a 3x3 Conv's ow + kw, a strided
  // Conv's 2 * ow) makes the vectors along `w` re-read overlapping or
  // shuffled inputs; broadcasts of single inputs serve every width.
  // Loops of extent 1 (a 1x1 Conv's kh, kw) do not make a window.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  bool windowed = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    return llvm::any_of(
        op.getMatchingIndexingMap(in).getResults(), [&](AffineExpr e) {
          if (!e.isFunctionOfDim(*w))
            return false;
          std::optional<SmallVector<int64_t>> form =
              linearForm(e, op.getNumLoops());
          if (!form || (*form)[*w] != 1)
            return true;
          for (auto [d, c] : llvm::enumerate(*form))
            if (d != *w && c != 0 && ranges[d] != 1)
              return true;
          return false;
        });
  });
  if (!width || (*width >= kTileVectors * lanes && !windowed))
    return std::nullopt;
  // The transposed tile costs two transposes (in and out) per tile, about
  // as much as kTransposedTileSteps reduction steps of its multiply-adds:
  // without a window, float sums over fewer steps keep the vectors along
  // `w` (masked). A 1x1 Conv of 32 to 192 channels on 28x28 images, 1
  // thread: 0.27 -> 0.15 ms; of 960 to 160 on 7x7: 0.11 ms transposed,
  // 0.46 along `w`. Integer sums keep the channels: their dot tiles sum
  // groups of reduction steps along them.
  if (!windowed && isa<FloatType>(element)) {
    int64_t steps = 1;
    for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
      if (type == utils::IteratorType::reduction)
        steps = ShapedType::isDynamic(ranges[d])
                    ? kTransposedTileSteps
                    : std::min(steps * ranges[d], kTransposedTileSteps);
    if (steps < kTransposedTileSteps)
      return std::nullopt;
  }
  for (AffineExpr e : out.getResults().drop_back()) {
    unsigned f = cast<AffineDimExpr>(e).getPosition();
    // A run-time extent is a workgroup's share of the channels.
    std::optional<int64_t> extent = staticLoopExtent(op, f);
    if ((extent && *extent < lanes) ||
        op.getIteratorTypesArray()[f] != utils::IteratorType::parallel)
      continue;
    bool last = false, elsewhere = false;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      for (auto [r, expr] : llvm::enumerate(map.getResults())) {
        if (!expr.isFunctionOfDim(f))
          continue;
        if (r + 1 == map.getNumResults() &&
            expr == getAffineDimExpr(f, op.getContext()))
          last = true;
        else
          elsewhere = true;
      }
      if (last && map.isFunctionOfDim(*w))
        elsewhere = true;
    }
    if (last && !elsewhere)
      return f;
  }
  return std::nullopt;
}

/// The register tile's width along `n`, in elements of `element`: two
/// vectors, or one when a static extent fits in one (a tile that is mostly
/// padding wastes lanes).
int64_t vectorTileWidth(linalg::LinalgOp op, unsigned n, Type element,
                        unsigned vectorBits) {
  int64_t lanes = tessel::lanesOf(element, vectorBits);
  std::optional<int64_t> extent = staticLoopExtent(op, n);
  return extent && *extent <= lanes ? lanes : kTileVectors * lanes;
}

/// The tile of an elementwise op (no reduction loop) whose output's last
/// loop `n` each input indexes, if at all, in its last dim: `n` by two
/// vectors (one when a static extent fits in one), every other loop by 1.
/// So an epilogue, a normalization or an activation runs on vectors
/// whatever LLVM's loop vectorizer makes of its loop nest (it gives up on
/// bodies such as erf's polynomial).
std::optional<RegisterTile> elementwiseTile(linalg::LinalgOp op, unsigned n,
                                            unsigned vectorBits) {
  // Bytes per element at least: a memref of i1 holds a byte per element,
  // where a vector<Nxi1> in memory is a bit mask.
  auto byteElements = [&](Value v) {
    Type t = getElementTypeOrSelf(v);
    return t.isIntOrFloat() && t.getIntOrFloatBitWidth() >= 8 &&
           t.getIntOrFloatBitWidth() <= vectorBits;
  };
  Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  if (!llvm::all_of(op->getOperands(), byteElements) || dividesIntegers(op))
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation())
      return std::nullopt;
    for (auto [r, expr] : llvm::enumerate(map.getResults()))
      if (expr.isFunctionOfDim(n) && r + 1 != map.getNumResults())
        return std::nullopt;
  }
  RegisterTile tile;
  tile.sizes.assign(op.getNumLoops(), 1);
  tile.n = n;
  tile.sizes[n] = vectorTileWidth(op, n, element, vectorBits);
  return tile;
}

/// The register tile of a contraction-like op (MatMul, Gemm, Conv,
/// pooling), or nothing when the op is not one. Inside a tile every loop
/// but `m` and `n` has extent 1, so each input index is (a multiple of)
/// `m`, `n` or a constant there: see specializeTile.
std::optional<RegisterTile> registerTile(linalg::LinalgOp op,
                                         unsigned vectorBits) {
  std::optional<unsigned> n = contiguousOutputLoop(op);
  if (!n || !op.getMatchingIndexingMap(op.getDpsInitOperand(0))
                 .isProjectedPermutation())
    return std::nullopt;
  if (!hasReduction(op))
    return elementwiseTile(op, *n, vectorBits);
  n = tessel::registerVectorLoop(op, vectorBits);
  Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8 ||
      element.getIntOrFloatBitWidth() > vectorBits)
    return std::nullopt;
  unsigned numLoops = op.getNumLoops();
  // Each input index must be linear; `n` may only index an input's last
  // dim (with a constant stride: see ReadStridedAsShuffle).
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    for (auto [r, expr] : llvm::enumerate(map.getResults())) {
      std::optional<SmallVector<int64_t>> form = linearForm(expr, numLoops);
      if (!form)
        return std::nullopt;
      if ((*form)[*n] != 0 && r + 1 != map.getNumResults())
        return std::nullopt;
    }
  }
  std::optional<unsigned> m = tessel::registerRowLoop(op, *n);
  // A tile index may hold `m` or `n`, not both.
  for (OpOperand *input : op.getDpsInputOperands())
    for (AffineExpr expr : op.getMatchingIndexingMap(input).getResults())
      if (m && expr.isFunctionOfDim(*m) && expr.isFunctionOfDim(*n))
        return std::nullopt;
  RegisterTile tile;
  tile.sizes.assign(numLoops, 1);
  tile.n = *n;
  tile.sizes[*n] = vectorTileWidth(op, *n, element, vectorBits);
  if (m && op.getIteratorTypesArray()[*m] == utils::IteratorType::parallel) {
    tile.m = m;
    // No more rows than a static extent has (the 7 columns of a 7x7 image
    // when the vectors run along its channels).
    tile.sizes[*m] = std::min(tessel::registerTileRows(vectorBits),
                              staticLoopExtent(op, *m).value_or(
                                  std::numeric_limits<int64_t>::max()));
  }
  return tile;
}

/// Merges the output's last two loops of `op` into one when the last is
/// shorter than a register tile's two vectors, every index is a plain loop,
/// and both run contiguously through every operand that uses them: a 1x1
/// Conv or an epilogue on a 7x7 image then fills 4 vectors of 16 lanes with
/// its 49 pixels, where rows of 7 fill 7 lanes of each. A 1x1 Conv's input
/// index `oh + kh` becomes `oh` once its unit kh and kw loops are dropped
/// (a 3x3 Conv's windows do not merge). Returns the op to tile: the merged
/// one, or `op` itself.
linalg::LinalgOp mergeNarrowRows(RewriterBase &rewriter, linalg::LinalgOp op,
                                 unsigned vectorBits) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  std::optional<unsigned> n = contiguousOutputLoop(op);
  if (!generic || !n || *n == 0)
    return op;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  unsigned rank = out.getNumResults();
  std::optional<unsigned> row =
      rank >= 2 ? lastLoop(out.getMajorSubMap(rank - 1)) : std::nullopt;
  Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  if (!row || *row + 1 != *n || !element.isIntOrFloat() ||
      op.getIteratorTypesArray()[*n - 1] != utils::IteratorType::parallel)
    return op;
  int64_t lanes = tessel::lanesOf(element, vectorBits);
  std::optional<int64_t> width = staticLoopExtent(op, *n);
  std::optional<int64_t> height = staticLoopExtent(op, *n - 1);
  if (!width || !height || *width >= kTileVectors * lanes || *height < 2)
    return op;
  // Not when a contraction's register tile puts its vectors along another
  // loop (the output channels of filters-last weights): the rows would
  // become the merged pixels, in tiles that leave a short one (49 = 6 x 8
  // + 1), where rows of 7 keep every vector full (fp32 1x1 Convs of
  // ResNet-50's layer3 and layer4: 30% slower merged).
  std::optional<unsigned> vectors = tessel::registerVectorLoop(op, vectorBits);
  if (vectors && *vectors != *n)
    return op;
  // Reduction loops of extent 1 (a 1x1 Conv's kh, kw) out of the way; the
  // loops before them keep their positions.
  SmallVector<unsigned> unitReductions;
  for (auto [d, kind] : llvm::enumerate(op.getIteratorTypesArray()))
    if (kind == utils::IteratorType::reduction &&
        staticLoopExtent(op, d) == std::optional<int64_t>(1))
      unitReductions.push_back(d);
  if (!unitReductions.empty() && unitReductions.front() > *n) {
    linalg::ControlDropUnitDims control;
    control.rankReductionStrategy =
        linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
    control.controlFn = [&](Operation *) { return unitReductions; };
    // Upstream's collapse refuses a memref with a layout (the views a
    // workgroup tile takes of its weights: a 1x1 Conv split by output
    // channels kept its 7x7 pixels as rows of 7); a rank-reducing subview
    // drops the unit dims of any strided memref.
    control.collapseFn =
        [](RewriterBase &b, Location loc, Value operand,
           ArrayRef<int64_t> targetShape, ArrayRef<ReassociationIndices>,
           const linalg::ControlDropUnitDims &) -> FailureOr<Value> {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type)
        return failure();
      SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
          sizes = memref::getMixedSizes(b, loc, operand),
          strides(type.getRank(), b.getIndexAttr(1));
      auto reduced = cast<MemRefType>(
          memref::SubViewOp::inferRankReducedResultType(
              targetShape, type, offsets, sizes, strides));
      return memref::SubViewOp::create(b, loc, reduced, operand, offsets,
                                       sizes, strides)
          .getResult();
    };
    rewriter.setInsertionPoint(generic);
    FailureOr<linalg::DropUnitDimsResult> dropped =
        linalg::dropUnitDims(rewriter, generic, control);
    if (succeeded(dropped)) {
      rewriter.eraseOp(generic);
      generic = cast<linalg::GenericOp>(dropped->resultOp.getOperation());
      op = cast<linalg::LinalgOp>(generic.getOperation());
    }
  }
  ReassociationIndices merged = {static_cast<int64_t>(*n - 1),
                                 static_cast<int64_t>(*n)};
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }) ||
      !linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), merged))
    return op;
  // The operands must be collapsible as they are laid out.
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      return op;
    std::optional<unsigned> first =
        map.getResultPosition(getAffineDimExpr(*n - 1, op.getContext()));
    if (!first)
      continue;
    SmallVector<ReassociationIndices> groups;
    for (unsigned r = 0; r < map.getNumResults(); ++r) {
      if (r == *first + 1)
        continue;
      groups.push_back({static_cast<int64_t>(r)});
      if (r == *first)
        groups.back().push_back(r + 1);
    }
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(type, groups))
      return op;
  }
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(op, {merged}, rewriter);
  if (failed(collapsed))
    return op;
  rewriter.eraseOp(op);
  return collapsed->collapsedOp;
}

/// Parallel loops first, then reductions, each in their original order.
SmallVector<int64_t> parallelFirst(linalg::LinalgOp op) {
  SmallVector<int64_t> order, reductions;
  for (auto [i, kind] : llvm::enumerate(op.getIteratorTypesArray()))
    (kind == utils::IteratorType::parallel ? order : reductions).push_back(i);
  llvm::append_range(order, reductions);
  return order;
}

/// Marks the tiles of one op (tiling and peeling clone attributes), and
/// those of the rows it leaves over (see splitLeftoverRows).
constexpr llvm::StringLiteral kTileMarker = "tessel.register_tile";
constexpr llvm::StringLiteral kLeftoverTileMarker = "tessel.leftover_tile";

/// Tiles `op` to `tile` and peels the loops with tiles wider than 1, so
/// that only the last tile of such a loop is partial. The tiles are marked
/// `marker`.
LogicalResult tileAndPeel(RewriterBase &rewriter, linalg::LinalgOp op,
                          ArrayRef<int64_t> tile, StringRef marker) {
  scf::SCFTilingOptions options;
  SmallVector<OpFoldResult> sizes;
  for (int64_t t : tile)
    sizes.push_back(rewriter.getIndexAttr(t));
  SmallVector<int64_t> order = parallelFirst(op);
  options.setTileSizes(sizes).setInterchange(order);
  op->setAttr(marker, rewriter.getUnitAttr());
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

/// Marks the op of the rows left over by splitLeftoverRows.
constexpr llvm::StringLiteral kLeftoverRows = "tessel.leftover_rows";

/// The op marked `marker` in `func` (its mark removed), or null.
linalg::LinalgOp findMarked(func::FuncOp func, StringRef marker) {
  linalg::LinalgOp found;
  func.walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(marker)) {
      op->removeAttr(marker);
      found = op;
    }
  });
  return found;
}

/// Splits `op` along its run-time row loop `m` into the rows that fill
/// tiles of `rows` (`op` itself, updated in place to those) and the rest,
/// a copy of `op` marked kLeftoverRows. Returns the rest's op as created
/// (it may be rewritten later: find it by its mark).
std::optional<linalg::LinalgOp> splitLeftoverRows(RewriterBase &rewriter,
                                                  linalg::LinalgOp &op,
                                                  unsigned m, int64_t rows) {
  FailureOr<linalg::LinalgOp> tile = tileOneLoop(rewriter, op, m, rows);
  if (failed(tile))
    return std::nullopt;
  op = *tile;
  auto loop = op->getParentOfType<scf::ForOp>();
  scf::ForOp partial;
  if (!loop ||
      failed(scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial)) ||
      !partial)
    return std::nullopt;
  linalg::LinalgOp full, rest;
  loop.walk([&](linalg::LinalgOp o) { full = o; });
  partial.walk([&](linalg::LinalgOp o) { rest = o; });
  op = full;
  rest->setAttr(kLeftoverRows, rewriter.getUnitAttr());
  return rest;
}

/// Vectorizes tile `t` with the tile as its vector shape (masked where it
/// may be partial); a tile of `dot` of whole groups and static extents with
/// dot-product instructions, the others one reduction step at a time. A
/// tile the vectorizer rejects stays a scalar loop nest: slower, never
/// wrong.
void vectorizeTile(RewriterBase &rewriter, linalg::GenericOp t,
                   const RegisterTile &tile, unsigned vectorBits,
                   std::optional<DotTile> dot = std::nullopt) {
  if (dot) {
    std::optional<std::pair<int64_t, int64_t>> shape =
        dotTileShape(t, tile, *dot);
    if (shape && succeeded(emitDotTile(rewriter, t, tile, *dot, vectorBits,
                                       shape->first, shape->second)))
      return;
    FailureOr<linalg::GenericOp> stepped = stepReduction(rewriter, t, dot->k);
    if (failed(stepped))
      return;
    t = *stepped;
  }
  if (failed(specializeTile(rewriter, t, tile)))
    return;
  auto collapsed = collapseTile(rewriter, t, tile);
  if (failed(collapsed))
    return;
  auto [op, shape] = *collapsed;
  SmallVector<bool> scalable(shape.size(), false);
  if (failed(linalg::vectorizeOpPrecondition(op, shape, scalable)))
    return;
  rewriter.setInsertionPoint(op);
  if (succeeded(linalg::vectorize(rewriter, op, shape, scalable)))
    rewriter.eraseOp(op);
}

/// vectorizeTile on every tile marked `marker`.
void vectorizeTiles(RewriterBase &rewriter, func::FuncOp func,
                    StringRef marker, const RegisterTile &tile,
                    unsigned vectorBits,
                    std::optional<DotTile> dot = std::nullopt) {
  SmallVector<linalg::GenericOp> tiles;
  func.walk([&](linalg::GenericOp t) {
    if (t->hasAttr(marker))
      tiles.push_back(t);
  });
  for (linalg::GenericOp t : tiles) {
    t->removeAttr(marker);
    vectorizeTile(rewriter, t, tile, vectorBits, dot);
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
/// sizes, all-true masks, single-iteration loops.
LogicalResult cleanUp(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  RewritePatternSet patterns(context);
  const StringRef dialects[] = {"vector", "scf", "affine", "arith", "memref"};
  for (StringRef dialect : dialects)
    context->getLoadedDialect(dialect)->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName name : context->getRegisteredOperations())
    if (llvm::is_contained(dialects, name.getDialectNamespace()))
      name.getCanonicalizationPatterns(patterns, context);
  return applyPatternsGreedily(func, std::move(patterns));
}

/// Moves one read/write pair of a loop-invariant tile out of `loop`: the
/// tile then travels through the loop as an iter_arg (an accumulator in
/// registers). The pair must be the only accesses to its memref (view)
/// inside the loop; a stage's output never aliases its inputs (every
/// result is a fresh buffer, see compiler/Partition.cpp), which is what
/// lets this see through views where upstream's
/// hoistRedundantVectorTransfers does not.
bool hoistAccumulator(RewriterBase &rewriter, scf::ForOp loop) {
  auto outside = [&](Value v) { return !v || loop.isDefinedOutsideOfLoop(v); };
  for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
    Value base = read.getBase();
    if (!outside(base) || !llvm::all_of(read.getIndices(), outside) ||
        !outside(read.getMask()))
      continue;
    vector::TransferWriteOp write;
    bool other = false;
    for (Operation *user : base.getUsers()) {
      if (user == read || !loop->isProperAncestor(user))
        continue;
      auto w = dyn_cast<vector::TransferWriteOp>(user);
      if (!w || write || w->getParentOp() != loop) {
        other = true;
        break;
      }
      write = w;
    }
    if (other || !write || write.getIndices() != read.getIndices() ||
        write.getMask() != read.getMask() ||
        write.getVectorType() != read.getVectorType() ||
        write.getPermutationMap() != read.getPermutationMap() ||
        write.getInBounds() != read.getInBounds() ||
        !read->isBeforeInBlock(write))
      continue;
    rewriter.moveOpBefore(read, loop);
    FailureOr<LoopLikeOpInterface> grown =
        cast<LoopLikeOpInterface>(loop.getOperation())
            .replaceWithAdditionalYields(
                rewriter, read.getResult(),
                /*replaceInitOperandUsesInLoop=*/true,
                [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                  return SmallVector<Value>{write.getVector()};
                });
    if (failed(grown))
      return false;
    Operation *newLoop = grown->getOperation();
    rewriter.moveOpAfter(write, newLoop);
    rewriter.modifyOpInPlace(write, [&] {
      write.getValueToStoreMutable().assign(newLoop->getResults().back());
    });
    return true;
  }
  return false;
}

/// Drops from elementwise op `op`'s inputs the unit dims it indexes at a
/// constant 0 (a per-channel scale of shape [C, 1, 1] read as (c, 0, 0) in
/// an NCHW epilogue): a rank-reduced view then makes each map a projected
/// permutation, which the register tiles need.
void dropUnitConstantIndices(RewriterBase &rewriter, linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() != 0)
    return;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool changed = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    AffineMap map = maps[input->getOperandNumber()];
    if (!type || map.isProjectedPermutation())
      continue;
    SmallVector<AffineExpr> kept;
    SmallVector<int64_t> shape;
    bool droppable = true;
    for (auto [r, expr] : llvm::enumerate(map.getResults())) {
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      if (!constant) {
        kept.push_back(expr);
        shape.push_back(type.getDimSize(r));
        // A kept unit dim would make the rank reduction ambiguous (which
        // unit dims are dropped is inferred from the shapes).
        droppable = droppable && type.getDimSize(r) != 1;
      } else if (constant.getValue() != 0 || type.getDimSize(r) != 1) {
        droppable = false;
      }
    }
    AffineMap reduced =
        AffineMap::get(map.getNumDims(), 0, kept, op.getContext());
    if (!droppable || !reduced.isProjectedPermutation())
      continue;
    rewriter.setInsertionPoint(op);
    SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0)),
        sizes = memref::getMixedSizes(rewriter, op.getLoc(), input->get()),
        strides(type.getRank(), rewriter.getIndexAttr(1));
    auto view = cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
        shape, type, offsets, sizes, strides));
    input->set(memref::SubViewOp::create(rewriter, op.getLoc(), view,
                                         input->get(), offsets, sizes,
                                         strides));
    maps[input->getOperandNumber()] = reduced;
    changed = true;
  }
  if (changed)
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
}

/// hoistAccumulator to a fixed point, after moving loop-invariant views
/// and masks out of the loops.
void hoistAccumulators(RewriterBase &rewriter, func::FuncOp func) {
  func.walk([](scf::ForOp loop) {
    moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
  });
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      if (hoistAccumulator(rewriter, loop)) {
        changed = true;
        break;
      }
  }
}

struct TileAndVectorizePass
    : tessel::impl::TileAndVectorizePassBase<TileAndVectorizePass> {
  using TileAndVectorizePassBase::TileAndVectorizePassBase;

  /// Register-tiles and vectorizes `op`, with `chain` in its tiles where
  /// they take it; the ops of the chain they do not take are tiled on their
  /// own.
  LogicalResult tileOp(RewriterBase &rewriter, func::FuncOp func,
                       linalg::LinalgOp op, tessel::EpilogueChain chain,
                       bool &vectorized) {
    linalg::LinalgOp original = op;
    SmallVector<Operation *> unfused = chain.ops();
    op = mergeNarrowRows(rewriter, op, vectorBits);
    // A contraction of merged rows takes a chain of merged rows only.
    if (op != original && !chain.empty()) {
      for (Operation *&member : unfused)
        member = mergeNarrowRows(rewriter, cast<linalg::LinalgOp>(member),
                                 vectorBits);
      chain = tessel::findEpilogueChain(op).restrictedTo(unfused);
    }
    chain = tessel::hoistChainOperands(chain, op);
    std::optional<RegisterTile> tile;
    if (isa<linalg::GenericOp>(op.getOperation()))
      tile = registerTile(op, vectorBits);
    if (!tile) {
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
        interchangeForContiguity(rewriter, generic);
    } else {
      if (hasReduction(op)) {
        op = chunkForPacking(rewriter, op, *tile);
        packStreamedOperand(rewriter, op, *tile);
      }
      // Rows of a run-time count (a Gemm's batch): the rows left over by
      // the full register tiles run one at a time, unmasked, rather than
      // as one tile masked along its rows (batch 1 would be all masks).
      // The reduction by groups where dot-product instructions add a
      // group at a time.
      std::optional<DotTile> dot =
          dotTile(op, *tile, vectorBits, int8Dot, bf16Dot);
      if (dot) {
        tile->sizes[dot->k] = dot->group;
        dot->gather = dot->kind == DotTile::Int8 && bytePermutes
                          ? DotTile::BytePermute
                      : wordPermutes ? DotTile::WordPermute
                                     : DotTile::Interleave;
      }
      bool reduces = hasReduction(op);
      SmallVector<unsigned> outLoops;
      for (AffineExpr e :
           op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults())
        outLoops.push_back(cast<AffineDimExpr>(e).getPosition());
      SmallVector<tessel::TileGroup> groups = {{kTileMarker, *tile}};
      if (tile->m && !staticLoopExtent(op, *tile->m)) {
        std::optional<linalg::LinalgOp> leftover = splitLeftoverRows(
            rewriter, op, *tile->m, tile->sizes[*tile->m]);
        if (leftover) {
          RegisterTile rowTile = *tile;
          rowTile.sizes[*tile->m] = 1;
          rowTile.m = std::nullopt;
          groups.push_back({kLeftoverTileMarker, rowTile});
        }
      }
      if (failed(tileAndPeel(rewriter, op, tile->sizes, kTileMarker)))
        return failure();
      if (groups.size() > 1) {
        linalg::LinalgOp rows = findMarked(func, kLeftoverRows);
        if (!rows || failed(tileAndPeel(rewriter, rows, groups[1].tile.sizes,
                                        kLeftoverTileMarker)))
          return failure();
      }
      if (failed(cleanUp(func)))
        return failure();
      if (!chain.empty() && reduces) {
        FailureOr<bool> fused = tessel::fuseEpilogueTiles(
            rewriter, func, chain, outLoops, groups,
            [&](linalg::GenericOp slice, const RegisterTile &sliceTile) {
              vectorizeTile(rewriter, slice, sliceTile, vectorBits);
            });
        if (failed(fused))
          return failure();
        if (*fused) {
          SmallVector<Operation *> taken = chain.ops();
          llvm::erase_if(unfused, [&](Operation *member) {
            return llvm::is_contained(taken, member);
          });
        }
      }
      for (const tessel::TileGroup &group : groups)
        vectorizeTiles(rewriter, func, group.marker, group.tile, vectorBits,
                       dot);
      vectorized = true;
    }
    for (Operation *member : unfused)
      if (failed(tileOp(rewriter, func, cast<linalg::LinalgOp>(member), {},
                        vectorized)))
        return failure();
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    if (vectorBits < 64 || !llvm::isPowerOf2_32(vectorBits)) {
      func.emitError("vector-bits must be a power of two >= 64, got ")
          << static_cast<unsigned>(vectorBits);
      return signalPassFailure();
    }
    IRRewriter rewriter(context);
    tessel::generalizeInitFills(rewriter, func);
    for (auto generic : llvm::to_vector(
             func.getBody().front().getOps<linalg::GenericOp>()))
      dropUnitConstantIndices(rewriter, generic);
    SmallVector<linalg::LinalgOp> ops;
    for (Operation &op : func.getBody().front())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        if (linalgOp.hasPureBufferSemantics())
          ops.push_back(linalgOp);

    // Each contraction's initializer and epilogues go into its tiles (see
    // EpilogueTiles.h); an op belongs to one chain at most.
    llvm::DenseMap<Operation *, tessel::EpilogueChain> chains;
    llvm::DenseSet<Operation *> members;
    for (linalg::LinalgOp op : ops) {
      if (members.contains(op))
        continue;
      tessel::EpilogueChain chain = tessel::findEpilogueChain(op);
      if (chain.init && members.contains(chain.init))
        chain.init = nullptr;
      if (chain.empty())
        continue;
      for (Operation *member : chain.ops())
        members.insert(member);
      chains[op] = std::move(chain);
    }

    bool vectorized = false;
    for (linalg::LinalgOp op : ops) {
      if (members.contains(op))
        continue;
      auto chain = chains.find(op);
      if (failed(tileOp(rewriter, func, op,
                        chain == chains.end() ? tessel::EpilogueChain()
                                              : chain->second,
                        vectorized)))
        return signalPassFailure();
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
    // Then the output tiles leave the reduction loops as accumulators.
    if (failed(cleanUp(func)))
      return signalPassFailure();
    hoistAccumulators(rewriter, func);
    // The fused epilogues then take the accumulators from registers.
    tessel::forwardTileWrites(rewriter, func);

    // Transfers that broadcast (the `m` operand of a contraction) become a
    // minor-identity transfer and a broadcast, which the generic transfer
    // lowering handles, masked or not; strided reads become shuffles.
    RewritePatternSet lowering(context);
    tessel::populateRegisterTileReadPatterns(lowering);

    if (failed(applyPatternsGreedily(func, std::move(lowering))))
      return signalPassFailure();
  }
};

} // namespace

std::optional<unsigned> tessel::registerVectorLoop(linalg::LinalgOp op,
                                                   unsigned vectorBits) {
  if (std::optional<unsigned> f = channelVectorLoop(op, vectorBits))
    return f;
  return contiguousOutputLoop(op);
}

std::optional<unsigned> tessel::registerRowLoop(linalg::LinalgOp op,
                                                unsigned n) {
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (out.getNumResults() < 2)
    return std::nullopt;
  if (std::optional<unsigned> w = lastLoop(out); w && *w != n)
    return w;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // A dynamic extent counts as 1 but wins over a static 1: it may be more.
  auto size = [&](unsigned l) {
    return ShapedType::isDynamic(ranges[l]) ? int64_t(1) : ranges[l];
  };
  std::optional<unsigned> best;
  for (AffineExpr e : llvm::reverse(out.getResults().drop_back())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      continue;
    unsigned d = dim.getPosition();
    bool withN = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
      AffineMap map = op.getMatchingIndexingMap(in);
      return map.isFunctionOfDim(n) && map.isFunctionOfDim(d);
    });
    if (withN)
      continue;
    if (!best || size(d) > size(*best) ||
        (size(*best) == 1 && ShapedType::isDynamic(ranges[d]) &&
         !ShapedType::isDynamic(ranges[*best])))
      best = d;
  }
  if (best)
    return best;
  if (auto d = dyn_cast<AffineDimExpr>(out.getResults().drop_back().back()))
    return d.getPosition();
  return std::nullopt;
}

bool tessel::dividesIntegers(linalg::LinalgOp op) {
  return llvm::any_of(op.getBlock()->getOperations(), [](Operation &inner) {
    return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
               arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(
        inner);
  });
}

std::optional<int64_t> tessel::staticLoopExtent(linalg::LinalgOp op, unsigned loop) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (loop >= ranges.size() || ShapedType::isDynamic(ranges[loop]))
    return std::nullopt;
  return ranges[loop];
}

FailureOr<linalg::LinalgOp> tessel::tileOneLoop(RewriterBase &rewriter,
                                        linalg::LinalgOp op, unsigned loop,
                                        int64_t size) {
  SmallVector<OpFoldResult> sizes(op.getNumLoops(), rewriter.getIndexAttr(0));
  sizes[loop] = rewriter.getIndexAttr(size);
  scf::SCFTilingOptions options;
  options.setTileSizes(sizes);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return failure();
  rewriter.eraseOp(op);
  return cast<linalg::LinalgOp>(tiled->tiledOps.front());
}
