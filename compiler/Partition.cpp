//===- Partition.cpp - Graph -> plan IR + kernel functions ----------------===//
//
// Walks the graph function in order and builds the plan function:
//   * arguments stay arguments (the model's inputs); a dynamic dim of one is
//     read with `plan.dim`, which the runtime binds from the input's shape;
//   * constants become `plan.weight`;
//   * a Reshape becomes a `plan.view` of its operand; one whose target shape
//     is a graph input reads it with `plan.input_values` and computes its
//     dims with `plan.reshape_dims`;
//   * every other op becomes a kernel function and a `plan.dispatch`; its
//     shape contract (dialects/Graph/ShapeContract.td) gives the extents of
//     its results as index arithmetic, and each assumption of its kernel
//     becomes a `plan.assert_eq` unless it is known to hold;
//   * returned values are the plan's results; one that is an input, a
//     weight, or a buffer returned already gets a copy dispatch.
// Every dim of every tensor is an index value of the plan: a constant, a
// `plan.dim` of an input, or the result of a host shape op.
//
//===----------------------------------------------------------------------===//

#include "compiler/Partition.h"

#include "dialects/Graph/TesselDialect.h"
#include "dialects/Plan/PlanDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;

namespace {

class Partitioner {
public:
  Partitioner(func::FuncOp graph, ModuleOp kernels)
      : graph(graph), kernels(kernels), builder(graph.getContext()) {}

  LogicalResult run(ModuleOp planModule);

private:
  /// The extents of plan tensor `v`, one index value per dim.
  ArrayRef<Value> dimsOf(Value v);
  Value index(int64_t value, Location loc);
  /// Requires what `assumption` says at run time (`plan.assert_eq`),
  /// unless it is known to hold; an assumption known to fail is an error.
  LogicalResult require(const ShapeAssumption &assumption, Operation *op);
  /// The extents of every result of graph op `op` from its shape contract,
  /// after the checks of its assumptions.
  FailureOr<SmallVector<SmallVector<Value>>> resultDims(Operation *op);
  LogicalResult lowerReshape(ReshapeOp op);
  LogicalResult lowerDispatch(Operation *op);
  LogicalResult lowerReturn(func::ReturnOp op);
  /// A kernel function computing `op` (its operands, then its results, as
  /// memrefs); returns its symbol.
  std::string createKernel(Operation *op);

  func::FuncOp graph;
  ModuleOp kernels;
  func::FuncOp plan;
  OpBuilder builder;
  IRMapping values; ///< graph tensor -> plan tensor
  DenseMap<Value, SmallVector<Value>> dims;
  unsigned nextKernel = 0;
};

} // namespace

Value Partitioner::index(int64_t value, Location loc) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

ArrayRef<Value> Partitioner::dimsOf(Value v) {
  auto it = dims.find(v);
  if (it != dims.end())
    return it->second;
  // An input (or a weight): its static dims are constants, its dynamic ones
  // are read from it.
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<Value> extents;
  for (int64_t d = 0; d < type.getRank(); ++d)
    extents.push_back(type.isDynamicDim(d)
                          ? plan::DimOp::create(builder, v.getLoc(),
                                                builder.getIndexType(), v, d)
                                .getResult()
                          : index(type.getDimSize(d), v.getLoc()));
  return dims[v] = std::move(extents);
}

LogicalResult Partitioner::require(const ShapeAssumption &assumption,
                                   Operation *op) {
  Value a = assumption.lhs, b = assumption.rhs;
  if (a == b)
    return success();
  APInt x, y;
  if (matchPattern(a, m_ConstantInt(&x)) &&
      matchPattern(b, m_ConstantInt(&y))) {
    if (x == y)
      return success();
    return op->emitError() << describeLoc(op->getLoc()) << ": "
                           << assumption.what << ", but they are "
                           << x.getSExtValue() << " and " << y.getSExtValue();
  }
  plan::AssertEqOp::create(builder, op->getLoc(), a, b,
                           builder.getStringAttr(assumption.what));
  return success();
}

