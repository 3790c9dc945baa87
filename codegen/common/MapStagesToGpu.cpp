//===- MapStagesToGpu.cpp - Stages -> grid-stride GPU kernels --------------===//
//
// See Passes.td. The mapping is shared by every GPU target; what differs per
// vendor (NVVM or ROCDL, PTX or hsaco) happens after it, in codegen/nvidia
// and codegen/amd.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/ExpandDeviceMath.h"
#include "codegen/common/Passes.h"
#include "codegen/common/Stages.h"
#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessel {
#define GEN_PASS_DEF_MAPSTAGESTOGPUPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// The global id of this thread in a 1-D launch of blocks of blockSize.
Value globalId(OpBuilder &b, Location loc, int64_t blockSize) {
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value size = arith::ConstantIndexOp::create(b, loc, blockSize);
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, size), thread);
}

/// The trip count of each dim of `loop`, computed before it.
SmallVector<Value> tripCounts(OpBuilder &b, scf::ParallelOp loop) {
  SmallVector<Value> extents;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
    extents.push_back(arith::CeilDivSIOp::create(
        b, loop.getLoc(), arith::SubIOp::create(b, loop.getLoc(), ub, lb),
        step));
  return extents;
}

Value product(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value total = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value v : values)
    total = arith::MulIOp::create(b, loc, total, v);
  return total;
}

/// Clones the body of `loop` at `b`'s insertion point for its iteration of
/// linear index `id` (innermost dim fastest, as in the row-major loop nest).
/// The id and the trip counts are never negative, so the delinearization
/// divides unsigned: one rem.u32/div.u32 each, where the signed forms need
/// sign fix-ups (SPIR-V's OpSRem expansion: abs, umod, negate, select).
void cloneIteration(OpBuilder &b, scf::ParallelOp loop,
                    ArrayRef<Value> extents, Value id) {
  Location loc = loop.getLoc();
  IRMapping map;
  Value rest = id;
  for (int64_t d = extents.size() - 1; d >= 0; --d) {
    Value index =
        d == 0 ? rest : arith::RemUIOp::create(b, loc, rest, extents[d]);
    if (d > 0)
      rest = arith::DivUIOp::create(b, loc, rest, extents[d]);
    Value iv = arith::AddIOp::create(
        b, loc, loop.getLowerBound()[d],
        arith::MulIOp::create(b, loc, index, loop.getStep()[d]));
    map.map(loop.getInductionVars()[d], iv);
  }
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
}

/// Rewrites `loop` into `if (id < trip count)`, one iteration per thread.
void distribute(scf::ParallelOp loop, Value id) {
  OpBuilder b(loop);
  SmallVector<Value> extents = tripCounts(b, loop);
  Value inRange =
      arith::CmpIOp::create(b, loop.getLoc(), arith::CmpIPredicate::slt, id,
                            product(b, loop.getLoc(), extents));
  auto ifOp = scf::IfOp::create(b, loop.getLoc(), inRange);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  cloneIteration(b, loop, extents, id);
  loop.erase();
}

/// Rewrites `loop` into a block-stride loop: thread `tid` of a block of
/// blockSize runs iterations tid, tid + blockSize, ... of the loop.
void distributeInBlock(scf::ParallelOp loop, Value tid, int64_t blockSize) {
  OpBuilder b(loop);
  SmallVector<Value> extents = tripCounts(b, loop);
  auto strided = scf::ForOp::create(
      b, loop.getLoc(), tid, product(b, loop.getLoc(), extents),
      arith::ConstantIndexOp::create(b, loop.getLoc(), blockSize));
  b.setInsertionPoint(strided.getBody()->getTerminator());
  cloneIteration(b, loop, extents, strided.getInductionVar());
  loop.erase();
}

