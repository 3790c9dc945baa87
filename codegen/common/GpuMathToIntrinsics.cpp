//===- GpuMathToIntrinsics.cpp - LLVM math -> vendor GPU intrinsics -------===//
//
// See Passes.td. The vendor tables are the only vendor-specific part; the
// rewrite is shared.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessel {
#define GEN_PASS_DEF_GPUMATHTOINTRINSICSPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// The vendor's f32 intrinsics, and the f64 ones that exist (sqrt and
/// floor: f64 exp and log are expanded before, see ExpandDeviceMathF64.cpp).
struct VendorMath {
  const char *exp2, *log2, *sqrt, *floor;
  const char *sqrtF64, *floorF64;
};
constexpr VendorMath kNvidia = {
    "llvm.nvvm.ex2.approx.ftz.f", "llvm.nvvm.lg2.approx.f",
    "llvm.nvvm.sqrt.rn.f",        "llvm.nvvm.floor.f",
    "llvm.nvvm.sqrt.rn.d",        "llvm.nvvm.floor.d"};
// AMDGPU selects llvm.sqrt.f64 (a correctly rounded expansion around
// v_sqrt_f64) and llvm.floor.f64 (v_floor_f64) itself.
constexpr VendorMath kAmd = {"llvm.amdgcn.exp2", "llvm.amdgcn.log",
                             "llvm.amdgcn.sqrt", "llvm.floor",
                             "llvm.sqrt",        "llvm.floor"};

Value callIntrinsic(PatternRewriter &rewriter, Location loc, const char *name,
                    Value x) {
  return LLVM::CallIntrinsicOp::create(rewriter, loc, x.getType(),
                                       rewriter.getStringAttr(name),
                                       ValueRange{x})
      .getResult(0);
}

/// Rewrites a unary intrinsic `Op` on scalars of one float type with `fn`.
template <typename Op> struct Unary : OpRewritePattern<Op> {
  Unary(MLIRContext *ctx, Type type,
        std::function<Value(PatternRewriter &, Location, Value)> fn)
      : OpRewritePattern<Op>(ctx), type(type), fn(std::move(fn)) {}
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    Value x = op->getOperand(0);
    if (x.getType() != type)
      return rewriter.notifyMatchFailure(op, "no vendor mapping for the type");
    rewriter.replaceOp(op, fn(rewriter, op.getLoc(), x));
    return success();
  }
  Type type;
  std::function<Value(PatternRewriter &, Location, Value)> fn;
};

struct GpuMathToIntrinsicsPass
    : tessel::impl::GpuMathToIntrinsicsPassBase<GpuMathToIntrinsicsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (vendor != "nvidia" && vendor != "amd") {
      getOperation()->emitError("unknown GPU vendor '") << vendor << "'";
      return signalPassFailure();
    }
    const VendorMath &v = vendor == "nvidia" ? kNvidia : kAmd;
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    auto direct = [](const char *name) {
      return [name](PatternRewriter &r, Location l, Value x) {
        return callIntrinsic(r, l, name, x);
      };
    };
    Type f32 = Float32Type::get(ctx), f64 = Float64Type::get(ctx);
    patterns.add<Unary<LLVM::Exp2Op>>(ctx, f32, direct(v.exp2));
    patterns.add<Unary<LLVM::SqrtOp>>(ctx, f32, direct(v.sqrt));
    patterns.add<Unary<LLVM::FFloorOp>>(ctx, f32, direct(v.floor));
    patterns.add<Unary<LLVM::SqrtOp>>(ctx, f64, direct(v.sqrtF64));
    patterns.add<Unary<LLVM::FFloorOp>>(ctx, f64, direct(v.floorF64));
    // exp(x) = exp2(x * log2(e))
    patterns.add<Unary<LLVM::ExpOp>>(ctx, f32, [exp2 = v.exp2](PatternRewriter &r,
                                                             Location l,
                                                             Value x) {
      Value log2e = LLVM::ConstantOp::create(
          r, l, x.getType(), r.getF32FloatAttr(1.4426950408889634f)); // log2(e)
      return callIntrinsic(r, l, exp2, LLVM::FMulOp::create(r, l, x, log2e));
    });
    patterns.add<Unary<LLVM::Log2Op>>(ctx, f32, direct(v.log2));
    // log(x) = log2(x) * ln(2)
    patterns.add<Unary<LLVM::LogOp>>(ctx, f32, [log2 = v.log2](PatternRewriter &r,
                                                             Location l,
                                                             Value x) {
      Value ln2 = LLVM::ConstantOp::create(
          r, l, x.getType(), r.getF32FloatAttr(0.6931471805599453f)); // ln(2)
      return LLVM::FMulOp::create(r, l, callIntrinsic(r, l, log2, x), ln2);
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
