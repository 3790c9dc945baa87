//===- Shape.cpp - Shape, Gather, Slice, Unsqueeze, Squeeze, Expand ... ---===//
//
// The ops exporters use to compute shapes inside the graph (Shape, then
// Gather, Unsqueeze, Concat, into a Reshape), which are also ordinary data
// ops: Gather picks embedding rows. Unsqueeze and Squeeze only insert or
// remove dims of extent 1, so they are reshapes to a static target (views).
// Expand and ConstantOfShape take a shape as values (their shape operand).
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImportContext.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

namespace {

/// Makes a negative `axis` count from the end of a rank-`rank` tensor; an
/// error outside [-rank, rank).
LogicalResult normalizeAxis(NodeContext &n, int64_t &axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return n.error("axis " + Twine(axis) + " is out of range for rank " +
                   Twine(rank));
  if (axis < 0)
    axis += rank;
  return success();
}

LogicalResult importShape(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  int64_t rank = n.inputType(0).getRank();
  // Shape-15: [start, end), negative from the end, clamped into [0, rank].
  auto normalize = [&](int64_t v) {
    if (v < 0)
      v += rank;
    return std::clamp<int64_t>(v, 0, rank);
  };
  int64_t start = normalize(n.getInt("start", 0));
  int64_t end = normalize(n.getInt("end", rank));
  end = std::max(start, end);
  auto type = RankedTensorType::get({end - start}, n.b.getI64Type());
  n.setOutput(0, ShapeOp::create(n.b, n.loc, type, x, start, end),
              onnx::TensorProto::INT64);
  return success();
}

/// The axes of Unsqueeze/Squeeze: an attribute before opset 13, a constant
/// input from 13; normalized against `rank` and sorted. `required` is false
/// for Squeeze, whose axes may be omitted.
FailureOr<SmallVector<int64_t>> axesOf(NodeContext &n, int64_t rank,
                                       bool &given) {
  SmallVector<int64_t> axes;
  given = true;
  if (n.opset < 13) {
    if (!n.attr("axes"))
      return given = false, axes;
    axes = n.getInts("axes");
  } else if (n.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> a = n.constantInts(1, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  } else {
    return given = false, axes;
  }
  for (int64_t &a : axes)
    if (failed(normalizeAxis(n, a, rank)))
      return failure();
  llvm::sort(axes);
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return n.error("an axis is repeated");
  return axes;
}

/// Squeeze/Unsqueeze-13 whose axes input is known only at run time: the op
/// of run-time axes (`sign` -1 squeezes, +1 unsqueezes), whose result dims
/// are dynamic; failure (with an error) when the axes are not a 1-D int64
/// tensor of static nonzero length; null when the axes are constant.
template <typename Op>
FailureOr<Value> runtimeAxesView(NodeContext &n, Value x, int64_t sign) {
  if (n.opset < 13 || !n.hasInput(1) || n.constantInput(1))
    return Value();
  Value axes = n.input(1);
  if (!axes)
    return failure();
  RankedTensorType at = n.inputType(1);
  if (n.inputOnnxType(1) != onnx::TensorProto::INT64 || at.getRank() != 1 ||
      at.isDynamicDim(0) || at.getDimSize(0) == 0)
    return n.error("axes known only at run time must be a 1-D int64 tensor "
                   "of static nonzero length (the change of rank)");
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank() +
                 sign * at.getDimSize(0);
  if (rank < 0)
    return n.error("there are more axes than dims");
  auto type = RankedTensorType::get(
      SmallVector<int64_t>(rank, ShapedType::kDynamic),
      cast<RankedTensorType>(x.getType()).getElementType());
  return Op::create(n.b, n.loc, type, x, axes).getResult();
}

LogicalResult importUnsqueeze(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  FailureOr<Value> view = runtimeAxesView<UnsqueezeOp>(n, x, 1);
  if (failed(view))
    return failure();
  if (*view) {
    n.setOutput(0, *view);
    return success();
  }
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank();
  bool given;
  FailureOr<SmallVector<int64_t>> axes = [&] {
    // The axes index the result, whose rank is the input's plus their count.
    int64_t count = n.opset < 13 ? n.getInts("axes").size()
                    : n.hasInput(1) && n.constantInput(1)
                        ? n.constantInput(1)->getNumElements()
                        : 0;
    return axesOf(n, rank + count, given);
  }();
  if (failed(axes))
    return failure();
  if (!given || axes->empty())
    return n.error("Unsqueeze needs constant axes");
  SmallVector<int64_t> shape;
  auto in = xt.getShape().begin();
  for (int64_t i = 0, a = 0; i < rank + static_cast<int64_t>(axes->size());
       ++i) {
    if (a < static_cast<int64_t>(axes->size()) && (*axes)[a] == i) {
      shape.push_back(1);
      ++a;
    } else {
      shape.push_back(*in++);
    }
  }
  auto type = RankedTensorType::get(shape, xt.getElementType());
  n.setOutput(0, ReshapeOp::create(n.b, n.loc, type, x));
  return success();
}

LogicalResult importSqueeze(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  FailureOr<Value> view = runtimeAxesView<SqueezeOp>(n, x, -1);
  if (failed(view))
    return failure();
  if (*view) {
    n.setOutput(0, *view);
    return success();
  }
  RankedTensorType xt = n.inputType(0);
  bool given;
  FailureOr<SmallVector<int64_t>> axes = axesOf(n, xt.getRank(), given);
  if (failed(axes))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < xt.getRank(); ++i) {
    bool listed = llvm::is_contained(*axes, i);
    int64_t d = xt.getDimSize(i);
    if (listed && d != 1)
      return n.error("cannot squeeze dim " + Twine(i) + " of extent " +
                     (ShapedType::isDynamic(d) ? Twine("?") : Twine(d)) +
                     " (it must be a static 1)");
    // Without axes, every static 1 goes (a dynamic dim is not known to be 1).
    if (listed || (!given && d == 1))
      continue;
    shape.push_back(d);
  }
  auto type = RankedTensorType::get(shape, xt.getElementType());
  n.setOutput(0, ReshapeOp::create(n.b, n.loc, type, x));
  return success();
}

LogicalResult importGather(NodeContext &n) {
  Value data = n.input(0), indices = data ? n.input(1) : Value();
  if (!indices)
    return failure();
  RankedTensorType dt = n.inputType(0), it = n.inputType(1);
  int32_t indexType = n.inputOnnxType(1);
  if (indexType != onnx::TensorProto::INT64 &&
      indexType != onnx::TensorProto::INT32)
    return n.error("indices must be int32 or int64");
  int64_t axis = n.getInt("axis", 0);
  if (failed(normalizeAxis(n, axis, dt.getRank())))
    return failure();
  SmallVector<int64_t> shape(dt.getShape().take_front(axis));
  llvm::append_range(shape, it.getShape());
  llvm::append_range(shape, dt.getShape().drop_front(axis + 1));
  auto type = RankedTensorType::get(shape, dt.getElementType());
  n.setOutput(0, GatherOp::create(n.b, n.loc, type, data, indices, axis),
              n.inputOnnxType(0));
  return success();
}

LogicalResult importGatherElements(NodeContext &n) {
  Value data = n.input(0), indices = data ? n.input(1) : Value();
  if (!indices)
    return failure();
  RankedTensorType dt = n.inputType(0), it = n.inputType(1);
  int32_t indexType = n.inputOnnxType(1);
  if (indexType != onnx::TensorProto::INT64 &&
      indexType != onnx::TensorProto::INT32)
    return n.error("indices must be int32 or int64");
  if (it.getRank() != dt.getRank())
    return n.error("indices have rank " + std::to_string(it.getRank()) +
                   " but the data has rank " + std::to_string(dt.getRank()));
  int64_t axis = n.getInt("axis", 0);
  if (failed(normalizeAxis(n, axis, dt.getRank())))
    return failure();
  auto type = RankedTensorType::get(it.getShape(), dt.getElementType());
  n.setOutput(0,
              GatherElementsOp::create(n.b, n.loc, type, data, indices, axis),
              n.inputOnnxType(0));
  return success();
}

/// A 1-D int64 tensor of `values`.
Value int64Constant(NodeContext &n, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({int64_t(values.size())}, n.b.getI64Type());
  return ConstantOp::create(n.b, n.loc, type,
                            DenseIntElementsAttr::get(type, values));
}

/// Slice: starts/ends/axes as attributes before opset 10, then inputs with
/// optional axes and steps. Starts and ends may be computed at run time
/// (from shapes, or model inputs); axes and steps must be constants.
LogicalResult importSlice(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  RankedTensorType xt = n.inputType(0);
  int64_t rank = xt.getRank();
  SmallVector<int64_t> axes, steps;
  Value starts, ends;
  if (n.opset < 10) {
    starts = int64Constant(n, n.getInts("starts"));
    ends = int64Constant(n, n.getInts("ends"));
    axes = n.getInts("axes");
  } else {
    auto read = [&](int i, const char *what, SmallVector<int64_t> &out) {
      if (!n.hasInput(i))
        return success();
      FailureOr<SmallVector<int64_t>> v = n.constantInts(i, what);
      if (failed(v))
        return failure();
      out = *v;
      return success();
    };
    if (failed(read(3, "axes", axes)) || failed(read(4, "steps", steps)))
      return failure();
    // The bounds as int64 tensors (ONNX allows int32 too).
    auto bounds = [&](int i) -> Value {
      Value v = n.input(i);
      if (!v)
        return {};
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getRank() != 1 || !t.hasStaticShape()) {
        (void)n.error("input " + Twine(i) + " must be a 1-D tensor of " +
                      "static length");
        return {};
      }
      if (!t.getElementType().isInteger(64))
        v = n.b.createOrFold<CastOp>(n.loc, t.clone(n.b.getI64Type()), v,
                                     false, false);
      return v;
    };
    starts = bounds(1);
    ends = bounds(2);
    if (!starts || !ends)
      return failure();
  }
  int64_t count = cast<RankedTensorType>(starts.getType()).getDimSize(0);
  if (cast<RankedTensorType>(ends.getType()).getDimSize(0) != count)
    return n.error("starts and ends differ in length");
  if (axes.empty())
    for (int64_t i = 0; i < count; ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(count, 1);
  if (int64_t(axes.size()) != count || int64_t(steps.size()) != count)
    return n.error("starts, ends, axes and steps differ in length");
  std::optional<SmallVector<int64_t>> startValues = constantIntValues(starts),
                                      endValues = constantIntValues(ends);
  SmallVector<int64_t> shape(xt.getShape());
  for (int64_t i = 0; i < count; ++i) {
    int64_t &axis = axes[i];
    if (failed(normalizeAxis(n, axis, rank)))
      return failure();
    if (llvm::count(axes, axis) > 1)
      return n.error("axis " + Twine(axis) + " is repeated");
    if (steps[i] == 0)
      return n.error("step 0 on axis " + Twine(axis));
    shape[axis] = xt.isDynamicDim(axis) || !startValues || !endValues
                      ? ShapedType::kDynamic
                      : sliceRange(xt.getDimSize(axis), (*startValues)[i],
                                   (*endValues)[i], steps[i])
                            .second;
  }
  auto type = RankedTensorType::get(shape, xt.getElementType());
  n.setOutput(0, SliceOp::create(n.b, n.loc, type, x, starts, ends, axes,
                                 steps));
  return success();
}

/// A shape operand: input `i` as a 1-D int64 tensor of static length.
Value shapeInput(NodeContext &n, int i) {
  Value v = n.input(i);
  if (!v)
    return {};
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() != 1 || !t.hasStaticShape() ||
      !t.getElementType().isInteger(64)) {
    (void)n.error("input " + Twine(i) +
                  " must be a 1-D int64 tensor of static length");
    return {};
  }
  return v;
}

