//===- Importer.cpp - ONNX ModelProto -> Tessel graph dialect --------------===//
//
// Parses the model with protobuf, resolves external data (only inside the
// model's folder), turns initializers into constants and graph inputs into
// function arguments (symbolic dims become dynamic dims whose names are kept
// in `tessel.arg_symbols`), then imports the nodes in topological order,
// each with the handler registered for its (domain, op type) at the opset
// the model imports for that domain. Every error names the file and, when
// one is at fault, the node.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/Importer.h"
#include "frontend/onnx/ImportContext.h"
#include "frontend/onnx/NodeOrder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;
namespace fs = std::filesystem;

namespace {

class Importer {
public:
  Importer(MLIRContext &context, std::string path)
      : context(context), path(std::move(path)) {}

  OwningOpRef<ModuleOp> run();

private:
  LogicalResult fail(const Twine &message) {
    return emitError(FileLineColLoc::get(&context, path, 0, 0))
           << path << ": " << message;
  }
  FailureOr<RankedTensorType> valueType(const onnx::ValueInfoProto &info,
                                        SmallVectorImpl<Attribute> &symbols);
  NodeContext nodeContext(const onnx::NodeProto &node);
  LogicalResult importNode(const onnx::NodeProto &node);

  MLIRContext &context;
  std::string path;
  std::unique_ptr<ImportContext> ctx;
  const OpRegistry &registry = OpRegistry::builtin();
  /// Opset the model imports per (canonical) domain.
  std::map<std::string, int64_t> opsets;
};

} // namespace

FailureOr<RankedTensorType>
Importer::valueType(const onnx::ValueInfoProto &info,
                    SmallVectorImpl<Attribute> &symbols) {
  const onnx::TypeProto &t = info.type();
  if (!t.has_tensor_type())
    return fail("graph input '" + info.name() + "' is not a tensor");
  Type element = ctx->elementType(t.tensor_type().elem_type());
  if (!element)
    return fail("graph input '" + info.name() + "' has unsupported data type " +
                Twine(t.tensor_type().elem_type()));
  if (!t.tensor_type().has_shape())
    return fail("graph input '" + info.name() + "' has no shape");
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
  for (const onnx::OperatorSetIdProto &o : model.opset_import())
    opsets[canonicalDomain(o.domain()).str()] = o.version();
  if (!opsets.count("")) {
    (void)fail("the model imports no opset of the default ONNX domain");
    return {};
  }
  ctx = std::make_unique<ImportContext>(context, path);
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

  SmallVector<const onnx::NodeProto *> nodes;
  for (const onnx::NodeProto &node : graph.node())
    nodes.push_back(&node);
  auto defined = [&](StringRef name) { return ctx->values.count(name) != 0; };
  FailureOr<SmallVector<const onnx::NodeProto *>> sorted = sortTopologically(
      nodes, defined,
      [&](const onnx::NodeProto &node) { return nodeContext(node); });
  if (failed(sorted))
    return {};
  for (const onnx::NodeProto *node : *sorted)
    if (failed(importNode(*node)))
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

NodeContext Importer::nodeContext(const onnx::NodeProto &node) {
  auto opset = opsets.find(canonicalDomain(node.domain()).str());
  return NodeContext(*ctx, node, opset == opsets.end() ? 0 : opset->second,
                     nodeLocation(*ctx, node));
}

LogicalResult Importer::importNode(const onnx::NodeProto &node) {
  NodeContext n = nodeContext(node);
  std::string domain = canonicalDomain(node.domain()).str();
  bool imported = opsets.count(domain) != 0;
  if (imported)
    if (const OpHandlerEntry *entry =
            registry.lookup(domain, node.op_type(), n.opset))
      return entry->handler(n);
  std::string ranges = registry.supportedRanges(domain, node.op_type());
  if (ranges.empty() || !imported)
    return n.unsupported();
  return n.unsupported("opset " + Twine(n.opset) + " of domain '" +
                       displayDomain(domain) + "' is not supported (supported: " +
                       ranges + ")");
}

OwningOpRef<ModuleOp> tessel::importOnnxModel(MLIRContext &context,
                                              const std::string &path) {
  context.loadDialect<TesselDialect, func::FuncDialect>();
  return Importer(context, path).run();
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
