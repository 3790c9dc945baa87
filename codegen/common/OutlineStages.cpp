//===- OutlineStages.cpp - Kernels -> stages with workspace arguments -----===//
//
// See Passes.td. After this pass every function of the module is one stage:
// a single loop nest (or copy) over memref arguments, with no allocation,
// which every target can map directly (a CPU call, one GPU launch).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"
#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace tessel {
#define GEN_PASS_DEF_OUTLINESTAGESPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// Rewrites each dim of a collapsed view along an uncollapsed dim (a
/// grouped Conv's [N, G, F/G, ...] result seen as [N, F, ...]) into the
/// same dim of the view's source, so that sizes read through such views
/// still name a kernel argument's dim (memref.dim of an expand_shape
/// resolves to its output shape earlier, in the stage pipeline).
void resolveDimsOfCollapsedViews(func::FuncOp func) {
  func.walk([](memref::DimOp dim) {
    auto view = dim.getSource().getDefiningOp<memref::CollapseShapeOp>();
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!view || !index)
      return;
    ReassociationIndices group = view.getReassociationIndices()[*index];
    if (group.size() != 1)
      return;
    OpBuilder b(dim);
    dim.replaceAllUsesWith(
        memref::DimOp::create(b, dim.getLoc(), view.getSrc(), group.front())
            .getResult());
    dim.erase();
  });
}

/// Replaces each top-level alloc of `func` by a new trailing argument and
/// records, per dynamic dim, the (argument, dim) it equals.
LogicalResult hoistAllocations(func::FuncOp func) {
  Block &entry = func.getBody().front();
  SmallVector<memref::AllocOp> allocs;
  WalkResult nested = func.walk([&](memref::AllocOp alloc) {
    // A workgroup's temporary (tessel-tile-and-fuse-workgroups) stays: the
    // target decides where it lives.
    if (alloc->getParentOfType<scf::ForallOp>())
      return WalkResult::advance();
    if (alloc->getBlock() != &entry)
      return WalkResult::interrupt();
    allocs.push_back(alloc);
    return WalkResult::advance();
  });
  if (nested.wasInterrupted())
    return func.emitError("an allocation inside a loop cannot become a "
                          "workspace");
  Builder b(func.getContext());
  SmallVector<Attribute> workspaces;
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    SmallVector<Attribute> dims;
    unsigned dynamicIndex = 0;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        dims.push_back(b.getDenseI64ArrayAttr({-1, -1}));
        continue;
      }
      Value size = alloc.getDynamicSizes()[dynamicIndex++];
      auto dim = size.getDefiningOp<memref::DimOp>();
      std::optional<int64_t> index =
          dim ? dim.getConstantIndex() : std::nullopt;
      auto arg = dim ? dyn_cast<BlockArgument>(dim.getSource()) : nullptr;
      if (!index || !arg || arg.getOwner() != &entry)
        return alloc.emitError("workspace dim ")
               << d << " is not a dim of a kernel argument";
      dims.push_back(b.getDenseI64ArrayAttr(
          {static_cast<int64_t>(arg.getArgNumber()), *index}));
    }
    workspaces.push_back(b.getArrayAttr(dims));
    auto plain = MemRefType::get(type.getShape(), type.getElementType());
    if (failed(func.insertArgument(func.getNumArguments(), plain, {},
                                   alloc.getLoc())))
      return failure();
    Value arg = entry.getArguments().back();
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.replaceAllUsesWith(arg);
    alloc.erase();
  }
  func->setAttr("tessel.workspace_dims", b.getArrayAttr(workspaces));
  return success();
}

/// The arguments of `func` that some op writes (the kernel's results and
/// workspaces); the others are read-only inputs.
llvm::SmallPtrSet<Value, 8> writtenArguments(func::FuncOp func) {
  llvm::SmallPtrSet<Value, 8> written;
  func.walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      // An op without the interface may write any operand.
      for (Value v : op->getOperands())
        written.insert(v);
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (const MemoryEffects::EffectInstance &e : list)
      if (isa<MemoryEffects::Write>(e.getEffect()) && e.getValue())
        written.insert(e.getValue());
  });
  return written;
}