FailureOr<SmallVector<SmallVector<Value>>>
Partitioner::resultDims(Operation *op) {
  auto contract = dyn_cast<ShapeContract>(op);
  if (!contract)
    return op->emitError() << describeLoc(op->getLoc()) << ": op '"
                           << op->getName()
                           << "' declares no shape contract, so it cannot be "
                              "partitioned";
  SmallVector<SmallVector<Value>> operands;
  for (Value v : op->getOperands())
    operands.push_back(SmallVector<Value>(dimsOf(values.lookup(v))));
  SmallVector<SmallVector<Value>> results;
  SmallVector<ShapeAssumption> assumptions;
  if (failed(contract.reifyShapeContract(builder, operands, results,
                                         assumptions)))
    return failure();
  for (const ShapeAssumption &assumption : assumptions)
    if (failed(require(assumption, op)))
      return failure();
  return results;
}

/// The dynamic dims among `extents` of a tensor of type `type`.
static SmallVector<Value> dynamicOf(Type type, ArrayRef<Value> extents) {
  SmallVector<Value> out;
  auto t = cast<RankedTensorType>(type);
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (t.isDynamicDim(d))
      out.push_back(extents[d]);
  return out;
}

LogicalResult Partitioner::lowerReshape(ReshapeOp op) {
  Value source = values.lookup(op.getInput());
  SmallVector<Value> extents;
  if (Value shape = op.getShape()) {
    // The runtime reads the target shape from the host copy of an input.
    Value planShape = values.lookup(shape);
    if (!isa<BlockArgument>(planShape))
      return op.emitError() << describeLoc(op.getLoc())
                            << ": the target shape must be a constant or a "
                               "graph input";
    RankedTensorType type = op.getType();
    auto read = plan::InputValuesOp::create(
        builder, op.getLoc(),
        SmallVector<Type>(type.getRank(), builder.getIndexType()), planShape);
    auto reshaped = plan::ReshapeDimsOp::create(
        builder, op.getLoc(), dimsOf(source), read.getValues(),
        op.getAllowzero());
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value dim = reshaped.getDims()[d];
      if (!type.isDynamicDim(d)) {
        // The model needs this extent: the values must give it.
        plan::AssertEqOp::create(
            builder, op.getLoc(), dim, index(type.getDimSize(d), op.getLoc()),
            builder.getStringAttr("dim " + std::to_string(d) +
                                  " of the reshaped tensor must be " +
                                  std::to_string(type.getDimSize(d))));
        dim = index(type.getDimSize(d), op.getLoc());
      }
      extents.push_back(dim);
    }
  } else {
    FailureOr<SmallVector<SmallVector<Value>>> e = resultDims(op);
    if (failed(e))
      return failure();
    extents = std::move(e->front());
  }
  auto view = plan::ViewOp::create(builder, op.getLoc(), op.getType(), source,
                                   dynamicOf(op.getType(), extents));
  values.map(op.getResult(), view.getResult());
  dims[view.getResult()] = std::move(extents);
  return success();
}

static MemRefType memrefOf(Type tensorType) {
  auto t = cast<RankedTensorType>(tensorType);
  return MemRefType::get(t.getShape(), t.getElementType());
}

