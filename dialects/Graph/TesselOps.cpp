//===- TesselOps.cpp - Verifiers and folders of the graph dialect ----------===//
//
// Each verifier checks what the ONNX operator requires of its operands and
// that the result type is the shape the operator implies.
//
// Dynamic (`?`) dims. Two extents an op requires to be equal are checked
// here when both are static. Where one or both are dynamic, the check moves
// to run time only where the run time really makes it, and the verifier
// accepts `?` only there:
//   * runtimeChecked(): the dims that compiler/DimEqualities.cpp equates
//     (the non-1 dims that Add/Sub/Mul/Div broadcast together, MatMul's and
//     Gemm's contraction dims and MatMul's batch dims, Concat's dims other
//     than the axis). Partitioning gives each class one symbol or static
//     extent, and binding the inputs rejects extents that disagree.
//   * staticEqual(): every other pair of operand dims (Conv's input channels
//     against its weights, a Conv bias, BatchNormalization's [C] vectors,
//     Gemm's C against [M, N]). The kernels read these operands with the
//     other dim's extent and nothing checks it at run time, so both must be
//     static (or a static 1 where ONNX broadcasts). One exception, Gemm's C,
//     is noted at GemmOp::verify.
//   * sameDim(): a result dim against the extent the operator implies
//     (for Add/Sub/Mul/Div on top of MLIR's ResultsBroadcastableShape,
//     which lets `?` match anything). A
//     dynamic result dim takes its extent from an operand dim at run time
//     (DimSources.cpp), so it must be dynamic exactly where the implied
//     extent is: a static result dim over a dynamic extent would size the
//     result without any check, a dynamic one over a static extent has no
//     operand dim to come from.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/TesselDialect.h"
#include "dialects/Graph/NarrowFormats.h"
#include "dialects/Graph/GraphOpUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::graph_detail;

