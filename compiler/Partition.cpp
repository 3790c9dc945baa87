//===- Partition.cpp - Graph -> plan IR + kernel functions ----------------===//
//
// Walks the graph function in order and builds the plan function:
//   * arguments stay arguments (the model's inputs); a dynamic dim of one is
//     read with `plan.dim`, which the runtime binds from the input's shape;
//   * constants become `plan.weight`;
//   * a Reshape becomes a `plan.view` of its operand; one whose target shape
//     is a graph input reads it with `plan.input_values` and computes its
//     dims with `plan.reshape_dims`; a Squeeze or Unsqueeze with run-time
//     axes is a view too, with the extents of its shape contract;
//   * every other op becomes a kernel function and a `plan.dispatch`; its
//     shape contract (dialects/Graph/ShapeContract.td) gives the extents of
//     its results as index arithmetic, and each assumption of its kernel
//     becomes a `plan.assert_eq` unless it is known to hold;
//   * small int64 tensors computed from shapes (Shape, then Gather,
//     Unsqueeze, Concat, Add ... on them, and small constants) are *host
//     values*: partitioning tracks their elements as index values and
//     evaluates those ops itself, so the shape arithmetic exporters put in
//     the graph becomes plan arithmetic (folded where static) instead of
//     kernels; a Reshape to such a value takes its elements as the target;
//   * a `tessel.assert_zero` (the importer's check of an index op) becomes
//     a `plan.assert_eq` of its count against 0 at the end of its block,
//     the count read back with `plan.tensor_values` (or checked now when it
//     is a constant);
//   * returned values are the plan's results; one that is an input, a
//     weight, or a buffer returned already gets a copy dispatch.
// Every dim of every tensor is an index value of the plan: a constant, a
// `plan.dim` of an input, or the result of a host shape op.
//
//===----------------------------------------------------------------------===//

#include "compiler/Partition.h"

