//===- ContractionOps.cpp - Verifiers of contractions, windows, BatchNorm -===//
//
// MatMul, Gemm and Conv (operands, accumulator type, the filters-last weight
// layout), the pooling windows, and BatchNormalization in its inference and
// training forms. The conventions for dynamic dims are TesselOps.cpp's.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOpUtils.h"
#include "dialects/Graph/TesselDialect.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::graph_detail;

//===----------------------------------------------------------------------===//
// MatMulOp, GemmOp
//===----------------------------------------------------------------------===//

Type tessel::defaultAccumulatorType(Type element) {
  if (element.isF16() || element.isBF16())
    return Float32Type::get(element.getContext());
  if (auto i = dyn_cast<IntegerType>(element);
      i && i.getWidth() > 1 && i.getWidth() < 32)
    return IntegerType::get(element.getContext(), 32);
  return element;
}

template <typename Op> static Type accumulatorOf(Op op) {
  if (TypeAttr acc = op.getAccTypeAttr())
    return acc.getValue();
  return defaultAccumulatorType(getElementTypeOrSelf(op.getType()));
}
Type MatMulOp::getAccumulatorType() { return accumulatorOf(*this); }
Type GemmOp::getAccumulatorType() { return accumulatorOf(*this); }
Type ConvOp::getAccumulatorType() { return accumulatorOf(*this); }

int64_t ConvOp::getFilterDim() {
  return getFiltersLast() ? rankedType(getWeight()).getRank() - 1 : 0;
}
int64_t ConvOp::getFilterCount() { return getType().getDimSize(1); }
int64_t ConvOp::getChannelDim() { return getFiltersLast() ? 0 : 1; }
int64_t ConvOp::getKernelDim() { return getFiltersLast() ? 1 : 2; }

/// The element types of a contraction's operands (bias excluded) and
/// result: one type throughout, or operands of one type with a result of
/// the accumulator's type (`acc_type` set, of the operands' kind and at
/// least as wide: the sums are the result, never rounded; bf16 x bf16 ->
/// f32 for mixed precision, i8 x i8 -> i32 for int8 quantization).
static LogicalResult verifyElementTypes(Operation *op, ValueRange operands,
                                        TypeAttr acc) {
  Type element = getElementTypeOrSelf(operands.front().getType());
  for (Value v : operands.drop_front())
    if (getElementTypeOrSelf(v.getType()) != element)
      return op->emitOpError("operands must have one element type, not ")
             << element << " and " << getElementTypeOrSelf(v.getType());
  Type result = getElementTypeOrSelf(op->getResult(0).getType());
  if (result == element)
    return success();
  bool sameKind = (isa<IntegerType>(element) && isa<IntegerType>(result)) ||
                  (isa<FloatType>(element) && isa<FloatType>(result));
  if (sameKind && acc && acc.getValue() == result &&
      result.getIntOrFloatBitWidth() >= element.getIntOrFloatBitWidth())
    return success();
  return op->emitOpError("result element type ")
         << result << " must be the operands' " << element
         << " or the accumulator type";
}

/// `input_unsigned` only on integer operands.
static LogicalResult verifyInputUnsigned(Operation *op, Value input,
                                         bool inputUnsigned) {
  if (inputUnsigned && !isa<IntegerType>(getElementTypeOrSelf(input.getType())))
    return op->emitOpError("input_unsigned needs integer operands");
  return success();
}

/// An accumulator of the element type's kind, at least as wide.
static LogicalResult verifyAccumulator(Operation *op, TypeAttr acc) {
  if (!acc)
    return success();
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  Type t = acc.getValue();
  bool sameKind = (isa<FloatType>(element) && isa<FloatType>(t)) ||
                  (isa<IntegerType>(element) && isa<IntegerType>(t));
  if (!sameKind || !t.isIntOrFloat() ||
      t.getIntOrFloatBitWidth() < element.getIntOrFloatBitWidth())
    return op->emitOpError("accumulator type ")
           << t << " cannot hold sums of " << element;
  return success();
}

