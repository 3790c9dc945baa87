//===- Partition.cpp - Graph -> execution plan + kernel functions ----------===//
//
// Walks the graph function in order:
//   * arguments become Input buffers, constants Weight buffers (their bytes
//     appended, 64-byte aligned, to the weights section);
//   * a Reshape becomes a view: its result shares its operand's buffer; one
//     whose target shape is a graph input also gets a shape rule, which
//     binds fresh symbols for its result dims from that input's values;
//   * every other op becomes a kernel function and a launch writing a new
//     Transient buffer; returned buffers become Output buffers (a returned
//     input, weight or already-returned value gets a copy kernel).
// Every dynamic dim is named by a model symbol, traced back to an argument
// through tessel::dynamicDimSource, or bound by a shape rule.
//
//===----------------------------------------------------------------------===//

#include "compiler/Partition.h"

#include "compiler/DimEqualities.h"

#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"

#include <set>

using namespace mlir;
using namespace tessel;
using format::Buffer;
using format::Dim;
using format::Shape;

namespace {

class Partitioner {
public:
  Partitioner(func::FuncOp graph, ModuleOp kernels, format::Artifact &a)
      : graph(graph), kernels(kernels), artifact(a),
        builder(graph.getContext()) {}

  LogicalResult run();

private:
  /// The value's buffer and the shape it is viewed with.
  struct View {
    uint32_t buffer;
    Shape shape;
  };

  /// The plan shape of result `result` of `op`, dynamic dims named.
  FailureOr<Shape> shapeOf(Operation *op, unsigned result);
  uint32_t addBuffer(Buffer::Kind kind, RankedTensorType type, Shape shape);
  LogicalResult addWeight(ConstantOp op);
  LogicalResult addKernel(Operation *op);
  LogicalResult addCopy(Value value, uint32_t &buffer);
  /// The shape of a reshape whose target shape is an operand, its dynamic
  /// dims named by new symbols that a shape rule binds at run time.
  FailureOr<Shape> addShapeRule(ReshapeOp op);
  /// `base`, or `base` with a suffix, whichever no other dim is named yet.
  std::string freshSymbol(const std::string &base);

  func::FuncOp graph;
  ModuleOp kernels;
  format::Artifact &artifact;
  OpBuilder builder;
  DenseMap<Value, View> views;
  DimEqualities equalities;
  std::set<std::string> usedSymbols; ///< every symbol named so far
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

FailureOr<Shape> Partitioner::shapeOf(Operation *op, unsigned result) {
  auto type = cast<RankedTensorType>(op->getResult(result).getType());
  Shape shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      shape.push_back(Dim{type.getDimSize(d), ""});
      continue;
    }
    auto source = dynamicDimSource(op, result, d);
    if (!source)
      return op->emitError() << describeLoc(op->getLoc()) << ": result dim "
                             << d << " is dynamic and cannot be expressed "
                             << "by a model symbol";
    View &operand = views[op->getOperand(source->first)];
    shape.push_back(operand.shape[source->second]);
  }
  return shape;
}

uint32_t Partitioner::addBuffer(Buffer::Kind kind, RankedTensorType type,
                                Shape shape) {
  Buffer b;
  b.kind = kind;
  b.dtype = *dtypeOf(type.getElementType());
  b.shape = std::move(shape);
  artifact.buffers.push_back(std::move(b));
  return artifact.buffers.size() - 1;
}