int64_t tessel::windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                                 int64_t padBegin, int64_t padEnd,
                                 int64_t dilation, bool ceil) {
  if (ShapedType::isDynamic(in))
    return ShapedType::kDynamic;
  int64_t span = (kernel - 1) * dilation + 1;
  int64_t room = in + padBegin + padEnd - span;
  if (room < 0)
    return 0;
  int64_t out = (ceil ? (room + stride - 1) / stride : room / stride) + 1;
  // With ceil_mode, a window must start inside the input or the begin pads.
  if (ceil && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

/// Operand dims the run time checks for equality (see the file comment):
/// equal when static, else left to the symbol binding.
bool graph_detail::runtimeChecked(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Operand dims nothing checks at run time: both static and equal.
bool graph_detail::staticEqual(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a == b;
}

/// A result dim against its implied extent: the same extent, or both
/// dynamic.
bool graph_detail::sameDim(int64_t a, int64_t b) { return a == b; }

bool graph_detail::sameOrDynamicDim(int64_t a, int64_t b) {
  return a == b || ShapedType::isDynamic(a);
}

bool graph_detail::knownOrDynamicDim(int64_t a, int64_t b) {
  return a == b || ShapedType::isDynamic(a) || ShapedType::isDynamic(b);
}

std::string graph_detail::extent(int64_t d) {
  return ShapedType::isDynamic(d) ? "?" : std::to_string(d);
}

/// Checks that `type` has `expected` extents, each pair by `agree`.
LogicalResult graph_detail::checkShape(Operation *op, RankedTensorType type,
                                       ArrayRef<int64_t> expected,
                                       StringRef what,
                                       bool (*agree)(int64_t, int64_t)) {
  if (type.getRank() != static_cast<int64_t>(expected.size()))
    return op->emitOpError() << what << " has rank " << type.getRank()
                             << ", expected " << expected.size();
  for (auto [i, dims] : llvm::enumerate(llvm::zip(type.getShape(), expected)))
    if (!agree(std::get<0>(dims), std::get<1>(dims)))
      return op->emitOpError()
             << what << " dim " << i << " is " << extent(std::get<0>(dims))
             << ", expected " << extent(std::get<1>(dims))
             << (agree == staticEqual ? " (both must be static: the run time "
                                        "does not check them)"
                                      : "");
  return success();
}

RankedTensorType graph_detail::rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

//===----------------------------------------------------------------------===//
// ConstantOp, IdentityOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult IdentityOp::fold(FoldAdaptor) { return getInput(); }

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

/// ResultsBroadcastableShape has already checked that the operands
/// broadcast. The result must be their broadcast shape exactly: per dim, a
/// static extent other than 1 where an operand has one (the run time makes
/// a dynamic dim it meets equal to it), else `?` where an operand is
/// dynamic (it may be 1 or not at run time), else 1.
LogicalResult graph_detail::verifyBroadcastResult(Operation *op) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> expected;
  for (int64_t i = 0; i < result.getRank(); ++i) {
    int64_t dim = 1;
    for (Value operand : op->getOperands()) {
      RankedTensorType t = rankedType(operand);
      int64_t j = i - (result.getRank() - t.getRank());
      if (j < 0)
        continue;
      int64_t d = t.getDimSize(j);
      if (!ShapedType::isDynamic(d) && d != 1)
        dim = d;
      else if (ShapedType::isDynamic(d) && dim == 1)
        dim = ShapedType::kDynamic;
    }
    expected.push_back(dim);
  }
  return checkShape(op, result, expected, "result");
}

LogicalResult AddOp::verify() { return verifyBroadcastResult(*this); }
LogicalResult SubOp::verify() { return verifyBroadcastResult(*this); }
LogicalResult MulOp::verify() { return verifyBroadcastResult(*this); }
LogicalResult DivOp::verify() { return verifyBroadcastResult(*this); }
LogicalResult PowOp::verify() { return verifyBroadcastResult(*this); }
LogicalResult MaxOp::verify() { return verifyBroadcastResult(*this); }
/// A bool result of the input's shape.
static LogicalResult verifyClassification(Operation *op) {
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  if (in.getShape() != out.getShape())
    return op->emitOpError("result shape must be the input's");
  return success();
}
LogicalResult IsNaNOp::verify() { return verifyClassification(*this); }
LogicalResult IsInfOp::verify() { return verifyClassification(*this); }
LogicalResult MinOp::verify() { return verifyBroadcastResult(*this); }
LogicalResult ModOp::verify() {
  if (!getFmod() && isa<FloatType>(getType().getElementType()))
    return emitOpError("on floats needs fmod (ONNX Mod)");
  return verifyBroadcastResult(*this);
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getType().getRank(), axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeOp, TransposeOp, ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = rankedType(getInput()), out = getType();
  if (in.hasStaticShape() && out.hasStaticShape() &&
      in.getNumElements() != out.getNumElements())
    return emitOpError("reshape of ")
           << in.getNumElements() << " elements into " << out.getNumElements();
  if (!getShape()) {
    if (getAllowzero())
      return emitOpError("allowzero needs a shape operand");
    // Static and dynamic dims may trade places: the shape contract checks
    // the element count at run time.
    return success();
  }
  // The extents come from the shape's values at run time: one per dim.
  RankedTensorType shape = rankedType(getShape());
  if (shape.isDynamicDim(0))
    return emitOpError("shape must have a static length");
  if (shape.getDimSize(0) != out.getRank())
    return emitOpError("shape has ")
           << shape.getDimSize(0) << " entries for a result of rank "
           << out.getRank();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // A shape known only at run time is checked at run time, even when the
  // types say nothing changes.
  if (getShape())
    return {};
  if (getInput().getType() == getType())
    return getInput();
  // reshape(reshape(x)) -> reshape(x), unless the inner one takes a shape at
  // run time: its values must still be checked, and they say what the
  // outer one's dynamic dims are.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    if (inner.getShape())
      return {};
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return dense.reshape(getType());
  return {};
}

LogicalResult TransposeOp::verify() {
  RankedTensorType in = rankedType(getInput());
  ArrayRef<int64_t> perm = getPerm();
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitOpError("perm has ")
           << perm.size() << " entries for rank " << in.getRank();
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOpError("perm is not a permutation");
    seen[p] = true;
    expected.push_back(in.getDimSize(p));
  }
  return checkShape(*this, getType(), expected, "result");
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  RankedTensorType first = rankedType(getInputs().front());
  int64_t rank = first.getRank(), axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank " << rank;
  SmallVector<int64_t> expected(first.getShape());
  expected[axis] = 0;
  for (Value input : getInputs()) {
    RankedTensorType t = rankedType(input);
    if (t.getRank() != rank)
      return emitOpError("inputs differ in rank");
    for (int64_t i = 0; i < rank; ++i) {
      if (i == axis)
        continue;
      if (!runtimeChecked(t.getDimSize(i), expected[i]))
        return emitOpError("inputs differ in dim ") << i;
      // The run time makes a dynamic dim equal to a static one it meets.
      if (ShapedType::isDynamic(expected[i]))
        expected[i] = t.getDimSize(i);
    }
    if (ShapedType::isDynamic(t.getDimSize(axis)) ||
        ShapedType::isDynamic(expected[axis]))
      expected[axis] = ShapedType::kDynamic;
    else
      expected[axis] += t.getDimSize(axis);
  }
  return checkShape(*this, getType(), expected, "result");
}

#define GET_OP_CLASSES
#include "dialects/Graph/TesselOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ShapeOp, GatherOp
//===----------------------------------------------------------------------===//

LogicalResult ShapeOp::verify() {
  int64_t rank = rankedType(getInput()).getRank();
  int64_t start = getStart(), end = getEnd();
  if (start < 0 || start > end || end > rank)
    return emitOpError("dims [") << start << ", " << end
                                 << ") of a rank-" << rank << " tensor";
  return checkShape(*this, getType(), {end - start}, "result");
}

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  RankedTensorType in = rankedType(getInput());
  ArrayRef<int64_t> dims =
      in.getShape().slice(getStart(), getEnd() - getStart());
  if (llvm::any_of(dims, ShapedType::isDynamic))
    return {};
  return DenseElementsAttr::get(getType(), dims);
}