#include "dialects/Graph/ShapeElements.h"
#include "dialects/Graph/TesselDialect.h"
#include "dialects/Plan/PlanDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

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
  /// after the checks of its assumptions. `inner` gives the extents of
  /// values that have no plan tensor (those inside a dispatch region).
  FailureOr<SmallVector<SmallVector<Value>>>
  resultDims(Operation *op,
             const DenseMap<Value, SmallVector<Value>> *inner = nullptr);
  /// The plan tensor of graph value `v` for `user`: a host value becomes a
  /// `plan.host_values` tensor the runtime fills (a weight when constant).
  FailureOr<Value> planValue(Value v, Operation *user);
  /// The elements of graph value `v` when it is a host value (or a small
  /// integer constant), one index value each in row-major order.
  std::optional<SmallVector<Value>> hostElements(Value v);
  /// The elements of `v` when it is a small int64 model input, read on the
  /// host with `plan.input_values` (which folds away if unused).
  std::optional<SmallVector<Value>> inputElements(Value v);
  /// The elements of a shape operand `v` that only kernels compute (a
  /// Resize's size from float scales, a NonZero's count): read back from
  /// its tensor with `plan.tensor_values` when it is a small int64 one.
  std::optional<SmallVector<Value>> computedElements(Value v, Operation *user);
  /// hostElements (which reads model inputs), else computedElements: the
  /// elements of a value that gives extents.
  std::optional<SmallVector<Value>> shapeElements(Value v, Operation *user);
  /// Evaluates `op` on host values when it can (its results become host
  /// values); false when it has to run as a kernel.
  bool evaluateOnHost(Operation *op);
  /// A Reshape, or a Squeeze/Unsqueeze with run-time axes: a view.
  LogicalResult lowerView(Operation *op);
  LogicalResult lowerDispatch(Operation *op);
  /// Per result of the dispatch of `op` (a graph op or dispatch region)
  /// with `resultValues` and their `resultExtents`: the index among `args`
  /// (plan tensors of the graph values `sources`) of an argument it may
  /// overwrite, or -1; empty when none may.
  SmallVector<int64_t> tiedArguments(Operation *op, ArrayRef<Value> sources,
                                     ArrayRef<Value> args,
                                     ArrayRef<Value> resultValues,
                                     ArrayRef<SmallVector<Value>> resultExtents);
  /// The `plan.dispatch` of `op` (a graph op or a dispatch region) over
  /// `args`, the plan tensors of the graph values `sources`: its kernel, its
  /// results `written` (indices into op's results, with their `extents`),
  /// and the arguments they overwrite; maps those results to the plan's.
  void createDispatch(Operation *op, ArrayRef<Value> sources,
                      ArrayRef<Value> args, ArrayRef<unsigned> written,
                      SmallVector<SmallVector<Value>> extents);
  /// One dispatch for all the ops of `region`.
  LogicalResult lowerDispatchRegion(DispatchRegionOp region);
  LogicalResult lowerReturn(func::ReturnOp op);
  /// A check that a count is 0: at compile time when the count is known,
  /// else a `plan.assert_eq` of the count read back from its tensor.
  LogicalResult lowerAssertZero(AssertZeroOp op);
  LogicalResult lowerIf(IfOp op);
  LogicalResult lowerLoop(LoopOp op);
  /// Lowers the ops of `block` before its terminator at the builder's
  /// insertion point; a `func.return` is lowered too.
  LogicalResult lowerBlock(Block &block);
  /// Lowers a branch or body: the ops of `from` into `to`, then a
  /// `plan.yield` of what it yields. Afterwards forgets what it cached
  /// inside `to` (extents, tensors of outer values), which the code after
  /// the region cannot use.
  LogicalResult lowerRegion(Block &from, Block &to);
  void forgetValuesIn(Region &region);
  /// A kernel function computing `op` (its operands, then its results, as
  /// memrefs), or the ops of a dispatch region (the values it reads from
  /// outside, then what it yields); returns its symbol.
  std::string createKernel(Operation *op);

  func::FuncOp graph;
  ModuleOp kernels;
  func::FuncOp plan;
  OpBuilder builder;
  IRMapping values; ///< graph tensor -> plan tensor
  DenseMap<Value, SmallVector<Value>> dims;
  DenseMap<Value, SmallVector<Value>> hostValues; ///< graph value -> elements
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
Partitioner::resultDims(Operation *op,
                        const DenseMap<Value, SmallVector<Value>> *inner) {
  auto contract = dyn_cast<ShapeContract>(op);
  if (!contract)
    return op->emitError() << describeLoc(op->getLoc()) << ": op '"
                           << op->getName()
                           << "' declares no shape contract, so it cannot be "
                              "partitioned";
  SmallVector<SmallVector<Value>> operands;
  SmallVector<std::optional<SmallVector<Value>>> elements;
  for (OpOperand &use : op->getOpOperands()) {
    Value v = use.get();
    if (inner && inner->count(v)) {
      elements.push_back(std::nullopt);
      operands.push_back(inner->lookup(v));
      continue;
    }
    elements.push_back(contract.isShapeOperand(use.getOperandNumber())
                           ? shapeElements(v, op)
                           : hostElements(v));
    if (elements.back()) {
      // A host value has static extents; it needs no tensor for them.
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<Value> extents;
      for (int64_t d : type.getShape())
        extents.push_back(index(d, op->getLoc()));
      operands.push_back(std::move(extents));
      continue;
    }
    FailureOr<Value> operand = planValue(v, op);
    if (failed(operand))
      return failure();
    operands.push_back(SmallVector<Value>(dimsOf(*operand)));
  }
  SmallVector<SmallVector<Value>> results;
  SmallVector<ShapeAssumption> assumptions;
  if (failed(contract.reifyShapeContract(
          builder, ShapeOperands(operands, elements), results, assumptions)))
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


/// The most elements a host value has: shapes, not data.
static constexpr int64_t kMaxHostElements = 64;

/// Whether `type` can be a host value: a small static int64 tensor.
static bool isHostType(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && t.hasStaticShape() && t.getElementType().isInteger(64) &&
         t.getNumElements() <= kMaxHostElements;
}

std::optional<SmallVector<Value>> Partitioner::hostElements(Value v) {
  auto it = hostValues.find(v);
  if (it != hostValues.end())
    return it->second;
  auto constant = v.getDefiningOp<ConstantOp>();
  if (!constant || !isHostType(v.getType()))
    return inputElements(v); // a small int64 model input, read on the host
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense)
    return std::nullopt;
  SmallVector<Value> elements;
  for (const APInt &e : dense.getValues<APInt>())
    elements.push_back(index(e.getSExtValue(), constant.getLoc()));
  return hostValues[v] = elements;
}

