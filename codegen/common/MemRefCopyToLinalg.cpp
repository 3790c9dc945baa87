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
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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
/// `type` with i16 lanes when its lanes are bf16; null otherwise.
VectorType asI16Lanes(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isBF16())
    return nullptr;
  return vector.clone(IntegerType::get(type.getContext(), 16));
}

/// A broadcast of a bf16 scalar moves its bits: an i16 broadcast. (LLVM's
/// x86 backend below AVX512-BF16 builds a bfloat vector lane by lane
/// through f32 and __truncsfbf2; the extf that usually follows expands to
/// integer ops on the same bits, and the two bitcasts fold.)
struct BroadcastBFloat16AsI16 : OpRewritePattern<vector::BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    VectorType lanes = asI16Lanes(op.getType());
    Type source = op.getSource().getType();
    if (!lanes || !source.isBF16())
      return failure();
    Location loc = op.getLoc();
    Value bits = arith::BitcastOp::create(
        rewriter, loc, rewriter.getIntegerType(16), op.getSource());
    Value wide = vector::BroadcastOp::create(rewriter, loc, lanes, bits);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), wide);
    return success();
  }
};

/// A select of bf16 values moves bits: an i16 select. (With bf16
/// arithmetic emulated in f32 and its conversions expanded to integer
/// ops, a select is what is left of a Relu or Max in bf16; the SPIR-V
/// conversion has no bf16 to select.)
struct SelectBFloat16AsI16 : OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    Type bits;
    if (type.isBF16())
      bits = rewriter.getIntegerType(16);
    else if (VectorType lanes = asI16Lanes(type))
      bits = lanes;
    else
      return failure();
    Location loc = op.getLoc();
    Value t = arith::BitcastOp::create(rewriter, loc, bits, op.getTrueValue());
    Value f = arith::BitcastOp::create(rewriter, loc, bits, op.getFalseValue());
    Value selected =
        arith::SelectOp::create(rewriter, loc, op.getCondition(), t, f);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, selected);
    return success();
  }
};

struct ExpandBFloat16Pass
    : tessel::impl::ExpandBFloat16PassBase<ExpandBFloat16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    patterns.add<BroadcastBFloat16AsI16, SelectBFloat16AsI16>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

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

/// `v` as the same bits in `type` (a no-op when it already is).
Value bitsAs(PatternRewriter &rewriter, Location loc, Type type, Value v) {
  return v.getType() == type
             ? v
             : LLVM::BitcastOp::create(rewriter, loc, type, v).getResult();
}

/// Lane moves of bf16 vectors (insertelement, extractelement,
/// shufflevector: what broadcasts and unrolled transfers become) move i16
/// lanes, for the reason of the masked moves above.
struct InsertElementAsI16 : OpRewritePattern<LLVM::InsertElementOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::InsertElementOp op,
                                PatternRewriter &rewriter) const override {
    VectorType lanes = asI16Lanes(op.getType());
    if (!lanes)
      return failure();
    Location loc = op.getLoc();
    Value vector = bitsAs(rewriter, loc, lanes, op.getVector());
    Value value =
        bitsAs(rewriter, loc, rewriter.getIntegerType(16), op.getValue());
    Value inserted = LLVM::InsertElementOp::create(rewriter, loc, vector,
                                                   value, op.getPosition());
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(op, op.getType(), inserted);
    return success();
  }
};

struct ExtractElementAsI16 : OpRewritePattern<LLVM::ExtractElementOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::ExtractElementOp op,
                                PatternRewriter &rewriter) const override {
    VectorType lanes = asI16Lanes(op.getVector().getType());
    if (!lanes)
      return failure();
    Location loc = op.getLoc();
    Value vector = bitsAs(rewriter, loc, lanes, op.getVector());
    Value lane =
        LLVM::ExtractElementOp::create(rewriter, loc, vector, op.getPosition());
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(op, op.getType(), lane);
    return success();
  }
};

struct ShuffleVectorAsI16 : OpRewritePattern<LLVM::ShuffleVectorOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::ShuffleVectorOp op,
                                PatternRewriter &rewriter) const override {
    VectorType lanes = asI16Lanes(op.getType());
    VectorType sourceLanes = asI16Lanes(op.getV1().getType());
    if (!lanes || !sourceLanes)
      return failure();
    Location loc = op.getLoc();
    Value v1 = bitsAs(rewriter, loc, sourceLanes, op.getV1());
    Value v2 = bitsAs(rewriter, loc, sourceLanes, op.getV2());
    Value shuffled =
        LLVM::ShuffleVectorOp::create(rewriter, loc, v1, v2, op.getMask());
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(op, op.getType(), shuffled);
    return success();
  }
};

struct BFloat16MaskedMemoryPass
    : tessel::impl::BFloat16MaskedMemoryPassBase<BFloat16MaskedMemoryPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MaskedStoreAsI16, MaskedLoadAsI16, InsertElementAsI16,
                 ExtractElementAsI16, ShuffleVectorAsI16>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