LogicalResult GatherOp::verify() {
  RankedTensorType data = rankedType(getData());
  RankedTensorType indices = rankedType(getIndices());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= data.getRank())
    return emitOpError("axis ") << axis << " is out of range for rank "
                                << data.getRank();
  if (getType().getElementType() != data.getElementType())
    return emitOpError("result element type differs from the data's");
  SmallVector<int64_t> expected(data.getShape().take_front(axis));
  llvm::append_range(expected, indices.getShape());
  llvm::append_range(expected, data.getShape().drop_front(axis + 1));
  return checkShape(*this, getType(), expected, "result");
}

LogicalResult TriluOp::verify() {
  if (rankedType(getInput()).getRank() < 2)
    return emitOpError("needs an input of rank 2 or more");
  return success();
}

/// The checks Squeeze and Unsqueeze share: K >= 1 axes of static count,
/// a result of rank input + `sign` * K.
static LogicalResult verifyAxesView(Operation *op, Value input, Value axes,
                                    Value result, int64_t sign) {
  int64_t count = rankedType(axes).getDimSize(0);
  int64_t rank = rankedType(input).getRank();
  if (ShapedType::isDynamic(count) || count < 1)
    return op->emitOpError("axes must have a static length of at least 1");
  if (rankedType(result).getRank() != rank + sign * count)
    return op->emitOpError("result has rank ")
           << rankedType(result).getRank() << ", expected "
           << rank + sign * count;
  return success();
}

LogicalResult SqueezeOp::verify() {
  return verifyAxesView(*this, getInput(), getAxes(), getResult(), -1);
}

LogicalResult UnsqueezeOp::verify() {
  return verifyAxesView(*this, getInput(), getAxes(), getResult(), 1);
}

LogicalResult GatherElementsOp::verify() {
  RankedTensorType data = rankedType(getData());
  RankedTensorType indices = rankedType(getIndices());
  int64_t axis = getAxis();
  if (indices.getRank() != data.getRank())
    return emitOpError("indices have rank ")
           << indices.getRank() << " but the data has rank " << data.getRank();
  if (axis < 0 || axis >= data.getRank())
    return emitOpError("axis ") << axis << " is out of range for rank "
                                << data.getRank();
  if (getType().getElementType() != data.getElementType())
    return emitOpError("result element type differs from the data's");
  for (int64_t d = 0; d < data.getRank(); ++d)
    if (d != axis && !ShapedType::isDynamic(indices.getDimSize(d)) &&
        !ShapedType::isDynamic(data.getDimSize(d)) &&
        indices.getDimSize(d) > data.getDimSize(d))
      return emitOpError("indices dim ")
             << d << " (" << indices.getDimSize(d)
             << ") exceeds the data's (" << data.getDimSize(d) << ")";
  return checkShape(*this, getType(), indices.getShape(), "result");
}

