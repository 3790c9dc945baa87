//===- SerializePlan.cpp - Plan IR -> the artifact's model ----------------===//
//
// Writes the canonicalized plan function into the artifact:
//   * arguments become Input buffers and signatures, their dynamic dims the
//     symbols the graph named (`tessel.arg_symbols`);
//   * each index value becomes a Dim: a constant, an input's symbol, or a
//     symbol that an instruction of the shape program defines (arith ops on
//     index, `plan.input_values`, `plan.reshape_dims`); `plan.assert_eq`
//     becomes a CheckEq instruction;
//   * `plan.weight` becomes a Weight buffer (its bytes appended, 64-byte
//     aligned, to the weights section), `plan.host_values` a Transient
//     buffer the runtime fills (HostValues), `plan.dispatch` a kernel, a launch
//     and one Transient buffer per result, `plan.view` the same buffer seen
//     with another shape, and the returned values the Output buffers.
// An op with no run-time form is an internal compiler error.
//
//===----------------------------------------------------------------------===//

#include "compiler/Partition.h"

#include "dialects/Graph/TesselDialect.h"
#include "dialects/Plan/PlanDialect.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <set>

using namespace mlir;
using namespace tessel;
using format::Buffer;
using format::Dim;
using format::Shape;
using ShapeInstr = format::ShapeOp;

namespace {

class PlanSerializer {
public:
  PlanSerializer(func::FuncOp plan, format::Artifact &artifact)
      : plan(plan), artifact(artifact) {}

  LogicalResult run();

private:
  /// A tensor's buffer and the shape it is viewed with.
  struct View {
    uint32_t buffer;
    Shape shape;
  };

  LogicalResult addInputs();
  /// Serializes the ops of `block` as the steps of region `region`.
  LogicalResult addBlock(Block &block, uint32_t region);
  LogicalResult addOp(Operation &op);
  LogicalResult addIf(plan::IfOp op);
  LogicalResult addLoop(plan::LoopOp op);
  /// A new region whose steps are `block`'s ops and whose yields are the
  /// tensors its `plan.yield` yields; returns its index.
  FailureOr<uint32_t> addRegion(Block &block);
  /// Buffers receiving the results of a control op: a symbol per dynamic
  /// dim, named after the op, which `resultDims` (in order) stand for.
  std::vector<uint32_t> addResults(ResultRange results, ValueRange resultDims,
                                   const std::string &base);
  /// A transient buffer for `tensor`, whose dynamic dims are fresh symbols
  /// `<name>.d<k>`, each standing for the next of `indices` (which it
  /// consumes): what a control op binds when it runs.
  uint32_t addBoundBuffer(Value tensor, ValueRange &indices,
                          const std::string &name);
  /// The buffer of `tensor` and the shape it is seen with.
  FailureOr<format::LaunchArg> viewOf(Value tensor, Operation *user);
  /// Appends a step of `kind` for entry `index` to the current region.
  void addStep(format::Step::Kind kind, size_t index);
  LogicalResult addWeight(plan::WeightOp op);
  LogicalResult addDispatch(plan::DispatchOp op);
  LogicalResult addOutputs(func::ReturnOp op);
  LogicalResult addView(plan::ViewOp op);
  LogicalResult addHostValues(plan::HostValuesOp op);
  /// Appends a shape instruction of `kind` for `op` reading `operands`,
  /// defining one fresh symbol per result of `op`; returns it so the caller
  /// can set the fields of its kind.
  FailureOr<ShapeInstr *> addShapeOp(Operation *op, ShapeInstr::Kind kind,
                                     ValueRange operands);
  LogicalResult addArith(Operation *op);
  FailureOr<Dim> dimOf(Value index, Operation *user);
  /// The shape of a tensor of `type` whose dynamic dims are `dynamicDims`.
  FailureOr<Shape> shapeOfType(Type type, ValueRange dynamicDims,
                               Operation *user);
  uint32_t addBuffer(Buffer::Kind kind, Type type, Shape shape);
  std::string freshSymbol(const std::string &base);
  LogicalResult unsupported(Operation *op) {
    return op->emitError("internal compiler error: plan op '")
           << op->getName() << "' has no run-time form";
  }