/// Expand-8: numpy broadcasting to a shape given as values.
LogicalResult importExpand(NodeContext &n) {
  Value x = n.input(0), shape = shapeInput(n, 1);
  if (!x || !shape)
    return failure();
  RankedTensorType xt = n.inputType(0);
  int64_t count = cast<RankedTensorType>(shape.getType()).getDimSize(0);
  SmallVector<std::optional<int64_t>> values(count);
  if (auto known = n.ctx.shapes.knownElements(shape))
    values = *known;
  std::string error;
  FailureOr<SmallVector<int64_t>> dims =
      expandShape(xt.getShape(), values, error);
  if (failed(dims))
    return n.error(error);
  auto type = RankedTensorType::get(*dims, xt.getElementType());
  n.setOutput(0, ExpandOp::create(n.b, n.loc, type, x, shape));
  return success();
}

/// ConstantOfShape-9: a tensor of `value` (default float 0) of the shape
/// given as values.
LogicalResult importConstantOfShape(NodeContext &n) {
  Value shape = shapeInput(n, 0);
  if (!shape)
    return failure();
  DenseElementsAttr value;
  int32_t onnxType = onnx::TensorProto::FLOAT;
  if (const onnx::AttributeProto *a = n.attr("value")) {
    FailureOr<DenseElementsAttr> t = n.ctx.tensorAttr(a->t(), n.loc);
    if (failed(t))
      return failure();
    if (t->getNumElements() != 1)
      return n.error("value must have one element");
    value = *t;
    onnxType = a->t().data_type();
  } else {
    value = DenseElementsAttr::get(
        RankedTensorType::get({1}, n.b.getF32Type()), 0.0f);
  }
  value = value.reshape(RankedTensorType::get({1}, value.getElementType()));
  int64_t count = cast<RankedTensorType>(shape.getType()).getDimSize(0);
  SmallVector<int64_t> dims(count, ShapedType::kDynamic);
  if (auto known = n.ctx.shapes.knownElements(shape))
    for (auto [i, v] : llvm::enumerate(*known)) {
      if (v && *v < 0)
        return n.error("shape value " + Twine(*v) + " is negative");
      if (v)
        dims[i] = *v;
    }
  auto type = RankedTensorType::get(dims, value.getElementType());
  n.setOutput(0, ConstantOfShapeOp::create(n.b, n.loc, type, shape, value),
              onnxType);
  return success();
}

