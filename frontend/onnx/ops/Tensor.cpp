//===- Tensor.cpp - Reshape, Flatten, Transpose, Concat, Constant, Identity ===//
//
// Shape and data-movement ops. A Reshape whose target shape is a constant
// (an initializer or a Constant node) gets its result type here; any other
// target shape becomes an operand whose values the runtime reads, and the
// result dims are static where the target's elements are known (constants
// and static dims flowing through Shape, Gather, Concat, Add/Sub/Mul).
// Flatten is a reshape. Trilu keeps a triangle of the last two dims.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImportContext.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

namespace {

/// A Reshape whose target shape is known only at run time: the shape is an
/// operand (its length is the result's rank); a result dim is static where
/// the importer proves it (SymbolicShapes: a constant element, a 0 copying
/// a static input dim, or a -1 whose quotient of extents is a constant,
/// such as (b·116·784)/(b·784)), dynamic otherwise.
LogicalResult importRuntimeReshape(NodeContext &n, Value x, Value shape,
                                   bool allowZero) {
  if (n.inputOnnxType(1) != onnx::TensorProto::INT64)
    return n.error("the target shape must be an int64 tensor");
  RankedTensorType st = n.inputType(1);
  if (st.getRank() != 1)
    return n.error("the target shape must be 1-D, got rank " +
                   Twine(st.getRank()));
  if (st.isDynamicDim(0))
    return n.error("the target shape must have a static length (the rank of "
                   "the result)");
  RankedTensorType xt = n.inputType(0);
  SmallVector<int64_t> dims(st.getDimSize(0), ShapedType::kDynamic);
  auto reshape = ReshapeOp::create(
      n.b, n.loc, RankedTensorType::get(dims, xt.getElementType()), x, shape,
      allowZero);
  for (auto [i, e] : llvm::enumerate(n.ctx.shapes.dims(reshape))) {
    std::optional<int64_t> c = e.asConstant();
    if (c && *c < 0)
      return n.error("the target shape makes dim " + Twine(i) + " " +
                     Twine(*c));
    if (c)
      dims[i] = *c;
  }
  reshape.getResult().setType(RankedTensorType::get(dims, xt.getElementType()));
  n.setOutput(0, reshape);
  return success();
}

LogicalResult importReshape(NodeContext &n) {
  Value x = n.input(0), targetShape = x ? n.input(1) : Value();
  if (!targetShape)
    return failure();
  // allowzero (a 0 is a 0, not a copy) exists since Reshape-14.
  bool allowZero = n.opset >= 14 && n.getInt("allowzero", 0) != 0;
  if (!n.constantInput(1))
    return importRuntimeReshape(n, x, targetShape, allowZero);
  FailureOr<SmallVector<int64_t>> target = n.constantInts(1, "shape");
  if (failed(target))
    return failure();
  RankedTensorType xt = n.inputType(0);
  // 0 copies the input dim (unless allowzero); -1 takes what is left. Copied
  // dims cancel out of the element count, so -1 is static whenever every
  // dynamic input dim is copied in place.
  SmallVector<int64_t> shape;
  SmallVector<bool> copied(xt.getRank(), false);
  int64_t inferred = -1, outRest = 1;
  for (auto [i, d] : llvm::enumerate(*target)) {
    if (d == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= xt.getRank())
        return n.error("shape copies dim " + Twine(i) + " of a rank-" +
                       Twine(xt.getRank()) + " input");
      shape.push_back(xt.getDimSize(i));
      copied[i] = true;
      continue;
    }
    if (d == -1) {
      if (inferred >= 0)
        return n.error("shape has more than one -1");
      inferred = i;
    } else if (d < 0) {
      return n.error("invalid shape entry " + Twine(d));
    } else {
      outRest *= d;
    }
    shape.push_back(d);
  }
  int64_t inRest = 1;
  bool dynamicRest = false;
  for (int64_t i = 0; i < xt.getRank(); ++i) {
    if (copied[i])
      continue;
    if (xt.isDynamicDim(i))
      dynamicRest = true;
    else
      inRest *= xt.getDimSize(i);
  }
  if (inferred >= 0) {
    if (dynamicRest)
      shape[inferred] = ShapedType::kDynamic;
    else if (outRest == 0 || inRest % outRest)
      return n.error("cannot infer the -1 entry: " + Twine(inRest) +
                     " elements do not divide by " + Twine(outRest));
    else
      shape[inferred] = inRest / outRest;
  }
  auto type = RankedTensorType::get(shape, xt.getElementType());
  if (xt.hasStaticShape() && xt.getNumElements() != type.getNumElements())
    return n.error("cannot reshape " + Twine(xt.getNumElements()) +
                   " elements into " + Twine(type.getNumElements()));
  // Several dynamic dims (copies of the input's): only the target's values
  // say which is which, so the plan reads them as a run-time target.
  if (type.getNumDynamicDims() > 1)
    return importRuntimeReshape(n, x, targetShape, allowZero);
  n.setOutput(0, ReshapeOp::create(n.b, n.loc, type, x));
  return success();
}

LogicalResult importFlatten(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank(), axis = n.getInt("axis", 1);
  if (axis < -rank || axis > rank)
    return n.error("axis " + Twine(axis) + " is out of range");
  if (axis < 0)
    axis += rank;
  int64_t outer = productOfDims(xt.getShape().take_front(axis));
  int64_t inner = productOfDims(xt.getShape().drop_front(axis));
  if (ShapedType::isDynamic(inner) && ShapedType::isDynamic(outer))
    return n.error("flatten of two dynamic groups of dims");
  auto type = RankedTensorType::get({outer, inner}, xt.getElementType());
  n.setOutput(0, ReshapeOp::create(n.b, n.loc, type, x));
  return success();
}

