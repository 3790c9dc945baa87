//===- LowerPooling.cpp - MaxPool, AveragePool, GlobalAveragePool ----------===//
//
// Windows are a linalg.generic whose reduction loops range over a shape-only
// "window" operand (as linalg's named pooling ops do). The input is padded
// with the reduction's identity; with ceil_mode the end padding grows so
// that the last window stays in bounds. Averages divide by the number of
// elements the ONNX attributes count, computed from the window position.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

/// The pieces shared by max and average pooling.
struct Window {
  SmallVector<AffineMap> maps; // input, window, output
  Value window;                // shape-only operand for the kernel loops
  SmallVector<int64_t> pads;   // begin..., end... (end grown for ceil_mode)
};

template <typename PoolOp>
FailureOr<Window> buildWindow(PoolOp op, PatternRewriter &rewriter) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  int64_t rank = type.getRank(), spatial = rank - 2;
  for (int64_t i = 2; i < rank; ++i)
    if (type.isDynamicDim(i) || inType.isDynamicDim(i))
      return rewriter.notifyMatchFailure(op, "spatial dims must be static");
  MLIRContext *ctx = op.getContext();
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  Window w;
  w.pads.assign(op.getPads().begin(), op.getPads().end());
  SmallVector<AffineExpr> inExprs = {d(0), d(1)}, winExprs,
                          outExprs = {d(0), d(1)};
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t k = op.getKernelShape()[i], s = op.getStrides()[i],
            dil = op.getDilations()[i];
    int64_t needed = (type.getDimSize(2 + i) - 1) * s + (k - 1) * dil + 1 -
                     inType.getDimSize(2 + i) - w.pads[i];
    w.pads[spatial + i] = std::max(w.pads[spatial + i], needed);
    inExprs.push_back(d(2 + i) * s + d(rank + i) * dil);
    winExprs.push_back(d(rank + i));
    outExprs.push_back(d(2 + i));
  }
  int64_t loops = rank + spatial;
  w.maps = {AffineMap::get(loops, 0, inExprs, ctx),
            AffineMap::get(loops, 0, winExprs, ctx),
            AffineMap::get(loops, 0, outExprs, ctx)};
  w.window = tensor::EmptyOp::create(rewriter, op.getLoc(), op.getKernelShape(),
                                     type.getElementType());
  return w;
}

/// The identity of max for `element`: -inf, or the smallest integer.
Value lowestValue(OpBuilder &b, Location loc, Type element, bool isUnsigned) {
  if (auto f = dyn_cast<FloatType>(element))
    return scalar(b, loc, f, -std::numeric_limits<double>::infinity());
  unsigned width = element.getIntOrFloatBitWidth();
  APInt min =
      isUnsigned ? APInt::getMinValue(width) : APInt::getSignedMinValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(element, min));
}

/// Whether `x` > `y` (ordered for floats; unsigned when `isUnsigned`).
Value greaterThan(OpBuilder &b, Location loc, Value x, Value y,
                  bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y);
  return arith::CmpIOp::create(
      b, loc,
      isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt, x, y);
}

/// max(x, y) (NaN-propagating for floats; unsigned when `isUnsigned`).
Value maximum(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

struct LowerMaxPool : OpRewritePattern<MaxPoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPoolOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    FailureOr<Window> w = buildWindow(op, rewriter);
    if (failed(w))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    bool isUnsigned = op.getIsUnsigned();
    Value lowest = lowestValue(rewriter, loc, element, isUnsigned);
    Value input = padSpatial(rewriter, loc, op.getInput(), w->pads, lowest);
    Value empty = emptyResult(rewriter, op); // N and C from the input
    // bf16 and f16 maxima are kept in f32 while the window is scanned (a
    // running maximum is a loop-carried vector, and the CPU has no bf16
    // vector registers below AVX512-BF16): exact, since the maximum is one
    // of the inputs, and rounded back exactly.
    bool narrow = isa<BFloat16Type, Float16Type>(element);
    Type acc = narrow ? rewriter.getF32Type() : element;
    Value accEmpty =
        narrow ? tensor::EmptyOp::create(
                     rewriter, loc, tensor::getMixedSizes(rewriter, loc, empty),
                     acc)
                     .getResult()
               : empty;
    Value init = linalg::FillOp::create(
                     rewriter, loc, lowestValue(rewriter, loc, acc, isUnsigned),
                     accEmpty)
                     .getResult(0);
    int64_t spatial = type.getRank() - 2;
    Value result = generic(
        rewriter, loc, {input, w->window}, init, w->maps,
        iterators(type.getRank(), spatial),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value x = narrow ? arith::ExtFOp::create(b, l, acc, a[0]).getResult()
                           : a[0];
          yield(b, l, maximum(b, l, x, a[2], isUnsigned));
        });
    if (narrow) {
      auto id = AffineMap::getMultiDimIdentityMap(type.getRank(),
                                                  op.getContext());
      result = generic(rewriter, loc, result, empty, {id, id},
                       iterators(type.getRank()),
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         yield(b, l, arith::TruncFOp::create(b, l, element,
                                                             a[0]));
                       });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// MaxPool with indices: one generic with two outputs, the running maximum
