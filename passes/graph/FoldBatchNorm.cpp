//===- FoldBatchNorm.cpp - BatchNormalization into its Conv or Gemm -------===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Graph/TesselDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace tessel {
#define GEN_PASS_DEF_FOLDBATCHNORMPASS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

/// The f32 values of a constant operand, or nothing.
std::optional<SmallVector<double>> f32Constant(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
  if (!dense || !dense.getElementType().isF32())
    return std::nullopt;
  SmallVector<double> values;
  for (float f : dense.getValues<float>())
    values.push_back(f);
  return values;
}

/// A BatchNormalization's per-channel affine map y = x * s + t, folded in
/// double precision: s = scale / sqrt(variance + epsilon),
/// t = bias - mean * s.
struct ChannelAffine {
  SmallVector<double> s, t;
};

std::optional<ChannelAffine> channelAffine(BatchNormOp bn, int64_t channels) {
  auto scale = f32Constant(bn.getScale());
  auto bias = f32Constant(bn.getBias());
  auto mean = f32Constant(bn.getMean());
  auto variance = f32Constant(bn.getVariance());
  if (!scale || !bias || !mean || !variance)
    return std::nullopt;
  for (const SmallVector<double> *v : {&*scale, &*bias, &*mean, &*variance})
    if (static_cast<int64_t>(v->size()) != channels)
      return std::nullopt;
  ChannelAffine a;
  double epsilon = bn.getEpsilon().convertToFloat();
  for (int64_t c = 0; c < channels; ++c) {
    double s = (*scale)[c] / std::sqrt((*variance)[c] + epsilon);
    a.s.push_back(s);
    a.t.push_back((*bias)[c] - (*mean)[c] * s);
  }
  return a;
}

/// The location of an op that does the work of `a` and `b`: errors and
/// profiles name both ONNX nodes ("conv1+bn1", "Conv+BatchNormalization").
Location bothNodes(Location a, Location b) {
  return FusedLoc::get({a, b}, StringAttr::get(a.getContext(),
                                               kDispatchRegionLoc),
                       a.getContext());
}

/// A new f32 constant of `type` from `values` (rounded once).
Value f32Tensor(PatternRewriter &rewriter, Location loc, RankedTensorType type,
                ArrayRef<double> values) {
  SmallVector<float> rounded(values.begin(), values.end());
  return ConstantOp::create(rewriter, loc,
                            DenseElementsAttr::get(type, ArrayRef(rounded)));
}

/// The channel count of a BatchNormalization whose input is produced only
/// for it by an f32 op of type `type` with channels in dim 1.
std::optional<int64_t> foldableChannels(BatchNormOp bn, Operation *producer) {
  if (!producer || !producer->hasOneUse())
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(bn.getInput().getType());
  if (!type || type.getRank() < 2 || !type.getElementType().isF32() ||
      type.isDynamicDim(1))
    return std::nullopt;
  return type.getDimSize(1);
}

