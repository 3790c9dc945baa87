//===- TileAndFuseWorkgroups.cpp - Workgroup tiles with fused producers ---===//
//
// See Passes.td. The fusion decisions are made up front, per root, over the
// ops' indexing maps (which producers, how each is tiled, what temporary it
// needs); upstream's tileConsumerAndFuseProducersUsingSCF then applies them.
//
//===----------------------------------------------------------------------===//

#include "passes/tiling/Passes.h"
#include "passes/tiling/Tiles.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "llvm/ADT/MapVector.h"

namespace tessel {
#define GEN_PASS_DEF_FORMWORKGROUPGROUPSPASS
#define GEN_PASS_DEF_TILEANDFUSEWORKGROUPSPASS
#include "passes/tiling/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// The tiles a target recorded on `op`, or nothing.
std::optional<SmallVector<int64_t>> recordedTiles(Operation *op) {
  auto attr = op->getAttrOfType<DenseI64ArrayAttr>(tessel::kWorkgroupTilesAttr);
  if (!attr)
    return std::nullopt;
  return llvm::to_vector(attr.asArrayRef());
}

bool isTensorLinalg(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         isa<TilingInterface>(op);
}

/// Whether `op`'s result `index` is written at the identity of its leading
/// loops (output dim i is loop i, every one parallel).
bool writesLeadingLoops(linalg::LinalgOp op, unsigned index) {
  AffineMap map = op.getIndexingMapMatchingResult(op->getResult(index));
  auto iterators = op.getIteratorTypesArray();
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || dim.getPosition() != i ||
        iterators[i] != utils::IteratorType::parallel)
      return false;
  }
  return true;
}

/// Rewrites an elementwise epilogue of a contraction to update the
/// contraction's result in place (see Passes.td); true when it did.
bool makeEpilogueInPlace(linalg::GenericOp op) {
  unsigned rank = op.getNumLoops();
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      op.getNumResults() != 1)
    return false;
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, op.getContext());
  OpOperand *init = op.getDpsInitOperand(0);
  if (op.getMatchingIndexingMap(init) != id ||
      !op.getMatchingBlockArgument(init).use_empty())
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    auto producer = value.getDefiningOp<linalg::LinalgOp>();
    if (!producer || !isTensorLinalg(producer) ||
        producer->getBlock() != op->getBlock() ||
        producer.getNumReductionLoops() == 0 || !value.hasOneUse() ||
        value.getType() != op->getResult(0).getType() ||
        op.getMatchingIndexingMap(input) != id ||
        !writesLeadingLoops(producer,
                            cast<OpResult>(value).getResultNumber()))
      continue;
    // The out block argument takes over the input's role; the input goes.
    Block &body = op.getRegion().front();
    BlockArgument in = op.getMatchingBlockArgument(input);
    BlockArgument out = op.getMatchingBlockArgument(init);
    in.replaceAllUsesWith(out);
    unsigned index = input->getOperandNumber();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps.erase(maps.begin() + index);
    init->set(value);
    op.getInputsMutable().erase(index);
    body.eraseArgument(index);
    op.setIndexingMapsAttr(
        Builder(op.getContext()).getAffineMapArrayAttr(maps));
    return true;
  }
  return false;
}

using tessel::kGroupAttr;
using tessel::kLoopsAttr;

/// A workgroup temporary: its type and, per dim, the root loop it follows
/// (-1: the dim is whole in every workgroup) and its extent per unit tile of
/// that loop (1, or a window's rows per output row: see tryJoinPad).
struct Temp {
  RankedTensorType type;
  SmallVector<int64_t> follows;
  SmallVector<int64_t> units;
};

/// A group being formed: per op, the workgroup loop (a loop of the root)
/// each of its loops follows, -1 for none.
struct FusionGroup {
  llvm::MapVector<Operation *, SmallVector<int64_t>> follows;
  /// The root's loops a target may still split, and the static extent of
  /// each root loop.
  llvm::SmallSetVector<int64_t, 4> splittable;
  SmallVector<int64_t> rootRanges;
  SmallVector<Temp> temps;
  bool contains(Operation *op) const { return follows.count(op); }
};

