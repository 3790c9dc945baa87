//===- EpilogueTiles.cpp - Epilogues inside a contraction's tiles ---------===//
//
// See EpilogueTiles.h and tessel-tile-and-vectorize in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/EpilogueTiles.h"
#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

using namespace mlir;

namespace {

/// The buffer `v` views: through subviews, collapses, casts.
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// A stage's argument or one of its allocations.
bool isBufferRoot(Value root) {
  if (auto arg = dyn_cast<BlockArgument>(root))
    return isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
  return isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(
      root.getDefiningOp());
}

/// Whether stage argument `arg` shares its buffer with another one: a
/// result written in place over an argument (`tessel.aliased_args`).
bool mayShareBuffer(BlockArgument arg) {
  auto pairs = arg.getOwner()->getParentOp()->getAttrOfType<DenseI64ArrayAttr>(
      tessel::kAliasedArgsAttr);
  return pairs && llvm::is_contained(pairs.asArrayRef(),
                                     static_cast<int64_t>(arg.getArgNumber()));
}

/// Whether `a` and `b` are views of distinct buffers: distinct allocations
/// or stage arguments (a launch's buffers do not overlap, but for the
/// arguments `tessel.aliased_args` pairs).
bool distinctBuffers(Value a, Value b) {
  Value ra = rootOf(a), rb = rootOf(b);
  if (ra == rb || !isBufferRoot(ra) || !isBufferRoot(rb))
    return false;
  auto argA = dyn_cast<BlockArgument>(ra), argB = dyn_cast<BlockArgument>(rb);
  return !(argA && argB && mayShareBuffer(argA) && mayShareBuffer(argB));
}

/// Whether `op` may read and may write the buffer of `base` (ops inside
/// `op`'s regions included; an unknown effect may do both).
std::pair<bool, bool> accessesTo(Operation *op, Value base) {
  bool reads = false, writes = false;
  op->walk([&](Operation *inner) {
    if (reads && writes)
      return WalkResult::interrupt();
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!effects) {
      if (!inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        reads = writes = true;
      return WalkResult::advance();
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &effect : list) {
      Value value = effect.getValue();
      if (value && distinctBuffers(value, base))
        continue;
      if (isa<MemoryEffects::Read>(effect.getEffect()))
        reads = true;
      else if (isa<MemoryEffects::Write>(effect.getEffect()) || !value)
        writes = true;
    }
    return WalkResult::advance();
  });
  return {reads, writes};
}

bool isByteElements(Value v) {
  Type t = getElementTypeOrSelf(v);
  return t.isIntOrFloat() && t.getIntOrFloatBitWidth() >= 8;
}

/// An elementwise op that a register tile can take in: buffers, no
/// reduction, one output at the identity, vectorizable lane by lane.
bool isTileableElementwise(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() != 0 ||
      op.getNumDpsInits() != 1 ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      !op.getBody()->getOps<linalg::IndexOp>().empty() ||
      !llvm::all_of(op->getOperands(), isByteElements))
    return false;
  for (OpOperand *input : op.getDpsInputOperands())
    if (!op.getMatchingIndexingMap(input).isProjectedPermutation())
      return false;
  return !tessel::dividesIntegers(op);
}

/// The next (or previous) op of `op`'s block that is not free of memory
/// effects.
Operation *neighbour(Operation *op, bool forward) {
  for (Operation *o = forward ? op->getNextNode() : op->getPrevNode(); o;
       o = forward ? o->getNextNode() : o->getPrevNode())
    if (!isMemoryEffectFree(o))
      return o;
  return nullptr;
}

/// The subviews (unit strides, rank kept) that make `view` a slice of
/// `base`, innermost first; failure when it is not one.
FailureOr<SmallVector<memref::SubViewOp>> slicesTo(Value view, Value base) {
  SmallVector<memref::SubViewOp> chain;
  auto rank = cast<MemRefType>(view.getType()).getRank();
  while (!tessel::sameBuffer(view, base)) {
    auto sub = view.getDefiningOp<memref::SubViewOp>();
    if (!sub || sub.getSourceType().getRank() != rank ||
        !llvm::all_of(sub.getStaticStrides(),
                      [](int64_t s) { return s == 1; }))
      return failure();
    chain.push_back(sub);
    view = sub.getSource();
  }
  return chain;
}

