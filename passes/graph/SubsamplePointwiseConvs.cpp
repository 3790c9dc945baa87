//===- SubsamplePointwiseConvs.cpp - strided 1x1 Convs read a slice -------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Graph/TesselDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace tessel {
#define GEN_PASS_DEF_SUBSAMPLEPOINTWISECONVSPASS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

/// Conv(x) with 1x1 kernels, strides s > 1 and no padding  =>
/// Conv(Slice(x, steps s)) of stride 1.
struct SubsampleInput : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOp conv,
                                PatternRewriter &rewriter) const override {
    auto input = cast<RankedTensorType>(conv.getInput().getType());
    auto weight = cast<RankedTensorType>(conv.getWeight().getType());
    int64_t spatial = input.getRank() - 2;
    ArrayRef<int64_t> strides = conv.getStrides();
    for (int64_t i = 0; i < spatial; ++i)
      if (weight.getDimSize(conv.getKernelDim() + i) != 1)
        return rewriter.notifyMatchFailure(conv, "kernel is not 1x1");
    if (llvm::any_of(conv.getPads(), [](int64_t p) { return p != 0; }))
      return rewriter.notifyMatchFailure(conv, "padded");
    if (llvm::all_of(strides, [](int64_t s) { return s == 1; }))
      return rewriter.notifyMatchFailure(conv, "stride 1");

    // Every s-th pixel from 0 of each strided axis: ceil(n / s) of them,
    // the Conv's output extent, floor((n - 1) / s) + 1.
    SmallVector<int64_t> axes, steps;
    SmallVector<int64_t> shape(input.getShape());
    for (int64_t i = 0; i < spatial; ++i) {
      if (strides[i] == 1)
        continue;
      axes.push_back(i + 2);
      steps.push_back(strides[i]);
      int64_t &n = shape[i + 2];
      if (!ShapedType::isDynamic(n))
        n = (n + strides[i] - 1) / strides[i];
    }
    Location loc = conv.getLoc();
    auto boundsType =
        RankedTensorType::get({int64_t(axes.size())}, rewriter.getI64Type());
    auto bounds = [&](int64_t v) {
      return ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(boundsType, rewriter.getI64IntegerAttr(v)));
    };
    Value sliced = SliceOp::create(
        rewriter, loc, input.clone(shape), conv.getInput(), bounds(0),
        bounds(std::numeric_limits<int64_t>::max()),
        rewriter.getDenseI64ArrayAttr(axes),
        rewriter.getDenseI64ArrayAttr(steps));
    rewriter.modifyOpInPlace(conv, [&] {
      conv.getInputMutable().assign(sliced);
      conv.setStrides(SmallVector<int64_t>(spatial, 1));
    });
    return success();
  }
};

struct SubsamplePointwiseConvsPass
    : tessel::impl::SubsamplePointwiseConvsPassBase<
          SubsamplePointwiseConvsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SubsampleInput>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
