//===- ReductionOps.cpp - Verifiers of the reductions and LayerNorm -------===//
//
// ReduceSum, ReduceProd, ReduceMean, ReduceMax and ReduceMin: normalized
// axes (or a run-time axes operand of static length), the
// result shape they imply, and the accumulator type each declares (see
// Tessel_ReduceOp in TesselOps.td); ArgMax and ArgMin. LayerNormalization,
// whose statistics
// are reductions with a declared accumulator too. The integer reductions of
// constants fold.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOpUtils.h"
#include "dialects/Graph/TesselDialect.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::graph_detail;

Type tessel::reductionAccumulator(Type element, bool sums, bool mean) {
  if (!sums)
    return element;
  MLIRContext *ctx = element.getContext();
  if (auto f = dyn_cast<FloatType>(element))
    return f.getWidth() < 32 ? Float32Type::get(ctx) : element;
  unsigned width = element.getIntOrFloatBitWidth();
  return IntegerType::get(ctx, mean || width > 32 ? 64 : 32);
}

/// The checks every reduction shares.
template <typename ReduceOp>
static LogicalResult verifyReduce(ReduceOp op, bool sums, bool mean) {
  RankedTensorType in = rankedType(op.getInput());
  Type element = in.getElementType();
  ArrayRef<int64_t> axes = op.getAxes();
  if (Value dynamic = op.getDynamicAxes()) {
    int64_t count = rankedType(dynamic).getDimSize(0);
    if (!axes.empty())
      return op.emitOpError("has both axes and dynamic_axes");
    if (ShapedType::isDynamic(count) || count < 1 || count > in.getRank())
      return op.emitOpError("dynamic_axes must have a static length in [1, ")
             << in.getRank() << "]";
    // Without keepdims, the importer squeezes the result (tessel.squeeze).
    if (!op.getKeepdims())
      return op.emitOpError("with dynamic_axes must keep the reduced dims");
    if (op.getType().getRank() != in.getRank())
      return op.emitOpError("result has rank ")
             << op.getType().getRank() << ", expected " << in.getRank();
  }
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= in.getRank())
      return op.emitOpError("axis ")
             << axis << " is out of range for rank " << in.getRank();
    if (i > 0 && axes[i - 1] >= axis)
      return op.emitOpError("axes must be sorted and unique");
  }
  if (element.isInteger(1))
    return op.emitOpError("cannot reduce bools");
  Type acc = op.getAccType();
  if (acc != reductionAccumulator(element, sums, mean))
    return op.emitOpError("accumulates in ")
           << acc << ", expected " << reductionAccumulator(element, sums, mean)
           << " for " << element;
  if (op.getDynamicAxes())
    return success(); // which dims the result keeps is known at run time
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (!llvm::is_contained(axes, d))
      expected.push_back(in.getDimSize(d));
    else if (op.getKeepdims())
      expected.push_back(1);
  }
  return checkShape(op, op.getType(), expected, "result");
}

LogicalResult ReduceSumOp::verify() { return verifyReduce(*this, true, false); }
LogicalResult ReduceProdOp::verify() {
  return verifyReduce(*this, true, false);
}
LogicalResult ReduceMeanOp::verify() { return verifyReduce(*this, true, true); }
LogicalResult ReduceMaxOp::verify() { return verifyReduce(*this, false, false); }
LogicalResult ReduceMinOp::verify() { return verifyReduce(*this, false, false); }

namespace {
enum class Combine { Sum, Prod, Max, Min };
} // namespace