/// and the flattened position (in the unpadded input) where it was found.
struct LowerMaxPoolWithIndices : OpRewritePattern<MaxPoolWithIndicesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPoolWithIndicesOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    FailureOr<Window> w = buildWindow(op, rewriter);
    if (failed(w))
      return failure();
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getResult().getType());
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    Type element = type.getElementType();
    bool isUnsigned = op.getIsUnsigned();
    int64_t rank = type.getRank(), spatial = rank - 2;
    Value lowest = lowestValue(rewriter, loc, element, isUnsigned);
    Value input = padSpatial(rewriter, loc, op.getInput(), w->pads, lowest);
    // N and C of both results come from the input.
    Value values = linalg::FillOp::create(rewriter, loc, lowest,
                                          emptyResult(rewriter, op, 0))
                       .getResult(0);
    Value indices = fill(rewriter, loc, emptyResult(rewriter, op, 1), 0);
    SmallVector<AffineMap> maps = w->maps;
    maps.push_back(maps.back()); // the indices follow the output
    SmallVector<int64_t> strides(op.getStrides()), dil(op.getDilations()),
        pads(op.getPads());
    ArrayRef<int64_t> inShape = inType.getShape();
    bool columnMajor = op.getColumnMajor();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type, op.getIndices().getType()},
        ValueRange{input, w->window}, ValueRange{values, indices}, maps,
        iterators(rank, spatial), [&](OpBuilder &b, Location l, ValueRange a) {
          auto c = [&](int64_t v) {
            return arith::ConstantIndexOp::create(b, l, v);
          };
          // ((n * C + c) * D1 + pos1) * D2 + pos2 ..., pos = o*s + k*d - pad
          // (spatial dims in reverse order when column-major)
          Value flat = arith::AddIOp::create(
              b, l,
              arith::MulIOp::create(b, l, linalg::IndexOp::create(b, l, 0),
                                    c(inShape[1])),
              linalg::IndexOp::create(b, l, 1));
          for (int64_t j = 0; j < spatial; ++j) {
            int64_t i = columnMajor ? spatial - 1 - j : j;
            Value pos = arith::SubIOp::create(
                b, l,
                arith::AddIOp::create(
                    b, l,
                    arith::MulIOp::create(b, l,
                                          linalg::IndexOp::create(b, l, 2 + i),
                                          c(strides[i])),
                    arith::MulIOp::create(
                        b, l, linalg::IndexOp::create(b, l, rank + i),
                        c(dil[i]))),
                c(pads[i]));
            flat = arith::AddIOp::create(
                b, l, arith::MulIOp::create(b, l, flat, c(inShape[2 + i])),
                pos);
          }
          Value index = arith::IndexCastOp::create(b, l, b.getI64Type(), flat);
          Value better = greaterThan(b, l, a[0], a[2], isUnsigned);
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, better, a[0], a[2]),
                         arith::SelectOp::create(b, l, better, index, a[3])});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// Number of k in [0, kernel) with lo <= start + k * dil < hi, as index math.
Value countInRange(OpBuilder &b, Location l, Value start, int64_t kernel,
                   int64_t dil, int64_t lo, int64_t hi) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
  Value zero = c(0), kMax = c(kernel), dv = c(dil);
  // first = max(0, ceil((lo - start) / dil)), last = min(K, ceil((hi - start) /
  // dil))
  Value first = arith::MaxSIOp::create(
      b, l, zero,
      arith::CeilDivSIOp::create(
          b, l, arith::SubIOp::create(b, l, c(lo), start), dv));
  Value last = arith::MinSIOp::create(
      b, l, kMax,
      arith::CeilDivSIOp::create(
          b, l, arith::SubIOp::create(b, l, c(hi), start), dv));
  return arith::MaxSIOp::create(b, l, zero,
                                arith::SubIOp::create(b, l, last, first));
}