/// Whether `op` is a stage of its own: it (or its body) touches memory.
/// A scalar load from a read-only argument is not (a Slice's bound read in
/// the kernel): every stage that uses it loads it again.
bool isStage(Operation &op, const llvm::SmallPtrSet<Value, 8> &written) {
  if (op.hasTrait<OpTrait::IsTerminator>())
    return false;
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return !isa<BlockArgument>(load.getMemRef()) ||
           written.contains(load.getMemRef());
  return !isMemoryEffectFree(&op) || op.getNumRegions() > 0;
}

/// Splits `func` into one function per stage op.
LogicalResult splitStages(func::FuncOp func) {
  Block &entry = func.getBody().front();
  llvm::SmallPtrSet<Value, 8> written = writtenArguments(func);
  auto isStage = [&](Operation &op) { return ::isStage(op, written); };
  // Stage ops in order, one stage each.
  SmallVector<SmallVector<Operation *>> stages;
  for (Operation &op : entry)
    if (isStage(op))
      stages.push_back({&op});
  OpBuilder b(func);
  b.setInsertionPointAfter(func);
  for (auto [n, group] : llvm::enumerate(stages)) {
    auto outlined = func::FuncOp::create(
        b, func.getLoc(), (func.getSymName() + "_s" + Twine(n)).str(),
        func.getFunctionType());
    outlined->setAttr("tessel.kernel_of", b.getStringAttr(func.getSymName()));
    outlined->setAttr("tessel.workspace_dims",
                      func->getAttr("tessel.workspace_dims"));
    // A stage has the kernel's parameters, so the kernel's aliasing holds.
    if (Attribute aliased = func->getAttr(tessel::kAliasedArgsAttr))
      outlined->setAttr(tessel::kAliasedArgsAttr, aliased);
    Block *body = outlined.addEntryBlock();
    IRMapping map;
    for (auto [from, to] :
         llvm::zip(entry.getArguments(), body->getArguments()))
      map.map(from, to);
    // The pure top-level ops the stage uses, in their original order.
    llvm::SetVector<Operation *> needed;
    SmallVector<Value> worklist;
    for (Operation *stage : group)
      stage->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          worklist.push_back(v);
      });
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val().getDefiningOp();
      if (!def || def->getBlock() != &entry || needed.contains(def))
        continue;
      if (isStage(*def))
        return group.front()->emitError(
            "a stage uses a value another stage defines");
      needed.insert(def);
      llvm::append_range(worklist, def->getOperands());
    }
    OpBuilder inner = OpBuilder::atBlockEnd(body);
    for (Operation &op : entry)
      if (needed.contains(&op))
        inner.clone(op, map);
    for (Operation *stage : group)
      inner.clone(*stage, map);
    func::ReturnOp::create(inner, func.getLoc());
    b.setInsertionPointAfter(outlined);
  }
  func.erase();
  return success();
}

/// `size` as (argument, dim) when it is a dim of a kernel argument.
FailureOr<std::pair<int64_t, int64_t>> argumentDimOf(Value size) {
  auto dim = size.getDefiningOp<memref::DimOp>();
  std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
  auto arg = dim ? dyn_cast<BlockArgument>(dim.getSource()) : nullptr;
  if (!index || !arg)
    return failure();
  return std::pair<int64_t, int64_t>{arg.getArgNumber(), *index};
}

/// The extent of a dim from 0 to `ub` as (argument, dim) or (-1, constant).
FailureOr<std::pair<int64_t, int64_t>> boundOf(OpFoldResult lb,
                                               OpFoldResult ub) {
  std::optional<int64_t> l = getConstantIntValue(lb);
  if (!l || *l != 0)
    return failure();
  if (std::optional<int64_t> c = getConstantIntValue(ub))
    return std::pair<int64_t, int64_t>{-1, *c};
  return argumentDimOf(cast<Value>(ub));
}

/// The extent of one parallel dim as (argument, dim) or (-1, constant).
FailureOr<std::pair<int64_t, int64_t>> extentOf(Value lb, Value ub,
                                                Value step) {
  std::optional<int64_t> s = getConstantIntValue(step);
  if (!s || *s != 1)
    return failure();
  return boundOf(lb, ub);
}

