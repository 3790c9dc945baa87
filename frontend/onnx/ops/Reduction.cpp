//===- Reduction.cpp - ReduceSum, ReduceMean, ReduceMax, ReduceMin ---------===//
//
// The axes are an attribute before ReduceSum-13 and the others' opset 18,
// and a constant input after (a run-time axes input is an error: the
// result's rank would depend on it). No axes (or an empty list) reduce
// every axis, unless noop_with_empty_axes makes the op an Identity. The op
// gets the accumulator type its kind and element type call for
// (reductionAccumulator).
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImportContext.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

namespace {

/// `axesInputSince`: the first opset that takes the axes as an input.
template <typename Op, int64_t axesInputSince, bool sums, bool mean>
LogicalResult importReduce(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  RankedTensorType xt = n.inputType(0);
  Type element = xt.getElementType();
  if (element.isInteger(1))
    return n.unsupported("reductions of bools are not supported");
  if (!element.isIntOrFloat())
    return n.error("unsupported element type");
  SmallVector<int64_t> axes;
  if (n.opset < axesInputSince) {
    axes = n.getInts("axes");
  } else if (n.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> a = n.constantInts(1, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  }
  if (axes.empty()) {
    // noop_with_empty_axes exists with the axes input.
    if (n.opset >= axesInputSince && n.getInt("noop_with_empty_axes", 0)) {
      n.setOutput(0, x);
      return success();
    }
    for (int64_t d = 0; d < xt.getRank(); ++d)
      axes.push_back(d);
  }
  for (int64_t &axis : axes)
    if (failed(n.normalizeAxis(axis, xt.getRank())))
      return failure();
  llvm::sort(axes);
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return n.error("an axis is repeated");
  bool keepdims = n.getInt("keepdims", 1) != 0;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < xt.getRank(); ++d) {
    if (!llvm::is_contained(axes, d))
      shape.push_back(xt.getDimSize(d));
    else if (keepdims)
      shape.push_back(1);
  }
  auto type = RankedTensorType::get(shape, element);
  auto op = Op::create(n.b, n.loc, type, x, axes, keepdims,
                       reductionAccumulator(element, sums, mean),
                       isUnsigned(n.inputOnnxType(0)));
  n.setOutput(0, op);
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
}