std::optional<SmallVector<Value>> Partitioner::inputElements(Value v) {
  // A Reshape (Squeeze, Unsqueeze, Flatten) keeps the elements in order:
  // the input's own are read (a [1] limit of Range taken as a scalar).
  while (auto reshape = v.getDefiningOp<ReshapeOp>()) {
    if (reshape.getShape())
      break;
    v = reshape.getInput();
  }
  Value input = values.lookupOrNull(v);
  auto arg = dyn_cast_or_null<BlockArgument>(input);
  if (!arg || arg.getOwner() != &plan.getBody().front() ||
      !isHostType(v.getType()) ||
      cast<RankedTensorType>(v.getType()).getRank() > 1)
    return std::nullopt;
  auto read = plan::InputValuesOp::create(
      builder, v.getLoc(),
      SmallVector<Type>(cast<RankedTensorType>(v.getType()).getNumElements(),
                        builder.getIndexType()),
      input);
  return SmallVector<Value>(read.getValues());
}

std::optional<SmallVector<Value>>
Partitioner::computedElements(Value v, Operation *user) {
  if (!isHostType(v.getType()) ||
      cast<RankedTensorType>(v.getType()).getRank() > 1)
    return std::nullopt;
  FailureOr<Value> tensor = planValue(v, user);
  if (failed(tensor))
    return std::nullopt;
  auto read = plan::TensorValuesOp::create(
      builder, v.getLoc(),
      SmallVector<Type>(cast<RankedTensorType>(v.getType()).getNumElements(),
                        builder.getIndexType()),
      *tensor);
  return hostValues[v] = SmallVector<Value>(read.getValues());
}

std::optional<SmallVector<Value>> Partitioner::shapeElements(Value v,
                                                             Operation *user) {
  if (std::optional<SmallVector<Value>> e = hostElements(v))
    return e;
  return computedElements(v, user);
}

/// Whether every use of `v` is a shape operand (a Reshape's or Expand's
/// target, a Slice's bounds), directly or through the ops that carry shape
/// values (carriesShapeElements, what evaluateOnHost can compute).
static bool onlyShapes(Value v, int depth = 0) {
  if (v.use_empty() || depth > 8)
    return false;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto contract = dyn_cast<ShapeContract>(user);
        contract && contract.isShapeOperand(use.getOperandNumber()))
      continue;
    if (isa<ReshapeOp>(user) && use.getOperandNumber() == 1)
      continue; // a Reshape's target shape
    if (carriesShapeElements(user) &&
        user->getNumResults() == 1 && isHostType(user->getResult(0).getType()) &&
        onlyShapes(user->getResult(0), depth + 1))
      continue;
    return false;
  }
  return true;
}

bool Partitioner::evaluateOnHost(Operation *op) {
  if (op->getNumResults() != 1 || !isHostType(op->getResult(0).getType()))
    return false;
  // Only what derives from a Shape, or is only ever used as a shape (an
  // Expand's target from the model's repeats): an op on inputs and
  // constants alone stays a kernel (its result may be data), while a
  // Shape's values have no tensor until one is needed.
  if (!isa<ShapeOp, SizeOp>(op) && !onlyShapes(op->getResult(0)) &&
      llvm::all_of(op->getOperands(), [&](Value v) {
        return values.lookupOrNull(v) != nullptr;
      }))
    return false;
  ShapeElementSource source;
  auto elementsOf = [&](Value v) { return hostElements(v); };
  auto dimsOfTensor = [&](Value v) -> std::optional<SmallVector<Value>> {
    Value tensor = values.lookupOrNull(v);
    if (!tensor)
      return std::nullopt; // the shape of a host value folds in the graph
    return SmallVector<Value>(dimsOf(tensor));
  };
  source.elements = elementsOf;
  source.dims = dimsOfTensor;
  source.floorDivisionOnly = true; // the shape program floors
  std::optional<SmallVector<Value>> elements =
      evaluateShapeElements(builder, op, source);
  if (!elements)
    return false;
  hostValues[op->getResult(0)] = std::move(*elements);
  return true;
}

FailureOr<Value> Partitioner::planValue(Value v, Operation *user) {
  if (Value mapped = values.lookupOrNull(v))
    return mapped;
  // A host value that a kernel reads: the runtime writes its elements into
  // a tensor (a weight, once canonicalization sees they are constants).
  std::optional<SmallVector<Value>> elements = hostElements(v);
  // Every graph value the walk reaches was lowered (mapped) or is a host
  // value; anything else is a defect here, reported, not dereferenced.
  if (!elements)
    return user->emitError()
           << describeLoc(user->getLoc())
           << ": internal error: an operand has neither a plan value nor "
              "host elements (partitioning skipped its producer)";
  auto tensor = plan::HostValuesOp::create(builder, v.getLoc(), v.getType(),
                                           *elements);
  values.map(v, tensor.getResult());
  return tensor.getResult();
}