  func::FuncOp plan;
  format::Artifact &artifact;
  DenseMap<Value, View> views;
  DenseMap<Value, Dim> dims;
  DenseMap<Operation *, uint32_t> kernelOf; ///< kernel func -> its index
  std::set<std::string> usedSymbols;
  uint32_t currentRegion = 0; ///< where steps go
  /// Whether a step reads a buffer back (BufferValues): then the steps of
  /// region 0 say when it runs, even without control flow.
  bool readsBack = false;
};

} // namespace

static FailureOr<format::DType> dtypeOf(Type t) {
  if (t.isF32())
    return format::DType::F32;
  if (t.isF64())
    return format::DType::F64;
  if (t.isF16())
    return format::DType::F16;
  if (t.isBF16())
    return format::DType::BF16;
  if (t.isInteger(1))
    return format::DType::Bool;
  if (t.isInteger(8))
    return format::DType::I8;
  if (t.isInteger(16))
    return format::DType::I16;
  if (t.isInteger(32))
    return format::DType::I32;
  if (t.isInteger(64))
    return format::DType::I64;
  return failure();
}

/// Whether ONNX dtype `onnx` describes elements of `type` (same width and
/// kind; the ONNX type may add the signedness MLIR integers lack).
static bool describes(format::DType onnx, format::DType type) {
  auto isFloat = [](format::DType t) {
    return t == format::DType::F32 || t == format::DType::F64 ||
           t == format::DType::F16 || t == format::DType::BF16;
  };
  return format::dtypeSize(onnx) != 0 &&
         format::dtypeSize(onnx) == format::dtypeSize(type) &&
         isFloat(onnx) == isFloat(type) &&
         (onnx == format::DType::Bool) == (type == format::DType::Bool) &&
         (!isFloat(onnx) || onnx == type);
}

std::string PlanSerializer::freshSymbol(const std::string &base) {
  std::string name = base;
  for (int i = 1; usedSymbols.count(name); ++i)
    name = base + "_" + std::to_string(i);
  usedSymbols.insert(name);
  return name;
}

uint32_t PlanSerializer::addBuffer(Buffer::Kind kind, Type type, Shape shape) {
  Buffer b;
  b.kind = kind;
  b.dtype = *dtypeOf(cast<RankedTensorType>(type).getElementType());
  b.shape = std::move(shape);
  artifact.buffers.push_back(std::move(b));
  return artifact.buffers.size() - 1;
}

FailureOr<Dim> PlanSerializer::dimOf(Value index, Operation *user) {
  auto it = dims.find(index);
  if (it != dims.end())
    return it->second;
  APInt c;
  if (matchPattern(index, m_ConstantInt(&c))) // an i1 `true` is 1, not -1
    return dims[index] = Dim{c.getBitWidth() == 1 ? int64_t(c.getZExtValue())
                                                  : c.getSExtValue(),
                             ""};
  return user->emitError("internal compiler error: an extent of this op is "
                         "defined by no input and no shape instruction");
}

FailureOr<Shape> PlanSerializer::shapeOfType(Type type, ValueRange dynamicDims,
                                             Operation *user) {
  auto t = cast<RankedTensorType>(type);
  Shape shape;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (!t.isDynamicDim(d)) {
      shape.push_back(Dim{t.getDimSize(d), ""});
      continue;
    }
    FailureOr<Dim> dim = dimOf(dynamicDims[t.getDynamicDimIndex(d)], user);
    if (failed(dim))
      return failure();
    shape.push_back(*dim);
  }
  return shape;
}

LogicalResult PlanSerializer::addView(plan::ViewOp op) {
  auto source = views.find(op.getSource());
  if (source == views.end())
    return op.emitError("internal compiler error: view of no buffer");
  FailureOr<Shape> shape = shapeOfType(op.getType(), op.getDims(), op);
  if (failed(shape))
    return failure();
  views[op.getResult()] = View{source->second.buffer, *shape};
  return success();
}