/// The offsets in its base of the view that `slices` (see slicesTo) make,
/// created at the rewriter's insertion point.
SmallVector<OpFoldResult> offsetsOf(RewriterBase &rewriter, Location loc,
                                    ArrayRef<memref::SubViewOp> slices,
                                    int64_t rank) {
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
  AffineExpr s0, s1;
  bindSymbols(rewriter.getContext(), s0, s1);
  for (memref::SubViewOp sub : slices)
    for (auto [i, offset] : llvm::enumerate(sub.getMixedOffsets()))
      offsets[i] = affine::makeComposedFoldedAffineApply(rewriter, loc, s0 + s1,
                                                         {offsets[i], offset});
  return offsets;
}

/// The view of `op`'s operand `operand` replaced by `view` when the types
/// agree (the tile's own view: its stores and the epilogue's loads then
/// share it, see forwardTileWrites).
void useView(linalg::GenericOp op, OpOperand &operand, Value view) {
  if (operand.get().getType() == view.getType())
    operand.set(view);
}

} // namespace

Value tessel::EpilogueChain::source() const {
  if (linalg::GenericOp first = init)
    return first.getDpsInitOperand(0)->get();
  linalg::GenericOp first = epilogues.front();
  return reads.front() < 0 ? first.getDpsInitOperand(0)->get()
                           : first.getDpsInputOperand(reads.front())->get();
}

SmallVector<Operation *> tessel::EpilogueChain::ops() const {
  SmallVector<Operation *> list;
  if (linalg::GenericOp first = init)
    list.push_back(first);
  for (linalg::GenericOp op : epilogues)
    list.push_back(op);
  return list;
}

tessel::EpilogueChain
tessel::EpilogueChain::restrictedTo(ArrayRef<Operation *> allowed) const {
  EpilogueChain chain = *this;
  if (chain.init && !llvm::is_contained(allowed, chain.init.getOperation()))
    chain.init = nullptr;
  for (auto [i, op] : llvm::enumerate(chain.epilogues))
    if (!llvm::is_contained(allowed, op.getOperation())) {
      chain.epilogues.truncate(i);
      chain.reads.truncate(i);
      break;
    }
  return chain;
}

void tessel::generalizeInitFills(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<linalg::FillOp> fills;
  for (auto fill : func.getBody().front().getOps<linalg::FillOp>()) {
    auto contraction =
        dyn_cast_or_null<linalg::LinalgOp>(neighbour(fill, /*forward=*/true));
    if (fill.hasPureBufferSemantics() && contraction &&
        contraction.hasPureBufferSemantics() &&
        contraction.getNumDpsInits() == 1 &&
        contraction.getNumReductionLoops() != 0 &&
        sameBuffer(contraction.getDpsInitOperand(0)->get(),
                   fill.getDpsInitOperand(0)->get()))
      fills.push_back(fill);
  }
  for (linalg::FillOp fill : fills) {
    rewriter.setInsertionPoint(fill);
    (void)linalg::generalizeNamedOp(rewriter, fill);
  }
}

