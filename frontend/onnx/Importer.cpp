//===- Importer.cpp - ONNX ModelProto -> Tessel graph dialect --------------===//
//
// Parses the model with protobuf, resolves external data (only inside the
// model's folder), turns initializers into constants and graph inputs into
// function arguments (symbolic dims become dynamic dims whose names are kept
// in `tessel.arg_symbols`), then imports the nodes in topological order,
// each with the handler registered for its (domain, op type) at the opset
// the model imports for that domain. A node without one is expanded into
// its function body (the model's own function of that name, else the ONNX
// schema's) when there is one. Every error names the file and, when one is
// at fault, the node of the model.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/Importer.h"
#include "frontend/onnx/FunctionBodies.h"
#include "frontend/onnx/ImportContext.h"
#include "frontend/onnx/NodeOrder.h"
#include "frontend/onnx/OpsetPolicy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;
namespace fs = std::filesystem;

namespace {

/// Where a list of nodes comes from: the graph, or a function body expanded
/// from one of its nodes.
struct Scope {
  /// Opset in effect per (canonical) domain.
  std::map<std::string, int64_t> opsets;
  /// For a function body: the location of the model's node it was expanded
  /// from, and the op types expanded to reach it (outermost first).
  std::optional<Location> loc;
  SmallVector<std::string, 2> expandedFrom;
  /// Whether the nodes are a body ONNX or Tessel wrote (not the model's
  /// graph or one of its functions): their index ops get no range check
  /// (checkIndexRange), having been checked at the node they expand from.
  bool written = false;
};

class Importer {
public:
  Importer(MLIRContext &context, std::string path)
      : context(context), path(std::move(path)) {}

  OwningOpRef<ModuleOp> run();
  /// Whether the import failed for want of support (an op, opset, data type
  /// or kind of value), as opposed to a model the importer rejects.
  bool failedUnsupported() const {
    return unsupported || (ctx && ctx->unsupported);
  }

private:
  LogicalResult fail(const Twine &message) {
    return emitError(FileLineColLoc::get(&context, path, 0, 0))
           << path << ": " << message;
  }
  LogicalResult failUnsupported(const Twine &message) {
    unsupported = true;
    return fail(message);
  }
  FailureOr<RankedTensorType> valueType(const onnx::ValueInfoProto &info,
                                        SmallVectorImpl<Attribute> &symbols);
  NodeContext nodeContext(const onnx::NodeProto &node, const Scope &scope);
  /// Imports `nodes` in topological order.
  LogicalResult importNodes(ArrayRef<const onnx::NodeProto *> nodes,
                            const Scope &scope);
  LogicalResult importNode(const onnx::NodeProto &node, const Scope &scope);
  /// Imports `body` in place of node `n`; `written` when ONNX or Tessel
  /// wrote it (Scope::written).
  LogicalResult expand(NodeContext &n, const FunctionBody &body,
                       const Scope &scope, bool written = false);
  /// ImportContext::importSubgraph.
  LogicalResult importSubgraph(NodeContext &n, const onnx::GraphProto &graph,
                               ArrayRef<GraphValue> args,
                               SmallVectorImpl<GraphValue> &outputs);
  /// A value name used nowhere in the model yet, derived from `base`.
  std::string freshName(const std::string &base);

  MLIRContext &context;
  std::string path;
  std::unique_ptr<ImportContext> ctx;
  const OpRegistry &registry = OpRegistry::builtin();
  /// The model's own functions, by (canonical domain, name).
  std::map<std::pair<std::string, std::string>, const onnx::FunctionProto *>
      localFunctions;
  /// Every value name of the model and of the expansions so far.
  llvm::StringSet<> usedNames;
  unsigned freshCounter = 0;
  bool unsupported = false;
  /// The scope of the node being imported (a subgraph's nodes share it).
  const Scope *currentScope = nullptr;
};

/// Bodies nested deeper than this are taken for a recursive function.
constexpr size_t kMaxExpansionDepth = 16;

} // namespace