//===----------------------------------------------------------------------===//
// Folding integer constants: the shape arithmetic exporters put in graphs
// (Gather of a static Shape, Unsqueeze, Concat, Add/Mul/Div) becomes
// constants, so a Reshape target computed from static dims is a constant.
//===----------------------------------------------------------------------===//

/// The integer elements of `attr`, a constant of a static shape; nullopt
/// for anything else (floats are left to the kernels, whose rounding they
/// would have to match).
std::optional<SmallVector<APInt>> graph_detail::intElements(Attribute attr) {
  auto dense = dyn_cast_or_null<DenseIntElementsAttr>(attr);
  if (!dense || !dense.getType().hasStaticShape())
    return std::nullopt;
  return SmallVector<APInt>(dense.getValues<APInt>());
}

OpFoldResult graph_detail::foldIntBroadcast(
    Operation *op, ArrayRef<Attribute> operands,
    function_ref<std::optional<APInt>(ArrayRef<APInt>)> fn) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (!type.hasStaticShape())
    return {};
  SmallVector<SmallVector<APInt>> values;
  SmallVector<RankedTensorType> types;
  for (auto [attr, operand] : llvm::zip(operands, op->getOperands())) {
    std::optional<SmallVector<APInt>> v = intElements(attr);
    if (!v)
      return {};
    values.push_back(std::move(*v));
    types.push_back(cast<RankedTensorType>(operand.getType()));
  }
  int64_t rank = type.getRank();
  SmallVector<APInt> out, args(values.size());
  SmallVector<int64_t> index(rank, 0);
  // The element of an operand at a result index, numpy broadcasting.
  auto elementAt = [&](RankedTensorType t, const SmallVector<APInt> &v) {
    int64_t flat = 0;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      int64_t i = index[rank - t.getRank() + d];
      flat = flat * t.getDimSize(d) + (t.getDimSize(d) == 1 ? 0 : i);
    }
    return v[flat];
  };
  for (int64_t n = 0; n < type.getNumElements(); ++n) {
    for (size_t k = 0; k < values.size(); ++k)
      args[k] = elementAt(types[k], values[k]);
    std::optional<APInt> r = fn(args);
    if (!r)
      return {};
    out.push_back(*r);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == type.getDimSize(d); --d)
      index[d] = 0;
  }
  return DenseElementsAttr::get(type, out);
}

/// Folds a broadcasting binary op on integer constants with `fn`, or
/// returns null (a non-constant operand, a float, an undefined result).
static OpFoldResult
foldIntBinary(Operation *op, Attribute lhs, Attribute rhs,
              function_ref<std::optional<APInt>(const APInt &, const APInt &)>
                  fn) {
  return foldIntBroadcast(op, {lhs, rhs}, [&](ArrayRef<APInt> x) {
    return fn(x[0], x[1]);
  });
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                       [](const APInt &x, const APInt &y) { return x + y; });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                       [](const APInt &x, const APInt &y) { return x - y; });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  return foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                       [](const APInt &x, const APInt &y) { return x * y; });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getIsUnsigned();
  // Division by zero (and signed overflow) is left to the kernel, whose
  // defined result it must keep.
  return foldIntBinary(
      *this, adaptor.getLhs(), adaptor.getRhs(),
      [&](const APInt &x, const APInt &y) -> std::optional<APInt> {
        if (y.isZero() || (!isUnsigned && x.isMinSignedValue() &&
                           y.isAllOnes()))
          return std::nullopt;
        return isUnsigned ? x.udiv(y) : x.sdiv(y);
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getIsUnsigned();
  return foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                       [&](const APInt &x, const APInt &y) -> std::optional<APInt> {
                         return isUnsigned ? llvm::APIntOps::umax(x, y)
                                           : llvm::APIntOps::smax(x, y);
                       });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getIsUnsigned();
  return foldIntBinary(*this, adaptor.getLhs(), adaptor.getRhs(),
                       [&](const APInt &x, const APInt &y) -> std::optional<APInt> {
                         return isUnsigned ? llvm::APIntOps::umin(x, y)
                                           : llvm::APIntOps::smin(x, y);
                       });
}

OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getIsUnsigned(), floored = !getFmod();
  // A divisor of 0 is left to the kernel, whose defined result it must
  // keep.
  return foldIntBinary(
      *this, adaptor.getLhs(), adaptor.getRhs(),
      [&](const APInt &x, const APInt &y) -> std::optional<APInt> {
        if (y.isZero())
          return std::nullopt;
        if (isUnsigned)
          return x.urem(y);
        if (y.isAllOnes())
          return APInt::getZero(x.getBitWidth());
        APInt r = x.srem(y);
        if (floored && !r.isZero() && r.isNegative() != y.isNegative())
          r += y;
        return r;
      });
}