bool tessel::sameBuffer(Value a, Value b) {
  if (a == b)
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!x || !y || !isa<ViewLikeOpInterface>(x) || !isMemoryEffectFree(x))
    return false;
  return OperationEquivalence::isEquivalentTo(
      x, y, OperationEquivalence::exactValueMatch,
      /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

tessel::EpilogueChain tessel::findEpilogueChain(linalg::LinalgOp op) {
  EpilogueChain chain;
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0)
    return chain;
  Value out = op.getDpsInitOperand(0)->get();
  // Buffers the chain writes: no other operand of it may share one.
  SmallVector<Value> written = {out};
  auto touchesWritten = [&](Value v) {
    return isa<MemRefType>(v.getType()) &&
           llvm::any_of(written,
                        [&](Value w) { return !distinctBuffers(v, w); });
  };

  Operation *before = neighbour(op, /*forward=*/false);
  if (auto init = dyn_cast_or_null<linalg::GenericOp>(before);
      init && isTileableElementwise(init) &&
      sameBuffer(init.getDpsInitOperand(0)->get(), out) &&
      init.getMatchingBlockArgument(init.getDpsInitOperand(0)).use_empty() &&
      llvm::none_of(init.getDpsInputOperands(), [&](OpOperand *in) {
        return touchesWritten(in->get());
      }))
    chain.init = init;

  // How `generic` takes the tile: -1 updating it in place, else the input
  // that reads it at the identity; nothing when it does neither, or some
  // other operand may share a buffer the chain writes.
  auto takes = [&](linalg::GenericOp generic,
                   Value tile) -> std::optional<int> {
    Value dest = generic.getDpsInitOperand(0)->get();
    std::optional<int> reads;
    if (sameBuffer(dest, tile))
      reads = -1;
    for (OpOperand *in : generic.getDpsInputOperands()) {
      Value v = in->get();
      if (!reads && sameBuffer(v, tile) &&
          generic.getMatchingIndexingMap(in).isIdentity()) {
        reads = in->getOperandNumber();
        continue;
      }
      if (touchesWritten(v) ||
          (isa<MemRefType>(v.getType()) && !distinctBuffers(v, dest)))
        return std::nullopt;
    }
    if (reads && *reads >= 0 && touchesWritten(dest))
      return std::nullopt;
    return reads;
  };
  Value tile = out;
  for (Operation *next = neighbour(op, /*forward=*/true); next;
       next = neighbour(next, /*forward=*/true)) {
    auto generic = dyn_cast<linalg::GenericOp>(next);
    if (!generic || !isTileableElementwise(generic) ||
        generic.getNumLoops() != cast<MemRefType>(tile.getType()).getRank())
      break;
    std::optional<int> reads = takes(generic, tile);
    if (!reads)
      break;
    chain.epilogues.push_back(generic);
    chain.reads.push_back(*reads);
    if (*reads >= 0) {
      tile = generic.getDpsInitOperand(0)->get();
      written.push_back(tile);
    }
  }
  return chain;
}

/// Moves the pure op defining `value` (and what it uses) before `anchor`
/// when it is after it in its block; false when it cannot.
static bool defineBefore(Value value, Operation *anchor) {
  // Block arguments and ops of enclosing blocks dominate `anchor`.
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != anchor->getBlock() ||
      def->isBeforeInBlock(anchor))
    return true;
  if (!isPure(def) || def->getNumRegions() != 0)
    return false;
  for (Value operand : def->getOperands())
    if (!defineBefore(operand, anchor))
      return false;
  def->moveBefore(anchor);
  return true;
}

tessel::EpilogueChain tessel::hoistChainOperands(EpilogueChain chain,
                                                 Operation *contraction) {
  for (auto [i, epilogue] : llvm::enumerate(chain.epilogues))
    if (!llvm::all_of(epilogue->getOperands(), [&](Value v) {
          return defineBefore(v, contraction);
        })) {
      chain.epilogues.truncate(i);
      chain.reads.truncate(i);
      break;
    }
  return chain;
}

