//===- MapWorkgroups.cpp - A stage's forall over the CPU's workgroups -----===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Stages.h"
#include "codegen/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace tessel {
#define GEN_PASS_DEF_CPUMAPWORKGROUPSPASS
#include "codegen/cpu/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// Grid axes: x, y, z.
constexpr unsigned kAxes = 3;

struct CpuMapWorkgroupsPass
    : tessel::impl::CpuMapWorkgroupsPassBase<CpuMapWorkgroupsPass> {
  LogicalResult mapForall(scf::ForallOp forall, unsigned firstId,
                          SmallVector<tessel::WorkgroupAxis> &axes) {
    func::FuncOp func = getOperation();
    Block &entry = func.getBody().front();
    IRRewriter rewriter(forall.getContext());
    rewriter.setInsertionPoint(forall);
    FailureOr<SmallVector<Value>> ivs = tessel::workgroupIteration(
        rewriter, forall,
        [&](unsigned axis) { return entry.getArgument(firstId + axis); }, axes);
    if (failed(ivs))
      return failure();
    if (forall.getNumResults() != 0)
      return forall.emitError("a workgroup forall on tensors after "
                              "bufferization");
    Block *body = forall.getBody();
    rewriter.eraseOp(body->getTerminator());
    rewriter.inlineBlockBefore(body, forall, *ivs);
    rewriter.eraseOp(forall);
    return success();
  }

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
    SmallVector<scf::ForallOp> foralls(entry.getOps<scf::ForallOp>());
    SmallVector<tessel::WorkgroupAxis> axes;
    if (foralls.size() > 1) {
      func.emitError("a stage of several workgroup foralls");
      return signalPassFailure();
    }
    if (!foralls.empty() && failed(mapForall(foralls.front(), first, axes)))
      return signalPassFailure();
    // The workgroup's temporaries: stack buffers of the worker.
    SmallVector<memref::AllocOp> allocs;
    func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    IRRewriter rewriter(ctx);
    for (memref::AllocOp alloc : allocs) {
      if (alloc->getBlock() != &entry) {
        alloc.emitError("a workgroup temporary inside a loop");
        return signalPassFailure();
      }
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          rewriter.eraseOp(user);
      // In place: a partial tile's size is known only there.
      rewriter.setInsertionPoint(alloc);
      rewriter.replaceOpWithNewOp<memref::AllocaOp>(
          alloc, alloc.getType(), alloc.getDynamicSizes(),
          alloc.getAlignmentAttr());
    }
    tessel::setLaunchConfig(func, {1, 1, 1}, axes);
  }
};

} // namespace