/// The fold of a reduction of a small integer constant over static axes
/// (mean excepted): sums and products wrap in the accumulator's width and
/// truncate to the element type, as the kernels compute them.
template <typename ReduceOp>
static OpFoldResult foldIntegerReduce(ReduceOp op, Attribute input,
                                      Combine combine) {
  auto values = dyn_cast_or_null<DenseIntElementsAttr>(input);
  auto type = cast<RankedTensorType>(op.getType());
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  if (!values || op.getDynamicAxes() || !type.hasStaticShape() ||
      !inType.hasStaticShape() || inType.getNumElements() > 1024 ||
      !isa<IntegerType>(type.getElementType()))
    return {};
  unsigned width = type.getElementTypeBitWidth();
  unsigned accWidth =
      combine == Combine::Sum || combine == Combine::Prod
          ? std::max(width, op.getAccType().getIntOrFloatBitWidth())
          : width;
  bool isUnsigned = op.getIsUnsigned();
  ArrayRef<int64_t> shape = inType.getShape();
  SmallVector<bool> reduced(shape.size(), false);
  for (int64_t a : op.getAxes())
    reduced[a] = true;
  // The result element each input element reduces into (the kept dims'
  // row-major position).
  int64_t count = type.getNumElements();
  SmallVector<std::optional<APInt>> acc(count);
  SmallVector<int64_t> index(shape.size(), 0);
  for (const APInt &raw : values.getValues<APInt>()) {
    int64_t out = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d])
        out = out * shape[d] + index[d];
    APInt v = isUnsigned ? raw.zext(accWidth) : raw.sext(accWidth);
    std::optional<APInt> &a = acc[out];
    if (!a)
      a = v;
    else if (combine == Combine::Sum)
      *a += v;
    else if (combine == Combine::Prod)
      *a *= v;
    else if (combine == Combine::Max)
      a = (isUnsigned ? a->ult(v) : a->slt(v)) ? v : *a;
    else
      a = (isUnsigned ? a->ugt(v) : a->sgt(v)) ? v : *a;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  SmallVector<APInt> result;
  for (std::optional<APInt> &a : acc) {
    if (!a) // An empty reduction: its identity; max and min stay unfolded.
      switch (combine) {
      case Combine::Sum:
        a = APInt(accWidth, 0);
        break;
      case Combine::Prod:
        a = APInt(accWidth, 1);
        break;
      default:
        return {};
      }
    result.push_back(a->trunc(width));
  }
  return DenseElementsAttr::get(type, result);
}

OpFoldResult ReduceSumOp::fold(FoldAdaptor adaptor) {
  return foldIntegerReduce(*this, adaptor.getInput(), Combine::Sum);
}
OpFoldResult ReduceProdOp::fold(FoldAdaptor adaptor) {
  return foldIntegerReduce(*this, adaptor.getInput(), Combine::Prod);
}
OpFoldResult ReduceMaxOp::fold(FoldAdaptor adaptor) {
  return foldIntegerReduce(*this, adaptor.getInput(), Combine::Max);
}
OpFoldResult ReduceMinOp::fold(FoldAdaptor adaptor) {
  return foldIntegerReduce(*this, adaptor.getInput(), Combine::Min);
}
OpFoldResult ReduceMeanOp::fold(FoldAdaptor) { return {}; }

template <typename ArgOp> static LogicalResult verifyArgReduce(ArgOp op) {
  RankedTensorType in = rankedType(op.getInput());
  int64_t axis = op.getAxis();
  if (axis < 0 || axis >= in.getRank())
    return op.emitOpError("axis ")
           << axis << " is out of range for rank " << in.getRank();
  if (in.getElementType().isInteger(1))
    return op.emitOpError("cannot compare bools");
  SmallVector<int64_t> expected(in.getShape());
  if (op.getKeepdims())
    expected[axis] = 1;
  else
    expected.erase(expected.begin() + axis);
  return checkShape(op, op.getType(), expected, "result");
}

LogicalResult ArgMaxOp::verify() { return verifyArgReduce(*this); }
LogicalResult ArgMinOp::verify() { return verifyArgReduce(*this); }

LogicalResult LayerNormOp::verify() {
  RankedTensorType in = rankedType(getInput());
  int64_t rank = in.getRank(), axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  auto acc = dyn_cast<FloatType>(getAccType());
  if (!acc || acc.getWidth() < 32)
    return emitOpError("accumulates in ")
           << getAccType() << ", expected f32 or f64";
  for (Value v : {getScale(), getBias()}) {
    if (!v)
      continue;
    RankedTensorType t = rankedType(v);
    StringRef name = v == getScale() ? "scale" : "bias";
    if (t.getElementType() != in.getElementType())
      return emitOpError(name) << " has another element type than the input";
    if (t.getRank() > rank)
      return emitOpError(name) << " has rank " << t.getRank()
                               << ", more than the input's " << rank;
    for (int64_t j = 0; j < t.getRank(); ++j) {
      int64_t d = t.getDimSize(j), x = in.getDimSize(rank - t.getRank() + j);
      if (d != 1 && !runtimeChecked(d, x))
        return emitOpError(name) << " dim " << j << " is " << d
                                 << ", which does not broadcast to " << x;
    }
  }
  if (failed(checkShape(*this, rankedType(getResult()), in.getShape(),
                        "result")))
    return failure();
  if (rankedType(getResult()).getElementType() != in.getElementType())
    return emitOpError("result element type differs from the input's");
  SmallVector<int64_t> stats(in.getShape().take_front(axis));
  stats.append(rank - axis, 1);
  for (Value v : {getMean(), getInvStdDev()}) {
    if (failed(checkShape(*this, rankedType(v), stats,
                          v == getMean() ? "mean" : "inv_std_dev")))
      return failure();
    if (rankedType(v).getElementType() != acc)
      return emitOpError("mean and inv_std_dev must have type acc_type");
  }
  return success();
}