/// Bytes of the group's temporaries per unit tile of the loops in
/// `splittable`; nothing when one has a dynamic whole dim.
std::optional<int64_t> tempBytes(ArrayRef<Temp> temps,
                                 const llvm::SmallSetVector<int64_t, 4> &splittable) {
  int64_t bytes = 0;
  for (const Temp &temp : temps) {
    RankedTensorType type = temp.type;
    if (!type.getElementType().isIntOrFloat())
      return std::nullopt;
    int64_t elements = 1;
    for (auto [d, loop] : llvm::enumerate(temp.follows)) {
      int64_t extent = temp.units[d];
      if (loop < 0 || !splittable.contains(loop)) {
        if (type.isDynamicDim(d))
          return std::nullopt;
        extent = type.getDimSize(d);
      }
      elements = std::min<int64_t>(elements * extent, int64_t(1) << 40);
    }
    bytes += elements *
             std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  }
  return bytes;
}

/// Records `op` in `group` with the loops it follows, when the group's
/// temporaries stay within `maxTempBytes` per unit tile and some workgroup
/// loop remains; true when it did.
bool commitJoin(FusionGroup &group, Operation *op, SmallVector<int64_t> follows,
                llvm::SmallSetVector<int64_t, 4> splittable,
                SmallVector<Temp> temps, int64_t maxTempBytes) {
  std::optional<int64_t> bytes = tempBytes(temps, splittable);
  if (splittable.empty() || !bytes || *bytes > maxTempBytes)
    return false;
  // A temporary's run-time dims need their loops split (a target splits
  // at most three).
  llvm::SmallSetVector<int64_t, 4> dynamicSplits;
  for (const Temp &temp : temps)
    for (int64_t loop : temp.follows)
      if (loop >= 0 && splittable.contains(loop) &&
          ShapedType::isDynamic(group.rootRanges[loop]))
        dynamicSplits.insert(loop);
  if (dynamicSplits.size() > 3)
    return false;
  group.follows[op] = std::move(follows);
  group.splittable = std::move(splittable);
  group.temps = std::move(temps);
  return true;
}

/// Tries to add `producer` to `group` (see Passes.td); true when it did.
bool tryJoin(FusionGroup &group, linalg::LinalgOp producer,
             int64_t maxTempBytes) {
  SmallVector<int64_t> follows(producer.getNumLoops(), -1);
  SmallVector<bool> assigned(producer.getNumLoops(), false);
  llvm::SmallSetVector<int64_t, 4> splittable = group.splittable;
  auto temps = group.temps;
  auto iterators = producer.getIteratorTypesArray();
  for (OpResult result : producer->getResults()) {
    AffineMap write = producer.getIndexingMapMatchingResult(result);
    if (!write.isProjectedPermutation())
      return false;
    for (OpOperand &use : result.getUses()) {
      auto reader = dyn_cast<linalg::LinalgOp>(use.getOwner());
      if (!reader || !group.contains(reader))
        return false;
      AffineMap read = reader.getMatchingIndexingMap(&use);
      if (!read.isProjectedPermutation() ||
          read.getNumResults() != write.getNumResults())
        return false;
      const SmallVector<int64_t> &readerFollows = group.follows.lookup(reader);
      // A workgroup loop the read does not select cannot be split.
      for (auto [loop, root] : llvm::enumerate(readerFollows))
        if (root >= 0 && !read.isFunctionOfDim(loop))
          splittable.remove(root);
      SmallVector<int64_t> dims;
      for (unsigned r = 0; r < read.getNumResults(); ++r) {
        int64_t root = readerFollows[cast<AffineDimExpr>(read.getResult(r))
                                         .getPosition()];
        unsigned loop = cast<AffineDimExpr>(write.getResult(r)).getPosition();
        if (assigned[loop] && follows[loop] != root) {
          // Readers that tile the dim differently: it stays whole.
          splittable.remove(root);
          splittable.remove(follows[loop]);
          root = -1;
        }
        assigned[loop] = true;
        follows[loop] = root;
        if (root >= 0 && iterators[loop] != utils::IteratorType::parallel)
          splittable.remove(root);
        dims.push_back(root);
      }
      if (!reader.isDpsInit(&use))
        temps.push_back({cast<RankedTensorType>(result.getType()), dims,
                         SmallVector<int64_t>(dims.size(), 1)});
    }
  }
  return commitJoin(group, producer, std::move(follows),
                    std::move(splittable), std::move(temps), maxTempBytes);
}