LogicalResult PlanSerializer::addHostValues(plan::HostValuesOp op) {
  format::HostValues h;
  for (Value v : op.getValues()) {
    FailureOr<Dim> dim = dimOf(v, op);
    if (failed(dim))
      return failure();
    h.values.push_back(*dim);
  }
  Shape shape;
  for (int64_t d : op.getType().getShape())
    shape.push_back(Dim{d, ""});
  h.buffer = addBuffer(Buffer::Kind::Transient, op.getType(), shape);
  views[op.getResult()] = View{h.buffer, shape};
  addStep(format::Step::Kind::HostValues, artifact.hostValues.size());
  artifact.hostValues.push_back(std::move(h));
  return success();
}

FailureOr<format::LaunchArg> PlanSerializer::viewOf(Value tensor,
                                                     Operation *user) {
  auto it = views.find(tensor);
  if (it == views.end())
    return user->emitError("internal compiler error: operand has no buffer");
  return format::LaunchArg{it->second.buffer, it->second.shape};
}

LogicalResult PlanSerializer::addInputs() {
  auto symbols = plan->getAttrOfType<ArrayAttr>(kArgSymbolsAttr);
  for (BlockArgument arg : plan.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto type = cast<RankedTensorType>(arg.getType());
    if (failed(dtypeOf(type.getElementType())))
      return plan.emitError() << "input " << i << " has unsupported type "
                              << type;
    auto argSymbols = symbols ? dyn_cast<ArrayAttr>(symbols[i]) : ArrayAttr();
    Shape shape;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        shape.push_back(Dim{type.getDimSize(d), ""});
        continue;
      }
      StringRef s = argSymbols ? cast<StringAttr>(argSymbols[d]).getValue()
                               : StringRef();
      if (s.empty())
        return plan.emitError() << "input " << i << ": dynamic dim " << d
                                << " has no symbol";
      shape.push_back(Dim{-1, s.str()});
      usedSymbols.insert(s.str());
    }
    uint32_t id = addBuffer(Buffer::Kind::Input, type, shape);
    // The ONNX element type keeps the signedness MLIR integers lack.
    if (auto dtype = plan.getArgAttrOfType<IntegerAttr>(i, "tessel.dtype")) {
      auto onnx = static_cast<format::DType>(dtype.getInt());
      if (!describes(onnx, artifact.buffers[id].dtype))
        return plan.emitError() << "input " << i << ": ONNX dtype "
                                << dtype.getInt() << " does not describe "
                                << type.getElementType();
      artifact.buffers[id].dtype = onnx;
    }
    auto name = plan.getArgAttrOfType<StringAttr>(i, "tessel.name");
    artifact.inputs.push_back({name ? name.str() : "input" + std::to_string(i),
                               artifact.buffers[id].dtype, shape, id});
    views[arg] = View{id, shape};
  }
  // The dims the plan reads from the inputs.
  plan.walk([&](plan::DimOp op) {
    if (auto arg = dyn_cast<BlockArgument>(op.getSource()))
      dims[op.getResult()] = views[arg].shape[op.getIndex()];
  });
  return success();
}

LogicalResult PlanSerializer::addWeight(plan::WeightOp op) {
  auto type = cast<RankedTensorType>(op.getType());
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense || failed(dtypeOf(type.getElementType())))
    return op.emitError() << describeLoc(op.getLoc())
                          << ": unsupported constant";
  std::vector<uint8_t> &w = artifact.weights;
  w.resize((w.size() + format::kWeightAlignment - 1) /
           format::kWeightAlignment * format::kWeightAlignment);
  uint64_t offset = w.size();
  int64_t count = type.getNumElements();
  if (type.getElementType().isInteger(1)) {
    for (bool v : dense.getValues<bool>())
      w.push_back(v ? 1 : 0);
  } else {
    unsigned bytes = type.getElementTypeBitWidth() / 8;
    ArrayRef<char> raw = dense.getRawData();
    w.resize(offset + count * bytes);
    // An empty tensor has no bytes (and &w[offset] would be past the end).
    if (count != 0 && dense.isSplat())
      for (int64_t i = 0; i < count; ++i)
        std::memcpy(&w[offset + i * bytes], raw.data(), bytes);
    else if (count != 0)
      std::memcpy(&w[offset], raw.data(), count * bytes);
  }
  Shape shape;
  for (int64_t d : type.getShape())
    shape.push_back(Dim{d, ""});
  uint32_t id = addBuffer(Buffer::Kind::Weight, type, shape);
  artifact.buffers[id].weightOffset = offset;
  artifact.buffers[id].weightSize = w.size() - offset;
  views[op.getResult()] = View{id, shape};
  return success();
}