/// Moves `alloc` (a workgroup temporary) into workgroup memory of `kernel`.
LogicalResult toWorkgroupMemory(gpu::GPUFuncOp kernel, memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (!type.getLayout().isIdentity())
    return alloc.emitError("a workgroup temporary with a layout");
  // A partial tile is a view of a buffer of the full tile's size.
  SmallVector<int64_t> bound(type.getShape());
  unsigned dynamic = 0;
  for (int64_t &extent : bound) {
    if (!ShapedType::isDynamic(extent))
      continue;
    FailureOr<int64_t> ub = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, alloc.getDynamicSizes()[dynamic++],
        /*stopCondition=*/nullptr, /*closedUB=*/true);
    if (failed(ub))
      return alloc.emitError("a workgroup temporary of unbounded size");
    extent = *ub;
  }
  auto space = gpu::AddressSpaceAttr::get(kernel.getContext(),
                                          gpu::AddressSpace::Workgroup);
  // The attribution is flat, viewed in the tile's shape: a target whose
  // memory model has no multi-dimensional views (SPIR-V) indexes it as the
  // kernel arguments are indexed, and the others see the same addresses.
  int64_t elements = 1;
  for (int64_t extent : bound)
    elements *= extent;
  auto flat = MemRefType::get({elements}, type.getElementType(),
                              MemRefLayoutAttrInterface{}, space);
  Value buffer = kernel.addWorkgroupAttribution(flat, alloc.getLoc());
  OpBuilder b(alloc);
  auto shared = MemRefType::get(bound, type.getElementType(),
                                MemRefLayoutAttrInterface{}, space);
  if (bound.empty())
    buffer = memref::CollapseShapeOp::create(
        b, alloc.getLoc(), shared, buffer, ArrayRef<ReassociationIndices>{});
  else if (bound.size() > 1)
    buffer = memref::ExpandShapeOp::create(
        b, alloc.getLoc(), shared, buffer,
        ArrayRef<ReassociationIndices>{
            llvm::to_vector(llvm::seq<int64_t>(0, bound.size()))});
  if (!type.hasStaticShape()) {
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
    buffer = memref::SubViewOp::create(b, alloc.getLoc(), buffer, offsets,
                                       alloc.getMixedSizes(), strides);
  }
  // Loads and stores take any memory space; views are rebuilt in it.
  SmallVector<std::pair<Value, Value>> worklist{{alloc.getResult(), buffer}};
  while (!worklist.empty()) {
    auto [from, to] = worklist.pop_back_val();
    for (OpOperand &use : llvm::make_early_inc_range(from.getUses())) {
      Operation *user = use.getOwner();
      if (isa<memref::LoadOp, memref::StoreOp, memref::DimOp>(user)) {
        use.set(to);
        continue;
      }
      if (isa<memref::DeallocOp>(user)) {
        user->erase();
        continue;
      }
      auto view = dyn_cast<memref::SubViewOp>(user);
      if (!view)
        return user->emitError("cannot use workgroup memory here");
      OpBuilder b(view);
      auto newType = memref::SubViewOp::inferRankReducedResultType(
          view.getType().getShape(), cast<MemRefType>(to.getType()),
          view.getMixedOffsets(), view.getMixedSizes(),
          view.getMixedStrides());
      Value replacement = memref::SubViewOp::create(
          b, view.getLoc(), newType, to, view.getMixedOffsets(),
          view.getMixedSizes(), view.getMixedStrides());
      worklist.push_back({view.getResult(), replacement});
    }
  }
  SmallVector<Operation *> dead{alloc};
  for (unsigned i = 0; i < dead.size(); ++i)
    for (Operation *user : dead[i]->getUsers())
      dead.push_back(user);
  for (Operation *op : llvm::reverse(dead))
    if (op->use_empty())
      op->erase();
  return success();
}

/// Maps a stage that is a workgroup forall: its split dims onto the grid
/// (blockIdx x, y, z), its body onto the threads of a block: each parallel
/// loop block-stride, a barrier between them, anything else with side
/// effects on thread 0. Returns the launch's axes.
FailureOr<SmallVector<tessel::WorkgroupAxis>>
mapWorkgroupForall(gpu::GPUFuncOp kernel, scf::ForallOp forall,
                   int64_t blockSize) {
  OpBuilder b(forall);
  Location loc = forall.getLoc();
  const gpu::Dimension grid[] = {gpu::Dimension::x, gpu::Dimension::y,
                                 gpu::Dimension::z};
  SmallVector<tessel::WorkgroupAxis> axes;
  FailureOr<SmallVector<Value>> ivs = tessel::workgroupIteration(
      b, forall,
      [&](unsigned axis) -> Value {
        return gpu::BlockIdOp::create(b, loc, grid[axis]);
      },
      axes);
  if (failed(ivs))
    return failure();
  Block *body = forall.getBody();
  body->getTerminator()->erase();
  SmallVector<memref::AllocOp> allocs(body->getOps<memref::AllocOp>());
  for (memref::AllocOp alloc : allocs)
    if (failed(toWorkgroupMemory(kernel, alloc)))
      return failure();
  SmallVector<Operation *> ops;
  for (Operation &op : *body)
    ops.push_back(&op);
  Block *parent = forall->getBlock();
  parent->getOperations().splice(Block::iterator(forall),
                                 body->getOperations());
  for (auto [iv, value] : llvm::zip(forall.getInductionVars(), *ivs))
    iv.replaceAllUsesWith(value);
  forall.erase();

  Value tid = nullptr;
  for (Operation *op : ops) {
    if (isMemoryEffectFree(op) ||
        (op->getNumRegions() == 0 && isa<memref::SubViewOp>(op)))
      continue;
    b.setInsertionPoint(op);
    if (!tid) {
      b.setInsertionPointToStart(&kernel.getBody().front());
      tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
      b.setInsertionPoint(op);
    }
    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      b.setInsertionPointAfter(loop);
      gpu::BarrierOp::create(b, loc);
      distributeInBlock(loop, tid, blockSize);
      continue;
    }
    // One thread does what is not a parallel loop.
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
    auto ifOp = scf::IfOp::create(b, loc, first);
    op->moveBefore(ifOp.thenBlock()->getTerminator());
    b.setInsertionPointAfter(ifOp);
    gpu::BarrierOp::create(b, loc);
  }
  return axes;
}

