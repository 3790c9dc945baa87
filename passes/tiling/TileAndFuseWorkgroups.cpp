//===- TileAndFuseWorkgroups.cpp - Workgroup tiles with fused producers ---===//
//
// See Passes.td. The fusion decisions are made up front, per root, over the
// ops' indexing maps (which producers, how each is tiled, what temporary it
// needs); upstream's tileConsumerAndFuseProducersUsingSCF then applies them.
//
//===----------------------------------------------------------------------===//

#include "passes/tiling/Passes.h"

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

/// A group being formed: per op, the workgroup loop (a loop of the root)
/// each of its loops follows, -1 for none.
struct FusionGroup {
  llvm::MapVector<Operation *, SmallVector<int64_t>> follows;
  /// The root's loops a target may still split, and the static extent of
  /// each root loop.
  llvm::SmallSetVector<int64_t, 4> splittable;
  SmallVector<int64_t> rootRanges;
  /// The workgroup temporaries: a type and, per dim, the root loop it follows.
  SmallVector<std::pair<RankedTensorType, SmallVector<int64_t>>> temps;
  bool contains(Operation *op) const { return follows.count(op); }
};

/// Bytes of the group's temporaries per unit tile of the loops in
/// `splittable`; nothing when one has a dynamic whole dim.
std::optional<int64_t>
tempBytes(ArrayRef<std::pair<RankedTensorType, SmallVector<int64_t>>> temps,
          const llvm::SmallSetVector<int64_t, 4> &splittable) {
  int64_t bytes = 0;
  for (const auto &[type, follows] : temps) {
    if (!type.getElementType().isIntOrFloat())
      return std::nullopt;
    int64_t elements = 1;
    for (auto [d, loop] : llvm::enumerate(follows)) {
      if (loop >= 0 && splittable.contains(loop))
        continue;
      if (type.isDynamicDim(d))
        return std::nullopt;
      elements = std::min<int64_t>(elements * type.getDimSize(d),
                                   int64_t(1) << 40);
    }
    bytes += elements *
             std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  }
  return bytes;
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
        temps.push_back({cast<RankedTensorType>(result.getType()), dims});
    }
  }
  std::optional<int64_t> bytes = tempBytes(temps, splittable);
  if (splittable.empty() || !bytes || *bytes > maxTempBytes)
    return false;
  // A temporary's run-time dims need their loops split (a target splits
  // at most three).
  llvm::SmallSetVector<int64_t, 4> dynamicSplits;
  for (const auto &[type, dims] : temps)
    for (int64_t loop : dims)
      if (loop >= 0 && splittable.contains(loop) &&
          ShapedType::isDynamic(group.rootRanges[loop]))
        dynamicSplits.insert(loop);
  if (dynamicSplits.size() > 3)
    return false;
  group.follows[producer] = follows;
  group.splittable = splittable;
  group.temps = std::move(temps);
  return true;
}

/// Rewrites a tensor.pad with a constant value into linalg ops that can be
/// tiled like any other: a fill of the padded tensor, then a copy of the
/// source into its interior (an insert_slice in place after bufferization).
/// True when it did.
bool decomposePad(tensor::PadOp pad) {
  Value value = pad.getConstantPaddingValue();
  if (!value)
    return false;
  IRRewriter rewriter(pad.getContext());
  rewriter.setInsertionPoint(pad);
  Location loc = pad.getLoc();
  ReifiedRankedShapedTypeDims shapes;
  if (failed(reifyResultShapes(rewriter, pad, shapes)))
    return false;
  RankedTensorType type = pad.getResultType();
  Value empty = tensor::EmptyOp::create(rewriter, loc, shapes[0],
                                        type.getElementType());
  Value filled =
      linalg::FillOp::create(rewriter, loc, value, empty).getResult(0);
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(rewriter, loc, pad.getSource());
  SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
  SmallVector<OpFoldResult> offsets = pad.getMixedLowPad();
  Value interior = tensor::ExtractSliceOp::create(rewriter, loc, filled,
                                                  offsets, sizes, strides);
  Value copied = linalg::CopyOp::create(rewriter, loc, pad.getSource(),
                                        interior)
                     .getResult(0);
  rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(pad, copied, filled,
                                                     offsets, sizes, strides);
  return true;
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
        if (!def || group.contains(def) || !isTensorLinalg(def) ||
            def->getBlock() != root->getBlock() ||
            def->hasAttr(kGroupAttr))
          continue;
        if (tryJoin(group, cast<linalg::LinalgOp>(def), maxTempBytes))
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
    for (auto pad : llvm::make_early_inc_range(block.getOps<tensor::PadOp>()))
      decomposePad(pad);
    for (auto generic :
         llvm::make_early_inc_range(block.getOps<linalg::GenericOp>()))
      makeEpilogueInPlace(generic);
    int64_t id = 0;
    for (Operation &op : llvm::reverse(block)) {
      if (!isTensorLinalg(&op) || op.hasAttr(kGroupAttr) ||
          leadingParallelLoops(cast<linalg::LinalgOp>(op)) == 0)
        continue;
      formGroup(cast<linalg::LinalgOp>(op), id++, maxTempBytes);
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
          if (!group.contains(producer.getOwner()))
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