/// Adds a constant tensor.pad to `group` (see Passes.td: pads in the tile)
/// when it may; true when it did.
bool tryJoinPad(FusionGroup &group, tensor::PadOp pad, int64_t maxTempBytes) {
  if (!pad.getConstantPaddingValue() || !pad.getResult().hasOneUse())
    return false;
  OpOperand &use = *pad.getResult().getUses().begin();
  auto reader = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!reader || !group.contains(reader) || reader.isDpsInit(&use))
    return false;
  RankedTensorType type = pad.getResultType();
  AffineMap read = reader.getMatchingIndexingMap(&use);
  if (read.getNumResults() != type.getRank() || read.getNumSymbols() != 0)
    return false;
  SmallVector<int64_t> ranges = reader.getStaticLoopRanges();
  auto iterators = reader.getIteratorTypesArray();
  const SmallVector<int64_t> &readerFollows = group.follows.lookup(reader);
  llvm::SmallSetVector<int64_t, 4> splittable = group.splittable;
  // A workgroup loop the read does not select would copy the same tile.
  for (auto [loop, root] : llvm::enumerate(readerFollows))
    if (root >= 0 && !read.isFunctionOfDim(loop))
      splittable.remove(root);
  ArrayRef<int64_t> lows = pad.getStaticLow(), highs = pad.getStaticHigh();
  Temp temp{type, {}, {}};
  for (unsigned r = 0; r < type.getRank(); ++r) {
    std::optional<SmallVector<int64_t>> coefficients =
        tessel::linearForm(read.getResult(r), read.getNumDims());
    if (!coefficients)
      return false;
    bool padded = lows[r] != 0 || highs[r] != 0;
    // The dim's extent in a unit tile of the split loops, and the split
    // loop that moves it (at most one).
    int64_t extent = 1, root = -1, stride = 0;
    for (auto [loop, c] : llvm::enumerate(*coefficients)) {
      if (c == 0 || ranges[loop] == 1)
        continue; // a loop of one iteration reads index 0
      if (c < 0)
        return false;
      int64_t follows = readerFollows[loop];
      if (follows >= 0 && splittable.contains(follows) && root < 0 &&
          iterators[loop] == utils::IteratorType::parallel) {
        root = follows;
        stride = c;
        continue;
      }
      // A loop every workgroup runs whole: its window. Outside a padded
      // dim only a window of one element is allowed, so no workgroup
      // copies a dim its reader sums over (a Conv's input channels).
      if (!padded || ShapedType::isDynamic(ranges[loop]))
        return false;
      if (follows >= 0)
        splittable.remove(follows);
      extent += c * (ranges[loop] - 1);
    }
    if (root >= 0 && !padded && stride != 1)
      return false;
    temp.follows.push_back(root);
    // Rows for T output rows: stride * (T - 1) + extent, at most
    // T * max(stride, extent).
    temp.units.push_back(std::max(stride, extent));
  }
  SmallVector<Temp> temps = group.temps;
  temps.push_back(std::move(temp));
  return commitJoin(group, pad, {}, std::move(splittable), std::move(temps),
                    maxTempBytes);
}