/// Folds a numeric unary op on integer constants with `fn`.
static OpFoldResult foldIntUnary(Operation *op, Attribute input,
                                 function_ref<APInt(const APInt &)> fn) {
  return foldIntBroadcast(op, {input},
                          [&](ArrayRef<APInt> x) { return fn(x[0]); });
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldIntUnary(*this, adaptor.getInput(),
                      [](const APInt &x) { return -x; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getIsUnsigned();
  return foldIntUnary(*this, adaptor.getInput(), [&](const APInt &x) {
    return isUnsigned ? x : x.abs();
  });
}

OpFoldResult SignOp::fold(FoldAdaptor adaptor) {
  bool isUnsigned = getIsUnsigned();
  return foldIntUnary(*this, adaptor.getInput(), [&](const APInt &x) {
    unsigned w = x.getBitWidth();
    if (x.isZero())
      return APInt::getZero(w);
    return !isUnsigned && x.isNegative() ? APInt::getAllOnes(w)
                                         : APInt(w, 1);
  });
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  auto type = getType();
  std::optional<SmallVector<APInt>> indices = intElements(adaptor.getIndices());
  // Static dims of a Shape whose other dims are dynamic (the sequence length
  // of [?, 128]).
  if (auto shape = getData().getDefiningOp<ShapeOp>(); shape && indices) {
    ArrayRef<int64_t> dims = rankedType(shape.getInput())
                                 .getShape()
                                 .slice(shape.getStart(),
                                        shape.getEnd() - shape.getStart());
    int64_t n = dims.size();
    SmallVector<int64_t> picked;
    for (const APInt &index : *indices) {
      int64_t k = index.getSExtValue();
      if (k < -n || k >= n || ShapedType::isDynamic(dims[k < 0 ? k + n : k]))
        return {};
      picked.push_back(dims[k < 0 ? k + n : k]);
    }
    return DenseElementsAttr::get(type, ArrayRef(picked));
  }
  auto data = dyn_cast_or_null<DenseElementsAttr>(adaptor.getData());
  if (!indices || !data || !type.hasStaticShape() ||
      !data.getType().hasStaticShape())
    return {};
  ArrayRef<int64_t> shape = data.getType().getShape();
  int64_t axis = getAxis(), n = shape[axis];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < static_cast<int64_t>(shape.size()); ++d)
    inner *= shape[d];
  SmallVector<Attribute> values(data.getValues<Attribute>());
  SmallVector<Attribute> out;
  for (int64_t o = 0; o < outer; ++o)
    for (const APInt &index : *indices) {
      int64_t k = index.getSExtValue();
      if (k < -n || k >= n)
        return {}; // out of range: the kernel's clamping decides
      if (k < 0)
        k += n;
      for (int64_t i = 0; i < inner; ++i)
        out.push_back(values[(o * n + k) * inner + i]);
    }
  return DenseElementsAttr::get(type, out);
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  if (!type.hasStaticShape())
    return {};
  int64_t axis = getAxis(), outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= type.getDimSize(d);
  SmallVector<SmallVector<Attribute>> inputs;
  for (Attribute a : adaptor.getInputs()) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(a);
    if (!dense)
      return {};
    inputs.emplace_back(dense.getValues<Attribute>());
  }
  // Each input contributes a contiguous block per outer index.
  SmallVector<Attribute> out;
  for (int64_t o = 0; o < outer; ++o)
    for (const SmallVector<Attribute> &in : inputs) {
      int64_t block = in.size() / outer;
      out.append(in.begin() + o * block, in.begin() + (o + 1) * block);
    }
  return DenseElementsAttr::get(type, out);
}