FailureOr<RankedTensorType>
Importer::valueType(const onnx::ValueInfoProto &info,
                    SmallVectorImpl<Attribute> &symbols) {
  const onnx::TypeProto &t = info.type();
  if (!t.has_tensor_type())
    return failUnsupported("graph input '" + info.name() + "' is not a tensor");
  Type element = ctx->elementType(t.tensor_type().elem_type());
  if (!element)
    return failUnsupported("graph input '" + info.name() +
                           "' has unsupported data type " +
                Twine(t.tensor_type().elem_type()));
  if (!t.tensor_type().has_shape())
    return failUnsupported("graph input '" + info.name() + "' has no shape");
  SmallVector<int64_t> shape;
  Builder b(&context);
  for (const auto &[i, d] : llvm::enumerate(t.tensor_type().shape().dim())) {
    if (d.has_dim_value() && d.dim_value() >= 0) {
      shape.push_back(d.dim_value());
      symbols.push_back(b.getStringAttr(""));
    } else {
      shape.push_back(ShapedType::kDynamic);
      std::string name = d.has_dim_param() && !d.dim_param().empty()
                             ? d.dim_param()
                             : info.name() + "_dim" + std::to_string(i);
      symbols.push_back(b.getStringAttr(name));
    }
  }
  return RankedTensorType::get(shape, element);
}

OwningOpRef<ModuleOp> Importer::run() {
  std::string bytes;
  if (!readWholeFile(path, bytes)) {
    (void)fail(std::string("cannot read the model file: ") +
               std::strerror(errno));
    return {};
  }
  onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream stream(bytes.data(), bytes.size());
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT32_MAX);
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage() ||
      !model.has_graph()) {
    (void)fail("not a valid ONNX model (protobuf parse failed or no graph)");
    return {};
  }
  Scope graphScope;
  for (const onnx::OperatorSetIdProto &o : model.opset_import())
    graphScope.opsets[canonicalDomain(o.domain()).str()] = o.version();
  ctx = std::make_unique<ImportContext>(context, path);
  ctx->importSubgraph = [this](NodeContext &n, const onnx::GraphProto &g,
                               ArrayRef<GraphValue> args,
                               SmallVectorImpl<GraphValue> &outputs) {
    return importSubgraph(n, g, args, outputs);
  };
  OpBuilder &b = ctx->builder;
  const onnx::GraphProto &graph = model.graph();
  Location fileLoc = FileLineColLoc::get(&context, path, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  b.setInsertionPointToEnd(module->getBody());

  // Function signature: graph inputs that are not initializers.
  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &t : graph.initializer())
    initializerNames.insert(t.name());
  SmallVector<Type> argTypes;
  SmallVector<Attribute> argSymbols;
  SmallVector<const onnx::ValueInfoProto *> args;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (initializerNames.contains(in.name()))
      continue;
    SmallVector<Attribute> symbols;
    FailureOr<RankedTensorType> type = valueType(in, symbols);
    if (failed(type))
      return {};
    argTypes.push_back(*type);
    argSymbols.push_back(b.getArrayAttr(symbols));
    args.push_back(&in);
  }
  auto func =
      func::FuncOp::create(b, fileLoc, "main", b.getFunctionType(argTypes, {}));
  func->setAttr(kArgSymbolsAttr, b.getArrayAttr(argSymbols));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  for (auto [i, in] : llvm::enumerate(args)) {
    func.setArgAttr(i, "tessel.name", b.getStringAttr(in->name()));
    func.setArgAttr(i, "tessel.dtype",
                    b.getI32IntegerAttr(in->type().tensor_type().elem_type()));
    ctx->values[in->name()] =
        GraphValue{body->getArgument(i), in->type().tensor_type().elem_type()};
  }
  for (const onnx::TensorProto &t : graph.initializer()) {
    FailureOr<DenseElementsAttr> value = ctx->tensorAttr(t, fileLoc);
    Location loc = NameLoc::get(b.getStringAttr(t.name()), fileLoc);
    if (failed(value))
      return {};
    ctx->values[t.name()] =
        GraphValue{ConstantOp::create(b, loc, *value), t.data_type()};
  }

  for (const onnx::FunctionProto &f : model.functions())
    localFunctions[{canonicalDomain(f.domain()).str(), f.name()}] = &f;
  for (const onnx::ValueInfoProto &in : graph.input())
    usedNames.insert(in.name());
  for (const onnx::TensorProto &t : graph.initializer())
    usedNames.insert(t.name());
  SmallVector<const onnx::NodeProto *> nodes;
  for (const onnx::NodeProto &node : graph.node()) {
    nodes.push_back(&node);
    for (const std::string &out : node.output())
      usedNames.insert(out);
  }
  if (failed(importNodes(nodes, graphScope)))
    return {};

  SmallVector<Value> results;
  SmallVector<Attribute> outputNames, outputTypes;
  for (const onnx::ValueInfoProto &out : graph.output()) {
    auto it = ctx->values.find(out.name());
    if (it == ctx->values.end()) {
      (void)fail("graph output '" + out.name() + "' is never computed");
      return {};
    }
    results.push_back(it->second.value);
    outputNames.push_back(b.getStringAttr(out.name()));
    outputTypes.push_back(b.getI32IntegerAttr(it->second.onnxType));
  }
  func::ReturnOp::create(b, fileLoc, results);
  func.setFunctionType(
      b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  func->setAttr("tessel.output_names", b.getArrayAttr(outputNames));
  func->setAttr("tessel.output_dtypes", b.getArrayAttr(outputTypes));
  if (failed(verify(*module)))
    return {};
  return module;
}