LogicalResult PlanSerializer::addDispatch(plan::DispatchOp op) {
  std::string node, opType;
  onnxNodeOf(op.getLoc(), node, opType);
  format::Launch launch;
  launch.kernel = artifact.kernels.size();
  artifact.kernels.push_back({op.getKernel().str(), node, opType});
  for (Value arg : op.getArgs()) {
    FailureOr<format::LaunchArg> view = viewOf(arg, op);
    if (failed(view))
      return failure();
    launch.args.push_back(*view);
  }
  ValueRange resultDims = op.getResultDims();
  std::optional<ArrayRef<int64_t>> tied = op.getTied();
  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    auto type = cast<RankedTensorType>(result.getType());
    if (failed(dtypeOf(type.getElementType())))
      return op.emitError() << describeLoc(op.getLoc())
                            << ": unsupported element type";
    unsigned dynamic = type.getNumDynamicDims();
    if (tied && (*tied)[i] >= 0) {
      // Written in place: the argument's buffer, seen with its shape.
      resultDims = resultDims.drop_front(dynamic);
      views[result] = views.lookup(op.getArgs()[(*tied)[i]]);
      launch.args.push_back(launch.args[(*tied)[i]]);
      continue;
    }
    FailureOr<Shape> shape =
        shapeOfType(type, resultDims.take_front(dynamic), op);
    if (failed(shape))
      return failure();
    resultDims = resultDims.drop_front(dynamic);
    uint32_t id = addBuffer(Buffer::Kind::Transient, type, *shape);
    views[result] = View{id, *shape};
    launch.args.push_back({id, *shape});
  }
  launch.workSize = views[op.getResults().front()].shape;
  addStep(format::Step::Kind::Launch, artifact.plan.size());
  artifact.plan.push_back(std::move(launch));
  return success();
}

FailureOr<ShapeInstr *> PlanSerializer::addShapeOp(Operation *op,
                                                   ShapeInstr::Kind kind,
                                                   ValueRange operands) {
  ShapeInstr s;
  s.kind = kind;
  onnxNodeOf(op->getLoc(), s.onnxNode, s.onnxOp);
  for (Value v : operands) {
    FailureOr<Dim> dim = dimOf(v, op);
    if (failed(dim))
      return failure();
    s.operands.push_back(*dim);
  }
  std::string base = s.onnxNode.empty() ? std::string("s") : s.onnxNode;
  for (OpResult r : op->getResults()) {
    Dim d{-1, freshSymbol(base + ".d" + std::to_string(r.getResultNumber()))};
    dims[r] = d;
    s.results.push_back(d);
  }
  addStep(format::Step::Kind::Shape, artifact.shapeProgram.size());
  artifact.shapeProgram.push_back(std::move(s));
  return &artifact.shapeProgram.back();
}