LogicalResult Partitioner::addWeight(ConstantOp op) {
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
    if (dense.isSplat())
      for (int64_t i = 0; i < count; ++i)
        std::memcpy(&w[offset + i * bytes], raw.data(), bytes);
    else
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

static MemRefType memrefOf(Type tensorType) {
  auto t = cast<RankedTensorType>(tensorType);
  return MemRefType::get(t.getShape(), t.getElementType());
}

LogicalResult Partitioner::addKernel(Operation *op) {
  SmallVector<Shape> operandShapes;
  for (Value v : op->getOperands())
    operandShapes.push_back(views[v].shape);
  if (failed(collectDimEqualities(op, operandShapes, equalities)))
    return failure();
  // One Transient buffer per result.
  SmallVector<uint32_t> outs;
  SmallVector<Shape> shapes;
  for (OpResult result : op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    if (failed(dtypeOf(type.getElementType())))
      return op->emitError()
             << describeLoc(op->getLoc()) << ": unsupported element type";
    FailureOr<Shape> shape = shapeOf(op, result.getResultNumber());
    if (failed(shape))
      return failure();
    outs.push_back(addBuffer(Buffer::Kind::Transient, type, *shape));
    shapes.push_back(*shape);
  }

  // The kernel function: inputs, then the outputs, as memrefs.
  uint32_t index = artifact.kernels.size();
  std::string node, opType;
  onnxNodeOf(op->getLoc(), node, opType);
  std::string symbol = "tessel_k" + std::to_string(index);
  SmallVector<Type> argTypes;
  for (Value v : op->getOperands())
    argTypes.push_back(memrefOf(v.getType()));
  for (Type t : op->getResultTypes())
    argTypes.push_back(memrefOf(t));
  builder.setInsertionPointToEnd(kernels.getBody());
  auto func = func::FuncOp::create(builder, op->getLoc(), symbol,
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    map.map(v, bufferization::ToTensorOp::create(
                   builder, op->getLoc(), v.getType(), body->getArgument(i),
                   /*restrict=*/true)
                   .getResult());
  Operation *clone = builder.clone(*op, map);
  for (OpResult result : clone->getResults()) {
    auto store = bufferization::MaterializeInDestinationOp::create(
        builder, op->getLoc(), TypeRange{}, result,
        body->getArgument(op->getNumOperands() + result.getResultNumber()));
    store.setRestrict(true);
    store.setWritable(true);
  }
  func::ReturnOp::create(builder, op->getLoc());

  format::Launch launch;
  launch.kernel = index;
  for (Value v : op->getOperands())
    launch.args.push_back({views[v].buffer, views[v].shape});
  for (auto [out, shape] : llvm::zip(outs, shapes))
    launch.args.push_back({out, shape});
  launch.workSize = shapes.front();
  artifact.kernels.push_back({symbol, node, opType});
  artifact.plan.push_back(std::move(launch));
  for (auto [result, out, shape] : llvm::zip(op->getResults(), outs, shapes))
    views[result] = View{out, shape};
  return success();
}

LogicalResult Partitioner::addCopy(Value value, uint32_t &buffer) {
  // An identity op in a kernel of its own copies `value` into a new buffer.
  builder.setInsertionPointAfterValue(value);
  auto copy = IdentityOp::create(builder, graph.getLoc(), value);
  Value result = copy.getResult();
  LogicalResult ok = addKernel(copy);
  buffer = views[result].buffer;
  copy.erase();
  return ok;
}

std::string Partitioner::freshSymbol(const std::string &base) {
  std::string name = base;
  for (int i = 1; usedSymbols.count(name); ++i)
    name = base + "_" + std::to_string(i);
  usedSymbols.insert(name);
  return name;
}

FailureOr<Shape> Partitioner::addShapeRule(ReshapeOp op) {
  // The runtime reads the shape from the host copy of an input.
  uint32_t buffer = views[op.getShape()].buffer;
  auto input = llvm::find_if(
      artifact.inputs, [&](const auto &sig) { return sig.buffer == buffer; });
  if (input == artifact.inputs.end())
    return op.emitError() << describeLoc(op.getLoc())
                          << ": the target shape must be a constant or a "
                             "graph input";
  std::string node, opType;
  onnxNodeOf(op.getLoc(), node, opType);
  if (node.empty())
    node = "reshape";
  format::ShapeFromInput rule;
  rule.input = input - artifact.inputs.begin();
  rule.source = views[op.getInput()].shape;
  rule.allowZero = op.getAllowzero();
  RankedTensorType type = op.getType();
  for (int64_t d = 0; d < type.getRank(); ++d)
    rule.result.push_back(
        type.isDynamicDim(d)
            ? Dim{-1, freshSymbol(node + ".d" + std::to_string(d))}
            : Dim{type.getDimSize(d), ""});
  artifact.shapeRules.push_back(rule);
  return rule.result;
}

LogicalResult Partitioner::run() {
  auto symbols = graph->getAttrOfType<ArrayAttr>(kArgSymbolsAttr);
  for (auto [i, arg] : llvm::enumerate(graph.getArguments())) {
    auto type = cast<RankedTensorType>(arg.getType());
    auto argSymbols = cast<ArrayAttr>(symbols[i]);
    Shape shape;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      StringRef s = cast<StringAttr>(argSymbols[d]).getValue();
      shape.push_back(s.empty() ? Dim{type.getDimSize(d), ""}
                                : Dim{-1, s.str()});
      if (!s.empty())
        usedSymbols.insert(s.str());
    }
    uint32_t id = addBuffer(Buffer::Kind::Input, type, shape);
    // The ONNX element type keeps the signedness MLIR integers lack.
    if (auto dtype = graph.getArgAttrOfType<IntegerAttr>(i, "tessel.dtype"))
      artifact.buffers[id].dtype = static_cast<format::DType>(dtype.getInt());
    auto name = graph.getArgAttrOfType<StringAttr>(i, "tessel.name");
    artifact.inputs.push_back(
        {name.str(), artifact.buffers[id].dtype, shape, id});
    views[arg] = View{id, shape};
  }
  for (Operation &op : graph.getBody().front()) {
    if (auto c = dyn_cast<ConstantOp>(op)) {
      if (failed(addWeight(c)))
        return failure();
    } else if (auto r = dyn_cast<ReshapeOp>(op)) {
      FailureOr<Shape> shape = r.getShape() ? addShapeRule(r) : shapeOf(r, 0);
      if (failed(shape))
        return failure();
      views[r.getResult()] = View{views[r.getInput()].buffer, *shape};
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      auto names = graph->getAttrOfType<ArrayAttr>("tessel.output_names");
      auto dtypes = graph->getAttrOfType<ArrayAttr>("tessel.output_dtypes");
      for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
        uint32_t id = views[v].buffer;
        Buffer &b = artifact.buffers[id];
        if (b.kind != Buffer::Kind::Transient && failed(addCopy(v, id)))
          return failure();
        artifact.buffers[id].kind = Buffer::Kind::Output;
        if (dtypes)
          artifact.buffers[id].dtype =
              static_cast<format::DType>(cast<IntegerAttr>(dtypes[i]).getInt());
        artifact.outputs.push_back({cast<StringAttr>(names[i]).str(),
                                    artifact.buffers[id].dtype, views[v].shape,
                                    id});
      }
    } else if (failed(addKernel(&op))) {
      return failure();
    }
  }
  equalities.apply(artifact);
  return success();
}

LogicalResult tessel::partitionGraph(func::FuncOp graph, ModuleOp kernels,
                                     format::Artifact &artifact) {
  graph.getContext()
      ->loadDialect<bufferization::BufferizationDialect,
                    memref::MemRefDialect>();
  return Partitioner(graph, kernels, artifact).run();
}

LogicalResult tessel::expandStages(ModuleOp kernels,
                                   format::Artifact &artifact) {
  llvm::StringMap<SmallVector<func::FuncOp>> stagesOf;
  for (auto func : kernels.getOps<func::FuncOp>())
    if (auto of = func->getAttrOfType<StringAttr>("tessel.kernel_of"))
      stagesOf[of.getValue()].push_back(func);

  std::vector<format::Kernel> stageKernels;
  std::vector<format::Launch> plan;
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
      stageKernels.push_back(
          {stage.getSymName().str(), kernel.onnxNode, kernel.onnxOp});
      plan.push_back(std::move(l));
    }
  }
  artifact.kernels = std::move(stageKernels);
  artifact.plan = std::move(plan);
  return success();
}