LogicalResult ClipOp::verify() {
  RankedTensorType in = rankedType(getInput());
  if (getType() != in)
    return emitOpError("result type must be the input's");
  for (auto [name, bound] : {std::pair{"min", getMin()},
                             std::pair{"max", getMax()}}) {
    if (!bound)
      continue;
    RankedTensorType t = rankedType(bound);
    if (t.getRank() != 0 || t.getElementType() != in.getElementType())
      return emitOpError(name) << " must be a scalar of the element type "
                               << in.getElementType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

std::pair<int64_t, int64_t> tessel::sliceRange(int64_t n, int64_t start,
                                               int64_t end, int64_t step) {
  if (n == 0)
    return {0, 0};
  if (start < 0)
    start += n;
  if (end < 0)
    end += n;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, n);
    end = std::clamp<int64_t>(end, 0, n);
    return {start, end > start ? (end - start + step - 1) / step : 0};
  }
  start = std::clamp<int64_t>(start, 0, n - 1);
  end = std::clamp<int64_t>(end, -1, n - 1);
  return {start, start > end ? (start - end - step - 1) / -step : 0};
}

/// The most elements a folded Slice or Transpose produces: the shape and pad
/// arithmetic exporters write, not weights.
static constexpr int64_t kMaxFoldedMoves = 4096;

/// The constant of type `type` whose element at each index is `in`'s element
/// at linear index `source(index)`: data movement of a small constant.
static DenseElementsAttr
moveElements(DenseElementsAttr in, RankedTensorType type,
             function_ref<int64_t(ArrayRef<int64_t>)> source) {
  SmallVector<Attribute> values(in.getValues<Attribute>());
  SmallVector<Attribute> out;
  out.reserve(type.getNumElements());
  SmallVector<int64_t> index(type.getRank(), 0);
  for (int64_t n = 0; n < type.getNumElements(); ++n) {
    out.push_back(values[source(index)]);
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      if (++index[d] < type.getDimSize(d))
        break;
      index[d] = 0;
    }
  }
  return DenseElementsAttr::get(type, out);
}

/// Row-major strides of a static shape.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  auto inType = cast<RankedTensorType>(getInput().getType());
  auto in = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (!in || !type.hasStaticShape() || !inType.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedMoves)
    return {};
  std::optional<SmallVector<APInt>> starts = intElements(adaptor.getStarts()),
                                    ends = intElements(adaptor.getEnds());
  if (!starts || !ends || starts->size() != getAxes().size() ||
      ends->size() != getAxes().size())
    return {};
  SmallVector<int64_t> first(inType.getRank(), 0), step(inType.getRank(), 1);
  for (auto [i, axis] : llvm::enumerate(getAxes())) {
    auto [start, count] =
        sliceRange(inType.getDimSize(axis), (*starts)[i].getSExtValue(),
                   (*ends)[i].getSExtValue(), getSteps()[i]);
    if (count != type.getDimSize(axis))
      return {};
    first[axis] = start;
    step[axis] = getSteps()[i];
  }
  SmallVector<int64_t> strides = stridesOf(inType.getShape());
  return moveElements(in, type, [&](ArrayRef<int64_t> index) {
    int64_t at = 0;
    for (auto [d, i] : llvm::enumerate(index))
      at += (first[d] + i * step[d]) * strides[d];
    return at;
  });
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  auto in = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  RankedTensorType type = getType();
  if (!in || !type.hasStaticShape() || type.getNumElements() > kMaxFoldedMoves)
    return {};
  if (in.isSplat())
    return in.resizeSplat(type);
  SmallVector<int64_t> strides =
      stridesOf(cast<RankedTensorType>(getInput().getType()).getShape());
  ArrayRef<int64_t> perm = getPerm();
  return moveElements(in, type, [&](ArrayRef<int64_t> index) {
    int64_t at = 0;
    for (auto [d, i] : llvm::enumerate(index))
      at += i * strides[perm[d]];
    return at;
  });
}

std::optional<SmallVector<int64_t>> tessel::constantIntValues(Value v) {
  DenseIntElementsAttr dense;
  if (!matchPattern(v, m_Constant(&dense)))
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &e : dense.getValues<APInt>())
    out.push_back(e.getSExtValue());
  return out;
}