LogicalResult PlanSerializer::addArith(Operation *op) {
  std::optional<ShapeInstr::Kind> kind =
      llvm::TypeSwitch<Operation *, std::optional<ShapeInstr::Kind>>(op)
          .Case<arith::AddIOp>([](auto) { return ShapeInstr::Kind::Add; })
          .Case<arith::SubIOp>([](auto) { return ShapeInstr::Kind::Sub; })
          .Case<arith::MulIOp>([](auto) { return ShapeInstr::Kind::Mul; })
          .Case<arith::FloorDivSIOp>(
              [](auto) { return ShapeInstr::Kind::FloorDiv; })
          .Case<arith::CeilDivSIOp>([](auto) { return ShapeInstr::Kind::CeilDiv; })
          .Case<arith::MinSIOp>([](auto) { return ShapeInstr::Kind::Min; })
          .Case<arith::MaxSIOp>([](auto) { return ShapeInstr::Kind::Max; })
          .Case<arith::CmpIOp>([](arith::CmpIOp cmp) {
            arith::CmpIPredicate p = cmp.getPredicate();
            return p == arith::CmpIPredicate::slt ||
                           p == arith::CmpIPredicate::sgt
                       ? std::optional(ShapeInstr::Kind::Lt)
                       : std::nullopt;
          })
          .Default([](auto) { return std::nullopt; });
  // A comparison's 0/1 used as an index is the same value.
  if (auto cast = dyn_cast<arith::IndexCastUIOp>(op);
      cast && cast.getIn().getType().isInteger(1)) {
    FailureOr<Dim> in = dimOf(cast.getIn(), op);
    if (failed(in))
      return failure();
    dims[cast.getResult()] = *in;
    return success();
  }
  if (!kind ||
      !llvm::all_of(op->getOperandTypes(), [](Type t) { return t.isIndex(); }))
    return unsupported(op);
  SmallVector<Value> operands(op->getOperands());
  if (auto cmp = dyn_cast<arith::CmpIOp>(op);
      cmp && cmp.getPredicate() == arith::CmpIPredicate::sgt)
    std::swap(operands[0], operands[1]); // a > b is b < a
  return success(succeeded(addShapeOp(op, *kind, operands)));
}

LogicalResult PlanSerializer::addOutputs(func::ReturnOp op) {
  auto names = plan->getAttrOfType<ArrayAttr>("tessel.output_names");
  auto dtypes = plan->getAttrOfType<ArrayAttr>("tessel.output_dtypes");
  for (auto [i, v] : llvm::enumerate(op.getOperands())) {
    View view = views.lookup(v);
    Buffer &b = artifact.buffers[view.buffer];
    if (b.kind != Buffer::Kind::Transient)
      return op.emitError("internal compiler error: output ")
             << i << " does not own its buffer";
    b.kind = Buffer::Kind::Output;
    if (dtypes) {
      auto onnx =
          static_cast<format::DType>(cast<IntegerAttr>(dtypes[i]).getInt());
      if (!describes(onnx, b.dtype))
        return op.emitError() << "output " << i << ": ONNX dtype "
                              << static_cast<uint32_t>(onnx)
                              << " does not describe its "
                              << format::dtypeName(b.dtype) << " elements";
      b.dtype = onnx;
    }
    std::string name = names ? cast<StringAttr>(names[i]).str()
                             : "output" + std::to_string(i);
    artifact.outputs.push_back({name, b.dtype, view.shape, view.buffer});
  }
  return success();
}

void PlanSerializer::addStep(format::Step::Kind kind, size_t index) {
  artifact.regions[currentRegion].steps.push_back(
      {kind, static_cast<uint32_t>(index)});
}