LogicalResult MatMulOp::verify() {
  if (failed(verifyAccumulator(*this, getAccTypeAttr())) ||
      failed(verifyElementTypes(*this, {getLhs(), getRhs()},
                                getAccTypeAttr())) ||
      failed(verifyInputUnsigned(*this, getLhs(), getInputUnsigned())))
    return failure();
  RankedTensorType lhs = rankedType(getLhs()), rhs = rankedType(getRhs());
  if (lhs.getRank() < 1 || rhs.getRank() < 1)
    return emitOpError("operands must have rank >= 1");
  // numpy: a rank-1 lhs is a row vector, a rank-1 rhs a column vector.
  SmallVector<int64_t> a(lhs.getShape()), b(rhs.getShape());
  bool vecA = a.size() == 1, vecB = b.size() == 1;
  if (vecA)
    a.insert(a.begin(), 1);
  if (vecB)
    b.push_back(1);
  int64_t k = a.back(), k2 = b[b.size() - 2];
  if (!runtimeChecked(k, k2))
    return emitOpError("contraction dims differ: ") << k << " vs " << k2;
  SmallVector<int64_t> batch;
  ArrayRef<int64_t> batchA = ArrayRef(a).drop_back(2),
                    batchB = ArrayRef(b).drop_back(2);
  size_t n = std::max(batchA.size(), batchB.size());
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i + batchA.size() >= n ? batchA[i + batchA.size() - n] : 1;
    int64_t y = i + batchB.size() >= n ? batchB[i + batchB.size() - n] : 1;
    if (x == 1)
      batch.push_back(y);
    else if (y == 1)
      batch.push_back(x);
    else if (runtimeChecked(x, y))
      batch.push_back(ShapedType::isDynamic(x) ? y : x);
    else
      return emitOpError("batch dims do not broadcast: ") << x << " vs " << y;
  }
  SmallVector<int64_t> expected(batch);
  if (!vecA)
    expected.push_back(a[a.size() - 2]);
  if (!vecB)
    expected.push_back(b.back());
  return checkShape(*this, getType(), expected, "result");
}

LogicalResult GemmOp::verify() {
  if (failed(verifyAccumulator(*this, getAccTypeAttr())) ||
      failed(verifyElementTypes(*this, {getA(), getB()}, getAccTypeAttr())))
    return failure();
  RankedTensorType a = rankedType(getA()), b = rankedType(getB());
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOpError("A and B must have rank 2");
  int64_t m = a.getDimSize(getTransA() ? 1 : 0);
  int64_t k = a.getDimSize(getTransA() ? 0 : 1);
  int64_t k2 = b.getDimSize(getTransB() ? 1 : 0);
  int64_t n = b.getDimSize(getTransB() ? 0 : 1);
  if (!runtimeChecked(k, k2))
    return emitOpError("contraction dims differ: ") << k << " vs " << k2;
  if (Value c = getC()) {
    RankedTensorType ct = rankedType(c);
    if (ct.getRank() > 2)
      return emitOpError("C must have rank <= 2");
    // C broadcasts (unidirectionally) to [M, N]; the kernel reads it with
    // M and N. A dim of C is a static 1, equal to a static M or N, or
    // dynamic where M or N is: nothing at run time checks a static dim
    // against a dynamic one here. (Two dynamic dims agree at run time only
    // when the model names them with the same symbol, as in C [N, 1] for
    // A [N, K]: DimEqualities does not equate Gemm's C yet.)
    ArrayRef<int64_t> cs = ct.getShape();
    int64_t target[2] = {m, n};
    for (int64_t i = 0; i < ct.getRank(); ++i) {
      int64_t d = cs[i], want = target[2 - ct.getRank() + i];
      if (d != 1 && !staticEqual(d, want) && !sameDim(d, want))
        return emitOpError("C does not broadcast to [M, N]: its dim ")
               << i << " is " << extent(d) << ", M and N are " << extent(m)
               << " and " << extent(n);
    }
  }
  return checkShape(*this, getType(), {m, n}, "result");
}