FailureOr<bool> tessel::fuseEpilogueTiles(
    RewriterBase &rewriter, func::FuncOp func, const EpilogueChain &chain,
    ArrayRef<unsigned> outLoops, ArrayRef<TileGroup> groups,
    function_ref<void(linalg::GenericOp, const RegisterTile &)> vectorize) {
  // Each tile's output view out of its reduction loops, duplicates merged.
  func.walk([](scf::ForOp loop) {
    (void)moveLoopInvariantCode(
        cast<LoopLikeOpInterface>(loop.getOperation()));
  });
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, func);

  // The tiles that write one view (a reduction peeled in two: both loops).
  struct Slice {
    Value view;
    const RegisterTile *tile;
    SmallVector<Operation *> reductions; ///< in the view's block
    SmallVector<memref::SubViewOp> slices; ///< the view in the chain's buffer
  };
  SmallVector<Slice> slices;
  Value source = chain.source();
  for (const TileGroup &group : groups) {
    SmallVector<linalg::GenericOp> tiles;
    func.walk([&](linalg::GenericOp t) {
      if (t->hasAttr(group.marker))
        tiles.push_back(t);
    });
    for (linalg::GenericOp t : tiles) {
      Value view = t.getDpsInitOperand(0)->get();
      Operation *reduction = view.getParentBlock()->findAncestorOpInBlock(*t);
      FailureOr<SmallVector<memref::SubViewOp>> chainTo =
          slicesTo(view, source);
      if (!reduction || failed(chainTo))
        return false;
      auto known = llvm::find_if(
          slices, [&](const Slice &s) { return s.view == view; });
      if (known == slices.end()) {
        slices.push_back({view, &group.tile, {}, *chainTo});
        known = std::prev(slices.end());
      }
      if (known->tile != &group.tile)
        return false;
      known->reductions.push_back(reduction);
    }
  }
  if (slices.empty())
    return false;
  // Nothing but the tile's reductions may write the view between them.
  for (Slice &slice : slices) {
    llvm::sort(slice.reductions, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (Operation *o = slice.reductions.front();
         o != slice.reductions.back(); o = o->getNextNode())
      if (!llvm::is_contained(slice.reductions, o) && !isMemoryEffectFree(o))
        return false;
  }

  auto sliceOf = [&](linalg::GenericOp op, ArrayRef<OpFoldResult> offsets,
                     ArrayRef<OpFoldResult> sizes)
      -> FailureOr<linalg::GenericOp> {
    FailureOr<TilingResult> tiled =
        cast<TilingInterface>(op.getOperation())
            .getTiledImplementation(rewriter, offsets, sizes);
    if (failed(tiled) || tiled->tiledOps.size() != 1)
      return op.emitError("cannot slice into register tiles");
    return cast<linalg::GenericOp>(tiled->tiledOps.front());
  };
  for (Slice &slice : slices) {
    Operation *first = slice.reductions.front();
    rewriter.setInsertionPoint(first);
    int64_t rank = cast<MemRefType>(slice.view.getType()).getRank();
    SmallVector<OpFoldResult> offsets =
        offsetsOf(rewriter, first->getLoc(), slice.slices, rank);
    SmallVector<OpFoldResult> sizes =
        memref::getMixedSizes(rewriter, first->getLoc(), slice.view);
    // The tile of the chain's ops: the contraction's, by output dim.
    const RegisterTile &tile = *slice.tile;
    RegisterTile ewTile;
    for (auto [dim, loop] : llvm::enumerate(outLoops)) {
      ewTile.sizes.push_back(tile.sizes[loop]);
      if (loop == tile.n)
        ewTile.n = dim;
      if (tile.m && loop == *tile.m)
        ewTile.m = dim;
    }
    SmallVector<linalg::GenericOp> created;
    if (chain.init) {
      FailureOr<linalg::GenericOp> init = sliceOf(chain.init, offsets, sizes);
      if (failed(init))
        return failure();
      useView(*init, *init->getDpsInitOperand(0), slice.view);
      created.push_back(*init);
    }
    // The epilogues take the tile's own view until one writes elsewhere.
    bool onView = true;
    rewriter.setInsertionPointAfter(slice.reductions.back());
    for (auto [epilogue, reads] : llvm::zip(chain.epilogues, chain.reads)) {
      FailureOr<linalg::GenericOp> tiled = sliceOf(epilogue, offsets, sizes);
      if (failed(tiled))
        return failure();
      if (onView)
        useView(*tiled,
                reads < 0 ? *tiled->getDpsInitOperand(0)
                          : tiled->getOperation()->getOpOperand(reads),
                slice.view);
      onView = onView && reads < 0;
      rewriter.setInsertionPointAfter(*tiled);
      created.push_back(*tiled);
    }
    for (linalg::GenericOp op : created)
      vectorize(op, ewTile);
  }
  if (chain.init)
    rewriter.eraseOp(chain.init);
  for (linalg::GenericOp epilogue : chain.epilogues)
    rewriter.eraseOp(epilogue);
  return true;
}