LogicalResult PlanSerializer::addOp(Operation &op) {
  if (isa<arith::ConstantOp, plan::DimOp, plan::YieldOp>(op))
    return success(); // extents folded into shapes; yields: addRegion
  if (auto w = dyn_cast<plan::WeightOp>(op))
    return addWeight(w);
  if (auto d = dyn_cast<plan::DispatchOp>(op))
    return addDispatch(d);
  if (auto v = dyn_cast<plan::ViewOp>(op))
    return addView(v);
  if (auto h = dyn_cast<plan::HostValuesOp>(op))
    return addHostValues(h);
  if (auto i = dyn_cast<plan::IfOp>(op))
    return addIf(i);
  if (auto l = dyn_cast<plan::LoopOp>(op))
    return addLoop(l);
  if (auto read = dyn_cast<plan::InputValuesOp>(op)) {
    FailureOr<ShapeInstr *> s =
        addShapeOp(read, ShapeInstr::Kind::InputValues, {});
    if (succeeded(s))
      (*s)->input = cast<BlockArgument>(read.getInput()).getArgNumber();
    return success(succeeded(s));
  }
  if (auto read = dyn_cast<plan::TensorValuesOp>(op)) {
    auto view = views.find(read.getTensor());
    if (view == views.end())
      return read.emitError("internal compiler error: operand has no buffer");
    FailureOr<ShapeInstr *> s =
        addShapeOp(read, ShapeInstr::Kind::BufferValues, {});
    if (succeeded(s))
      (*s)->buffer = view->second.buffer;
    readsBack = true;
    return success(succeeded(s));
  }
  if (auto reshape = dyn_cast<plan::ReshapeDimsOp>(op)) {
    SmallVector<Value> operands(reshape.getSource());
    llvm::append_range(operands, reshape.getValues());
    FailureOr<ShapeInstr *> s =
        addShapeOp(reshape, ShapeInstr::Kind::Reshape, operands);
    if (succeeded(s))
      (*s)->allowZero = reshape.getAllowzero();
    return success(succeeded(s));
  }
  if (auto check = dyn_cast<plan::AssertEqOp>(op)) {
    FailureOr<ShapeInstr *> s = addShapeOp(check, ShapeInstr::Kind::CheckEq,
                                           {check.getLhs(), check.getRhs()});
    if (succeeded(s))
      (*s)->message = check.getMessage().str();
    return success(succeeded(s));
  }
  if (auto ret = dyn_cast<func::ReturnOp>(op))
    return addOutputs(ret);
  if (op.getDialect() && op.getDialect()->getNamespace() == "arith")
    return addArith(&op);
  return unsupported(&op);
}

LogicalResult PlanSerializer::addBlock(Block &block, uint32_t region) {
  uint32_t enclosing = currentRegion;
  currentRegion = region;
  for (Operation &op : block)
    if (failed(addOp(op)))
      return failure();
  currentRegion = enclosing;
  return success();
}

FailureOr<uint32_t> PlanSerializer::addRegion(Block &block) {
  uint32_t region = artifact.regions.size();
  artifact.regions.emplace_back();
  if (failed(addBlock(block, region)))
    return failure();
  Operation *yield = block.getTerminator();
  for (Value v : yield->getOperands()) {
    FailureOr<format::LaunchArg> view = viewOf(v, yield);
    if (failed(view))
      return failure();
    artifact.regions[region].yields.push_back(*view);
  }
  return region;
}

uint32_t PlanSerializer::addBoundBuffer(Value tensor, ValueRange &indices,
                                        const std::string &name) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Shape shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      shape.push_back(Dim{type.getDimSize(d), ""});
      continue;
    }
    Dim dim{-1, freshSymbol(name + ".d" + std::to_string(d))};
    dims[indices.front()] = dim;
    indices = indices.drop_front();
    shape.push_back(dim);
  }
  uint32_t buffer = addBuffer(Buffer::Kind::Transient, type, shape);
  views[tensor] = View{buffer, shape};
  return buffer;
}

std::vector<uint32_t> PlanSerializer::addResults(ResultRange results,
                                                 ValueRange resultDims,
                                                 const std::string &base) {
  std::vector<uint32_t> buffers;
  for (OpResult r : results)
    buffers.push_back(addBoundBuffer(
        r, resultDims, base + ".r" + std::to_string(r.getResultNumber())));
  return buffers;
}

/// The name a control op's symbols start with: its ONNX node, else "cf".
static std::string symbolBase(const format::ControlOp &c) {
  return c.onnxNode.empty() ? std::string("cf") : c.onnxNode;
}

LogicalResult PlanSerializer::addIf(plan::IfOp op) {
  format::ControlOp c;
  c.kind = format::ControlOp::Kind::If;
  onnxNodeOf(op.getLoc(), c.onnxNode, c.onnxOp);
  FailureOr<format::LaunchArg> cond = viewOf(op.getCond(), op);
  if (failed(cond))
    return failure();
  c.operands.push_back(*cond);
  size_t index = artifact.controlOps.size();
  addStep(format::Step::Kind::Control, index);
  artifact.controlOps.emplace_back();
  for (Region *region : {&op.getThenRegion(), &op.getElseRegion()}) {
    FailureOr<uint32_t> r = addRegion(region->front());
    if (failed(r))
      return failure();
    c.regions.push_back(*r);
  }
  c.results = addResults(op.getResults(), op.getResultDims(), symbolBase(c));
  artifact.controlOps[index] = std::move(c);
  return success();
}