struct LowerAveragePool : OpRewritePattern<AveragePoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AveragePoolOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    FailureOr<Window> w = buildWindow(op, rewriter);
    if (failed(w))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    Type element = type.getElementType();
    int64_t rank = type.getRank(), spatial = rank - 2;
    Value input = padSpatial(rewriter, loc, op.getInput(), w->pads,
                             scalar(rewriter, loc, element, 0.0));
    Value empty = emptyResult(rewriter, op); // N and C from the input
    Value sum = generic(rewriter, loc, {input, w->window},
                        fill(rewriter, loc, empty, 0.0), w->maps,
                        iterators(rank, spatial),
                        [](OpBuilder &b, Location l, ValueRange a) {
                          yield(b, l, arith::AddFOp::create(b, l, a[0], a[2]));
                        });
    // Divide by the count of the window's elements that ONNX includes: the
    // real input, plus the explicit pads when count_include_pad is set.
    SmallVector<int64_t> kernel(op.getKernelShape()), strides(op.getStrides()),
        dil(op.getDilations()), pads(op.getPads());
    SmallVector<int64_t> inDims(inType.getShape().drop_front(2));
    bool includePad = op.getCountIncludePad();
    auto id = AffineMap::getMultiDimIdentityMap(rank, op.getContext());
    Value result = generic(
        rewriter, loc, sum, empty, {id, id}, iterators(rank),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value count = arith::ConstantIndexOp::create(b, l, 1);
          for (int64_t i = 0; i < spatial; ++i) {
            Value o = linalg::IndexOp::create(b, l, 2 + i);
            Value start = arith::SubIOp::create(
                b, l,
                arith::MulIOp::create(
                    b, l, o, arith::ConstantIndexOp::create(b, l, strides[i])),
                arith::ConstantIndexOp::create(b, l, pads[i]));
            int64_t lo = includePad ? -pads[i] : 0;
            int64_t hi = inDims[i] + (includePad ? pads[spatial + i] : 0);
            count = arith::MulIOp::create(
                b, l, count,
                countInRange(b, l, start, kernel[i], dil[i], lo, hi));
          }
          Value n = arith::IndexCastOp::create(b, l, b.getI64Type(), count);
          Value f = arith::SIToFPOp::create(b, l, element, n);
          yield(b, l, arith::DivFOp::create(b, l, a[0], f));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerGlobalAveragePool : OpRewritePattern<GlobalAveragePoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GlobalAveragePoolOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType type = op.getType();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank();
    int64_t count = 1;
    for (int64_t i = 2; i < rank; ++i) {
      if (inType.isDynamicDim(i))
        return rewriter.notifyMatchFailure(op, "spatial dims must be static");
      count *= inType.getDimSize(i);
    }
    // Sum into [N, C], then divide into [N, C, 1, ...].
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    auto inMap = AffineMap::getMultiDimIdentityMap(rank, ctx);
    auto nc = AffineMap::get(rank, 0, {d(0), d(1)}, ctx);
    auto sumType = RankedTensorType::get(type.getShape().take_front(2),
                                         type.getElementType());
    Value sumInit = emptyTensor(rewriter, loc, sumType,
                                {{op.getInput(), 0}, {op.getInput(), 1}});
    Value sum =
        generic(rewriter, loc, op.getInput(), fill(rewriter, loc, sumInit, 0.0),
                {inMap, nc}, iterators(2, rank - 2),
                [](OpBuilder &b, Location l, ValueRange a) {
                  yield(b, l, arith::AddFOp::create(b, l, a[0], a[1]));
                });
    Value empty = emptyResult(rewriter, op); // N and C from the input
    Value result =
        generic(rewriter, loc, sum, empty, {nc, inMap}, iterators(rank),
                [&](OpBuilder &b, Location l, ValueRange a) {
                  Value n =
                      scalar(b, l, a[0].getType(), static_cast<double>(count));
                  yield(b, l, arith::DivFOp::create(b, l, a[0], n));
                });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tessel::populatePoolingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMaxPool, LowerMaxPoolWithIndices, LowerAveragePool,
               LowerGlobalAveragePool>(patterns.getContext());
}
