//===- Reduction.cpp - The Reduce* family ----------------------------------===//
//
// The axes are an attribute before ReduceSum-13 and the others' opset 18,
// and an input after. A constant input is normalized here like the
// attribute; one known only at run time (a graph input, say) must have a
// static length K, and becomes the op's `dynamic_axes` operand: the plan
// reads its values. No axes (or an empty list) reduce every axis, unless
// noop_with_empty_axes makes the reduction an Identity. The op gets the
// accumulator type its kind and element type call for
// (reductionAccumulator).
//
// ReduceSum, ReduceProd, ReduceMean, ReduceMax and ReduceMin are ops of
// their own. The others are ONNX's function bodies of them, built here
// because their bodies arrive with opset 18: ReduceL1 sums |x|,
// ReduceSumSquare and ReduceL2 sum x * x (L2 then takes the square root),
// ReduceLogSum takes the log of the sum, ReduceLogSumExp of the sum of exp.
// Their element-wise parts fuse with the reduction.
//
// ArgMax and ArgMin, the position of the extreme along one axis.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImportContext.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

namespace {

/// Which axes a node reduces.
struct Axes {
  SmallVector<int64_t> list; ///< normalized, sorted and unique
  Value dynamic;             ///< or a run-time 1-D int64 tensor of them
  bool identity = false;     ///< noop_with_empty_axes with no axes
};

/// `axesInputSince`: the first opset that takes the axes as an input.
FailureOr<Axes> reductionAxes(NodeContext &n, int64_t axesInputSince,
                              int64_t rank) {
  Axes axes;
  if (n.opset < axesInputSince) {
    axes.list = n.getInts("axes");
  } else if (n.hasInput(1) && n.constantInput(1)) {
    FailureOr<SmallVector<int64_t>> a = n.constantInts(1, "axes");
    if (failed(a))
      return failure();
    axes.list = *a;
  } else if (n.hasInput(1)) {
    Value v = n.input(1);
    if (!v)
      return failure();
    RankedTensorType t = n.inputType(1);
    if (n.inputOnnxType(1) != onnx::TensorProto::INT64)
      return n.error("axes must be an int64 tensor");
    if (t.getRank() != 1 || t.isDynamicDim(0))
      return n.error("axes known only at run time must be a 1-D tensor of "
                     "static length (the number of reduced axes)");
    if (t.getDimSize(0) > rank)
      return n.error("there are " + std::to_string(t.getDimSize(0)) +
                     " axes for a rank-" + std::to_string(rank) + " input");
    // An empty axes tensor has no values to read: the axes are known.
    if (t.getDimSize(0) > 0) {
      axes.dynamic = v;
      return axes;
    }
  }
  if (axes.list.empty()) {
    // noop_with_empty_axes exists with the axes input.
    if (n.opset >= axesInputSince && n.getInt("noop_with_empty_axes", 0)) {
      axes.identity = true;
      return axes;
    }
    for (int64_t d = 0; d < rank; ++d)
      axes.list.push_back(d);
  }
  for (int64_t &axis : axes.list)
    if (failed(n.normalizeAxis(axis, rank)))
      return failure();
  llvm::sort(axes.list);
  if (std::adjacent_find(axes.list.begin(), axes.list.end()) !=
      axes.list.end())
    return n.error("an axis is repeated");
  return axes;
}

/// A reduction `Op` of `x` over `axes`. Run-time axes reduce with keepdims
/// in the accumulator's type (casts around it where that is wider) and
/// squeeze the reduced dims after where ONNX drops them.
template <typename Op>
Value reduce(NodeContext &n, Value x, const Axes &axes, bool sums,
             bool mean) {
  if (axes.identity)
    return x;
  auto xt = cast<RankedTensorType>(x.getType());
  Type element = xt.getElementType();
  Type acc = reductionAccumulator(element, sums, mean);
  bool keepdims = n.getInt("keepdims", 1) != 0;
  // Bools reduce as unsigned bytes (their max is any, their min all).
  bool unsignedInt = isUnsigned(n.inputOnnxType(0)) ||
                     n.inputOnnxType(0) == onnx::TensorProto::BOOL;
  if (!axes.dynamic) {
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < xt.getRank(); ++d) {
      if (!llvm::is_contained(axes.list, d))
        shape.push_back(xt.getDimSize(d));
      else if (keepdims)
        shape.push_back(1);
    }
    return Op::create(n.b, n.loc, RankedTensorType::get(shape, element), x,
                      Value(), axes.list, keepdims, acc, unsignedInt)
        .getResult();
  }
  // A static 1 stays 1 whether or not it is reduced.
  SmallVector<int64_t> shape;
  for (int64_t extent : xt.getShape())
    shape.push_back(extent == 1 ? 1 : ShapedType::kDynamic);
  if (acc != element)
    x = CastOp::create(n.b, n.loc, xt.clone(acc), x, unsignedInt, unsignedInt);
  Value result = Op::create(n.b, n.loc, RankedTensorType::get(shape, acc), x,
                            axes.dynamic, ArrayRef<int64_t>{}, true, acc,
                            unsignedInt);
  if (acc != element)
    result = CastOp::create(n.b, n.loc, RankedTensorType::get(shape, element),
                            result, unsignedInt, unsignedInt);
  if (keepdims)
    return result;
  int64_t count =
      cast<RankedTensorType>(axes.dynamic.getType()).getDimSize(0);
  auto squeezed = RankedTensorType::get(
      SmallVector<int64_t>(xt.getRank() - count, ShapedType::kDynamic),
      element);
  return SqueezeOp::create(n.b, n.loc, squeezed, result, axes.dynamic);
}