/// Conv(x, W, b) -> BN  =>  Conv(x, W * s[f], b * s + t).
struct FoldIntoConv : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto conv = bn.getInput().getDefiningOp<ConvOp>();
    std::optional<int64_t> channels = foldableChannels(bn, conv);
    if (!channels)
      return failure();
    auto weight = f32Constant(conv.getWeight());
    std::optional<SmallVector<double>> bias;
    if (conv.getBias() && !(bias = f32Constant(conv.getBias())))
      return failure();
    std::optional<ChannelAffine> a = channelAffine(bn, *channels);
    if (!weight || !a ||
        (!conv.getFiltersLast() && weight->size() % *channels != 0))
      return failure();
    // The filter of weight element i: F x ... or ... x P (P >= F, the
    // padding beyond F is left as it is).
    auto wType = cast<RankedTensorType>(conv.getWeight().getType());
    bool last = conv.getFiltersLast();
    int64_t rows = wType.getShape().back();
    int64_t perChannel = weight->size() / *channels;
    for (int64_t i = 0, e = weight->size(); i < e; ++i) {
      int64_t f = last ? i % rows : i / perChannel;
      if (f < *channels)
        (*weight)[i] *= a->s[f];
    }
    SmallVector<double> newBias(a->t);
    if (bias)
      for (int64_t f = 0; f < *channels; ++f)
        newBias[f] += (*bias)[f] * a->s[f];
    rewriter.setInsertionPoint(conv);
    Value w = f32Tensor(rewriter, conv.getWeight().getLoc(),
                        cast<RankedTensorType>(conv.getWeight().getType()),
                        *weight);
    Value b = f32Tensor(
        rewriter, bn.getBias().getLoc(),
        RankedTensorType::get({*channels}, rewriter.getF32Type()), newBias);
    auto folded = ConvOp::create(
        rewriter, bothNodes(conv.getLoc(), bn.getLoc()),
        bn.getType(), conv.getInput(), w, b, conv.getStridesAttr(),
        conv.getPadsAttr(), conv.getDilationsAttr(), conv.getGroupAttr(),
        conv.getAccTypeAttr(), conv.getFiltersLastAttr(),
        conv.getInputUnsignedAttr(), conv.getInputZeroPointAttr());
    rewriter.replaceOp(bn, folded.getResult());
    rewriter.eraseOp(conv);
    return success();
  }
};

/// Gemm(A, B, C) [M, N] -> BN over N  =>  Gemm(A, B * s[n], beta C s + t)
/// with beta 1. B must be a constant; C absent, a scalar or of shape [N].
struct FoldIntoGemm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    auto gemm = bn.getInput().getDefiningOp<GemmOp>();
    std::optional<int64_t> channels = foldableChannels(bn, gemm);
    if (!channels || cast<RankedTensorType>(bn.getType()).getRank() != 2)
      return failure();
    auto weight = f32Constant(gemm.getB());
    std::optional<SmallVector<double>> c;
    if (gemm.getC()) {
      c = f32Constant(gemm.getC());
      auto cType = cast<RankedTensorType>(gemm.getC().getType());
      bool perColumn = cType.getRank() == 1 && cType.getDimSize(0) == *channels;
      bool scalar = cType.getNumElements() == 1;
      if (!c || !(perColumn || scalar))
        return failure();
      if (scalar)
        c = SmallVector<double>(*channels, c->front());
    }
    std::optional<ChannelAffine> a = channelAffine(bn, *channels);
    if (!weight || !a || weight->size() % *channels != 0)
      return failure();
    // B is [K, N], or [N, K] with trans_b: scale along the N dim.
    int64_t k = weight->size() / *channels;
    for (int64_t n = 0; n < *channels; ++n)
      for (int64_t i = 0; i < k; ++i)
        (*weight)[gemm.getTransB() ? n * k + i : i * *channels + n] *= a->s[n];
    SmallVector<double> newC(a->t);
    double beta = gemm.getBeta().convertToFloat();
    if (c)
      for (int64_t n = 0; n < *channels; ++n)
        newC[n] += beta * (*c)[n] * a->s[n];
    rewriter.setInsertionPoint(gemm);
    Value b = f32Tensor(rewriter, gemm.getB().getLoc(),
                        cast<RankedTensorType>(gemm.getB().getType()), *weight);
    Value cValue = f32Tensor(
        rewriter, bn.getBias().getLoc(),
        RankedTensorType::get({*channels}, rewriter.getF32Type()), newC);
    auto folded = GemmOp::create(
        rewriter, bothNodes(gemm.getLoc(), bn.getLoc()),
        bn.getType(), gemm.getA(), b, cValue, gemm.getAlphaAttr(),
        rewriter.getF32FloatAttr(1.0f), gemm.getTransAAttr(),
        gemm.getTransBAttr(), gemm.getAccTypeAttr());
    rewriter.replaceOp(bn, folded.getResult());
    rewriter.eraseOp(gemm);
    return success();
  }
};

struct FoldBatchNormPass
    : tessel::impl::FoldBatchNormPassBase<FoldBatchNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldIntoConv, FoldIntoGemm>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