NodeContext Importer::nodeContext(const onnx::NodeProto &node,
                                  const Scope &scope) {
  auto opset = scope.opsets.find(canonicalDomain(node.domain()).str());
  return NodeContext(*ctx, node,
                     opset == scope.opsets.end() ? 0 : opset->second,
                     scope.loc ? *scope.loc : nodeLocation(*ctx, node),
                     scope.expandedFrom);
}

std::string Importer::freshName(const std::string &base) {
  std::string name;
  do
    name = base + "__tessel" + std::to_string(freshCounter++);
  while (usedNames.contains(name));
  usedNames.insert(name);
  return name;
}

LogicalResult Importer::importNodes(ArrayRef<const onnx::NodeProto *> nodes,
                                    const Scope &scope) {
  auto defined = [&](StringRef name) { return ctx->values.count(name) != 0; };
  FailureOr<SmallVector<const onnx::NodeProto *>> sorted =
      sortTopologically(nodes, defined, [&](const onnx::NodeProto &node) {
        return nodeContext(node, scope);
      });
  if (failed(sorted))
    return failure();
  for (const onnx::NodeProto *node : *sorted)
    if (failed(importNode(*node, scope)))
      return failure();
  return success();
}

LogicalResult Importer::importSubgraph(NodeContext &n,
                                       const onnx::GraphProto &graph,
                                       ArrayRef<GraphValue> args,
                                       SmallVectorImpl<GraphValue> &outputs) {
  if (graph.input_size() != int(args.size()))
    return n.error("subgraph '" + graph.name() + "' has " +
                   Twine(graph.input_size()) + " inputs, the op gives it " +
                   Twine(args.size()));
  // The subgraph's names shadow nothing (ONNX names are unique in a model)
  // and end with it: restore the outer scope afterwards.
  llvm::StringMap<GraphValue> outer = ctx->values;
  // A subgraph's block may be imported again (a Loop whose carried dims
  // change) and the first one destroyed: nothing derived from its values
  // may outlive it, so the symbolic extents start afresh on both sides.
  ctx->shapes.forgetAll();
  llvm::scope_exit restore([&] {
    ctx->values = std::move(outer);
    ctx->shapes.forgetAll();
  });
  for (auto [input, arg] : llvm::zip(graph.input(), args)) {
    usedNames.insert(input.name());
    ctx->values[input.name()] = arg;
  }
  for (const onnx::TensorProto &t : graph.initializer()) {
    FailureOr<DenseElementsAttr> value = ctx->tensorAttr(t, n.loc);
    if (failed(value))
      return failure();
    usedNames.insert(t.name());
    ctx->values[t.name()] = GraphValue{
        ConstantOp::create(n.b, NameLoc::get(n.b.getStringAttr(t.name()), n.loc),
                           *value),
        t.data_type()};
  }
  SmallVector<const onnx::NodeProto *> nodes;
  for (const onnx::NodeProto &node : graph.node()) {
    nodes.push_back(&node);
    for (const std::string &out : node.output())
      usedNames.insert(out);
  }
  if (failed(importNodes(nodes, *currentScope)))
    return failure();
  for (const onnx::ValueInfoProto &out : graph.output()) {
    auto it = ctx->values.find(out.name());
    if (it == ctx->values.end())
      return n.error("output '" + out.name() + "' of subgraph '" +
                     graph.name() + "' is never computed");
    outputs.push_back(it->second);
  }
  return success();
}

