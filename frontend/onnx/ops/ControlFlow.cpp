//===- ControlFlow.cpp - If, Loop and Scan ----------------------------------===//
//
// ONNX control flow becomes the graph dialect's structured ops: If becomes
// `tessel.if` (or, with a constant condition, the branch it takes), Loop
// becomes `tessel.loop`, and Scan a `tessel.loop` over the scan axis whose
// body gathers slice i of each scan input (Scan-8's batch axis is a loop
// around it). Subgraphs read outer values by name, which become SSA uses
// inside the op's regions.
//
// A loop-carried value keeps its element type and rank across iterations
// but may change a dim: the body is imported with the initial values'
// types and, while it yields a type that differs in a dim, imported again
// with that dim dynamic (at most one more time per dim).
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImportContext.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

namespace {

/// A block that is not in a region yet, and what it yields.
struct Body {
  std::unique_ptr<Block> block;
  SmallVector<GraphValue> yields;
};

/// Fills a body: adds ops at the builder's insertion point (the end of the
/// block), given the block's arguments, and returns the values to yield.
using BodyBuilder = function_ref<LogicalResult(
    ArrayRef<GraphValue> args, SmallVectorImpl<GraphValue> &yields)>;

/// A block with arguments of `types` (ONNX types `onnxTypes`), filled by
/// `fill` and ended by a `tessel.yield` of what it returns.
FailureOr<Body> buildBody(NodeContext &n, ArrayRef<Type> types,
                          ArrayRef<int32_t> onnxTypes, BodyBuilder fill) {
  Body body;
  body.block = std::make_unique<Block>();
  SmallVector<GraphValue> args;
  for (auto [type, onnxType] : llvm::zip(types, onnxTypes))
    args.push_back({body.block->addArgument(type, n.loc), onnxType});
  OpBuilder::InsertionGuard guard(n.b);
  n.b.setInsertionPointToEnd(body.block.get());
  if (failed(fill(args, body.yields)))
    return failure();
  SmallVector<Value> values;
  for (const GraphValue &v : body.yields)
    values.push_back(v.value);
  YieldOp::create(n.b, n.loc, values);
  return body;
}

/// The type that values of types `a` and `b` both fit: the same element type
/// and rank, a dim static where both have that extent.
FailureOr<RankedTensorType> join(NodeContext &n, Type a, Type b,
                                 const Twine &what) {
  auto x = cast<RankedTensorType>(a), y = cast<RankedTensorType>(b);
  if (x.getElementType() != y.getElementType() || x.getRank() != y.getRank())
    return n.error(what + " is " + llvm::formatv("{0}", x).str() +
                   " in one place and " + llvm::formatv("{0}", y).str() +
                   " in another; Tessel needs one element type and rank");
  SmallVector<int64_t> shape;
  for (auto [p, q] : llvm::zip(x.getShape(), y.getShape()))
    shape.push_back(p == q ? p : ShapedType::kDynamic);
  return RankedTensorType::get(shape, x.getElementType());
}

/// Checks that input `i` is an `onnxType` tensor of one element.
LogicalResult checkScalarInput(NodeContext &n, int i, int32_t onnxType,
                               StringRef what) {
  RankedTensorType type = n.inputType(i);
  if (n.inputOnnxType(i) != onnxType ||
      (type.hasStaticShape() && type.getNumElements() != 1))
    return n.error(Twine(what) + " must be one " +
                   (onnxType == onnx::TensorProto::BOOL ? "bool" : "int64") +
                   ", not " + llvm::formatv("{0}", type).str());
  return success();
}

const onnx::GraphProto *graphAttr(NodeContext &n, StringRef name) {
  const onnx::AttributeProto *a = n.attr(name);
  if (!a || !a->has_g()) {
    (void)n.error("attribute '" + name + "' (a graph) is missing");
    return nullptr;
  }
  return &a->g();
}

/// Binds the node's outputs to `values` (a node may use fewer outputs).
void setOutputs(NodeContext &n, ValueRange values, ArrayRef<int32_t> onnxTypes) {
  for (int i = 0; i < n.node.output_size() && i < int(values.size()); ++i)
    n.setOutput(i, values[i], onnxTypes[i]);
}
void setOutputs(NodeContext &n, ArrayRef<GraphValue> values) {
  for (int i = 0; i < n.node.output_size() && i < int(values.size()); ++i)
    n.setOutput(i, values[i].value, values[i].onnxType);
}

/// A `tessel.loop` with optional `trip` and `cond`, carried values `inits`
/// and a body that `fill` builds from the block arguments (iteration,
/// condition, carried values); `fill` yields the condition, the next
/// carried values, then the scan values. Returns the loop's results and
/// their ONNX types.
FailureOr<LoopOp> buildLoop(NodeContext &n, Value trip, Value cond,
                            ArrayRef<GraphValue> inits, BodyBuilder fill,
                            SmallVectorImpl<int32_t> &resultOnnxTypes) {
  MLIRContext *context = n.b.getContext();
  SmallVector<Type> types{
      RankedTensorType::get({}, IntegerType::get(context, 64)),
      RankedTensorType::get({}, IntegerType::get(context, 1))};
  SmallVector<int32_t> onnxTypes{onnx::TensorProto::INT64,
                                 onnx::TensorProto::BOOL};
  for (const GraphValue &v : inits) {
    types.push_back(v.value.getType());
    onnxTypes.push_back(v.onnxType);
  }
  // Each retry makes at least one more dim dynamic.
  int64_t retries = 1;
  for (const GraphValue &v : inits)
    retries += cast<RankedTensorType>(v.value.getType()).getRank();
  for (int64_t attempt = 0; attempt <= retries; ++attempt) {
    FailureOr<Body> body = buildBody(n, types, onnxTypes, fill);
    if (failed(body))
      return failure();
    ArrayRef<GraphValue> yields = body->yields;
    if (yields.size() < 1 + inits.size())
      return n.error("the body yields " + Twine(yields.size()) +
                     " values; it must yield the condition and " +
                     Twine(inits.size()) + " carried values");
    auto condType = cast<RankedTensorType>(yields[0].value.getType());
    if (!condType.getElementType().isInteger(1) ||
        (condType.hasStaticShape() && condType.getNumElements() != 1))
      return n.error("the body's condition output must be one bool");
    bool stable = true;
    for (size_t k = 0; k < inits.size(); ++k) {
      FailureOr<RankedTensorType> joined =
          join(n, types[2 + k], yields[1 + k].value.getType(),
               "loop-carried value " + Twine(k));
      if (failed(joined))
        return failure();
      stable &= *joined == types[2 + k];
      types[2 + k] = *joined;
    }
    if (!stable)
      continue; // import the body again with the dims that change dynamic
    SmallVector<Type> resultTypes(ArrayRef<Type>(types).drop_front(2));
    SmallVector<Value> initValues;
    for (const GraphValue &v : inits)
      initValues.push_back(v.value);
    resultOnnxTypes.assign(onnxTypes.begin() + 2, onnxTypes.end());
    for (const GraphValue &scan : yields.drop_front(1 + inits.size())) {
      auto t = cast<RankedTensorType>(scan.value.getType());
      SmallVector<int64_t> shape{ShapedType::kDynamic};
      llvm::append_range(shape, t.getShape());
      resultTypes.push_back(RankedTensorType::get(shape, t.getElementType()));
      resultOnnxTypes.push_back(scan.onnxType);
    }
    auto loop = LoopOp::create(n.b, n.loc, resultTypes, trip, cond, initValues);
    loop.getBody().push_back(body->block.release());
    return loop;
  }
  return n.error("internal error: the loop-carried types do not settle");
}

/// A 1-D int64 constant.
Value i64Constant(NodeContext &n, ArrayRef<int64_t> values,
                  ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, n.b.getI64Type());
  return ConstantOp::create(n.b, n.loc, DenseElementsAttr::get(type, values));
}