/// Split: sizes from the `split` attribute (before 13) or a constant input
/// (from 13), or an even split into the node's outputs (`num_outputs` from
/// 18 must match their count).
LogicalResult importSplit(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  RankedTensorType xt = n.inputType(0);
  int64_t axis = n.getInt("axis", 0);
  if (failed(normalizeAxis(n, axis, xt.getRank())))
    return failure();
  int64_t parts = n.node.output_size();
  Value sizesValue;
  if (n.opset < 13) {
    if (n.attr("split"))
      sizesValue = int64Constant(n, n.getInts("split"));
  } else if (n.hasInput(1)) {
    sizesValue = shapeInput(n, 1); // may be known only at run time
    if (!sizesValue)
      return failure();
  } else if (n.attr("num_outputs") && n.getInt("num_outputs", 0) != parts) {
    return n.error("num_outputs is " + Twine(n.getInt("num_outputs", 0)) +
                   ", but the node has " + Twine(parts) + " outputs");
  }
  if (sizesValue &&
      cast<RankedTensorType>(sizesValue.getType()).getDimSize(0) != parts)
    return n.error("split has " +
                   Twine(cast<RankedTensorType>(sizesValue.getType())
                             .getDimSize(0)) +
                   " sizes for " + Twine(parts) + " outputs");
  std::optional<SmallVector<int64_t>> sizes;
  SmallVector<std::optional<int64_t>> known(parts);
  if (sizesValue) {
    sizes = constantIntValues(sizesValue);
    if (auto k = n.ctx.shapes.knownElements(sizesValue))
      known = *k;
  }
  int64_t total = 0;
  for (int64_t v : sizes ? *sizes : SmallVector<int64_t>()) {
    if (v < 0)
      return n.error("split size " + Twine(v) + " is negative");
    total += v;
  }
  int64_t extent = xt.getDimSize(axis);
  if (sizes && !xt.isDynamicDim(axis) && total != extent)
    return n.error("split sizes add up to " + Twine(total) +
                   ", but the axis has extent " + Twine(extent));
  SmallVector<Type> types;
  for (int64_t i = 0; i < parts; ++i) {
    SmallVector<int64_t> shape(xt.getShape());
    if (sizesValue) {
      shape[axis] = known[i] ? *known[i] : ShapedType::kDynamic;
    } else if (!xt.isDynamicDim(axis)) {
      int64_t chunk = (extent + parts - 1) / parts;
      shape[axis] =
          i + 1 < parts ? chunk : std::max<int64_t>(extent - chunk * i, 0);
    }
    types.push_back(RankedTensorType::get(shape, xt.getElementType()));
  }
  auto split = SplitOp::create(n.b, n.loc, types, x, sizesValue, axis);
  for (int64_t i = 0; i < parts; ++i)
    n.setOutput(i, split.getResult(i));
  return success();
}