/// The narrow formats (float8, float4, 4- and 2-bit integers) are i8 bytes
/// in the graph, so only ops that move elements without reading them, and
/// those that decode them by their format, may take them: any other handler
/// would read the bytes as int8. The rest is unsupported, never misread.
static LogicalResult checkNarrowInputs(NodeContext &n, StringRef domain) {
  static const llvm::StringSet<> takesNarrow = {
      "Cast",    "CastLike",  "QuantizeLinear", "DequantizeLinear",
      "Identity", "Reshape",  "Flatten",        "Squeeze",
      "Unsqueeze", "Transpose", "Concat",       "Split",
      "Slice",   "Gather",    "Expand",         "Shape",
      "Size",    "Where",     "If",             "Loop",
      "Scan"};
  if (domain.empty() && takesNarrow.contains(n.node.op_type()))
    return success();
  for (int i = 0; i < n.numInputs(); ++i)
    if (n.hasInput(i) && isNarrowFormat(n.inputOnnxType(i)))
      return n.unsupported("ONNX data type " + Twine(n.inputOnnxType(i)) +
                           " (a float8, float4 or sub-byte integer) as input " +
                           Twine(i) + " is not supported");
  return success();
}

LogicalResult Importer::importNode(const onnx::NodeProto &node,
                                   const Scope &scope) {
  const Scope *enclosing = currentScope;
  currentScope = &scope;
  llvm::scope_exit restore([&] { currentScope = enclosing; });
  NodeContext n = nodeContext(node, scope);
  std::string domain = canonicalDomain(node.domain()).str();
  bool imported = scope.opsets.count(domain) != 0;
  // Nothing here was written for opsets newer than ONNX 1.22's.
  if (std::optional<int64_t> newest = newestKnownOpset(domain);
      imported && newest && n.opset > *newest)
    return n.unsupported("opset " + Twine(n.opset) + " of domain '" +
                         displayDomain(domain) +
                         "' is newer than ONNX 1.22's (" + Twine(*newest) +
                         "), which Tessel's handlers and bodies follow");
  if (imported)
    if (const OpHandlerEntry *entry =
            registry.lookup(domain, node.op_type(), n.opset)) {
      if (failed(checkNarrowInputs(n, domain)))
        return failure();
      if (!scope.written && failed(checkIndexRange(n)))
        return failure();
      return entry->handler(n);
    }

  // No handler: a function of the model, or of the op's ONNX schema.
  auto local = localFunctions.find({domain, node.op_type()});
  if (local != localFunctions.end()) {
    FunctionBody body;
    body.function = *local->second;
    body.sinceVersion = n.opset;
    return expand(n, body, scope);
  }
  if (imported) {
    std::vector<onnx::TypeProto> inputTypes(node.input_size());
    for (int i = 0; i < node.input_size(); ++i) {
      if (!n.hasInput(i) || !ctx->values.count(node.input(i)))
        continue;
      auto type = n.inputType(i);
      onnx::TypeProto_Tensor *tensor = inputTypes[i].mutable_tensor_type();
      tensor->set_elem_type(n.inputOnnxType(i));
      onnx::TensorShapeProto *shape = tensor->mutable_shape();
      for (int64_t d : type.getShape())
        if (ShapedType::isDynamic(d))
          shape->add_dim();
        else
          shape->add_dim()->set_dim_value(d);
    }
    FunctionBody body;
    std::string why;
    ConstantInputs constants = [&n](int i) -> InputFacts {
      InputFacts facts;
      Value v = n.hasInput(i) ? n.ctx.values.lookup(n.node.input(i)).value
                              : Value();
      if (!v || !isa<RankedTensorType>(v.getType()))
        return facts;
      for (const Monomial &d : n.ctx.shapes.dims(v))
        facts.dimKeys.push_back(d.key());
      if (auto elements = n.ctx.shapes.elements(v))
        for (const Monomial &e : *elements) {
          facts.elementKeys.push_back(e.key());
          facts.knownElements.push_back(e.asConstant());
        }
      std::optional<DenseElementsAttr> c = n.constantInput(i);
      if (!c)
        return facts;
      ConstantValues values;
      if (isa<IntegerType>(c->getElementType())) {
        for (const APInt &v : c->getValues<APInt>())
          values.ints.push_back(v.getSExtValue());
      } else if (isa<FloatType>(c->getElementType())) {
        values.isFloat = true;
        for (const APFloat &v : c->getValues<APFloat>())
          values.floats.push_back(v.convertToDouble());
      } else {
        return facts;
      }
      facts.constant = std::move(values);
      return facts;
    };
    if (schemaFunctionBody(node, domain, n.opset, inputTypes, body, why,
                           constants)) {
      if (!scope.written && failed(checkIndexRange(n)))
        return failure();
      return expand(n, body, scope, /*written=*/true);
    }
    if (StringRef(why).starts_with(kUnsupportedPrefix))
      return n.unsupported(StringRef(why).drop_front(
          StringRef(kUnsupportedPrefix).size()));
    if (!why.empty())
      return n.error(why);
  }

  std::string ranges = registry.supportedRanges(domain, node.op_type());
  if (ranges.empty() || !imported)
    return n.unsupported();
  return n.unsupported("opset " + Twine(n.opset) + " of domain '" +
                       displayDomain(domain) + "' is not supported (supported: " +
                       ranges + ")");
}