LogicalResult Partitioner::lowerView(Operation *op) {
  FailureOr<Value> planSource = planValue(op->getOperand(0), op);
  if (failed(planSource))
    return failure();
  Value source = *planSource;
  SmallVector<Value> extents;
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  auto reshape = dyn_cast<ReshapeOp>(op);
  if (Value shape = reshape ? reshape.getShape() : Value()) {
    // The target: a host value computed from shapes, or an input whose
    // values the runtime reads from its host copy.
    SmallVector<Value> target;
    if (std::optional<SmallVector<Value>> e = shapeElements(shape, op)) {
      target = *e;
    } else {
      return op->emitError() << describeLoc(op->getLoc())
                            << ": the target shape must be a small int64 "
                               "tensor of static shape";
    }
    auto reshaped = plan::ReshapeDimsOp::create(
        builder, op->getLoc(), dimsOf(source), target, reshape.getAllowzero());
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value dim = reshaped.getDims()[d];
      if (!type.isDynamicDim(d)) {
        // The model needs this extent: the values must give it.
        plan::AssertEqOp::create(
            builder, op->getLoc(), dim, index(type.getDimSize(d), op->getLoc()),
            builder.getStringAttr("dim " + std::to_string(d) +
                                  " of the reshaped tensor must be " +
                                  std::to_string(type.getDimSize(d))));
        dim = index(type.getDimSize(d), op->getLoc());
      }
      extents.push_back(dim);
    }
  } else {
    FailureOr<SmallVector<SmallVector<Value>>> e = resultDims(op);
    if (failed(e))
      return failure();
    extents = std::move(e->front());
  }
  auto view = plan::ViewOp::create(builder, op->getLoc(), type, source,
                                   dynamicOf(type, extents));
  values.map(op->getResult(0), view.getResult());
  dims[view.getResult()] = std::move(extents);
  return success();
}

static MemRefType memrefOf(Type tensorType) {
  auto t = cast<RankedTensorType>(tensorType);
  return MemRefType::get(t.getShape(), t.getElementType());
}

/// A splat constant read by an elementwise op: inlined, it becomes a scalar
/// of the kernel's loop body (linalg folds it there) instead of a load from
/// a weight argument in every iteration, which may alias the output and so
/// keeps the loop from being vectorized.
static bool isInlinedSplat(OpOperand &operand) {
  auto constant = operand.get().getDefiningOp<ConstantOp>();
  if (!constant || !isa<ElementwiseOp>(operand.getOwner()))
    return false;
  auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
  return value && value.isSplat() &&
         isa<FloatType>(value.getElementType());
}

/// Whether operand `operand` of a kernel is passed as a constant: an
/// inlined splat, or a constant shape operand (a Slice's bounds), so that
/// what depends on it folds in the kernel instead of reading a weight.
static bool inlinedIntoKernel(OpOperand &operand) {
  if (isInlinedSplat(operand))
    return true;
  auto contract = dyn_cast<ShapeContract>(operand.getOwner());
  return contract && contract.isShapeOperand(operand.getOperandNumber()) &&
         operand.get().getDefiningOp<ConstantOp>();
}

/// The values the ops of `region` read from outside it, in order of first
/// use: the arguments of its kernel. A constant whose every read there is
/// inlinedIntoKernel goes to `inlined` instead.
static SmallVector<Value> capturedValues(DispatchRegionOp region,
                                         SmallVector<Value> &inlined) {
  llvm::SetVector<Value> captured, notInlined;
  for (Operation &op : region.getBody().front().without_terminator())
    for (OpOperand &operand : op.getOpOperands()) {
      Value v = operand.get();
      if (v.getParentRegion() == &region.getBody())
        continue;
      captured.insert(v);
      if (!inlinedIntoKernel(operand))
        notInlined.insert(v);
    }
  SmallVector<Value> passed;
  for (Value v : captured)
    (notInlined.contains(v) ? passed : inlined).push_back(v);
  return passed;
}

/// The results of `op` that a dispatch writes: those used after it. A
/// result nobody reads (LayerNormalization's Mean when only Y is used) is
/// not computed at all. An op none of whose results is used yet (the copy
/// that `lowerReturn` makes for an output) writes them all.
static SmallVector<unsigned> writtenResults(Operation *op) {
  SmallVector<unsigned> used;
  for (OpResult r : op->getResults())
    if (!r.use_empty())
      used.push_back(r.getResultNumber());
  if (used.empty())
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      used.push_back(i);
  return used;
}

