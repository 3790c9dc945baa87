//===- Normalization.cpp - BatchNormalization, LayerNormalization, Softmax -===//

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

/// LayerNormalization-17 as one op (its function body would be a dozen
/// kernels): statistics over the dims from `axis` on, in stash_type (only
/// float is supported); Mean and InvStdDev are results of the op.
LogicalResult importLayerNorm(NodeContext &n) {
  Value x = n.input(0), scale = x ? n.input(1) : Value();
  if (!scale)
    return failure();
  Value bias;
  if (n.hasInput(2) && !(bias = n.input(2)))
    return failure();
  RankedTensorType xt = n.inputType(0);
  if (!isa<FloatType>(xt.getElementType()))
    return n.error("expects a floating-point input");
  int64_t rank = xt.getRank(), axis = n.getInt("axis", -1);
  if (failed(n.normalizeAxis(axis, rank)))
    return failure();
  int64_t stash = n.getInt("stash_type", onnx::TensorProto::FLOAT);
  if (stash != onnx::TensorProto::FLOAT)
    return n.unsupported("stash_type " + Twine(stash) +
                         " is not supported (only 1, float)");
  for (int i = 1; i <= 2; ++i) {
    if (i == 2 && !bias)
      continue;
    RankedTensorType t = n.inputType(i);
    if (t.getElementType() != xt.getElementType())
      return n.error(Twine(i == 1 ? "Scale" : "B") +
                     " must have the input's element type");
    // Scale and B multiply and add to X's shape (ONNX's function body).
    if (t.getRank() > rank ||
        failed(broadcastShapes(xt.getShape(), t.getShape())))
      return n.error(Twine(i == 1 ? "Scale" : "B") +
                     " does not broadcast to the input's shape");
  }
  Type acc = n.b.getF32Type();
  SmallVector<int64_t> stats(xt.getShape().take_front(axis));
  stats.append(rank - axis, 1);
  auto statType = RankedTensorType::get(stats, acc);
  auto op = LayerNormOp::create(
      n.b, n.loc, TypeRange{xt, statType, statType}, x, scale, bias, axis,
      llvm::APFloat(n.getFloat("epsilon", 1e-5f)), acc);
  n.setOutput(0, op.getResult());
  n.setOutput(1, op.getMean(), onnx::TensorProto::FLOAT);
  n.setOutput(2, op.getInvStdDev(), onnx::TensorProto::FLOAT);
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
  r.add("LayerNormalization", 17, importLayerNorm);
  r.add("Softmax", 1, importSoftmax2D, /*last=*/12);
  r.add("Softmax", 13, importSoftmaxAxis);
}