LogicalResult SliceOp::verify() {
  RankedTensorType in = rankedType(getInput());
  int64_t count = getAxes().size();
  if (rankedType(getStarts()).getDimSize(0) != count ||
      rankedType(getEnds()).getDimSize(0) != count ||
      static_cast<int64_t>(getSteps().size()) != count)
    return emitOpError("starts, ends, axes and steps differ in length");
  if (getType().getElementType() != in.getElementType())
    return emitOpError("result element type differs from the input's");
  std::optional<SmallVector<int64_t>> starts = constantIntValues(getStarts()),
                                      ends = constantIntValues(getEnds());
  SmallVector<int64_t> expected(in.getShape());
  for (int64_t i = 0; i < count; ++i) {
    int64_t axis = getAxes()[i], step = getSteps()[i];
    if (axis < 0 || axis >= in.getRank() ||
        llvm::count(getAxes(), axis) != 1)
      return emitOpError("axis ") << axis << " is out of range or repeated";
    if (step == 0)
      return emitOpError("step 0 on axis ") << axis;
    expected[axis] = in.isDynamicDim(axis) || !starts || !ends
                         ? ShapedType::kDynamic
                         : sliceRange(in.getDimSize(axis), (*starts)[i],
                                      (*ends)[i], step)
                               .second;
  }
  // A result dim may stay dynamic where the extent became known later
  // (bounds that folded after import); the contract computes it then.
  return checkShape(*this, getType(), expected, "result",
                    sameOrDynamicDim);
}

//===----------------------------------------------------------------------===//
// SplitOp, SizeOp
//===----------------------------------------------------------------------===//

LogicalResult SplitOp::verify() {
  RankedTensorType in = rankedType(getInput());
  int64_t axis = getAxis(), parts = getNumResults();
  if (axis < 0 || axis >= in.getRank())
    return emitOpError("axis ") << axis << " is out of range for rank "
                                << in.getRank();
  if (parts == 0)
    return emitOpError("has no results");
  if (getSizes() && rankedType(getSizes()).getDimSize(0) != parts)
    return emitOpError("has ") << parts << " results for "
                               << rankedType(getSizes()).getDimSize(0)
                               << " sizes";
  std::optional<SmallVector<int64_t>> sizes;
  if (getSizes())
    sizes = constantIntValues(getSizes());
  int64_t n = in.getDimSize(axis), total = 0;
  for (int64_t v : sizes ? *sizes : SmallVector<int64_t>()) {
    if (v < 0)
      return emitOpError("size ") << v << " is negative";
    total += v;
  }
  if (sizes && !in.isDynamicDim(axis) && total != n)
    return emitOpError("sizes add up to ")
           << total << ", but the axis has extent " << n;
  for (int64_t i = 0; i < parts; ++i) {
    auto type = cast<RankedTensorType>(getResult(i).getType());
    if (type.getElementType() != in.getElementType())
      return emitOpError("result ") << i << " has another element type";
    SmallVector<int64_t> expected(in.getShape());
    if (getSizes())
      expected[axis] = sizes ? (*sizes)[i] : ShapedType::kDynamic;
    else if (!in.isDynamicDim(axis)) {
      int64_t chunk = (n + parts - 1) / parts;
      expected[axis] = i + 1 < parts ? chunk
                                     : std::max<int64_t>(n - chunk * i, 0);
    }
    // A dim may stay dynamic where the sizes became constant after import.
    if (failed(checkShape(*this, type, expected, "result " + std::to_string(i),
                          sameOrDynamicDim)))
      return failure();
  }
  return success();
}

OpFoldResult RangeOp::fold(FoldAdaptor adaptor) {
  // Integer ranges of constants, small enough to be shapes or axes lists.
  auto start = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getStart());
  auto limit = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getLimit());
  auto delta = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getDelta());
  RankedTensorType type = getType();
  if (!start || !limit || !delta || !type.hasStaticShape() ||
      type.getNumElements() > 64)
    return {};
  unsigned width = type.getElementTypeBitWidth();
  APInt first = *start.getValues<APInt>().begin();
  APInt step = *delta.getValues<APInt>().begin();
  SmallVector<APInt> values;
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    values.push_back(first + step * APInt(width, i, /*isSigned=*/true));
  return DenseElementsAttr::get(type, values);
}

OpFoldResult SizeOp::fold(FoldAdaptor) {
  auto in = rankedType(getInput());
  if (!in.hasStaticShape())
    return {};
  return DenseElementsAttr::get(cast<ShapedType>(getType()),
                                APInt(64, in.getNumElements()));
}