/// Rewrites a tensor.pad with a constant value into linalg ops that can be
/// tiled like any other: a fill of the padded tensor, then a copy of the
/// source into its interior (an insert_slice in place after bufferization).
/// Returns the fill and the copy, or nothing when it did not.
std::optional<std::pair<Operation *, Operation *>>
decomposePad(tensor::PadOp pad) {
  Value value = pad.getConstantPaddingValue();
  if (!value)
    return std::nullopt;
  IRRewriter rewriter(pad.getContext());
  rewriter.setInsertionPoint(pad);
  Location loc = pad.getLoc();
  ReifiedRankedShapedTypeDims shapes;
  if (failed(reifyResultShapes(rewriter, pad, shapes)))
    return std::nullopt;
  RankedTensorType type = pad.getResultType();
  Value empty = tensor::EmptyOp::create(rewriter, loc, shapes[0],
                                        type.getElementType());
  auto fill = linalg::FillOp::create(rewriter, loc, value, empty);
  Value filled = fill.getResult(0);
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(rewriter, loc, pad.getSource());
  SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
  SmallVector<OpFoldResult> offsets = pad.getMixedLowPad();
  Value interior = tensor::ExtractSliceOp::create(rewriter, loc, filled,
                                                  offsets, sizes, strides);
  auto copy = linalg::CopyOp::create(rewriter, loc, pad.getSource(), interior);
  rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(
      pad, copy.getResult(0), filled, offsets, sizes, strides);
  return std::make_pair(fill.getOperation(), copy.getOperation());
}