std::string Partitioner::createKernel(Operation *op) {
  std::string symbol = "tessel_k" + std::to_string(nextKernel++);
  auto region = dyn_cast<DispatchRegionOp>(op);
  // What the kernel reads, the ops it runs, and the values it writes.
  SmallVector<Value> passed, inlined;
  SmallVector<Operation *> ops;
  SmallVector<Value> written;
  if (region) {
    passed = capturedValues(region, inlined);
    for (Operation &inner : region.getBody().front().without_terminator())
      ops.push_back(&inner);
    auto yielded =
        cast<YieldOp>(region.getBody().front().getTerminator()).getValues();
    for (unsigned i : writtenResults(op))
      written.push_back(yielded[i]);
  } else {
    for (OpOperand &operand : op->getOpOperands())
      (inlinedIntoKernel(operand) ? inlined : passed).push_back(operand.get());
    ops.push_back(op);
    for (unsigned i : writtenResults(op))
      written.push_back(op->getResult(i));
  }
  SmallVector<Type> argTypes;
  for (Value v : passed)
    argTypes.push_back(memrefOf(v.getType()));
  for (Value v : written)
    argTypes.push_back(memrefOf(v.getType()));
  OpBuilder kb(op->getContext());
  kb.setInsertionPointToEnd(kernels.getBody());
  auto func = func::FuncOp::create(kb, op->getLoc(), symbol,
                                   kb.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  kb.setInsertionPointToStart(body);
  IRMapping map;
  for (Value v : inlined)
    map.map(v, kb.clone(*v.getDefiningOp())->getResult(0));
  for (auto [i, v] : llvm::enumerate(passed))
    map.map(v, bufferization::ToTensorOp::create(kb, op->getLoc(),
                                                 v.getType(),
                                                 body->getArgument(i),
                                                 /*restrict=*/true)
                   .getResult());
  for (Operation *inner : ops)
    kb.clone(*inner, map);
  for (auto [i, v] : llvm::enumerate(written)) {
    auto store = bufferization::MaterializeInDestinationOp::create(
        kb, op->getLoc(), TypeRange{}, map.lookup(v),
        body->getArgument(passed.size() + i));
    store.setRestrict(true);
    store.setWritable(true);
  }
  func::ReturnOp::create(kb, op->getLoc());
  return symbol;
}

/// Whether `op` computes each result element from the operand elements at
/// the same (broadcast) position (ElementwiseOp): an operand of the
/// result's own type is then read at each element only by the thread that
/// writes that element, before it does.
static bool isElementwise(Operation *op) { return isa<ElementwiseOp>(op); }

/// Whether extents `a` and `b` of tensors of `type` hold the same values at
/// its dynamic dims (the static ones are the type's).
static bool sameDynamicDims(RankedTensorType type, ArrayRef<Value> a,
                            ArrayRef<Value> b) {
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d) && a[d] != b[d])
      return false;
  return true;
}

SmallVector<int64_t> Partitioner::tiedArguments(
    Operation *op, ArrayRef<Value> sources, ArrayRef<Value> args,
    ArrayRef<Value> resultValues, ArrayRef<SmallVector<Value>> resultExtents) {
  // Elementwise ops only, in the plan's top level: the arena plans those
  // buffers, and a value of an enclosing region lives on after a branch or
  // an iteration.
  auto region = dyn_cast<DispatchRegionOp>(op);
  bool elementwise =
      region ? llvm::all_of(region.getBody().front().without_terminator(),
                            [](Operation &inner) { return isElementwise(&inner); })
             : isElementwise(op);
  if (!elementwise || builder.getInsertionBlock() != &plan.getBody().front())
    return {};
  SmallVector<int64_t> tied(resultValues.size(), -1);
  bool any = false;
  for (auto [r, result] : llvm::enumerate(resultValues)) {
    // A returned result owns its buffer (the plan's outputs).
    if (llvm::any_of(result.getUsers(),
                     [](Operation *user) { return isa<func::ReturnOp>(user); }))
      continue;
    for (auto [a, source] : llvm::enumerate(sources)) {
      Value arg = args[a];
      // A transient of this block (no input, weight or view), of the
      // result's type and extents, that nothing reads after this dispatch.
      if (!arg.getDefiningOp<plan::DispatchOp>() ||
          arg.getParentBlock() != builder.getInsertionBlock() ||
          arg.getType() != result.getType() ||
          !sameDynamicDims(cast<RankedTensorType>(arg.getType()),
                           dimsOf(arg), resultExtents[r]) ||
          llvm::is_contained(tied, int64_t(a)) ||
          !llvm::all_of(source.getUsers(), [&](Operation *user) {
            return op == user || op->isProperAncestor(user);
          }))
        continue;
      tied[r] = a;
      any = true;
      break;
    }
  }
  return any ? tied : SmallVector<int64_t>();
}