/// A Range of a type other than int64 whose bounds are known only at run
/// time. Its extent max(ceil((limit - start) / delta), 0) is computed by
/// kernels (in double for double and integers, else in float, as ONNX's
/// reference does) and becomes the limit of an int64 Range 0, 1, ..., which
/// the shape program reads back (docs/design.md §4, read back); element i
/// is then start + i * delta in that precision, converted to the type.
Value computedRange(NodeContext &n, Value start, Value limit, Value delta) {
  Type element = cast<RankedTensorType>(start.getType()).getElementType();
  Type wide = element.isF64() || isa<IntegerType>(element)
                  ? Type(n.b.getF64Type())
                  : Type(n.b.getF32Type());
  bool isUnsignedInt = isUnsigned(n.inputOnnxType(0));
  auto scalar = [&](Type t) { return RankedTensorType::get({}, t); };
  auto convert = [&](Value v, Type to, bool fromUnsigned,
                     bool toUnsigned) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getElementType() == to)
      return v;
    return CastOp::create(n.b, n.loc, t.clone(to), v, fromUnsigned,
                          toUnsigned);
  };
  Value s = convert(start, wide, isUnsignedInt, false),
        l = convert(limit, wide, isUnsignedInt, false),
        d = convert(delta, wide, isUnsignedInt, false);
  Value span = SubOp::create(n.b, n.loc, scalar(wide), l, s);
  Value steps = DivOp::create(n.b, n.loc, scalar(wide), span, d);
  Value count = convert(CeilOp::create(n.b, n.loc, steps), n.b.getI64Type(),
                        false, false);
  auto i64 = scalar(n.b.getI64Type());
  auto zero = ConstantOp::create(
      n.b, n.loc, DenseElementsAttr::get(i64, n.b.getI64IntegerAttr(0)));
  auto one = ConstantOp::create(
      n.b, n.loc, DenseElementsAttr::get(i64, n.b.getI64IntegerAttr(1)));
  // A negative count makes an empty Range.
  Value index = RangeOp::create(
      n.b, n.loc, RankedTensorType::get({ShapedType::kDynamic}, i64.getElementType()),
      zero, count, one);
  auto vector = RankedTensorType::get({ShapedType::kDynamic}, wide);
  Value offsets = MulOp::create(n.b, n.loc, vector,
                                convert(index, wide, false, false), d);
  Value values = AddOp::create(n.b, n.loc, vector, offsets, s);
  return convert(values, element, false, isUnsignedInt);
}