/// Replaces `slice`, a slice of `pad`'s result, by a pad of the slice of
/// the pad's source it covers: a temporary of the tile's shape whose border
/// slabs take the pad's value and whose interior is a copy of that slice
/// (empty where the tile lies in the padding). Tiles of a window overlap
/// (halos); each workgroup copies its own.
LogicalResult padInTile(RewriterBase &rewriter, tensor::PadOp pad,
                        tensor::ExtractSliceOp slice) {
  if (!slice.hasUnitStride() ||
      slice.getType().getRank() != pad.getResultType().getRank())
    return slice.emitError("a strided or rank-reducing slice of a pad");
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(slice);
  Location loc = slice.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr s0, s1, s2, s3;
  bindSymbols(ctx, s0, s1, s2, s3);
  auto map = [&](ArrayRef<AffineExpr> exprs, unsigned symbols) {
    return AffineMap::get(0, symbols, exprs, ctx);
  };
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets(),
                            sizes = slice.getMixedSizes(),
                            lows = pad.getMixedLowPad(),
                            highs = pad.getMixedHighPad(),
                            whole = tensor::getMixedSizes(rewriter, loc,
                                                          pad.getSource());
  SmallVector<bool> padded;
  for (unsigned d = 0; d < offsets.size(); ++d)
    padded.push_back(!isZeroInteger(lows[d]) || !isZeroInteger(highs[d]));
  SmallVector<OpFoldResult> from, lengths, to;
  for (unsigned d = 0; d < offsets.size(); ++d) {
    if (!padded[d]) {
      from.push_back(offsets[d]);
      lengths.push_back(sizes[d]);
      to.push_back(rewriter.getIndexAttr(0));
      continue;
    }
    // The source rows [begin, end) that the tile's rows [offset, offset +
    // size) of the padded dim cover, clamped to the source (empty where
    // the tile lies in the padding).
    OpFoldResult begin = affine::makeComposedFoldedAffineMax(
        rewriter, loc, map({s0 - s1, getAffineConstantExpr(0, ctx)}, 2),
        {offsets[d], lows[d]});
    begin = affine::makeComposedFoldedAffineMin(rewriter, loc,
                                                map({s0, s1}, 2),
                                                {begin, whole[d]});
    OpFoldResult end = affine::makeComposedFoldedAffineMin(
        rewriter, loc, map({s0 + s1 - s2, s3}, 4),
        {offsets[d], sizes[d], lows[d], whole[d]});
    end = affine::makeComposedFoldedAffineMax(rewriter, loc, map({s0, s1}, 2),
                                              {end, begin});
    from.push_back(begin);
    lengths.push_back(affine::makeComposedFoldedAffineApply(
        rewriter, loc, map({s0 - s1}, 2), {end, begin}));
    to.push_back(affine::makeComposedFoldedAffineApply(
        rewriter, loc, map({s0 + s1 - s2}, 3), {begin, lows[d], offsets[d]}));
  }
  Value value = pad.getConstantPaddingValue();
  if (pad.getRegion().isAncestor(value.getParentRegion()))
    value = rewriter.clone(*value.getDefiningOp())->getResult(0);
  SmallVector<OpFoldResult> strides(offsets.size(), rewriter.getIndexAttr(1));
  Value empty = tensor::EmptyOp::create(rewriter, loc, sizes,
                                        slice.getType().getElementType());
  // Only the border takes the value: per padded dim, the slabs before and
  // after the copied rows (a 2-d border is written twice at its corners).
  Value filled = empty;
  for (unsigned d = 0; d < offsets.size(); ++d) {
    if (!padded[d])
      continue;
    OpFoldResult after = affine::makeComposedFoldedAffineApply(
        rewriter, loc, map({s0 + s1}, 2), {to[d], lengths[d]});
    SmallVector<std::pair<OpFoldResult, OpFoldResult>> slabs = {
        {rewriter.getIndexAttr(0), to[d]},
        {after, affine::makeComposedFoldedAffineApply(
                    rewriter, loc, map({s0 - s1}, 2), {sizes[d], after})}};
    for (auto [start, length] : slabs) {
      if (isZeroInteger(length))
        continue;
      SmallVector<OpFoldResult> at(offsets.size(), rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> extent = sizes;
      at[d] = start;
      extent[d] = length;
      Value part = tensor::ExtractSliceOp::create(rewriter, loc, filled, at,
                                                  extent, strides);
      part = linalg::FillOp::create(rewriter, loc, value, part).getResult(0);
      filled = tensor::InsertSliceOp::create(rewriter, loc, part, filled, at,
                                             extent, strides);
    }
  }
  Value source = tensor::ExtractSliceOp::create(rewriter, loc, pad.getSource(),
                                                from, lengths, strides);
  Value interior = tensor::ExtractSliceOp::create(rewriter, loc, filled, to,
                                                  lengths, strides);
  Value copied =
      linalg::CopyOp::create(rewriter, loc, source, interior).getResult(0);
  Value tile = tensor::InsertSliceOp::create(rewriter, loc, copied, filled, to,
                                             lengths, strides);
  if (tile.getType() != slice.getType())
    tile = tensor::CastOp::create(rewriter, loc, slice.getType(), tile);
  rewriter.replaceOp(slice, tile);
  return success();
}

/// The number of leading parallel loops of `op`.
unsigned leadingParallelLoops(linalg::LinalgOp op) {
  unsigned n = 0;
  for (utils::IteratorType t : op.getIteratorTypesArray()) {
    if (t != utils::IteratorType::parallel)
      break;
    ++n;
  }
  return n;
}

/// Forms the group rooted at `root` (see Passes.td) and records it.
void formGroup(linalg::LinalgOp root, int64_t id, int64_t maxTempBytes) {
  FusionGroup group;
  SmallVector<int64_t> follows(root.getNumLoops(), -1);
  for (unsigned d = 0, e = leadingParallelLoops(root); d < e; ++d) {
    follows[d] = d;
    group.splittable.insert(d);
  }
  group.follows[root] = follows;
  group.rootRanges = root.getStaticLoopRanges();
  for (bool changed = true; changed;) {
    changed = false;
    for (unsigned i = 0; i < group.follows.size(); ++i) {
      Operation *reader = group.follows.begin()[i].first;
      for (Value operand : reader->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || group.contains(def) ||
            def->getBlock() != root->getBlock() || def->hasAttr(kGroupAttr))
          continue;
        if (auto pad = dyn_cast<tensor::PadOp>(def)) {
          if (tryJoinPad(group, pad, maxTempBytes))
            changed = true;
          continue;
        }
        if (isTensorLinalg(def) &&
            tryJoin(group, cast<linalg::LinalgOp>(def), maxTempBytes))
          changed = true;
      }
    }
  }
  Builder b(root.getContext());
  for (auto &[op, unused] : group.follows)
    op->setAttr(kGroupAttr, b.getI64IntegerAttr(id));
  SmallVector<int64_t> loops(group.splittable.begin(), group.splittable.end());
  llvm::sort(loops);
  root->setAttr(kLoopsAttr, b.getDenseI64ArrayAttr(loops));
  root->setAttr(tessel::kWorkgroupTempBytesAttr,
                b.getI64IntegerAttr(
                    tempBytes(group.temps, group.splittable).value_or(0)));
}

