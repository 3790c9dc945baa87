//===- Importer.cpp - ONNX ModelProto -> Tessel graph dialect --------------===//
//
// Parses the model with protobuf, resolves external data (only inside the
// model's folder), turns initializers into constants and graph inputs into
// function arguments (symbolic dims become dynamic dims whose names are kept
// in `tessel.arg_symbols`), then imports each node with the handler of its
// op type. Every error names the file and, when one is at fault, the node.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/Importer.h"
#include "frontend/onnx/ImportContext.h"

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

  MLIRContext &context;
  std::string path;
  std::unique_ptr<ImportContext> ctx;
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
  int64_t opset = 0;
  for (const onnx::OperatorSetIdProto &o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = o.version();
  if (opset == 0) {
    (void)fail("the model imports no opset of the default ONNX domain");
    return {};
  }
  ctx = std::make_unique<ImportContext>(context, path, opset);
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

  OpTable table;
  registerElementwiseOps(table);
  registerContractionOps(table);
  registerPoolingOps(table);
  registerNormalizationOps(table);
  registerTensorOps(table);
  for (const onnx::NodeProto &node : graph.node()) {
    NodeContext n(*ctx, node);
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    auto it = table.find(node.op_type());
    if (!defaultDomain || it == table.end()) {
      (void)n.error("unsupported op '" +
                    (defaultDomain ? "" : node.domain() + ".") +
                    node.op_type() + "'");
      return {};
    }
    if (failed(it->second(n)))
      return {};
  }

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

OwningOpRef<ModuleOp> tessel::importOnnxModel(MLIRContext &context,
                                              const std::string &path) {
  context.loadDialect<TesselDialect, func::FuncDialect>();
  return Importer(context, path).run();
}
