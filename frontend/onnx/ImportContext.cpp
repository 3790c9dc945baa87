//===- ImportContext.cpp - Node access for the ONNX op importers ----------===//
//
// Inputs, attributes with ONNX defaults, constant inputs and errors for one
// node, plus the shape rules several op families share.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImportContext.h"

#include "mlir/IR/Matchers.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

Type ImportContext::elementType(int32_t t) {
  MLIRContext *ctx = builder.getContext();
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return Float32Type::get(ctx);
  case onnx::TensorProto::DOUBLE:
    return Float64Type::get(ctx);
  case onnx::TensorProto::FLOAT16:
    return Float16Type::get(ctx);
  case onnx::TensorProto::BFLOAT16:
    return BFloat16Type::get(ctx);
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8);
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16);
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32);
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64);
  case onnx::TensorProto::BOOL:
    return IntegerType::get(ctx, 1);
  // The narrow formats live one element per byte (design.md section 6): the
  // float8/float4 bit patterns, the sub-byte integers' values extended.
  case kFloat8E4M3FN:
  case kFloat8E4M3FNUZ:
  case kFloat8E5M2:
  case kFloat8E5M2FNUZ:
  case kUInt4:
  case kInt4:
  case kFloat4E2M1:
  case kFloat8E8M0:
  case kUInt2:
  case kInt2:
    return IntegerType::get(ctx, 8);
  default:
    return {};
  }
}

static std::string nodeName(const onnx::NodeProto &node) {
  if (!node.name().empty())
    return node.name();
  // Unnamed nodes are known by their first output, which is unique.
  return node.output_size() ? node.output(0) : node.op_type();
}

Location onnx_import::nodeLocation(ImportContext &ctx,
                                   const onnx::NodeProto &node) {
  return onnxNodeLoc(ctx.builder.getContext(), ctx.file, nodeName(node),
                     node.op_type());
}

NodeContext::NodeContext(ImportContext &ctx, const onnx::NodeProto &node,
                         int64_t opset, Location loc,
                         ArrayRef<std::string> expandedFrom)
    : ctx(ctx), node(node), opset(opset), loc(loc), b(ctx.builder),
      expandedFrom(expandedFrom.begin(), expandedFrom.end()) {}

/// "in its function body (through A > B), " for a node of an expanded
/// function body; "" for a node of the model.
static std::string bodyPrefix(ArrayRef<std::string> expandedFrom) {
  if (expandedFrom.empty())
    return "";
  std::string through;
  for (const std::string &op : expandedFrom.drop_front())
    through += (through.empty() ? "" : " > ") + op;
  return "in its function body" +
         (through.empty() ? std::string() : " (through " + through + ")") +
         ", ";
}

LogicalResult NodeContext::error(const Twine &message) {
  std::string inner = bodyPrefix(expandedFrom);
  if (!inner.empty())
    inner += "op '" + node.op_type() + "': ";
  return emitError(loc) << describeLoc(loc) << ": " << inner << message;
}

LogicalResult NodeContext::unsupported(const Twine &versionProblem) {
  ctx.unsupported = true;
  std::string domain = canonicalDomain(node.domain()).str();
  std::string op = (domain.empty() ? "" : domain + ".") + node.op_type();
  if (!versionProblem.str().empty())
    return error(versionProblem);
  if (expandedFrom.empty())
    return error("unsupported op '" + op + "'");
  return emitError(loc) << describeLoc(loc) << ": " << bodyPrefix(expandedFrom)
                        << "op '" << op << "' is not supported";
}

bool NodeContext::hasInput(int i) const {
  return i < node.input_size() && !node.input(i).empty();
}

Value NodeContext::input(int i) {
  if (!hasInput(i)) {
    (void)error("missing input " + Twine(i));
    return {};
  }
  auto it = ctx.values.find(node.input(i));
  if (it == ctx.values.end()) {
    (void)error("input '" + node.input(i) + "' is not defined before use");
    return {};
  }
  return it->second.value;
}

RankedTensorType NodeContext::inputType(int i) {
  return cast<RankedTensorType>(input(i).getType());
}

int32_t NodeContext::inputOnnxType(int i) {
  auto it = ctx.values.find(node.input(i));
  return it == ctx.values.end() ? 0 : it->second.onnxType;
}

std::optional<DenseElementsAttr> NodeContext::constantInput(int i) {
  Value v = hasInput(i) ? input(i) : Value();
  if (!v)
    return std::nullopt;
  if (auto c = v.getDefiningOp<ConstantOp>())
    if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue()))
      return dense;
  return std::nullopt;
}

FailureOr<SmallVector<int64_t>> NodeContext::constantInts(int i,
                                                          StringRef what) {
  std::optional<DenseElementsAttr> c = constantInput(i);
  if (!c || !isa<IntegerType>(c->getElementType())) {
    if (hasInput(i) && !input(i))
      return failure();
    return error(what + " must be a constant integer tensor (an initializer "
                        "or a Constant node)");
  }
  SmallVector<int64_t> out;
  for (const APInt &v : c->getValues<APInt>())
    out.push_back(v.getSExtValue());
  return out;
}