/// ONNX Scan (opset 9 semantics) of `states` and `scans` with `body`:
/// a loop over the scan axis. Appends the final states and the scan outputs
/// to `results`.
LogicalResult buildScan(NodeContext &n, const onnx::GraphProto &body,
                        ArrayRef<GraphValue> states, ArrayRef<GraphValue> scans,
                        ArrayRef<int64_t> axes, ArrayRef<int64_t> directions,
                        ArrayRef<int64_t> outputAxes,
                        ArrayRef<int64_t> outputDirections,
                        SmallVectorImpl<GraphValue> &results) {
  if (scans.empty())
    return n.error("Scan needs at least one scan input");
  // The trip count: the extent of the first scan input along its axis. The
  // others must have it too; the kernel would clamp a shorter one.
  auto firstType = cast<RankedTensorType>(scans[0].value.getType());
  int64_t length = firstType.getDimSize(axes[0]);
  for (auto [j, scan] : llvm::enumerate(scans)) {
    int64_t extent =
        cast<RankedTensorType>(scan.value.getType()).getDimSize(axes[j]);
    if (j != 0 && (ShapedType::isDynamic(extent) ||
                   ShapedType::isDynamic(length) || extent != length))
      return n.error("scan input " + Twine(j) + " has " +
                     (ShapedType::isDynamic(extent) ? std::string("?")
                                                    : std::to_string(extent)) +
                     " elements along its axis, scan input 0 " +
                     (ShapedType::isDynamic(length) ? std::string("?")
                                                    : std::to_string(length)) +
                     "; Tessel needs them equal and known at compile time");
  }
  auto lengthType = RankedTensorType::get({1}, n.b.getI64Type());
  Value extent = ShapeOp::create(n.b, n.loc, lengthType, scans[0].value,
                                 axes[0], axes[0] + 1);
  Value trip = ReshapeOp::create(
      n.b, n.loc, RankedTensorType::get({}, n.b.getI64Type()), extent);

  auto fill = [&](ArrayRef<GraphValue> args,
                  SmallVectorImpl<GraphValue> &yields) -> LogicalResult {
    Value iteration = args[0].value;
    SmallVector<GraphValue> bodyArgs(args.drop_front(2));
    for (auto [j, scan] : llvm::enumerate(scans)) {
      Value index = iteration;
      if (directions[j] != 0) { // reverse: element length - 1 - i
        Value last = SubOp::create(n.b, n.loc, trip.getType(), trip,
                                   i64Constant(n, {1}, {}));
        index = SubOp::create(n.b, n.loc, trip.getType(), last, iteration);
      }
      auto type = cast<RankedTensorType>(scan.value.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape.erase(shape.begin() + axes[j]);
      bodyArgs.push_back(
          {GatherOp::create(n.b, n.loc,
                            RankedTensorType::get(shape, type.getElementType()),
                            scan.value, index, axes[j]),
           scan.onnxType});
    }
    SmallVector<GraphValue> outputs;
    if (failed(n.ctx.importSubgraph(n, body, bodyArgs, outputs)))
      return failure();
    if (outputs.size() < states.size())
      return n.error("the body has " + Twine(outputs.size()) +
                     " outputs for " + Twine(states.size()) + " state values");
    yields.push_back(args[1]); // the condition stays true
    llvm::append_range(yields, outputs);
    return success();
  };
  SmallVector<int32_t> onnxTypes;
  FailureOr<LoopOp> loop =
      buildLoop(n, trip, Value(), states, fill, onnxTypes);
  if (failed(loop))
    return failure();
  unsigned numScanOutputs = loop->getNumScanOutputs();
  if (outputAxes.size() != numScanOutputs ||
      outputDirections.size() != numScanOutputs)
    return n.error("scan_output_axes and scan_output_directions need one "
                   "entry per scan output (" +
                   Twine(numScanOutputs) + ")");
  for (auto [k, result] : llvm::enumerate(loop->getResults())) {
    Value v = result;
    if (k >= states.size()) {
      size_t s = k - states.size();
      auto type = cast<RankedTensorType>(v.getType());
      if (outputDirections[s] != 0) // reverse along the stacked axis
        v = SliceOp::create(n.b, n.loc, type, v, i64Constant(n, {-1}, {1}),
                            i64Constant(n, {INT64_MIN}, {1}),
                            n.b.getDenseI64ArrayAttr({0}),
                            n.b.getDenseI64ArrayAttr({-1}));
      int64_t axis = outputAxes[s];
      if (axis < -type.getRank() || axis >= type.getRank())
        return n.error("scan_output_axes[" + Twine(s) + "] = " + Twine(axis) +
                       " is outside the rank " + Twine(type.getRank()));
      if (axis < 0)
        axis += type.getRank();
      if (axis != 0) {
        // Move the stacked axis to `axis`.
        SmallVector<int64_t> perm, shape;
        for (int64_t i = 0; i < type.getRank(); ++i)
          perm.push_back(i < axis ? i + 1 : i == axis ? 0 : i);
        for (int64_t p : perm)
          shape.push_back(type.getDimSize(p));
        v = TransposeOp::create(
            n.b, n.loc, RankedTensorType::get(shape, type.getElementType()),
            v, n.b.getDenseI64ArrayAttr(perm));
      }
    }
    results.push_back({v, onnxTypes[k]});
  }
  return success();
}

/// `count` entries of attribute `name`, `dflt` each when it is absent.
FailureOr<SmallVector<int64_t>> listAttr(NodeContext &n, StringRef name,
                                         size_t count, int64_t dflt) {
  SmallVector<int64_t> values = n.getInts(name);
  if (!n.attr(name))
    values.assign(count, dflt);
  if (values.size() != count)
    return n.error("attribute '" + name + "' has " + Twine(values.size()) +
                   " entries, expected " + Twine(count));
  return values;
}

LogicalResult importIf(NodeContext &n) {
  Value cond = n.input(0);
  const onnx::GraphProto *thenGraph = graphAttr(n, "then_branch");
  const onnx::GraphProto *elseGraph = graphAttr(n, "else_branch");
  if (!cond || !thenGraph || !elseGraph ||
      failed(checkScalarInput(n, 0, onnx::TensorProto::BOOL, "the condition")))
    return failure();
  // A constant condition takes its branch while importing.
  if (std::optional<DenseElementsAttr> c = n.constantInput(0)) {
    SmallVector<GraphValue> outputs;
    if (failed(n.ctx.importSubgraph(
            n, *c->getValues<bool>().begin() ? *thenGraph : *elseGraph, {},
            outputs)))
      return failure();
    setOutputs(n, outputs);
    return success();
  }
  auto branch = [&](const onnx::GraphProto &g) {
    return buildBody(n, {}, {},
                     [&](ArrayRef<GraphValue>, SmallVectorImpl<GraphValue> &y) {
                       return n.ctx.importSubgraph(n, g, {}, y);
                     });
  };
  FailureOr<Body> thenBody = branch(*thenGraph);
  if (failed(thenBody))
    return failure();
  FailureOr<Body> elseBody = branch(*elseGraph);
  if (failed(elseBody))
    return failure();
  if (thenBody->yields.size() != elseBody->yields.size())
    return n.error("the then branch has " + Twine(thenBody->yields.size()) +
                   " outputs, the else branch " +
                   Twine(elseBody->yields.size()));
  SmallVector<Type> types;
  SmallVector<int32_t> onnxTypes;
  for (auto [i, t, e] :
       llvm::enumerate(thenBody->yields, elseBody->yields)) {
    FailureOr<RankedTensorType> type = join(
        n, t.value.getType(), e.value.getType(), "output " + Twine(i));
    if (failed(type))
      return failure();
    types.push_back(*type);
    onnxTypes.push_back(t.onnxType);
  }
  auto op = IfOp::create(n.b, n.loc, types, cond);
  op.getThenRegion().push_back(thenBody->block.release());
  op.getElseRegion().push_back(elseBody->block.release());
  setOutputs(n, op.getResults(), onnxTypes);
  return success();
}

LogicalResult importLoop(NodeContext &n) {
  const onnx::GraphProto *body = graphAttr(n, "body");
  if (!body)
    return failure();
  Value trip, cond;
  if (n.hasInput(0)) {
    trip = n.input(0);
    if (!trip || failed(checkScalarInput(n, 0, onnx::TensorProto::INT64,
                                         "the trip count M")))
      return failure();
  }
  if (n.hasInput(1)) {
    cond = n.input(1);
    if (!cond ||
        failed(checkScalarInput(n, 1, onnx::TensorProto::BOOL, "cond")))
      return failure();
  }
  SmallVector<GraphValue> inits;
  for (int i = 2; i < n.numInputs(); ++i) {
    Value v = n.input(i);
    if (!v)
      return failure();
    inits.push_back({v, n.inputOnnxType(i)});
  }
  auto fill = [&](ArrayRef<GraphValue> args,
                  SmallVectorImpl<GraphValue> &yields) {
    return n.ctx.importSubgraph(n, *body, args, yields);
  };
  SmallVector<int32_t> onnxTypes;
  FailureOr<LoopOp> loop = buildLoop(n, trip, cond, inits, fill, onnxTypes);
  if (failed(loop))
    return failure();
  setOutputs(n, loop->getResults(), onnxTypes);
  return success();
}

/// Scan-9 and later: state values, then `num_scan_inputs` scan inputs.
LogicalResult importScan(NodeContext &n) {
  const onnx::GraphProto *body = graphAttr(n, "body");
  if (!body)
    return failure();
  int64_t numScans = n.getInt("num_scan_inputs", 0);
  int64_t numStates = n.numInputs() - numScans;
  if (numScans < 1 || numStates < 0)
    return n.error("num_scan_inputs is " + Twine(numScans) + " for " +
                   Twine(n.numInputs()) + " inputs");
  int64_t numScanOutputs = body->output_size() - numStates;
  SmallVector<GraphValue> states, scans;
  for (int i = 0; i < n.numInputs(); ++i) {
    Value v = n.input(i);
    if (!v)
      return failure();
    (i < numStates ? states : scans).push_back({v, n.inputOnnxType(i)});
  }
  FailureOr<SmallVector<int64_t>> axes =
      listAttr(n, "scan_input_axes", numScans, 0);
  FailureOr<SmallVector<int64_t>> directions =
      listAttr(n, "scan_input_directions", numScans, 0);
  FailureOr<SmallVector<int64_t>> outputAxes =
      listAttr(n, "scan_output_axes", std::max<int64_t>(numScanOutputs, 0), 0);
  FailureOr<SmallVector<int64_t>> outputDirections = listAttr(
      n, "scan_output_directions", std::max<int64_t>(numScanOutputs, 0), 0);
  if (failed(axes) || failed(directions) || failed(outputAxes) ||
      failed(outputDirections))
    return failure();
  for (auto [j, axis] : llvm::enumerate(*axes))
    if (failed(n.normalizeAxis(
            axis, cast<RankedTensorType>(scans[j].value.getType()).getRank())))
      return failure();
  SmallVector<GraphValue> results;
  if (failed(buildScan(n, *body, states, scans, *axes, *directions,
                       *outputAxes, *outputDirections, results)))
    return failure();
  setOutputs(n, results);
  return success();
}

/// Scan-8: a batch axis 0 before the sequence axis, and an optional
/// `sequence_lens` input first. Each batch element is a Scan-9 over its
/// sequence: a loop over the batch whose body scans, stacking every result.
LogicalResult importScan8(NodeContext &n) {
  const onnx::GraphProto *body = graphAttr(n, "body");
  if (!body)
    return failure();
  if (n.hasInput(0))
    return n.error("sequence_lens is not supported (every sequence must "
                   "have the full length)");
  int64_t numScans = n.getInt("num_scan_inputs", 0);
  int64_t numStates = n.numInputs() - 1 - numScans;
  if (numScans < 1 || numStates < 0)
    return n.error("num_scan_inputs is " + Twine(numScans) + " for " +
                   Twine(n.numInputs() - 1) + " inputs after sequence_lens");
  SmallVector<GraphValue> batched;
  for (int i = 1; i < n.numInputs(); ++i) {
    Value v = n.input(i);
    if (!v)
      return failure();
    if (n.inputType(i).getRank() < (i <= numStates ? 1 : 2))
      return n.error("input " + Twine(i) + " has no batch axis");
    batched.push_back({v, n.inputOnnxType(i)});
  }
  FailureOr<SmallVector<int64_t>> directions =
      listAttr(n, "directions", numScans, 0);
  if (failed(directions))
    return failure();
  int64_t numScanOutputs = body->output_size() - numStates;
  SmallVector<int64_t> zeros(numScans, 0),
      outputZeros(std::max<int64_t>(numScanOutputs, 0), 0);

  auto batchType = RankedTensorType::get({1}, n.b.getI64Type());
  Value batch = ReshapeOp::create(
      n.b, n.loc, RankedTensorType::get({}, n.b.getI64Type()),
      ShapeOp::create(n.b, n.loc, batchType, batched[0].value, 0, 1));
  auto fill = [&](ArrayRef<GraphValue> args,
                  SmallVectorImpl<GraphValue> &yields) -> LogicalResult {
    SmallVector<GraphValue> states, scans;
    for (auto [i, v] : llvm::enumerate(batched)) {
      auto type = cast<RankedTensorType>(v.value.getType());
      Value slice = GatherOp::create(
          n.b, n.loc,
          RankedTensorType::get(type.getShape().drop_front(),
                                type.getElementType()),
          v.value, args[0].value, 0);
      (int64_t(i) < numStates ? states : scans).push_back({slice, v.onnxType});
    }
    yields.push_back(args[1]);
    return buildScan(n, *body, states, scans, zeros, *directions, outputZeros,
                     outputZeros, yields);
  };
  SmallVector<int32_t> onnxTypes;
  FailureOr<LoopOp> loop = buildLoop(n, batch, Value(), {}, fill, onnxTypes);
  if (failed(loop))
    return failure();
  setOutputs(n, loop->getResults(), onnxTypes);
  return success();
}

} // namespace

void onnx_import::registerControlFlowOps(OpRegistry &r) {
  // Later versions admit sequences and optionals in the subgraphs, which
  // the importer rejects where they appear; tensors work the same.
  r.add("If", 1, importIf);
  r.add("Loop", 1, importLoop);
  r.add("Scan", 8, importScan8, 8);
  r.add("Scan", 9, importScan);
}
