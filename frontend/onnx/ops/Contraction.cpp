//===- Contraction.cpp - MatMul, Gemm, Conv --------------------------------===//
//
// Contractions: numpy matmul, Gemm with its transposes and scalars, and
// N-d convolution with explicit (or auto_pad-derived) pads.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImportContext.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

namespace {

LogicalResult importMatMul(NodeContext &n) {
  Value lhs = n.input(0), rhs = n.input(1);
  if (!lhs || !rhs)
    return failure();
  RankedTensorType a = n.inputType(0), b = n.inputType(1);
  if (a.getElementType() != b.getElementType())
    return n.error("operands have different element types");
  if (a.getRank() < 1 || b.getRank() < 1)
    return n.error("operands must have rank >= 1");
  SmallVector<int64_t> sa(a.getShape()), sb(b.getShape());
  bool vecA = sa.size() == 1, vecB = sb.size() == 1;
  if (vecA)
    sa.insert(sa.begin(), 1);
  if (vecB)
    sb.push_back(1);
  FailureOr<SmallVector<int64_t>> batch =
      broadcastShapes(ArrayRef(sa).drop_back(2), ArrayRef(sb).drop_back(2));
  if (failed(batch))
    return n.error("batch dims do not broadcast");
  int64_t k = sa.back(), k2 = sb[sb.size() - 2];
  if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(k2) && k != k2)
    return n.error("contraction dims differ: " + Twine(k) + " vs " + Twine(k2));
  SmallVector<int64_t> shape(*batch);
  if (!vecA)
    shape.push_back(sa[sa.size() - 2]);
  if (!vecB)
    shape.push_back(sb.back());
  auto type = RankedTensorType::get(shape, a.getElementType());
  n.setOutput(0, MatMulOp::create(n.b, n.loc, type, lhs, rhs, TypeAttr()));
  return success();
}

LogicalResult importGemm(NodeContext &n) {
  Value a = n.input(0), b = n.input(1);
  if (!a || !b)
    return failure();
  Value c = n.hasInput(2) ? n.input(2) : Value();
  if (n.hasInput(2) && !c)
    return failure();
  RankedTensorType at = n.inputType(0), bt = n.inputType(1);
  if (at.getRank() != 2 || bt.getRank() != 2)
    return n.error("A and B must be matrices");
  if (!isa<FloatType>(at.getElementType()))
    return n.error("expects floating-point operands");
  bool transA = n.getInt("transA", 0), transB = n.getInt("transB", 0);
  int64_t m = at.getDimSize(transA ? 1 : 0), nn = bt.getDimSize(transB ? 0 : 1);
  auto type = RankedTensorType::get({m, nn}, at.getElementType());
  n.setOutput(0,
              GemmOp::create(n.b, n.loc, type, a, b, c,
                             n.b.getF32FloatAttr(n.getFloat("alpha", 1.0f)),
                             n.b.getF32FloatAttr(n.getFloat("beta", 1.0f)),
                             n.b.getBoolAttr(transA), n.b.getBoolAttr(transB),
                             TypeAttr()));
  return success();
}

LogicalResult importConv(NodeContext &n) {
  Value x = n.input(0), w = n.input(1);
  if (!x || !w)
    return failure();
  Value bias = n.hasInput(2) ? n.input(2) : Value();
  if (n.hasInput(2) && !bias)
    return failure();
  RankedTensorType xt = n.inputType(0), wt = n.inputType(1);
  if (xt.getRank() < 3 || wt.getRank() != xt.getRank())
    return n.error("input and weight must have the same rank >= 3");
  // Integer operands only in the bodies of ConvInteger and QLinearConv
  // (QuantizationBodies.cpp): an ONNX Conv is a float op.
  bool integerBody = llvm::any_of(n.expandedFrom, [](const std::string &op) {
    return op == "ConvInteger" || op == "QLinearConv";
  });
  if (!isa<FloatType>(xt.getElementType()) &&
      !(integerBody && xt.getElementType().isInteger(32)))
    return n.error("expects floating-point operands");
  int64_t spatial = xt.getRank() - 2;
  SmallVector<int64_t> kernel(wt.getShape().begin() + 2, wt.getShape().end());
  if (n.attr("kernel_shape") && n.getInts("kernel_shape") != kernel)
    return n.error("kernel_shape differs from the weight's spatial dims");
  SmallVector<int64_t> strides = n.getInts("strides"),
                       dilations = n.getInts("dilations");
  if (strides.empty())
    strides.assign(spatial, 1);
  if (dilations.empty())
    dilations.assign(spatial, 1);
  if (static_cast<int64_t>(strides.size()) != spatial ||
      static_cast<int64_t>(dilations.size()) != spatial)
    return n.error("strides and dilations need " + Twine(spatial) + " values");
  SmallVector<int64_t> inSpatial(xt.getShape().drop_front(2));
  FailureOr<SmallVector<int64_t>> pads =
      windowPads(n, inSpatial, kernel, strides, dilations);
  if (failed(pads))
    return failure();
  SmallVector<int64_t> shape = {xt.getDimSize(0), wt.getDimSize(0)};
  for (int64_t i = 0; i < spatial; ++i)
    shape.push_back(windowOutputSize(
        inSpatial[i], wt.getDimSize(2 + i), strides[i], (*pads)[i],
        (*pads)[spatial + i], dilations[i], false));
  auto type = RankedTensorType::get(shape, xt.getElementType());
  n.setOutput(0, ConvOp::create(n.b, n.loc, type, x, w, bias,
                                n.b.getDenseI64ArrayAttr(strides),
                                n.b.getDenseI64ArrayAttr(*pads),
                                n.b.getDenseI64ArrayAttr(dilations),
                                n.b.getI64IntegerAttr(n.getInt("group", 1)),
                                TypeAttr(), /*filters_last=*/UnitAttr(),
                                /*input_unsigned=*/UnitAttr(),
                                /*input_zero_point=*/IntegerAttr()));
  return success();
}

} // namespace

void onnx_import::registerContractionOps(OpRegistry &r) {
  r.add("MatMul", 1, importMatMul);
  // Gemm before 7 broadcasts C only with the legacy `broadcast` attribute;
  // C is optional since 11 (an absent C reads as no C at every version).
  r.add("Gemm", 7, importGemm);
  r.add("Conv", 1, importConv);
}
