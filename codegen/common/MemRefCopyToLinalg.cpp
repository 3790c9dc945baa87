//===- MemRefCopyToLinalg.cpp - Library calls as plain code ----------------===//
//
// Rewrites each memref.copy into a linalg.generic copy so that copies lower
// like any other loop nest on every target (no runtime-library call on the
// CPU, and valid inside GPU kernels); and bf16 conversions into integer ops
// (no compiler-rt builtin).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessel {
#define GEN_PASS_DEF_MEMREFCOPYTOLINALGPASS
#define GEN_PASS_DEF_EXPANDBFLOAT16PASS
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
} // namespace
