//===- FoldWeightTransposes.cpp - Transpose constants at compile time -----===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Graph/TesselDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>

namespace tessel {
#define GEN_PASS_DEF_FOLDWEIGHTTRANSPOSESPASS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

/// `value` with its dims permuted: result dim i is dim perm[i] of `value`.
DenseElementsAttr transposeElements(DenseElementsAttr value,
                                    ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  if (value.isSplat())
    return value.resizeSplat(resultType);
  int64_t rank = type.getRank();
  SmallVector<int64_t> inStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * type.getDimSize(d + 1);
  int64_t count = type.getNumElements();
  auto permuted = [&](int64_t linear) {
    // The input offset of element `linear` (row-major) of the result.
    int64_t offset = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      offset += (linear % shape[d]) * inStrides[perm[d]];
      linear /= shape[d];
    }
    return offset;
  };
  if (type.getElementType().isInteger(1)) {
    SmallVector<bool> in(value.getValues<bool>()), out(count);
    for (int64_t i = 0; i < count; ++i)
      out[i] = in[permuted(i)];
    return DenseElementsAttr::get(resultType, out);
  }
  size_t bytes = type.getElementTypeBitWidth() / 8;
  ArrayRef<char> raw = value.getRawData();
  std::vector<char> out(raw.size());
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(&out[i * bytes], &raw[permuted(i) * bytes], bytes);
  return DenseElementsAttr::getFromRawBuffer(resultType, out);
}

/// A constant's elements when they are a DenseElementsAttr of whole bytes
/// (or i1).
DenseElementsAttr denseConstant(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
  if (!dense)
    return nullptr;
  Type element = dense.getElementType();
  if (!element.isIntOrFloat() ||
      (!element.isInteger(1) && element.getIntOrFloatBitWidth() % 8 != 0))
    return nullptr;
  return dense;
}

struct FoldConstantTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr value = denseConstant(op.getInput());
    if (!value)
      return failure();
    rewriter.replaceOpWithNewOp<ConstantOp>(
        op, transposeElements(value, op.getPerm()));
    return success();
  }
};

struct PretransposeGemmWeight : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr value = op.getTransB() ? denseConstant(op.getB())
                                             : DenseElementsAttr();
    if (!value)
      return failure();
    rewriter.setInsertionPoint(op);
    auto b = ConstantOp::create(rewriter, op.getB().getLoc(),
                                transposeElements(value, {1, 0}));
    rewriter.modifyOpInPlace(op, [&] {
      op.getBMutable().assign(b);
      op.setTransB(false);
    });
    return success();
  }
};

/// `value` (not a splat) with its last dim grown to `rows` elements, the
/// new ones zero.
DenseElementsAttr padLastDim(DenseElementsAttr value, int64_t rows) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  int64_t width = shape.back();
  shape.back() = rows;
  size_t bytes = type.getElementTypeBitWidth() / 8;
  ArrayRef<char> raw = value.getRawData();
  std::vector<char> out(type.getNumElements() / width * rows * bytes, 0);
  for (int64_t r = 0, e = type.getNumElements() / width; r < e; ++r)
    std::memcpy(&out[r * rows * bytes], &raw[r * width * bytes],
                width * bytes);
  return DenseElementsAttr::getFromRawBuffer(
      RankedTensorType::get(shape, type.getElementType()), out);
}

/// A Conv's constant F x C x K... weight as C x K... x P (filters_last):
/// a vector of output channels then reads contiguous weights. Rows whose
/// size is a multiple of 512 bytes are padded by a cache line (P = F + 16
/// floats): at a row stride of 2 KiB (F = 512) the rows of a slice of 32
/// filters map into 1/32 of a cache's sets, and a register tile re-reading
/// such a slice misses on it each time. Measured on a 3x3 Conv, 512
/// channels on a 7x7 image, native, 1 thread: 150 GFLOP/s with rows of 512,
/// 185 with rows of 528.
struct PretransposeConvWeight : OpRewritePattern<ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr value =
        op.getFiltersLast() ? DenseElementsAttr() : denseConstant(op.getWeight());
    if (!value)
      return failure();
    int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
    SmallVector<int64_t> perm;
    for (int64_t d = 1; d < rank; ++d)
      perm.push_back(d);
    perm.push_back(0);
    DenseElementsAttr transposed = transposeElements(value, perm);
    int64_t filters = cast<RankedTensorType>(value.getType()).getDimSize(0);
    int64_t bytes = value.getElementType().getIntOrFloatBitWidth() / 8;
    constexpr int64_t kLine = 64, kAliasing = 512;
    if (!transposed.isSplat() && bytes > 0 && kLine % bytes == 0 &&
        (filters * bytes) % kAliasing == 0)
      transposed = padLastDim(transposed, filters + kLine / bytes);
    rewriter.setInsertionPoint(op);
    auto w = ConstantOp::create(rewriter, op.getWeight().getLoc(), transposed);
    rewriter.modifyOpInPlace(op, [&] {
      op.getWeightMutable().assign(w);
      op.setFiltersLast(true);
    });
    return success();
  }
};

struct FoldWeightTransposesPass
    : tessel::impl::FoldWeightTransposesPassBase<FoldWeightTransposesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldConstantTranspose, PretransposeGemmWeight,
                 PretransposeConvWeight>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