/// The element-wise parts of the reductions ONNX defines as functions.
enum class Before { None, Abs, Square, Exp };
enum class After { None, Sqrt, Log };

template <typename Op, int64_t axesInputSince, bool sums, bool mean,
          Before before = Before::None, After after = After::None>
LogicalResult importReduce(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  RankedTensorType xt = n.inputType(0);
  Type element = xt.getElementType();
  constexpr bool extremum =
      std::is_same_v<Op, ReduceMaxOp> || std::is_same_v<Op, ReduceMinOp>;
  if (element.isInteger(1) && (!extremum || before != Before::None))
    return n.unsupported("reductions of bools other than ReduceMax and "
                         "ReduceMin are not supported");
  if (element.isInteger(1)) {
    // ReduceMax (any) and ReduceMin (all) of bools (opset 20): of their
    // bytes, unsigned, so that an empty reduction gives false / true.
    RankedTensorType bytes = xt.clone(n.b.getI8Type());
    Value wide = CastOp::create(n.b, n.loc, bytes, x, false, true);
    FailureOr<Axes> axes = reductionAxes(n, axesInputSince, xt.getRank());
    if (failed(axes))
      return failure();
    Value r = reduce<Op>(n, wide, *axes, false, false);
    auto rt = cast<RankedTensorType>(r.getType());
    n.setOutput(0, CastOp::create(n.b, n.loc, rt.clone(n.b.getI1Type()), r,
                                  true, false));
    return success();
  }
  if (!element.isIntOrFloat())
    return n.error("unsupported element type");
  if ((before == Before::Exp || after != After::None) && !isa<FloatType>(element))
    return n.unsupported("this reduction of integers is not supported");
  FailureOr<Axes> axes = reductionAxes(n, axesInputSince, xt.getRank());
  if (failed(axes))
    return failure();
  switch (before) {
  case Before::None:
    break;
  case Before::Abs:
    x = AbsOp::create(n.b, n.loc, xt, x);
    break;
  case Before::Square:
    x = MulOp::create(n.b, n.loc, xt, x, x);
    break;
  case Before::Exp:
    x = ExpOp::create(n.b, n.loc, xt, x);
    break;
  }
  Value result = reduce<Op>(n, x, *axes, sums, mean);
  auto type = cast<RankedTensorType>(result.getType());
  switch (after) {
  case After::None:
    break;
  case After::Sqrt:
    result = SqrtOp::create(n.b, n.loc, type, result);
    break;
  case After::Log:
    result = LogOp::create(n.b, n.loc, type, result);
    break;
  }
  n.setOutput(0, result);
  return success();
}

/// ArgMax/ArgMin: `axis` (default 0), `keepdims` (default 1) and, from
/// opset 12, `select_last_index`.
template <typename Op> LogicalResult importArgReduce(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  RankedTensorType xt = n.inputType(0);
  Type element = xt.getElementType();
  if (element.isInteger(1) || !element.isIntOrFloat())
    return n.error("unsupported element type");
  int64_t axis = n.getInt("axis", 0);
  if (failed(n.normalizeAxis(axis, xt.getRank())))
    return failure();
  bool keepdims = n.getInt("keepdims", 1) != 0;
  SmallVector<int64_t> shape(xt.getShape());
  if (keepdims)
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  auto type = RankedTensorType::get(shape, n.b.getI64Type());
  n.setOutput(0,
              Op::create(n.b, n.loc, type, x, axis, keepdims,
                         n.getInt("select_last_index", 0) != 0,
                         isUnsigned(n.inputOnnxType(0))),
              onnx::TensorProto::INT64);
  return success();
}

} // namespace

void onnx_import::registerReductionOps(OpRegistry &r) {
  // ReduceSum-13 and the others' 18 move the axes into an input and add
  // noop_with_empty_axes; the versions between only add element types.
  r.add("ReduceSum", 1, importReduce<ReduceSumOp, 13, true, false>);
  r.add("ReduceMean", 1, importReduce<ReduceMeanOp, 18, true, true>);
  r.add("ReduceMax", 1, importReduce<ReduceMaxOp, 18, false, false>);
  r.add("ReduceMin", 1, importReduce<ReduceMinOp, 18, false, false>);
  r.add("ReduceProd", 1, importReduce<ReduceProdOp, 18, true, false>);
  r.add("ReduceL1", 1,
        importReduce<ReduceSumOp, 18, true, false, Before::Abs>);
  r.add("ReduceSumSquare", 1,
        importReduce<ReduceSumOp, 18, true, false, Before::Square>);
  r.add("ReduceL2", 1,
        importReduce<ReduceSumOp, 18, true, false, Before::Square,
                     After::Sqrt>);
  r.add("ReduceLogSum", 1,
        importReduce<ReduceSumOp, 18, true, false, Before::None, After::Log>);
  r.add("ReduceLogSumExp", 1,
        importReduce<ReduceSumOp, 18, true, false, Before::Exp, After::Log>);
  // ArgMax/ArgMin-12 add select_last_index (0 before); 13 adds bfloat16.
  r.add("ArgMax", 1, importArgReduce<ArgMaxOp>);
  r.add("ArgMin", 1, importArgReduce<ArgMinOp>);
}