LogicalResult PlanSerializer::addLoop(plan::LoopOp op) {
  format::ControlOp c;
  c.kind = format::ControlOp::Kind::Loop;
  onnxNodeOf(op.getLoc(), c.onnxNode, c.onnxOp);
  std::string base = symbolBase(c);
  SmallVector<Value> operands{op.getTripCount(), op.getCond()};
  llvm::append_range(operands, op.getInits());
  for (Value v : operands) {
    if (!v) { // an absent trip count or condition
      c.operands.push_back({format::kNoBuffer, {}});
      continue;
    }
    FailureOr<format::LaunchArg> view = viewOf(v, op);
    if (failed(view))
      return failure();
    c.operands.push_back(*view);
  }
  // The body's arguments: buffers the runtime fills before each iteration;
  // a carried tensor's dynamic dims are symbols bound to its extents.
  Block &body = op.getBody().front();
  ValueRange carriedDims = op.getCarriedDims();
  for (BlockArgument arg :
       body.getArguments().take_front(2 + op.getInits().size()))
    c.bodyArgs.push_back(addBoundBuffer(
        arg, carriedDims, base + ".a" + std::to_string(arg.getArgNumber())));
  c.iterationSymbol = freshSymbol(base + ".i");
  dims[op.getIterationIndex()] = Dim{-1, c.iterationSymbol};
  size_t index = artifact.controlOps.size();
  addStep(format::Step::Kind::Control, index);
  artifact.controlOps.emplace_back();
  FailureOr<uint32_t> r = addRegion(body);
  if (failed(r))
    return failure();
  c.regions.push_back(*r);
  c.results = addResults(op.getResults(), op.getResultDims(), base);
  artifact.controlOps[index] = std::move(c);
  return success();
}

/// In a plan whose only region is the top level (it reads values back
/// from kernels, without control flow): moves every shape step that does
/// not depend on a value read back ahead of the other steps, in order. The
/// runtime then knows the extents of every buffer not sized by a value
/// read back when the first launch runs, and plans those in one arena as
/// in a plan without regions (format/MemoryPlan.cpp); and checks of the
/// inputs' shapes fail before any launch. A moved step reads only symbols
/// of the inputs and of steps moved before it.
static void hoistShapeSteps(format::Artifact &a) {
  std::set<std::string> late; // bound by or from values read back
  std::vector<format::Step> early, rest;
  for (const format::Step &step : a.regions[0].steps) {
    if (step.kind == format::Step::Kind::Shape) {
      const format::ShapeOp &op = a.shapeProgram[step.index];
      bool isLate = op.kind == format::ShapeOp::Kind::BufferValues ||
                    llvm::any_of(op.operands, [&](const Dim &d) {
                      return d.isSymbolic() && late.count(d.symbol);
                    });
      if (!isLate) {
        early.push_back(step);
        continue;
      }
      for (const Dim &d : op.results)
        if (d.isSymbolic())
          late.insert(d.symbol);
    }
    rest.push_back(step);
  }
  llvm::append_range(early, rest);
  a.regions[0].steps = std::move(early);
}

LogicalResult PlanSerializer::run() {
  if (failed(addInputs()))
    return failure();
  artifact.regions.emplace_back(); // the top level
  if (failed(addBlock(plan.getBody().front(), 0)))
    return failure();
  // Without control flow or values read back from kernels, the implicit
  // order (shape program, host values, launches) is equivalent, and older
  // runtimes read the artifact.
  if (artifact.controlOps.empty() && !readsBack)
    artifact.regions.clear();
  else if (artifact.controlOps.empty())
    hoistShapeSteps(artifact);
  return success();
}

LogicalResult tessel::serializePlan(func::FuncOp plan,
                                    format::Artifact &artifact) {
  return PlanSerializer(plan, artifact).run();
}