/// Range-11: scalars start, limit, delta. The extent is static when all
/// three are constants; otherwise it is computed at run time.
/// A one-element 1-D input is taken as its scalar, as ONNX Runtime does
/// (ONNX's own AffineGrid body passes one).
LogicalResult importRange(NodeContext &n) {
  Value bounds[3] = {n.input(0), n.input(1), n.input(2)};
  for (Value v : bounds)
    if (!v)
      return failure();
  Type element = n.inputType(0).getElementType();
  for (int i = 0; i < 3; ++i) {
    RankedTensorType t = n.inputType(i);
    bool oneElement = t.getRank() == 1 && t.getDimSize(0) == 1;
    if ((t.getRank() != 0 && !oneElement) || t.getElementType() != element)
      return n.error("start, limit and delta must be scalars (or "
                     "one-element 1-D tensors) of one type");
    if (oneElement)
      bounds[i] = ReshapeOp::create(
          n.b, n.loc, RankedTensorType::get({}, element), bounds[i]);
  }
  auto [start, limit, delta] = bounds;
  auto st = cast<RankedTensorType>(start.getType());
  int64_t count = ShapedType::kDynamic;
  DenseElementsAttr a, b, c;
  if (matchPattern(start, m_Constant(&a)) &&
      matchPattern(limit, m_Constant(&b)) &&
      matchPattern(delta, m_Constant(&c))) {
    auto value = [](DenseElementsAttr e) -> double {
      if (isa<FloatType>(e.getElementType()))
        return (*e.getValues<APFloat>().begin()).convertToDouble();
      return double((*e.getValues<APInt>().begin()).getSExtValue());
    };
    double d = value(c);
    if (d == 0)
      return n.error("delta is 0");
    count = std::max<int64_t>(
        int64_t(std::ceil((value(b) - value(a)) / d)), 0);
  } else if (!st.getElementType().isInteger(64)) {
    n.setOutput(0, computedRange(n, start, limit, delta));
    return success();
  }
  auto type = RankedTensorType::get({count}, st.getElementType());
  n.setOutput(0, RangeOp::create(n.b, n.loc, type, start, limit, delta));
  return success();
}

