//===- Normalization.cpp - BatchNormalization, Softmax ---------------------===//

#include "frontend/onnx/ImportContext.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

namespace {

LogicalResult importBatchNorm(NodeContext &n) {
  bool training = n.getInt("training_mode", 0) != 0;
  for (int i = 1; i < n.node.output_size() && !training; ++i)
    if (!n.node.output(i).empty())
      return n.error("running mean/var outputs need training_mode=1");
  SmallVector<Value> in;
  for (int i = 0; i < 5; ++i) {
    in.push_back(n.input(i));
    if (!in.back())
      return failure();
  }
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() < 2 || !isa<FloatType>(xt.getElementType()))
    return n.error("expects a floating-point input of rank >= 2");
  for (int i = 1; i < 5; ++i)
    if (n.inputType(i).getRank() != 1 ||
        n.inputType(i).getElementType() != xt.getElementType())
      return n.error("scale, bias, mean and variance must be vectors of the "
                     "input's element type");
  if (training) {
    auto vector = n.inputType(3);
    auto op = BatchNormTrainingOp::create(
        n.b, n.loc, TypeRange{xt, vector, vector}, in[0], in[1], in[2], in[3],
        in[4], n.b.getF32FloatAttr(n.getFloat("epsilon", 1e-5f)),
        n.b.getF32FloatAttr(n.getFloat("momentum", 0.9f)));
    for (int i = 0; i < 3; ++i)
      n.setOutput(i, op->getResult(i));
    return success();
  }
  n.setOutput(0, BatchNormOp::create(
                     n.b, n.loc, xt, in[0], in[1], in[2], in[3], in[4],
                     n.b.getF32FloatAttr(n.getFloat("epsilon", 1e-5f))));
  return success();
}

/// The float input and its normalized `axis` (default `dflt`), or failure.
FailureOr<int64_t> softmaxAxis(NodeContext &n, int64_t dflt) {
  if (!n.input(0))
    return failure();
  RankedTensorType xt = n.inputType(0);
  if (!isa<FloatType>(xt.getElementType()))
    return n.error("expects a floating-point input");
  int64_t rank = xt.getRank();
  int64_t axis = n.getInt("axis", dflt);
  if (axis < -rank || axis >= rank || rank == 0)
    return n.error("axis " + Twine(axis) + " is out of range for rank " +
                   Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

/// Softmax-13: over one axis (default the last).
LogicalResult importSoftmaxAxis(NodeContext &n) {
  FailureOr<int64_t> axis = softmaxAxis(n, -1);
  if (failed(axis))
    return failure();
  n.setOutput(0, SoftmaxOp::create(n.b, n.loc, n.input(0), *axis));
  return success();
}

/// Softmax-1/11: over the input coerced to 2-D at `axis` (default 1).
LogicalResult importSoftmax2D(NodeContext &n) {
  FailureOr<int64_t> axisOr = softmaxAxis(n, 1);
  if (failed(axisOr))
    return failure();
  Value x = n.input(0);
  RankedTensorType xt = n.inputType(0);
  int64_t axis = *axisOr, rank = xt.getRank();
  if (axis == rank - 1) {
    n.setOutput(0, SoftmaxOp::create(n.b, n.loc, x, axis));
    return success();
  }
  int64_t outer = productOfDims(xt.getShape().take_front(axis));
  int64_t inner = productOfDims(xt.getShape().drop_front(axis));
  if (ShapedType::isDynamic(inner))
    return n.error("softmax over a dynamic dim is not supported");
  auto flat = RankedTensorType::get({outer, inner}, xt.getElementType());
  Value reshaped = ReshapeOp::create(n.b, n.loc, flat, x);
  Value soft = SoftmaxOp::create(n.b, n.loc, reshaped, 1);
  n.setOutput(0, ReshapeOp::create(n.b, n.loc, xt, soft));
  return success();
}

} // namespace

void onnx_import::registerNormalizationOps(OpRegistry &r) {
  // Before 9, `spatial` (and before 7, `is_test`) change the semantics.
  r.add("BatchNormalization", 9, importBatchNorm);
  r.add("Softmax", 1, importSoftmax2D, /*last=*/12);
  r.add("Softmax", 13, importSoftmaxAxis);
}