struct FormWorkgroupGroupsPass
    : tessel::impl::FormWorkgroupGroupsPassBase<FormWorkgroupGroupsPass> {
  using FormWorkgroupGroupsPassBase::FormWorkgroupGroupsPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration())
      return;
    Block &block = func.getBody().front();
    for (auto generic :
         llvm::make_early_inc_range(block.getOps<linalg::GenericOp>()))
      makeEpilogueInPlace(generic);
    int64_t id = 0;
    auto root = [&](Operation *op) {
      if (!isTensorLinalg(op) || op->hasAttr(kGroupAttr) ||
          leadingParallelLoops(cast<linalg::LinalgOp>(op)) == 0)
        return;
      formGroup(cast<linalg::LinalgOp>(op), id++, maxTempBytes);
    };
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
      auto pad = dyn_cast<tensor::PadOp>(&op);
      if (!pad) {
        root(&op);
        continue;
      }
      // A pad no group took (its reader's is formed already) becomes a
      // fill and a copy, each the root of a group of its own.
      if (pad->hasAttr(kGroupAttr))
        continue;
      if (std::optional<std::pair<Operation *, Operation *>> ops =
              decomposePad(pad)) {
        root(ops->second);
        root(ops->first);
      }
    }
  }
};

/// Rewrites the dynamic bounds of `forall` (over `root`'s workgroup loops
/// `loops`, in order) as dims of `dest`, the kernel argument `result` is
/// written into, where the root writes that dim at the loop.
void useDestinationBounds(RewriterBase &rewriter, linalg::LinalgOp root,
                          OpResult result, Value dest, ArrayRef<int64_t> loops,
                          scf::ForallOp forall) {
  auto arg = dyn_cast<BlockArgument>(dest);
  if (!arg || !isa<MemRefType>(dest.getType()))
    return;
  AffineMap write = root.getIndexingMapMatchingResult(result);
  ArrayRef<int64_t> staticUbs = forall.getStaticUpperBound();
  unsigned dynamicIndex = 0;
  for (auto [i, loop] : llvm::enumerate(loops)) {
    if (!ShapedType::isDynamic(staticUbs[i]))
      continue;
    OpOperand &bound = forall.getDynamicUpperBoundMutable()[dynamicIndex++];
    std::optional<unsigned> dim =
        write.getResultPosition(rewriter.getAffineDimExpr(loop));
    if (!dim)
      continue;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(arg.getOwner());
    Value size = memref::DimOp::create(rewriter, forall.getLoc(), dest, *dim);
    rewriter.modifyOpInPlace(forall, [&] { bound.set(size); });
  }
}