LogicalResult tessel::expandStages(ModuleOp kernels,
                                   format::Artifact &artifact) {
  llvm::StringMap<SmallVector<func::FuncOp>> stagesOf;
  for (auto func : kernels.getOps<func::FuncOp>())
    if (auto of = func->getAttrOfType<StringAttr>("tessel.kernel_of"))
      stagesOf[of.getValue()].push_back(func);

  std::vector<format::Kernel> stageKernels;
  std::vector<format::Launch> plan;
  /// The launches each launch of the plan becomes.
  std::vector<std::vector<uint32_t>> stageLaunches(artifact.plan.size());
  for (const format::Launch &launch : artifact.plan) {
    const format::Kernel &kernel = artifact.kernels[launch.kernel];
    auto &stages = stagesOf[kernel.symbol];
    if (stages.empty())
      continue; // a kernel with nothing to do (e.g. an empty copy)
    // Workspaces: one Transient buffer each, shared by the kernel's stages.
    std::vector<format::LaunchArg> args = launch.args;
    auto workspaces =
        stages.front()->getAttrOfType<ArrayAttr>("tessel.workspace_dims");
    unsigned firstWorkspace =
        stages.front().getNumArguments() - (workspaces ? workspaces.size() : 0);
    for (auto [w, dimsAttr] : llvm::enumerate(
             workspaces ? workspaces.getValue() : ArrayRef<Attribute>())) {
      auto type = cast<MemRefType>(
          stages.front().getArgumentTypes()[firstWorkspace + w]);
      Shape shape;
      for (auto [d, pair] : llvm::enumerate(cast<ArrayAttr>(dimsAttr))) {
        ArrayRef<int64_t> src = cast<DenseI64ArrayAttr>(pair).asArrayRef();
        shape.push_back(src[0] < 0 ? Dim{type.getDimSize(d), ""}
                                   : args[src[0]].shape[src[1]]);
      }
      Buffer b;
      b.kind = Buffer::Kind::Transient;
      b.dtype = *dtypeOf(type.getElementType());
      b.shape = shape;
      artifact.buffers.push_back(b);
      args.push_back({uint32_t(artifact.buffers.size() - 1), shape});
    }
    for (func::FuncOp stage : stages) {
      if (stage.getNumArguments() != args.size())
        return stage.emitError("stage has ")
               << stage.getNumArguments() << " arguments, the plan "
               << args.size();
      format::Launch l;
      l.kernel = stageKernels.size();
      l.args = args;
      // The stage's parallel iteration space: one GPU thread each.
      for (Attribute pair :
           stage->getAttrOfType<ArrayAttr>("tessel.work_dims")) {
        ArrayRef<int64_t> src = cast<DenseI64ArrayAttr>(pair).asArrayRef();
        l.workSize.push_back(src[0] < 0 ? Dim{src[1], ""}
                                        : args[src[0]].shape[src[1]]);
      }
      // Its signature, from the stage's own arguments: validate() holds
      // every launch to it.
      std::vector<format::KernelParam> params;
      for (Type type : stage.getArgumentTypes()) {
        auto memref = dyn_cast<MemRefType>(type);
        FailureOr<format::DType> dtype = failure();
        if (memref)
          dtype = dtypeOf(memref.getElementType());
        if (failed(dtype))
          return stage.emitError("internal compiler error: kernel argument "
                                 "of type ")
                 << type << " has no artifact signature";
        params.push_back({*dtype, static_cast<uint32_t>(memref.getRank())});
      }
      stageKernels.push_back({stage.getSymName().str(), kernel.onnxNode,
                              kernel.onnxOp, std::move(params)});
      stageLaunches[&launch - artifact.plan.data()].push_back(plan.size());
      plan.push_back(std::move(l));
    }
  }
  artifact.kernels = std::move(stageKernels);
  artifact.plan = std::move(plan);
  // A launch step becomes the launches of its stages (none for a kernel
  // with nothing to do).
  for (format::Region &region : artifact.regions) {
    std::vector<format::Step> steps;
    for (const format::Step &step : region.steps) {
      if (step.kind != format::Step::Kind::Launch) {
        steps.push_back(step);
        continue;
      }
      for (uint32_t l : stageLaunches[step.index])
        steps.push_back({format::Step::Kind::Launch, l});
    }
    region.steps = std::move(steps);
  }
  return success();
}
