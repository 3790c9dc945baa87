//===- MemRefCopyToLinalg.cpp - Library calls as plain code ----------------===//
//
// Rewrites each memref.copy into a linalg.generic copy so that copies lower
// like any other loop nest on every target (no runtime-library call on the
// CPU, and valid inside GPU kernels); and bf16 conversions into integer ops
// (no compiler-rt builtin), and masked moves of bf16 vectors into moves of
// i16 lanes (the same reason).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessel {
#define GEN_PASS_DEF_MEMREFCOPYTOLINALGPASS
#define GEN_PASS_DEF_EXPANDBFLOAT16PASS
#define GEN_PASS_DEF_BFLOAT16MASKEDMEMORYPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {
struct CopyToGeneric : OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::CopyOp op,
                                PatternRewriter &rewriter) const override {
    linalg::makeMemRefCopyOp(rewriter, op.getLoc(), op.getSource(),
                             op.getTarget());
    rewriter.eraseOp(op);
    return success();
  }
};

struct MemRefCopyToLinalgPass
    : tessel::impl::MemRefCopyToLinalgPassBase<MemRefCopyToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CopyToGeneric>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
struct ExpandBFloat16Pass
    : tessel::impl::ExpandBFloat16PassBase<ExpandBFloat16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// `type` with i16 lanes when its lanes are bf16; null otherwise.
VectorType asI16Lanes(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isBF16())
    return nullptr;
  return vector.clone(IntegerType::get(type.getContext(), 16));
}

struct MaskedStoreAsI16 : OpRewritePattern<LLVM::MaskedStoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::MaskedStoreOp op,
                                PatternRewriter &rewriter) const override {
    VectorType lanes = asI16Lanes(op.getValue().getType());
    if (!lanes)
      return failure();
    Value bits =
        LLVM::BitcastOp::create(rewriter, op.getLoc(), lanes, op.getValue());
    rewriter.modifyOpInPlace(op, [&] { op.getValueMutable().assign(bits); });
    return success();
  }
};

struct MaskedLoadAsI16 : OpRewritePattern<LLVM::MaskedLoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::MaskedLoadOp op,
                                PatternRewriter &rewriter) const override {
    VectorType lanes = asI16Lanes(op.getType());
    if (!lanes)
      return failure();
    SmallVector<Value> passThru;
    for (OpOperand &v : op.getPassThruMutable())
      passThru.push_back(
          LLVM::BitcastOp::create(rewriter, op.getLoc(), lanes, v.get()));
    Operation *load = rewriter.clone(*op);
    cast<LLVM::MaskedLoadOp>(load).getPassThruMutable().assign(passThru);
    load->getResult(0).setType(lanes);
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(op, op.getType(),
                                                 load->getResult(0));
    return success();
  }
};

struct BFloat16MaskedMemoryPass
    : tessel::impl::BFloat16MaskedMemoryPassBase<BFloat16MaskedMemoryPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MaskedStoreAsI16, MaskedLoadAsI16>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