namespace {

bool allInBounds(VectorTransferOpInterface op) {
  return !op.hasOutOfBoundsDim();
}

/// Whether transfers `a` and `b` touch the same lanes at the same places.
bool sameFootprint(VectorTransferOpInterface a, VectorTransferOpInterface b) {
  return a.getBase() == b.getBase() && a.getIndices() == b.getIndices() &&
         a.getVectorType() == b.getVectorType() &&
         a.getPermutationMap() == b.getPermutationMap() &&
         a.getMask() == b.getMask() && allInBounds(a) && allInBounds(b);
}

/// Whether the lanes of `read` off its mask may take other values: they are
/// poison, or reach nothing but elementwise ops of its shape, loop-carried
/// values, and writes under the same mask.
bool offMaskLanesUnused(vector::TransferReadOp read) {
  Value mask = read.getMask();
  // Poison padding may become any value (a vectorized tile's reads).
  if (!mask || read.getPadding().getDefiningOp<ub::PoisonOp>())
    return true;
  SmallVector<Value> work = {read.getResult()};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto write = dyn_cast<vector::TransferWriteOp>(user)) {
        if (&use != &write.getValueToStoreMutable() ||
            write.getMask() != mask)
          return false;
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(user)) {
        OpResult result = loop.getTiedLoopResult(&use);
        if (!result)
          return false;
        work.push_back(result);
        work.push_back(loop.getTiedLoopRegionIterArg(&use));
        continue;
      }
      if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        auto loop = dyn_cast<scf::ForOp>(yield->getParentOp());
        if (!loop)
          return false;
        work.push_back(loop.getResult(use.getOperandNumber()));
        work.push_back(loop.getRegionIterArg(use.getOperandNumber()));
        continue;
      }
      if (!(user->hasTrait<OpTrait::Elementwise>() ||
            isa<vector::FMAOp>(user)) ||
          user->getNumResults() != 1 ||
          !llvm::all_of(user->getOperandTypes(), [&](Type t) {
            auto v = dyn_cast<VectorType>(t);
            return !v || v.getShape() == read.getVectorType().getShape();
          }) ||
          cast<VectorType>(user->getResult(0).getType()).getShape() !=
              read.getVectorType().getShape())
        return false;
      work.push_back(user->getResult(0));
    }
  }
  return true;
}

} // namespace

void tessel::forwardTileWrites(RewriterBase &rewriter, func::FuncOp func) {
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, func);
  SmallVector<vector::TransferWriteOp> writes;
  func.walk([&](vector::TransferWriteOp w) { writes.push_back(w); });
  // Forward each write to the reads of exactly its lanes after it.
  for (vector::TransferWriteOp write : writes) {
    if (!isa<MemRefType>(write.getBase().getType()))
      continue;
    auto w = cast<VectorTransferOpInterface>(write.getOperation());
    Operation *next = nullptr;
    for (Operation *op = write->getNextNode(); op; op = next) {
      next = op->getNextNode();
      if (auto read = dyn_cast<vector::TransferReadOp>(op);
          read && sameFootprint(w, read) && offMaskLanesUnused(read)) {
        rewriter.replaceOp(read, write.getVector());
        continue;
      }
      if (accessesTo(op, write.getBase()).second)
        break;
    }
  }
  // Drop each write that an identical one overwrites before any read.
  for (vector::TransferWriteOp write : writes) {
    if (!isa<MemRefType>(write.getBase().getType()))
      continue;
    auto w = cast<VectorTransferOpInterface>(write.getOperation());
    for (Operation *op = write->getNextNode(); op; op = op->getNextNode()) {
      if (auto later = dyn_cast<vector::TransferWriteOp>(op);
          later && sameFootprint(w, later)) {
        rewriter.eraseOp(write);
        break;
      }
      auto [reads, writesTo] = accessesTo(op, write.getBase());
      if (reads || writesTo)
        break;
    }
  }
  memref::eraseDeadAllocAndStores(rewriter, func);
}