LogicalResult importTranspose(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  RankedTensorType xt = n.inputType(0);
  SmallVector<int64_t> perm = n.getInts("perm");
  if (perm.empty())
    for (int64_t i = xt.getRank() - 1; i >= 0; --i)
      perm.push_back(i);
  if (static_cast<int64_t>(perm.size()) != xt.getRank())
    return n.error("perm has " + Twine(perm.size()) + " entries for rank " +
                   Twine(xt.getRank()));
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= xt.getRank())
      return n.error("perm entry " + Twine(p) + " is out of range");
    shape.push_back(xt.getDimSize(p));
  }
  auto type = RankedTensorType::get(shape, xt.getElementType());
  n.setOutput(0, TransposeOp::create(n.b, n.loc, type, x, perm));
  return success();
}

LogicalResult importConcat(NodeContext &n) {
  SmallVector<Value> inputs;
  for (int i = 0; i < n.numInputs(); ++i) {
    inputs.push_back(n.input(i));
    if (!inputs.back())
      return failure();
  }
  if (inputs.empty())
    return n.error("needs at least one input");
  RankedTensorType first = n.inputType(0);
  int64_t rank = first.getRank(), axis = n.getInt("axis", 0);
  if (axis < -rank || axis >= rank)
    return n.error("axis " + Twine(axis) + " is out of range");
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (int i = 0; i < n.numInputs(); ++i) {
    RankedTensorType t = n.inputType(i);
    if (t.getRank() != rank || t.getElementType() != first.getElementType())
      return n.error("inputs differ in rank or element type");
    int64_t d = t.getDimSize(axis);
    shape[axis] = ShapedType::isDynamic(d) || ShapedType::isDynamic(shape[axis])
                      ? ShapedType::kDynamic
                      : shape[axis] + d;
  }
  auto type = RankedTensorType::get(shape, first.getElementType());
  n.setOutput(0, ConcatOp::create(n.b, n.loc, type, inputs, axis));
  return success();
}

LogicalResult importConstant(NodeContext &n) {
  Builder &b = n.b;
  DenseElementsAttr value;
  auto f32 = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, b.getF32Type());
  };
  auto i64 = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, b.getI64Type());
  };
  int32_t onnxType = onnx::TensorProto::FLOAT;
  if (const onnx::AttributeProto *a = n.attr("value")) {
    FailureOr<DenseElementsAttr> t = n.ctx.tensorAttr(a->t(), n.loc);
    if (failed(t))
      return failure();
    value = *t;
    onnxType = a->t().data_type();
  } else if (const onnx::AttributeProto *a = n.attr("value_float")) {
    value = DenseElementsAttr::get(f32({}), a->f());
  } else if (const onnx::AttributeProto *a = n.attr("value_floats")) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    value = DenseElementsAttr::get(f32({(int64_t)v.size()}), ArrayRef(v));
  } else if (const onnx::AttributeProto *a = n.attr("value_int")) {
    value = DenseElementsAttr::get(i64({}), a->i());
    onnxType = onnx::TensorProto::INT64;
  } else if (const onnx::AttributeProto *a = n.attr("value_ints")) {
    SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
    value = DenseElementsAttr::get(i64({(int64_t)v.size()}), ArrayRef(v));
    onnxType = onnx::TensorProto::INT64;
  } else {
    return n.error("only value, value_float(s) and value_int(s) constants are "
                   "supported");
  }
  n.setOutput(0, ConstantOp::create(n.b, n.loc, value), onnxType);
  return success();
}

LogicalResult importIdentity(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  n.setOutput(0, IdentityOp::create(n.b, n.loc, x));
  return success();
}

/// Trilu-14: `upper` (default 1) and an optional 0-D int64 k, which the
/// kernel reads (it may be a graph input).
LogicalResult importTrilu(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  RankedTensorType xt = n.inputType(0);
  if (xt.getRank() < 2)
    return n.error("the input must have rank 2 or more");
  Value k;
  if (n.hasInput(1)) {
    k = n.input(1);
    if (!k)
      return failure();
    if (n.inputOnnxType(1) != onnx::TensorProto::INT64 ||
        n.inputType(1).getRank() != 0)
      return n.error("k must be a 0-D int64 tensor");
  }
  n.setOutput(0, TriluOp::create(n.b, n.loc, xt, x, k,
                                 n.getInt("upper", 1) != 0));
  return success();
}

} // namespace

void onnx_import::registerTensorOps(OpRegistry &r) {
  // Reshape-1 takes the shape as an attribute; from 5 it is an input.
  r.add("Reshape", 5, importReshape);
  // Flatten-11 adds negative axes, which the handler reads at any version.
  r.add("Flatten", 1, importFlatten);
  r.add("Transpose", 1, importTranspose);
  // Concat-1's axis defaults to 1; from 4 it is required.
  r.add("Concat", 4, importConcat);
  r.add("Identity", 1, importIdentity);
  // value_float(s)/value_int(s) exist since 12; older models only use value.
  r.add("Constant", 1, importConstant);
  r.add("Trilu", 14, importTrilu);
}