//===----------------------------------------------------------------------===//
// ConvOp and pooling
//===----------------------------------------------------------------------===//

/// Checks the window attributes of a conv/pool with `spatial` spatial dims.
static LogicalResult verifyWindow(Operation *op, int64_t spatial,
                                  ArrayRef<int64_t> strides,
                                  ArrayRef<int64_t> pads,
                                  ArrayRef<int64_t> dilations) {
  if (static_cast<int64_t>(strides.size()) != spatial ||
      static_cast<int64_t>(dilations.size()) != spatial ||
      static_cast<int64_t>(pads.size()) != 2 * spatial)
    return op->emitOpError("expected ")
           << spatial << " strides and dilations and " << 2 * spatial
           << " pads";
  if (llvm::any_of(strides, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dilations, [](int64_t d) { return d < 1; }))
    return op->emitOpError("strides and dilations must be >= 1");
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return op->emitOpError("pads must be >= 0");
  return success();
}

LogicalResult ConvOp::verify() {
  if (failed(verifyAccumulator(*this, getAccTypeAttr())) ||
      failed(verifyElementTypes(*this, {getInput(), getWeight()},
                                getAccTypeAttr())) ||
      failed(verifyInputUnsigned(*this, getInput(), getInputUnsigned())))
    return failure();
  if (std::optional<int64_t> zero = getInputZeroPoint()) {
    auto element = dyn_cast<IntegerType>(
        rankedType(getInput()).getElementType());
    if (!element || element.getWidth() > 32)
      return emitOpError("input_zero_point needs an integer input");
    unsigned bits = element.getWidth();
    int64_t lo = getInputUnsigned() ? 0 : -(int64_t(1) << (bits - 1));
    int64_t hi = getInputUnsigned() ? (int64_t(1) << bits) - 1
                                    : (int64_t(1) << (bits - 1)) - 1;
    if (*zero < lo || *zero > hi)
      return emitOpError("input_zero_point ")
             << *zero << " is outside the input's range [" << lo << ", " << hi
             << "]";
  }
  RankedTensorType in = rankedType(getInput()), w = rankedType(getWeight());
  int64_t rank = in.getRank();
  if (rank < 3 || w.getRank() != rank)
    return emitOpError("input and weight must have the same rank >= 3");
  int64_t spatial = rank - 2;
  if (failed(verifyWindow(*this, spatial, getStrides(), getPads(),
                          getDilations())))
    return failure();
  int64_t group = getGroup();
  int64_t channels = in.getDimSize(1),
          filters = w.getDimSize(getFilterDim()),
          perGroup = w.getDimSize(getChannelDim());
  if (getFiltersLast()) {
    // P >= F, both static: the padding is never read.
    int64_t rows = filters;
    filters = getFilterCount();
    if (ShapedType::isDynamic(filters) || ShapedType::isDynamic(rows) ||
        rows < filters)
      return emitOpError("with filters_last the weight's last dim (")
             << extent(rows) << ") must hold the result's " << extent(filters)
             << " filters, both static";
  }
  if (group < 1 || (!ShapedType::isDynamic(filters) && filters % group))
    return emitOpError("group ")
           << group << " does not divide " << filters << " filters";
  // The kernel reads the input's channels with the weight's extents.
  if (ShapedType::isDynamic(perGroup) ||
      !staticEqual(perGroup * group, channels))
    return emitOpError("weight has ")
           << extent(perGroup) << " channels per group, input has "
           << extent(channels) << " channels in " << group
           << " groups (both must be static: the run time does not check "
              "them)";
  if (Value bias = getBias())
    if (failed(checkShape(*this, rankedType(bias), {filters}, "bias",
                          staticEqual)))
      return failure();
  SmallVector<int64_t> expected = {in.getDimSize(0), filters};
  for (int64_t i = 0; i < spatial; ++i)
    expected.push_back(windowOutputSize(
        in.getDimSize(2 + i), w.getDimSize(getKernelDim() + i), getStrides()[i],
        getPads()[i], getPads()[spatial + i], getDilations()[i], false));
  return checkShape(*this, getType(), expected, "result");
}