struct TileAndFuseWorkgroupsPass
    : tessel::impl::TileAndFuseWorkgroupsPassBase<TileAndFuseWorkgroupsPass> {
  LogicalResult tileRoot(linalg::LinalgOp root, ArrayRef<int64_t> loops,
                         ArrayRef<Operation *> members) {
    SmallVector<int64_t> tiles = recordedTiles(root).value_or(
        SmallVector<int64_t>(root.getNumLoops(), 0));
    if (tiles.size() != root.getNumLoops())
      return root.emitError("tessel.workgroup_tiles has ")
             << tiles.size() << " sizes for " << root.getNumLoops()
             << " loops";
    bool split = llvm::any_of(tiles, [](int64_t t) { return t != 0; });
    if (!split && members.size() == 1)
      return success(); // one op, left whole: the stage is the op
    // Nothing to do (an empty output): no workgroup either, on any target.
    SmallVector<int64_t> ranges = root.getStaticLoopRanges();
    if (llvm::any_of(loops, [&](int64_t d) { return ranges[d] == 0; }))
      return success();
    MLIRContext *ctx = root.getContext();
    IRRewriter rewriter(ctx);
    SmallVector<OpFoldResult> sizes(root.getNumLoops(),
                                    rewriter.getIndexAttr(0));
    SmallVector<Attribute> mapping;
    for (auto [d, t] : llvm::enumerate(tiles))
      if (t != 0 && !llvm::is_contained(loops, int64_t(d)))
        return root.emitError("loop ")
               << d << " is split but is not a workgroup loop";
    rewriter.setInsertionPoint(root);
    SmallVector<Range> domain =
        cast<TilingInterface>(root.getOperation()).getIterationDomain(rewriter);
    auto tempBytesAttr =
        root->getAttrOfType<IntegerAttr>(tessel::kWorkgroupTempBytesAttr);
    bool hasTemps = tempBytesAttr && tempBytesAttr.getInt() > 0;
    // The linear_dim tag of each workgroup loop: the recorded order first.
    SmallVector<int64_t> tagOrder;
    if (auto order =
            root->getAttrOfType<DenseI64ArrayAttr>(tessel::kWorkgroupOrderAttr))
      for (int64_t d : order.asArrayRef()) {
        if (!llvm::is_contained(loops, d) || llvm::is_contained(tagOrder, d))
          return root.emitError("tessel.workgroup_order names loop ")
                 << d << " twice or outside the workgroup loops";
        tagOrder.push_back(d);
      }
    for (int64_t d : loops)
      if (!llvm::is_contained(tagOrder, d))
        tagOrder.push_back(d);
    for (int64_t d : loops) {
      int64_t t = tiles[d];
      if (t == 0 && hasTemps && ShapedType::isDynamic(ranges[d]))
        return root.emitError("the target left dynamic workgroup loop ")
               << d << " whole, but the group's temporaries need it split";
      // A loop left whole is one tile of its extent (the same value as the
      // forall's bound, which is how a target tells it from a split).
      sizes[d] = t != 0 ? rewriter.getIndexAttr(t) : domain[d].size;
      mapping.push_back(gpu::GPUBlockMappingAttr::get(
          ctx, static_cast<gpu::MappingId>(
                   static_cast<uint64_t>(gpu::MappingId::LinearDim0) +
                   llvm::find(tagOrder, d) - tagOrder.begin())));
    }
    scf::SCFTilingOptions tiling;
    tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    tiling.setTileSizes(sizes);
    tiling.setMapping(mapping);
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    llvm::SmallPtrSet<Operation *, 8> group(members.begin(), members.end());
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer,
            bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          // A pad is copied into the tile below, not tiled upstream.
          if (!group.contains(producer.getOwner()) ||
              isa<tensor::PadOp>(producer.getOwner()))
            return std::nullopt;
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        });
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(root.getOperation()), options);
    if (failed(result))
      return root.emitError("cannot tile into workgroups");
    // A root written into a kernel argument has its sizes: the workgroup
    // bounds become that argument's dims, which the plan knows (a bound
    // computed in the kernel, say from a loaded Range limit, it does not).
    auto forall = cast<scf::ForallOp>(result->loops.front().getOperation());
    for (OpResult r : root->getResults())
      for (Operation *user : r.getUsers())
        if (auto store =
                dyn_cast<bufferization::MaterializeInDestinationOp>(user))
          useDestinationBounds(rewriter, root, r, store.getDest(), loops,
                               forall);
    // A loop left whole has its bound as its step, the same value.
    {
      ArrayRef<int64_t> staticUbs = forall.getStaticUpperBound();
      ArrayRef<int64_t> staticSteps = forall.getStaticStep();
      unsigned ubIndex = 0, stepIndex = 0;
      for (auto [i, loop] : llvm::enumerate(loops)) {
        bool dynamicUb = ShapedType::isDynamic(staticUbs[i]);
        bool dynamicStep = ShapedType::isDynamic(staticSteps[i]);
        if (dynamicUb && dynamicStep && tiles[loop] == 0) {
          Value ub = forall.getDynamicUpperBound()[ubIndex];
          rewriter.modifyOpInPlace(forall, [&] {
            forall.getDynamicStepMutable()[stepIndex].set(ub);
          });
        }
        ubIndex += dynamicUb;
        stepIndex += dynamicStep;
      }
    }
    for (OpResult r : root->getResults())
      rewriter.replaceAllUsesWith(r, result->replacements.lookup(r));
    // The group's pads: each slice of one in the tile becomes a pad of the
    // source's slice, a temporary of the workgroup.
    for (Operation *member : members) {
      auto pad = dyn_cast<tensor::PadOp>(member);
      if (!pad)
        continue;
      // (The group's ops outside the tile, which read the whole pad, are
      // erased below.)
      for (Operation *user : llvm::make_early_inc_range(pad->getUsers())) {
        auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
        if (slice && forall->isProperAncestor(slice) &&
            failed(padInTile(rewriter, pad, slice)))
          return failure();
      }
    }
    // Fusion leaves the slices it replaced (and the sizes it read) behind.
    for (LoopLikeOpInterface loop : result->loops) {
      SmallVector<Operation *> nested;
      loop->walk<WalkOrder::PostOrder>(
          [&](Operation *op) { nested.push_back(op); });
      for (Operation *op : nested)
        if (op != loop.getOperation() && isOpTriviallyDead(op))
          rewriter.eraseOp(op);
    }
    // The group is dead now: its only uses were in the group.
    SmallVector<Operation *> dead(members.begin(), members.end());
    llvm::sort(dead, [](Operation *a, Operation *b) {
      return b->isBeforeInBlock(a);
    });
    for (Operation *op : dead) {
      // Sizes the tiling read from the group (the forall's bounds) come
      // from its operands instead.
      SmallVector<tensor::DimOp> dims;
      for (Operation *user : op->getUsers())
        if (auto dim = dyn_cast<tensor::DimOp>(user))
          dims.push_back(dim);
      if (!dims.empty()) {
        rewriter.setInsertionPoint(op);
        ReifiedRankedShapedTypeDims shapes;
        if (failed(reifyResultShapes(rewriter, op, shapes)))
          return op->emitError("cannot reify the sizes of a fused op");
        for (tensor::DimOp dim : dims) {
          std::optional<int64_t> index = dim.getConstantIndex();
          if (!index)
            return dim.emitError("a dim of a fused op at a run-time index");
          unsigned result = cast<OpResult>(dim.getSource()).getResultNumber();
          rewriter.setInsertionPoint(dim);
          rewriter.replaceOp(dim, getValueOrCreateConstantIndexOp(
                                      rewriter, dim.getLoc(),
                                      shapes[result][*index]));
        }
      }
      if (!op->use_empty())
        return op->emitError("an op of a workgroup group was not fused");
      rewriter.eraseOp(op);
    }
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration())
      return;
    Block &block = func.getBody().front();
    llvm::MapVector<int64_t, SmallVector<Operation *>> members;
    SmallVector<std::pair<linalg::LinalgOp, int64_t>> roots;
    for (Operation &op : block) {
      auto id = op.getAttrOfType<IntegerAttr>(kGroupAttr);
      if (!id)
        continue;
      members[id.getInt()].push_back(&op);
      if (op.hasAttr(kLoopsAttr))
        roots.push_back({cast<linalg::LinalgOp>(op), id.getInt()});
    }
    for (auto [root, id] : roots) {
      auto loops = root->getAttrOfType<DenseI64ArrayAttr>(kLoopsAttr);
      if (failed(tileRoot(root, loops.asArrayRef(), members[id])))
        return signalPassFailure();
    }
    func.walk([](Operation *op) {
      op->removeAttr(tessel::kWorkgroupTilesAttr);
      op->removeAttr(tessel::kWorkgroupOrderAttr);
      op->removeAttr(kGroupAttr);
      op->removeAttr(kLoopsAttr);
      op->removeAttr(tessel::kWorkgroupTempBytesAttr);
    });
  }
};

} // namespace