LogicalResult NodeContext::normalizeAxis(int64_t &axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return error("axis " + Twine(axis) + " is out of range for rank " +
                 Twine(rank));
  if (axis < 0)
    axis += rank;
  return success();
}

const onnx::AttributeProto *NodeContext::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::getInt(StringRef name, int64_t dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : dflt;
}

float NodeContext::getFloat(StringRef name, float dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : dflt;
}

std::string NodeContext::getString(StringRef name, StringRef dflt) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : dflt.str();
}

SmallVector<int64_t> NodeContext::getInts(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? SmallVector<int64_t>(a->ints().begin(), a->ints().end())
           : SmallVector<int64_t>();
}

/// Folds the single-result op that defines `value` when it folds to a
/// constant (a Shape of static dims, a Gather or Concat of constants: the
/// shape arithmetic exporters write), so that later nodes, whose handlers
/// read constant inputs, see one. The canonicalizer would fold the same
/// later; handlers need it now.
static Value foldOnImport(ImportContext &ctx, OpBuilder &b, Value value) {
  Operation *op = value.getDefiningOp();
  if (!op || isa<ConstantOp>(op) || op->getNumResults() != 1)
    return value;
  SmallVector<Attribute> operands;
  for (Value v : op->getOperands()) {
    Attribute constant;
    matchPattern(v, m_Constant(&constant));
    operands.push_back(constant);
  }
  SmallVector<OpFoldResult> folded;
  if (failed(op->fold(operands, folded)) || folded.size() != 1)
    return value;
  // An op that folds to one of its operands (Identity, a Cast to the same
  // type) is that operand.
  if (auto same = dyn_cast_if_present<Value>(folded[0]);
      same && same.getType() == value.getType()) {
    if (op->use_empty()) {
      ctx.shapes.forget(op);
      op->erase();
    }
    return same;
  }
  auto dense = dyn_cast_or_null<DenseElementsAttr>(
      dyn_cast_if_present<Attribute>(folded[0]));
  if (!dense || dense.getType() != value.getType())
    return value;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op);
  Value constant = ConstantOp::create(b, op->getLoc(), dense);
  if (op->use_empty()) {
    ctx.shapes.forget(op);
    op->erase();
  }
  return constant;
}

void NodeContext::setOutput(int i, Value value, int32_t onnxType) {
  if (i >= node.output_size() || node.output(i).empty())
    return;
  if (onnxType < 0)
    onnxType = inputOnnxType(0);
  ctx.values[node.output(i)] = GraphValue{foldOnImport(ctx, b, value), onnxType};
}

int64_t onnx_import::productOfDims(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    if (ShapedType::isDynamic(d))
      return ShapedType::kDynamic;
    p *= d;
  }
  return p;
}

bool onnx_import::isUnsigned(int32_t t) {
  return t == onnx::TensorProto::UINT8 || t == onnx::TensorProto::UINT16 ||
         t == onnx::TensorProto::UINT32 || t == onnx::TensorProto::UINT64 ||
         t == kUInt4 || t == kUInt2;
}

FailureOr<SmallVector<int64_t>>
onnx_import::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    int64_t y = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (x == 1)
      out[i] = y;
    else if (y == 1 || x == y)
      out[i] = x;
    else if (ShapedType::isDynamic(x))
      out[i] = y;
    else if (ShapedType::isDynamic(y))
      out[i] = x;
    else
      return failure();
  }
  return out;
}

FailureOr<SmallVector<int64_t>>
onnx_import::windowPads(NodeContext &n, ArrayRef<int64_t> in,
                        ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                        ArrayRef<int64_t> dilations) {
  size_t spatial = in.size();
  std::string autoPad = n.getString("auto_pad", "NOTSET");
  SmallVector<int64_t> pads = n.getInts("pads");
  if (autoPad == "NOTSET") {
    if (pads.empty())
      pads.assign(2 * spatial, 0);
    if (pads.size() != 2 * spatial)
      return n.error("expected " + Twine(2 * spatial) + " pads, got " +
                     Twine(pads.size()));
    return pads;
  }
  pads.assign(2 * spatial, 0);
  if (autoPad == "VALID")
    return pads;
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return n.error("unknown auto_pad '" + autoPad + "'");
  for (size_t i = 0; i < spatial; ++i) {
    if (ShapedType::isDynamic(in[i]))
      return n.error("auto_pad " + autoPad + " needs static spatial dims");
    int64_t out = (in[i] + strides[i] - 1) / strides[i];
    int64_t span = (kernel[i] - 1) * dilations[i] + 1;
    int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + span - in[i]);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[spatial + i] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}