LogicalResult Importer::expand(NodeContext &n, const FunctionBody &body,
                               const Scope &scope, bool written) {
  if (scope.expandedFrom.size() >= kMaxExpansionDepth)
    return n.error("function bodies nest more than " +
                   Twine(kMaxExpansionDepth) + " deep (a recursive function?)");
  const onnx::FunctionProto &fn = body.function;
  Scope inner;
  inner.opsets = scope.opsets;
  std::string fnDomain = canonicalDomain(n.node.domain()).str();
  if (body.sinceVersion)
    inner.opsets[fnDomain] = body.sinceVersion;
  for (const onnx::OperatorSetIdProto &o : fn.opset_import())
    inner.opsets[canonicalDomain(o.domain()).str()] = o.version();
  inner.loc = n.loc;
  inner.written = scope.written || written;
  inner.expandedFrom = scope.expandedFrom;
  inner.expandedFrom.push_back(n.node.op_type());

  std::string prefix = n.node.name().empty()
                           ? (n.node.output_size() ? n.node.output(0) : "")
                           : n.node.name();
  prefix += "/" + n.node.op_type() + "/";
  std::vector<onnx::NodeProto> expanded = expandFunctionBody(
      n.node, body,
      [&](const std::string &name) { return freshName(prefix + name); });
  SmallVector<const onnx::NodeProto *> nodes;
  for (const onnx::NodeProto &node : expanded)
    nodes.push_back(&node);
  return importNodes(nodes, inner);
}

OwningOpRef<ModuleOp> tessel::importOnnxModel(MLIRContext &context,
                                              const std::string &path,
                                              bool *unsupported) {
  context.loadDialect<TesselDialect, func::FuncDialect>();
  Importer importer(context, path);
  OwningOpRef<ModuleOp> module = importer.run();
  if (unsupported)
    *unsupported = !module && importer.failedUnsupported();
  return module;
}

std::vector<SupportedOnnxOp> tessel::supportedOnnxOps() {
  std::vector<SupportedOnnxOp> out;
  for (const OpHandlerEntry *entry : OpRegistry::builtin().all())
    out.push_back(SupportedOnnxOp{
        displayDomain(entry->domain), entry->opType, entry->sinceVersion,
        entry->lastVersion == kLatestOpset ? 0 : entry->lastVersion,
        entry->rangeString()});
  return out;
}