/// Shared verifier of MaxPool and AveragePool.
template <typename PoolOp> static LogicalResult verifyPool(PoolOp op) {
  RankedTensorType in = rankedType(op.getInput());
  int64_t spatial = in.getRank() - 2;
  if (spatial < 1)
    return op.emitOpError("input must have rank >= 3");
  if (static_cast<int64_t>(op.getKernelShape().size()) != spatial)
    return op.emitOpError("expected ") << spatial << " kernel dims";
  if (failed(verifyWindow(op, spatial, op.getStrides(), op.getPads(),
                          op.getDilations())))
    return failure();
  SmallVector<int64_t> expected = {in.getDimSize(0), in.getDimSize(1)};
  for (int64_t i = 0; i < spatial; ++i)
    expected.push_back(windowOutputSize(
        in.getDimSize(2 + i), op.getKernelShape()[i], op.getStrides()[i],
        op.getPads()[i], op.getPads()[spatial + i], op.getDilations()[i],
        op.getCeilMode()));
  return checkShape(op, cast<RankedTensorType>(op.getResult().getType()),
                    expected, "result");
}

LogicalResult MaxPoolOp::verify() { return verifyPool(*this); }
LogicalResult MaxPoolWithIndicesOp::verify() {
  if (failed(verifyPool(*this)))
    return failure();
  if (getIndices().getType().getShape() !=
      cast<RankedTensorType>(getResult().getType()).getShape())
    return emitOpError("indices must have the result's shape");
  return success();
}
LogicalResult AveragePoolOp::verify() { return verifyPool(*this); }

LogicalResult GlobalAveragePoolOp::verify() {
  RankedTensorType in = rankedType(getInput());
  if (in.getRank() < 3)
    return emitOpError("input must have rank >= 3");
  SmallVector<int64_t> expected(in.getShape());
  std::fill(expected.begin() + 2, expected.end(), 1);
  return checkShape(*this, getType(), expected, "result");
}

/// Shared checks of inference and training batch normalization.
static LogicalResult verifyBatchNormOperands(Operation *op, Value input,
                                             ValueRange vectors) {
  RankedTensorType in = rankedType(input);
  if (in.getRank() < 2)
    return op->emitOpError("input must have rank >= 2");
  StringRef names[] = {"scale", "bias", "mean", "variance"};
  for (auto [i, v] : llvm::enumerate(vectors))
    if (failed(checkShape(op, rankedType(v), {in.getDimSize(1)}, names[i],
                          staticEqual)))
      return failure();
  return success();
}

LogicalResult BatchNormTrainingOp::verify() {
  if (failed(verifyBatchNormOperands(
          *this, getInput(),
          {getScale(), getBias(), getMean(), getVariance()})))
    return failure();
  RankedTensorType in = rankedType(getInput());
  if (failed(checkShape(*this, rankedType(getResult()), in.getShape(),
                        "result")) ||
      failed(checkShape(*this, rankedType(getRunningMean()), {in.getDimSize(1)},
                        "running mean")) ||
      failed(checkShape(*this, rankedType(getRunningVariance()),
                        {in.getDimSize(1)}, "running variance")))
    return failure();
  return success();
}

LogicalResult BatchNormOp::verify() {
  RankedTensorType in = rankedType(getInput());
  if (failed(verifyBatchNormOperands(
          *this, getInput(),
          {getScale(), getBias(), getMean(), getVariance()})))
    return failure();
  return checkShape(*this, getType(), in.getShape(), "result");
}