/// The extent of `value` (a memref) in dim `d` as (argument, dim) or
/// (-1, constant), looking through subviews of arguments.
FailureOr<std::pair<int64_t, int64_t>> memrefExtentOf(Value value, int64_t d) {
  auto type = cast<MemRefType>(value.getType());
  if (!type.isDynamicDim(d))
    return std::pair<int64_t, int64_t>{-1, type.getDimSize(d)};
  if (auto arg = dyn_cast<BlockArgument>(value))
    return std::pair<int64_t, int64_t>{arg.getArgNumber(), d};
  auto view = value.getDefiningOp<memref::SubViewOp>();
  if (!view || view.getSourceType().getRank() != type.getRank())
    return failure();
  OpFoldResult size = view.getMixedSizes()[d];
  if (std::optional<int64_t> c = getConstantIntValue(size))
    return std::pair<int64_t, int64_t>{-1, *c};
  auto dim = dyn_cast<Value>(size).getDefiningOp<memref::DimOp>();
  std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
  if (!index)
    return failure();
  return memrefExtentOf(dim.getSource(), *index);
}

/// The extent of loop `loop` of `op` as (argument, dim) or (-1, constant):
/// an operand dim its indexing maps equate with the loop, which is what
/// bounds the loop when a target lowers the op to loops.
FailureOr<std::pair<int64_t, int64_t>> linalgExtentOf(linalg::LinalgOp op,
                                                      unsigned loop) {
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || dim.getPosition() != loop)
        continue;
      FailureOr<std::pair<int64_t, int64_t>> e =
          memrefExtentOf(operand.get(), d);
      if (succeeded(e))
        return e;
    }
  }
  return failure();
}

/// Records on each stage `tessel.work_dims`: the extents of its top-level
/// parallel loop, whose product is the number of independent work items.
/// A linalg stage's parallel loop is the one its leading parallel iterators
/// become when a target lowers it to loops.
LogicalResult recordWork(func::FuncOp stage) {
  Builder b(stage.getContext());
  SmallVector<Attribute> dims;
  Block &entry = stage.getBody().front();
  auto loops = entry.getOps<scf::ParallelOp>();
  auto linalgOps = entry.getOps<linalg::LinalgOp>();
  auto foralls = entry.getOps<scf::ForallOp>();
  if (!foralls.empty()) {
    // A workgroup forall: its dims, whole or split, are the work dims.
    scf::ForallOp forall = *foralls.begin();
    for (auto [lb, ub] : llvm::zip(forall.getMixedLowerBound(),
                                   forall.getMixedUpperBound())) {
      FailureOr<std::pair<int64_t, int64_t>> e = boundOf(lb, ub);
      if (failed(e))
        return forall.emitError("a workgroup dim is not a constant or an "
                                "argument dim");
      dims.push_back(b.getDenseI64ArrayAttr({e->first, e->second}));
    }
  } else if (!loops.empty()) {
    scf::ParallelOp loop = *loops.begin();
    for (auto [lb, ub, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      FailureOr<std::pair<int64_t, int64_t>> e = extentOf(lb, ub, step);
      if (failed(e))
        return loop.emitError("a parallel loop extent is not a constant or an "
                              "argument dim");
      dims.push_back(b.getDenseI64ArrayAttr({e->first, e->second}));
    }
  } else if (!linalgOps.empty()) {
    linalg::LinalgOp op = *linalgOps.begin();
    for (auto [loop, kind] : llvm::enumerate(op.getIteratorTypesArray())) {
      if (kind != utils::IteratorType::parallel)
        break;
      FailureOr<std::pair<int64_t, int64_t>> e = linalgExtentOf(op, loop);
      if (failed(e))
        return op.emitError("loop ")
               << loop << " is not a constant or an argument dim";
      dims.push_back(b.getDenseI64ArrayAttr({e->first, e->second}));
    }
  }
  stage->setAttr("tessel.work_dims", b.getArrayAttr(dims));
  return success();
}

struct OutlineStagesPass
    : tessel::impl::OutlineStagesPassBase<OutlineStagesPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> kernels(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : kernels) {
      if (func.isDeclaration() || func->hasAttr("tessel.kernel_of"))
        continue;
      resolveDimsOfCollapsedViews(func);
      if (failed(hoistAllocations(func)) || failed(splitStages(func)))
        return signalPassFailure();
    }
    for (func::FuncOp stage : getOperation().getOps<func::FuncOp>())
      if (!stage.isDeclaration() && failed(recordWork(stage)))
        return signalPassFailure();
  }
};

} // namespace