LogicalResult Partitioner::lowerDispatchRegion(DispatchRegionOp region) {
  // The extents of the values inside, op by op, from their contracts.
  DenseMap<Value, SmallVector<Value>> inner;
  for (Operation &op : region.getBody().front().without_terminator()) {
    FailureOr<SmallVector<SmallVector<Value>>> extents =
        resultDims(&op, &inner);
    if (failed(extents))
      return failure();
    for (auto [result, e] : llvm::zip(op.getResults(), *extents))
      inner[result] = std::move(e);
  }
  SmallVector<Value> args, inlined;
  SmallVector<Value> sources = capturedValues(region, inlined);
  for (Value v : sources) {
    FailureOr<Value> arg = planValue(v, region);
    if (failed(arg))
      return failure();
    args.push_back(*arg);
  }
  auto yielded =
      cast<YieldOp>(region.getBody().front().getTerminator()).getValues();
  SmallVector<unsigned> written = writtenResults(region);
  SmallVector<SmallVector<Value>> extents;
  for (unsigned i : written)
    extents.push_back(inner[yielded[i]]);
  createDispatch(region, sources, args, written, std::move(extents));
  return success();
}

void Partitioner::createDispatch(Operation *op, ArrayRef<Value> sources,
                                 ArrayRef<Value> args,
                                 ArrayRef<unsigned> written,
                                 SmallVector<SmallVector<Value>> extents) {
  SmallVector<Value> resultDynamicDims, resultValues;
  SmallVector<Type> resultTypes;
  for (auto [i, e] : llvm::zip(written, extents)) {
    Type type = op->getResult(i).getType();
    llvm::append_range(resultDynamicDims, dynamicOf(type, e));
    resultTypes.push_back(type);
    resultValues.push_back(op->getResult(i));
  }
  std::string symbol = createKernel(op);
  SmallVector<int64_t> tied =
      tiedArguments(op, sources, args, resultValues, extents);
  // A tied result shares its argument's buffer, so the kernel's parameters
  // for the two (argument j, and result i after the arguments) alias: the
  // targets must not declare them distinct (tessel.aliased_args, pairs).
  SmallVector<int64_t> aliased;
  for (auto [i, arg] : llvm::enumerate(tied))
    if (arg >= 0)
      aliased.append({arg, static_cast<int64_t>(args.size() + i)});
  if (!aliased.empty())
    kernels.lookupSymbol<func::FuncOp>(symbol)->setAttr(
        kAliasedArgsAttr, builder.getDenseI64ArrayAttr(aliased));
  auto dispatch = plan::DispatchOp::create(
      builder, op->getLoc(), resultTypes,
      FlatSymbolRefAttr::get(builder.getContext(), symbol), args,
      resultDynamicDims,
      tied.empty() ? DenseI64ArrayAttr() : builder.getDenseI64ArrayAttr(tied));
  for (auto [i, planResult, e] :
       llvm::zip(written, dispatch.getResults(), extents)) {
    values.map(op->getResult(i), planResult);
    dims[planResult] = std::move(e);
  }
}