//===----------------------------------------------------------------------===//
// ExpandOp, ConstantOfShapeOp
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>>
tessel::expandShape(ArrayRef<int64_t> input,
                    ArrayRef<std::optional<int64_t>> values,
                    std::string &error) {
  int64_t inRank = input.size(), count = values.size();
  int64_t rank = std::max(inRank, count);
  SmallVector<int64_t> dims(rank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t j = i - (rank - inRank), k = i - (rank - count);
    int64_t x = j >= 0 ? input[j] : 1;
    std::optional<int64_t> v;
    if (k >= 0)
      v = values[k];
    if (v && *v < 0) {
      error = "shape value " + std::to_string(*v) + " is negative";
      return failure();
    }
    if (k < 0 || (v && *v == 1))
      dims[i] = x;
    else if (x == 1 || v) {
      if (v && !ShapedType::isDynamic(x) && x != 1 && x != *v) {
        error = "cannot broadcast dim " + std::to_string(j) + " of extent " +
                std::to_string(x) + " to " + std::to_string(*v);
        return failure();
      }
      dims[i] = v ? *v : ShapedType::kDynamic;
    } else {
      dims[i] = ShapedType::isDynamic(x) ? ShapedType::kDynamic : x;
    }
  }
  return dims;
}

LogicalResult ExpandOp::verify() {
  RankedTensorType in = rankedType(getInput());
  int64_t count = rankedType(getShape()).getDimSize(0);
  if (ShapedType::isDynamic(count))
    return emitOpError("shape must have a static length");
  if (getType().getElementType() != in.getElementType())
    return emitOpError("result element type differs from the input's");
  SmallVector<std::optional<int64_t>> values(count);
  if (std::optional<SmallVector<int64_t>> c = constantIntValues(getShape()))
    for (int64_t k = 0; k < count; ++k)
      values[k] = (*c)[k];
  std::string error;
  FailureOr<SmallVector<int64_t>> expected =
      expandShape(in.getShape(), values, error);
  if (failed(expected))
    return emitOpError(error);
  return checkShape(*this, getType(), *expected, "result",
                    knownOrDynamicDim);
}

LogicalResult ConstantOfShapeOp::verify() {
  auto value = getValue();
  if (value.getNumElements() != 1 ||
      value.getElementType() != getType().getElementType())
    return emitOpError("value must be one element of the result's type");
  int64_t count = rankedType(getShape()).getDimSize(0);
  if (count != getType().getRank())
    return emitOpError("shape has ")
           << count << " elements for a rank-" << getType().getRank()
           << " result";
  if (std::optional<SmallVector<int64_t>> values = constantIntValues(getShape())) {
    for (int64_t v : *values)
      if (v < 0)
        return emitOpError("shape value ") << v << " is negative";
    return checkShape(*this, getType(), *values, "result",
                      sameOrDynamicDim);
  }
  return success();
}

OpFoldResult ConstantOfShapeOp::fold(FoldAdaptor) {
  if (!getType().hasStaticShape())
    return {};
  auto value = dyn_cast<DenseElementsAttr>(getValue());
  if (!value)
    return {};
  return DenseElementsAttr::get(getType(),
                                value.getSplatValue<Attribute>());
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  RankedTensorType in = rankedType(getInput());
  for (auto [format, type, what] :
       {std::tuple(getInputFormat(), in.getElementType(), "input"),
        std::tuple(getResultFormat(), getType().getElementType(), "result")})
    if (format && (!isNarrowFormat(*format) || !type.isInteger(8)))
      return emitOpError() << what << "_format " << *format
                           << " is not a narrow format of an i8 element";
  if (getE8m0Rounding() < 0 || getE8m0Rounding() > 2)
    return emitOpError("e8m0_rounding must be 0 (up), 1 (down) or 2 (nearest)");
  return checkShape(*this, getType(), in.getShape(), "result");
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInputFormat() || getResultFormat())
    return {}; // the kernel's: bit manipulation
  if (getInput().getType() == getType() &&
      getInputUnsigned() == getResultUnsigned())
    return getInput();
  // Integer constants between integer types (shape arithmetic: int64 <->
  // int32); everything else is the kernel's.
  auto dense = dyn_cast_or_null<DenseIntElementsAttr>(adaptor.getInput());
  auto to = dyn_cast<IntegerType>(getType().getElementType());
  if (!dense || !to || to.getWidth() == 1 || !getType().hasStaticShape() ||
      dense.getElementType().isInteger(1))
    return {};
  bool fromUnsigned = getInputUnsigned();
  return dense.mapValues(to, [&](const APInt &v) {
    return fromUnsigned ? v.zextOrTrunc(to.getWidth())
                        : v.sextOrTrunc(to.getWidth());
  });
}