LogicalResult importSize(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto type = RankedTensorType::get({}, n.b.getI64Type());
  n.setOutput(0, SizeOp::create(n.b, n.loc, type, x),
              onnx::TensorProto::INT64);
  return success();
}

} // namespace

void onnx_import::registerShapeOps(OpRegistry &r) {
  // Split-18 adds num_outputs.
  r.add("Split", 2, importSplit);
  r.add("Size", 1, importSize);
  r.add("Range", 11, importRange);
  r.add("Expand", 8, importExpand);
  r.add("ConstantOfShape", 9, importConstantOfShape);
  // Shape-15 adds start and end; they default to the whole shape.
  r.add("Shape", 1, importShape);
  // Gather-11 allows negative indices, which the kernel handles at any
  // version (earlier models never use them).
  r.add("Gather", 1, importGather);
  // GatherElements-11 is the first; 13 only adds bfloat16.
  r.add("GatherElements", 11, importGatherElements);
  // Slice-10 moves starts/ends/axes into inputs and adds steps.
  r.add("Slice", 1, importSlice);
  // Unsqueeze/Squeeze-13 take the axes as an input instead of an attribute
  // (a run-time one makes tessel.squeeze/unsqueeze, views like Reshape).
  r.add("Unsqueeze", 1, importUnsqueeze);
  r.add("Squeeze", 1, importSqueeze);
}