LogicalResult Partitioner::lowerDispatch(Operation *op) {
  FailureOr<SmallVector<SmallVector<Value>>> extents = resultDims(op);
  if (failed(extents))
    return failure();
  SmallVector<Value> args, sources;
  for (OpOperand &operand : op->getOpOperands()) {
    if (inlinedIntoKernel(operand))
      continue;
    FailureOr<Value> arg = planValue(operand.get(), op);
    if (failed(arg))
      return failure();
    args.push_back(*arg);
    sources.push_back(operand.get());
  }
  SmallVector<unsigned> written = writtenResults(op);
  SmallVector<SmallVector<Value>> writtenExtents;
  for (unsigned i : written)
    writtenExtents.push_back(std::move((*extents)[i]));
  createDispatch(op, sources, args, written, std::move(writtenExtents));
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
    FailureOr<Value> mapped = this->planValue(v, op);
    if (failed(mapped))
      return failure();
    Value planValue = *mapped;
    Value root = bufferRoot(planValue);
    // An output owns its buffer: an input, a weight or a buffer returned
    // already is copied by an identity kernel.
    if (!isa_and_nonnull<plan::DispatchOp, plan::IfOp, plan::LoopOp>(
            root.getDefiningOp()) ||
        returned.contains(root)) {
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
  if (ArrayAttr argAttrs = graph.getAllArgAttrs()) // none without inputs
    plan.setAllArgAttrs(argAttrs);
  Block *entry = plan.addEntryBlock();
  for (auto [g, p] : llvm::zip(graph.getArguments(), entry->getArguments()))
    values.map(g, p);
  builder.setInsertionPointToStart(entry);
  return lowerBlock(graph.getBody().front());
}

LogicalResult Partitioner::lowerAssertZero(AssertZeroOp op) {
  Location loc = op.getLoc();
  std::optional<SmallVector<Value>> count = shapeElements(op.getCount(), op);
  if (!count || count->size() != 1)
    return op.emitError() << describeLoc(loc)
                          << ": internal error: the count of a check has no "
                             "plan value";
  APInt known;
  if (matchPattern(count->front(), m_ConstantInt(&known))) {
    if (known.isZero())
      return success();
    return op.emitError() << describeLoc(loc) << ": " << op.getMessage()
                          << ": " << known.getSExtValue()
                          << " (ONNX makes out-of-range indices an error)";
  }
  plan::AssertEqOp::create(
      builder, loc, count->front(), index(0, loc),
      builder.getStringAttr("the number of " + op.getMessage() +
                            " must be 0"));
  return success();
}

LogicalResult Partitioner::lowerBlock(Block &block) {
  // A check reads its count back from the device: after everything else
  // the block launches, so that a plan waits once rather than per check.
  SmallVector<AssertZeroOp> checks;
  for (Operation &op : block) {
    LogicalResult ok = success();
    if (auto check = dyn_cast<AssertZeroOp>(op)) {
      checks.push_back(check);
      continue;
    }
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (AssertZeroOp check : checks)
        if (failed(lowerAssertZero(check)))
          return failure();
      checks.clear();
    }
    if (auto c = dyn_cast<ConstantOp>(op)) {
      auto weight =
          plan::WeightOp::create(builder, c.getLoc(), c.getType(), c.getValue());
      values.map(c.getResult(), weight.getResult());
    } else if (isa<YieldOp>(op) || evaluateOnHost(&op)) {
      continue; // a yield is lowered by its region
    } else if (isa<ReshapeOp, SqueezeOp, UnsqueezeOp>(op)) {
      ok = lowerView(&op);
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      ok = lowerReturn(ret);
    } else if (auto i = dyn_cast<IfOp>(op)) {
      ok = lowerIf(i);
    } else if (auto l = dyn_cast<LoopOp>(op)) {
      ok = lowerLoop(l);
    } else if (auto r = dyn_cast<DispatchRegionOp>(op)) {
      ok = lowerDispatchRegion(r);
    } else {
      ok = lowerDispatch(&op);
    }
    if (failed(ok))
      return failure();
  }
  return success();
}

/// Whether `v` is defined inside `region` (or a region nested in it).
static bool definedIn(Value v, Region &region) {
  return region.isAncestor(v.getParentRegion());
}

void Partitioner::forgetValuesIn(Region &region) {
  SmallVector<Value> stale;
  for (auto [graphValue, planValue] : values.getValueMap())
    if (definedIn(planValue, region))
      stale.push_back(graphValue);
  for (Value v : stale)
    values.erase(v);
  stale.clear();
  auto anyIn = [&](ArrayRef<Value> vs) {
    return llvm::any_of(vs, [&](Value v) { return definedIn(v, region); });
  };
  for (auto &[tensor, extents] : dims)
    if (definedIn(tensor, region) || anyIn(extents))
      stale.push_back(tensor);
  for (Value v : stale)
    dims.erase(v);
  stale.clear();
  for (auto &[graphValue, elements] : hostValues)
    if (anyIn(elements))
      stale.push_back(graphValue);
  for (Value v : stale)
    hostValues.erase(v);
}

LogicalResult Partitioner::lowerRegion(Block &from, Block &to) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&to);
  if (failed(lowerBlock(from)))
    return failure();
  SmallVector<Value> yielded;
  for (Value v : cast<YieldOp>(from.getTerminator()).getValues()) {
    FailureOr<Value> planValue = this->planValue(v, from.getTerminator());
    if (failed(planValue))
      return failure();
    yielded.push_back(*planValue);
  }
  plan::YieldOp::create(builder, from.getTerminator()->getLoc(), yielded);
  forgetValuesIn(*to.getParent());
  return success();
}