std::string Partitioner::createKernel(Operation *op) {
  std::string symbol = "tessel_k" + std::to_string(nextKernel++);
  SmallVector<Type> argTypes;
  for (Value v : op->getOperands())
    argTypes.push_back(memrefOf(v.getType()));
  for (Type t : op->getResultTypes())
    argTypes.push_back(memrefOf(t));
  OpBuilder kb(op->getContext());
  kb.setInsertionPointToEnd(kernels.getBody());
  auto func = func::FuncOp::create(kb, op->getLoc(), symbol,
                                   kb.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  kb.setInsertionPointToStart(body);
  IRMapping map;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    map.map(v, bufferization::ToTensorOp::create(kb, op->getLoc(),
                                                 v.getType(),
                                                 body->getArgument(i),
                                                 /*restrict=*/true)
                   .getResult());
  Operation *clone = kb.clone(*op, map);
  for (OpResult result : clone->getResults()) {
    auto store = bufferization::MaterializeInDestinationOp::create(
        kb, op->getLoc(), TypeRange{}, result,
        body->getArgument(op->getNumOperands() + result.getResultNumber()));
    store.setRestrict(true);
    store.setWritable(true);
  }
  func::ReturnOp::create(kb, op->getLoc());
  return symbol;
}

LogicalResult Partitioner::lowerDispatch(Operation *op) {
  FailureOr<SmallVector<SmallVector<Value>>> extents = resultDims(op);
  if (failed(extents))
    return failure();
  SmallVector<Value> args, resultDynamicDims;
  for (Value v : op->getOperands())
    args.push_back(values.lookup(v));
  for (auto [result, e] : llvm::zip(op->getResults(), *extents))
    llvm::append_range(resultDynamicDims, dynamicOf(result.getType(), e));
  std::string symbol = createKernel(op);
  auto dispatch = plan::DispatchOp::create(
      builder, op->getLoc(), op->getResultTypes(),
      FlatSymbolRefAttr::get(builder.getContext(), symbol), args,
      resultDynamicDims);
  for (auto [result, planResult, e] :
       llvm::zip(op->getResults(), dispatch.getResults(), *extents)) {
    values.map(result, planResult);
    dims[planResult] = std::move(e);
  }
  return success();
}

/// The tensor whose buffer `v` lives in: views share their source's.
static Value bufferRoot(Value v) {
  while (auto view = v.getDefiningOp<plan::ViewOp>())
    v = view.getSource();
  return v;
}

LogicalResult Partitioner::lowerReturn(func::ReturnOp op) {
  SmallVector<Value> results;
  llvm::SmallPtrSet<Value, 8> returned;
  for (Value v : op.getOperands()) {
    Value planValue = values.lookup(v);
    Value root = bufferRoot(planValue);
    // An output owns its buffer: an input, a weight or a buffer returned
    // already is copied by an identity kernel.
    if (!root.getDefiningOp<plan::DispatchOp>() || returned.contains(root)) {
      OpBuilder graphBuilder(op);
      auto copy = IdentityOp::create(graphBuilder, graph.getLoc(), v);
      LogicalResult ok = lowerDispatch(copy);
      planValue = values.lookup(copy.getResult());
      copy.erase();
      if (failed(ok))
        return failure();
      root = planValue;
    }
    returned.insert(root);
    results.push_back(planValue);
  }
  func::ReturnOp::create(builder, op.getLoc(), results);
  return success();
}

LogicalResult Partitioner::run(ModuleOp planModule) {
  builder.setInsertionPointToEnd(planModule.getBody());
  plan = func::FuncOp::create(builder, graph.getLoc(), "main",
                              graph.getFunctionType());
  // The signature's names, ONNX dtypes and symbols travel along.
  for (StringRef attr : {StringRef("tessel.output_names"),
                         StringRef("tessel.output_dtypes"),
                         StringRef(kArgSymbolsAttr)})
    if (Attribute a = graph->getAttr(attr))
      plan->setAttr(attr, a);
  plan.setAllArgAttrs(graph.getAllArgAttrs());
  Block *entry = plan.addEntryBlock();
  for (auto [g, p] : llvm::zip(graph.getArguments(), entry->getArguments()))
    values.map(g, p);
  builder.setInsertionPointToStart(entry);

  for (Operation &op : graph.getBody().front()) {
    if (auto c = dyn_cast<ConstantOp>(op)) {
      auto weight =
          plan::WeightOp::create(builder, c.getLoc(), c.getType(), c.getValue());
      values.map(c.getResult(), weight.getResult());
    } else if (auto r = dyn_cast<ReshapeOp>(op)) {
      if (failed(lowerReshape(r)))
        return failure();
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (failed(lowerReturn(ret)))
        return failure();
    } else if (failed(lowerDispatch(&op))) {
      return failure();
    }
  }
  return success();
}

LogicalResult tessel::partitionGraph(func::FuncOp graph, ModuleOp plan,
                                     ModuleOp kernels) {
  graph.getContext()
      ->loadDialect<bufferization::BufferizationDialect, memref::MemRefDialect,
                    plan::PlanDialect, arith::ArithDialect>();
  return Partitioner(graph, kernels).run(plan);
}
