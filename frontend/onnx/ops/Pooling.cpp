//===- Pooling.cpp - MaxPool, AveragePool, GlobalAveragePool ---------------===//

#include "frontend/onnx/ImportContext.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

namespace {

/// The window attributes of a pooling node, normalized.
struct PoolWindow {
  SmallVector<int64_t> kernel, strides, pads, dilations, shape;
  bool ceil = false;
};

FailureOr<PoolWindow> poolWindow(NodeContext &n, bool allowIntegers) {
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() < 3)
    return n.error("input must have rank >= 3");
  Type element = xt.getElementType();
  if (!isa<FloatType>(element) &&
      !(allowIntegers && element.isSignlessInteger() && !element.isInteger(1)))
    return n.error(allowIntegers ? "expects a numeric input"
                                 : "expects a floating-point input");
  int64_t spatial = xt.getRank() - 2;
  PoolWindow w;
  w.kernel = n.getInts("kernel_shape");
  if (static_cast<int64_t>(w.kernel.size()) != spatial)
    return n.error("kernel_shape needs " + Twine(spatial) + " values");
  w.strides = n.getInts("strides");
  w.dilations = n.getInts("dilations");
  if (w.strides.empty())
    w.strides.assign(spatial, 1);
  if (w.dilations.empty())
    w.dilations.assign(spatial, 1);
  if (static_cast<int64_t>(w.strides.size()) != spatial ||
      static_cast<int64_t>(w.dilations.size()) != spatial)
    return n.error("strides and dilations need " + Twine(spatial) + " values");
  w.ceil = n.getInt("ceil_mode", 0) != 0;
  SmallVector<int64_t> in(xt.getShape().drop_front(2));
  FailureOr<SmallVector<int64_t>> pads =
      windowPads(n, in, w.kernel, w.strides, w.dilations);
  if (failed(pads))
    return failure();
  w.pads = *pads;
  w.shape = {xt.getDimSize(0), xt.getDimSize(1)};
  for (int64_t i = 0; i < spatial; ++i)
    w.shape.push_back(windowOutputSize(in[i], w.kernel[i], w.strides[i],
                                       w.pads[i], w.pads[spatial + i],
                                       w.dilations[i], w.ceil));
  return w;
}

LogicalResult importMaxPool(NodeContext &n) {
  if (!n.input(0))
    return failure();
  bool withIndices = n.node.output_size() > 1 && !n.node.output(1).empty();
  FailureOr<PoolWindow> w = poolWindow(n, /*allowIntegers=*/true);
  if (failed(w))
    return failure();
  auto type = RankedTensorType::get(w->shape, n.inputType(0).getElementType());
  bool isUnsignedInput = isUnsigned(n.inputOnnxType(0));
  if (withIndices) {
    auto indicesType = RankedTensorType::get(w->shape, n.b.getI64Type());
    auto pool = MaxPoolWithIndicesOp::create(
        n.b, n.loc, type, indicesType, n.input(0),
        n.b.getDenseI64ArrayAttr(w->kernel),
        n.b.getDenseI64ArrayAttr(w->strides), n.b.getDenseI64ArrayAttr(w->pads),
        n.b.getDenseI64ArrayAttr(w->dilations), n.b.getBoolAttr(w->ceil),
        isUnsignedInput ? n.b.getUnitAttr() : UnitAttr(),
        n.getInt("storage_order", 0) ? n.b.getUnitAttr() : UnitAttr());
    n.setOutput(0, pool.getResult());
    n.setOutput(1, pool.getIndices(), onnx::TensorProto::INT64);
    return success();
  }
  auto pool = MaxPoolOp::create(
      n.b, n.loc, type, n.input(0), n.b.getDenseI64ArrayAttr(w->kernel),
      n.b.getDenseI64ArrayAttr(w->strides), n.b.getDenseI64ArrayAttr(w->pads),
      n.b.getDenseI64ArrayAttr(w->dilations), n.b.getBoolAttr(w->ceil));
  pool.setIsUnsigned(isUnsignedInput);
  n.setOutput(0, pool);
  return success();
}

LogicalResult importAveragePool(NodeContext &n) {
  if (!n.input(0))
    return failure();
  FailureOr<PoolWindow> w = poolWindow(n, /*allowIntegers=*/false);
  if (failed(w))
    return failure();
  auto type = RankedTensorType::get(w->shape, n.inputType(0).getElementType());
  n.setOutput(
      0, AveragePoolOp::create(
             n.b, n.loc, type, n.input(0), n.b.getDenseI64ArrayAttr(w->kernel),
             n.b.getDenseI64ArrayAttr(w->strides),
             n.b.getDenseI64ArrayAttr(w->pads),
             n.b.getDenseI64ArrayAttr(w->dilations), n.b.getBoolAttr(w->ceil),
             n.b.getBoolAttr(n.getInt("count_include_pad", 0) != 0)));
  return success();
}

LogicalResult importGlobalAveragePool(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() < 3 || !isa<FloatType>(xt.getElementType()))
    return n.error("expects a floating-point input of rank >= 3");
  SmallVector<int64_t> shape(xt.getShape());
  std::fill(shape.begin() + 2, shape.end(), 1);
  auto type = RankedTensorType::get(shape, xt.getElementType());
  n.setOutput(0, GlobalAveragePoolOp::create(n.b, n.loc, type, x));
  return success();
}

} // namespace

void onnx_import::registerPoolingOps(OpRegistry &r) {
  // Later versions add attributes (Indices and storage_order at 8,
  // ceil_mode and dilations at 10) whose defaults are the earlier behavior.
  r.add("MaxPool", 1, importMaxPool);
  r.add("AveragePool", 1, importAveragePool);
  r.add("GlobalAveragePool", 1, importGlobalAveragePool);
}
