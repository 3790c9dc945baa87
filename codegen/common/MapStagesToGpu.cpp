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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
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

/// Threads per block: the Kernel ABI's fixed launch shape.
constexpr int64_t kBlockSize = 256;

/// The global id of this thread in a 1-D launch of kBlockSize blocks.
Value globalId(OpBuilder &b, Location loc) {
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value size = arith::ConstantIndexOp::create(b, loc, kBlockSize);
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, size), thread);
}

/// Rewrites `loop` into `if (id < trip count)`, one iteration per thread.
void distribute(scf::ParallelOp loop, Value id) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> extents;
  Value total = arith::ConstantIndexOp::create(b, loc, 1);
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    Value n = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, ub, lb), step);
    extents.push_back(n);
    total = arith::MulIOp::create(b, loc, total, n);
  }
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, id, total);
  auto ifOp = scf::IfOp::create(b, loc, inRange);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  IRMapping map;
  Value rest = id;
  // Innermost dim varies fastest, as in the row-major loop nest.
  for (int64_t d = extents.size() - 1; d >= 0; --d) {
    Value index =
        d == 0 ? rest : arith::RemSIOp::create(b, loc, rest, extents[d]);
    if (d > 0)
      rest = arith::DivSIOp::create(b, loc, rest, extents[d]);
    Value iv = arith::AddIOp::create(
        b, loc, loop.getLowerBound()[d],
        arith::MulIOp::create(b, loc, index, loop.getStep()[d]));
    map.map(loop.getInductionVars()[d], iv);
  }
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, map);
  loop.erase();
}

struct MapStagesToGpuPass
    : tessel::impl::MapStagesToGpuPassBase<MapStagesToGpuPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
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
      kernel.setKnownBlockSizeAttr(
          DenseI32ArrayAttr::get(ctx, {int32_t(kBlockSize), 1, 1}));
      // The launch (LaunchConfig): blocks of kBlockSize threads along x,
      // ceil(product of every work size / kBlockSize) of them.
      auto workDims = stage->getAttrOfType<ArrayAttr>("tessel.work_dims");
      tessel::WorkgroupAxis x{kBlockSize, {}};
      for (int64_t d = 0, e = workDims ? workDims.size() : 0; d < e; ++d)
        x.dims.push_back(d);
      tessel::setLaunchConfig(kernel, {kBlockSize, 1, 1}, {x});
      Block &body = kernel.getBody().front();
      IRMapping map;
      for (auto [from, to] :
           llvm::zip(stage.getArguments(), body.getArguments()))
        map.map(from, to);
      OpBuilder inner = OpBuilder::atBlockEnd(&body);
      Value id = globalId(inner, stage.getLoc());
      SmallVector<Operation *> cloned;
      for (Operation &op : stage.getBody().front().without_terminator())
        cloned.push_back(inner.clone(op, map));
      Operation *ret = gpu::ReturnOp::create(inner, stage.getLoc());

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
    math::populateExpansionPatterns(patterns, {"tanh"});
    tessel::populateDeviceMathExpansionPatterns(patterns);
    // (exp and log stay: each target maps them to its own instructions.)
    if (failed(applyPatternsGreedily(gpuModule, std::move(patterns))) ||
        failed(tessel::checkDeviceMathExpanded(gpuModule)))
      return signalPassFailure();
  }
};

} // namespace