struct MapStagesToGpuPass
    : tessel::impl::MapStagesToGpuPassBase<MapStagesToGpuPass> {
  using MapStagesToGpuPassBase::MapStagesToGpuPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    const int64_t blockSize = threads;
    if (blockSize < 1 || blockSize > 1024) {
      module.emitError("tessel-map-stages-to-gpu: threads must be in [1, 1024]");
      return signalPassFailure();
    }
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(b, module.getLoc(), "tessel_kernels");
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(ctx));

    SmallVector<func::FuncOp> stages;
    for (func::FuncOp f : module.getOps<func::FuncOp>())
      if (!f.isDeclaration())
        stages.push_back(f);
    for (func::FuncOp stage : stages) {
      b.setInsertionPointToEnd(gpuModule.getBody());
      auto kernel = gpu::GPUFuncOp::create(
          b, stage.getLoc(), stage.getSymName(), stage.getFunctionType());
      kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                      UnitAttr::get(ctx));
      // Which parameters may be one buffer (an in-place launch): the
      // targets must not declare them distinct.
      if (Attribute aliased = stage->getAttr(tessel::kAliasedArgsAttr))
        kernel->setAttr(tessel::kAliasedArgsAttr, aliased);
      kernel.setKnownBlockSizeAttr(
          DenseI32ArrayAttr::get(ctx, {int32_t(blockSize), 1, 1}));
      Block &body = kernel.getBody().front();
      IRMapping map;
      for (auto [from, to] :
           llvm::zip(stage.getArguments(), body.getArguments()))
        map.map(from, to);
      OpBuilder inner = OpBuilder::atBlockEnd(&body);
      SmallVector<Operation *> cloned;
      for (Operation &op : stage.getBody().front().without_terminator())
        cloned.push_back(inner.clone(op, map));
      Operation *ret = gpu::ReturnOp::create(inner, stage.getLoc());

      auto foralls = body.getOps<scf::ForallOp>();
      if (!foralls.empty()) {
        // A workgroup forall: blocks of the grid, threads of the block.
        FailureOr<SmallVector<tessel::WorkgroupAxis>> axes =
            mapWorkgroupForall(kernel, *foralls.begin(), blockSize);
        if (failed(axes))
          return signalPassFailure();
        tessel::setLaunchConfig(kernel, {blockSize, 1, 1}, *axes);
        stage.erase();
        continue;
      }
      // Otherwise one work item per thread of a 1-D grid: blocks of
      // blockSize threads along x, ceil(product of every work size /
      // blockSize) of them.
      auto workDims = stage->getAttrOfType<ArrayAttr>("tessel.work_dims");
      tessel::WorkgroupAxis x{blockSize, {}};
      for (int64_t d = 0, e = workDims ? workDims.size() : 0; d < e; ++d)
        x.dims.push_back(d);
      tessel::setLaunchConfig(kernel, {blockSize, 1, 1}, {x});
      inner.setInsertionPointToStart(&body);
      Value id = globalId(inner, stage.getLoc(), blockSize);

      SmallVector<scf::ParallelOp> loops;
      for (auto loop : body.getOps<scf::ParallelOp>())
        loops.push_back(loop);
      for (scf::ParallelOp loop : loops)
        distribute(loop, id);
      if (loops.empty() && !cloned.empty()) {
        // Nothing parallel: the first thread runs the stage.
        inner.setInsertionPoint(ret);
        Value zero = arith::ConstantIndexOp::create(inner, stage.getLoc(), 0);
        Value isFirst = arith::CmpIOp::create(
            inner, stage.getLoc(), arith::CmpIPredicate::eq, id, zero);
        auto ifOp = scf::IfOp::create(inner, stage.getLoc(), isFirst);
        for (Operation *op : cloned)
          op->moveBefore(ifOp.thenBlock()->getTerminator());
      }
      stage.erase();
    }

    // Kernels call no device library: expand math into arithmetic.
    RewritePatternSet patterns(ctx);
    tessel::populateDeviceMathExpansionPatterns(patterns);
    // (exp and log stay: each target maps them to its own instructions.)
    if (failed(applyPatternsGreedily(gpuModule, std::move(patterns))) ||
        failed(tessel::checkDeviceMathExpanded(gpuModule)))
      return signalPassFailure();
  }
};

} // namespace