/// The extents of the results of a control op: static dims as constants,
/// dynamic ones from `resultDims`, in order.
static void mapResultDims(OpBuilder &builder, ValueRange results,
                          ValueRange resultDims,
                          DenseMap<Value, SmallVector<Value>> &dims) {
  for (Value r : results) {
    auto type = cast<RankedTensorType>(r.getType());
    SmallVector<Value> extents;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.isDynamicDim(d)) {
        extents.push_back(resultDims.front());
        resultDims = resultDims.drop_front();
      } else {
        extents.push_back(arith::ConstantIndexOp::create(
            builder, r.getLoc(), type.getDimSize(d)));
      }
    }
    dims[r] = std::move(extents);
  }
}

/// One index type per dynamic dim of `types`.
static SmallVector<Type> dimTypes(MLIRContext *context, TypeRange types) {
  int64_t count = 0;
  for (Type t : types)
    count += cast<RankedTensorType>(t).getNumDynamicDims();
  return SmallVector<Type>(count, IndexType::get(context));
}

LogicalResult Partitioner::lowerIf(IfOp op) {
  FailureOr<Value> cond = planValue(op.getCond(), op);
  if (failed(cond))
    return failure();
  auto planIf = plan::IfOp::create(
      builder, op.getLoc(), op.getResultTypes(),
      dimTypes(op.getContext(), op.getResultTypes()), *cond);
  for (auto [from, to] : {std::pair{&op.getThenRegion(), &planIf.getThenRegion()},
                          {&op.getElseRegion(), &planIf.getElseRegion()}}) {
    to->push_back(new Block);
    if (failed(lowerRegion(from->front(), to->front())))
      return failure();
  }
  for (auto [g, p] : llvm::zip(op.getResults(), planIf.getResults()))
    values.map(g, p);
  mapResultDims(builder, planIf.getResults(), planIf.getResultDims(), dims);
  return success();
}

LogicalResult Partitioner::lowerLoop(LoopOp op) {
  // By role, not by value: one value may be the trip count and carried.
  auto lower = [&](Value v, Value &out) {
    FailureOr<Value> mapped = v ? planValue(v, op) : FailureOr<Value>(Value());
    out = succeeded(mapped) ? *mapped : Value();
    return succeeded(mapped);
  };
  Value trip, cond;
  SmallVector<Value> inits(op.getInits().size());
  if (!lower(op.getTripCount(), trip) || !lower(op.getCond(), cond))
    return failure();
  for (auto [v, init] : llvm::zip(op.getInits(), inits))
    if (!lower(v, init))
      return failure();
  auto planLoop = plan::LoopOp::create(
      builder, op.getLoc(), op.getResultTypes(),
      dimTypes(op.getContext(), op.getResultTypes()), trip, cond, inits);
  // The body: iteration, condition and carried tensors as in the graph,
  // then an index per dynamic dim of the carried tensors.
  Block &graphBody = op.getBody().front();
  Block *body = new Block;
  planLoop.getBody().push_back(body);
  for (BlockArgument arg : graphBody.getArguments())
    values.map(arg, body->addArgument(arg.getType(), arg.getLoc()));
  // The iteration number is a host value: shape ops on it (a Slice at i)
  // run on the host, and a kernel that reads it gets `plan.host_values`.
  values.erase(graphBody.getArgument(0));
  hostValues[graphBody.getArgument(0)] = {
      body->addArgument(builder.getIndexType(), op.getLoc())};
  for (BlockArgument arg : graphBody.getArguments().drop_front(2))
    for (int64_t d = 0; d < cast<RankedTensorType>(arg.getType()).getRank(); ++d)
      if (cast<RankedTensorType>(arg.getType()).isDynamicDim(d))
        body->addArgument(builder.getIndexType(), arg.getLoc());
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(body);
    mapResultDims(builder, body->getArguments().slice(2, inits.size()),
                  planLoop.getCarriedDims(), dims);
  }
  if (failed(lowerRegion(graphBody, *body)))
    return failure();
  for (auto [g, p] : llvm::zip(op.getResults(), planLoop.getResults()))
    values.map(g, p);
  mapResultDims(builder, planLoop.getResults(), planLoop.getResultDims(), dims);
  return success();
}

LogicalResult tessel::partitionGraph(func::FuncOp graph, ModuleOp plan,
                                     ModuleOp kernels) {
  graph.getContext()
      ->loadDialect<bufferization::BufferizationDialect, memref::MemRefDialect,
                    plan::PlanDialect, arith::ArithDialect>();
  return Partitioner(graph, kernels).run(plan);
}
