//===- ShapeContract.cpp - The shape contract of every graph op -----------===//
//
// For each op: its result extents as index arithmetic on its operands'
// extents, and what its kernel assumes of them. Static result dims are
// taken from the result type (the verifiers inferred them); the arithmetic
// is built with createOrFold, so what is static folds on the spot.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/ShapeBuilder.h"
#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

using namespace mlir;
using namespace tessel;
using namespace tessel::contract;

#include "dialects/Graph/ShapeContract.cpp.inc"

namespace {

bool isStaticOne(RankedTensorType t, int64_t d) {
  return !t.isDynamicDim(d) && t.getDimSize(d) == 1;
}

/// "dim 1 of input 0 and dim 0 of input 1 must be equal".
std::string equalDims(unsigned a, int64_t da, unsigned b, int64_t db) {
  return "dim " + std::to_string(da) + " of input " + std::to_string(a) +
         " and dim " + std::to_string(db) + " of input " + std::to_string(b) +
         " must be equal";
}

/// numpy broadcasting of operands `which` into a result of type `result`:
/// each result dim is the first aligned operand dim that is not a static 1,
/// and every other such dim must equal it.
Dims broadcast(ShapeBuilder &s, Operation *op, ArrayRef<unsigned> which,
               const ShapeOperands &operands, RankedTensorType result,
               SmallVectorImpl<ShapeAssumption> &assumptions) {
  int64_t rank = result.getRank();
  Dims dims(rank);
  for (int64_t i = 0; i < rank; ++i) {
    std::optional<std::pair<unsigned, int64_t>> first;
    for (unsigned k : which) {
      RankedTensorType t = typeOf(op->getOperand(k));
      int64_t j = i - (rank - t.getRank());
      if (j < 0 || isStaticOne(t, j))
        continue;
      if (!first) {
        first = {k, j};
        dims[i] = operands[k][j];
      } else {
        assumptions.push_back({operands[first->first][first->second],
                               operands[k][j],
                               equalDims(first->first, first->second, k, j)});
      }
    }
    if (!dims[i])
      dims[i] = s.constant(1);
  }
  useStaticDims(s, result, dims);
  return dims;
}

/// The extent of a sliding window's output dim (Conv, pooling) with ONNX
/// semantics, as windowOutputSize computes it for static extents; the
/// window must fit the padded input.
Value windowOutput(ShapeBuilder &s, Value in, Value kernel, int64_t stride,
                   int64_t padBegin, int64_t padEnd, int64_t dilation,
                   bool ceil, SmallVectorImpl<ShapeAssumption> &assumptions) {
  Value span = s.add(s.mul(s.sub(kernel, s.constant(1)), s.constant(dilation)),
                     s.constant(1));
  Value room = s.sub(s.add(in, s.constant(padBegin + padEnd)), span);
  assumptions.push_back({s.max(room, s.constant(0)), room,
                         "the window must fit the padded input"});
  Value strideV = s.constant(stride);
  if (!ceil)
    return s.add(s.floorDiv(room, strideV), s.constant(1));
  // With ceil_mode, a last window must start inside the input or the begin
  // pads: at most ceil((in + padBegin) / stride) windows.
  Value out = s.add(s.ceilDiv(room, strideV), s.constant(1));
  return s.min(out, s.ceilDiv(s.add(in, s.constant(padBegin)), strideV));
}

/// The shape of a sliding-window op: [N, channels, spatial...].
Dims windowed(ShapeBuilder &s, RankedTensorType result, const Dims &input,
              Value channels, ArrayRef<Value> kernel, ArrayRef<int64_t> strides,
              ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations, bool ceil,
              SmallVectorImpl<ShapeAssumption> &assumptions) {
  int64_t spatial = kernel.size();
  Dims dims = {input[0], channels};
  for (int64_t i = 0; i < spatial; ++i) {
    if (!result.isDynamicDim(2 + i)) {
      dims.push_back(s.constant(result.getDimSize(2 + i)));
      continue;
    }
    dims.push_back(windowOutput(s, input[2 + i], kernel[i], strides[i],
                                pads[i], pads[spatial + i], dilations[i], ceil,
                                assumptions));
  }
  useStaticDims(s, result, dims);
  return dims;
}

template <typename PoolOp>
LogicalResult poolContract(PoolOp op, OpBuilder &b, const ShapeOperands &operands,
                           SmallVectorImpl<Dims> &results,
                           SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, op.getLoc());
  SmallVector<Value> kernel;
  for (int64_t k : op.getKernelShape())
    kernel.push_back(s.constant(k));
  Dims dims = windowed(s, typeOf(op->getResult(0)), operands[0],
                       operands[0][1], kernel, op.getStrides(), op.getPads(),
                       op.getDilations(), op.getCeilMode(), assumptions);
  for (unsigned r = 0; r < op->getNumResults(); ++r)
    results.push_back(dims);
  return success();
}

/// Every result has the shape of operand 0.
LogicalResult sameAsInput(Operation *op, OpBuilder &b, const ShapeOperands &operands,
                          SmallVectorImpl<Dims> &results) {
  ShapeBuilder s(b, op->getLoc());
  Dims dims = operands[0];
  useStaticDims(s, typeOf(op->getResult(0)), dims);
  for (unsigned r = 0; r < op->getNumResults(); ++r)
    results.push_back(dims);
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Constants, elementwise
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &,
                                             SmallVectorImpl<Dims> &results,
                                             SmallVectorImpl<ShapeAssumption> &) {
  ShapeBuilder s(b, getLoc());
  Dims dims;
  for (int64_t d : getType().getShape())
    dims.push_back(s.constant(d));
  results.push_back(dims);
  return success();
}

#define SAME_AS_INPUT(Op)                                                      \
  LogicalResult Op::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,  \
                                       SmallVectorImpl<Dims> &results,         \
                                       SmallVectorImpl<ShapeAssumption> &) {   \
    return sameAsInput(*this, b, operands, results);                           \
  }
SAME_AS_INPUT(IdentityOp)
SAME_AS_INPUT(SoftmaxOp)
SAME_AS_INPUT(TriluOp)
#undef SAME_AS_INPUT

LogicalResult tessel::broadcastShapeContract(
    Operation *op, OpBuilder &b, const ShapeOperands &operands,
    SmallVectorImpl<Dims> &results,
    SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, op->getLoc());
  SmallVector<unsigned> all(op->getNumOperands());
  std::iota(all.begin(), all.end(), 0u);
  results.push_back(broadcast(s, op, all, operands,
                              typeOf(op->getResult(0)), assumptions));
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult
MatMulOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,
                             SmallVectorImpl<Dims> &results,
                             SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  RankedTensorType a = typeOf(getLhs()), bt = typeOf(getRhs());
  const Dims &da = operands[0], &db = operands[1];
  int64_t ra = a.getRank(), rb = bt.getRank();
  // The contraction: A's last dim with B's second-to-last (a vector B's only
  // dim).
  int64_t kb = rb == 1 ? 0 : rb - 2;
  assumptions.push_back({da[ra - 1], db[kb], equalDims(0, ra - 1, 1, kb)});
  // The batch dims broadcast (numpy), then M (unless A is a vector) and N
  // (unless B is one).
  int64_t batchA = std::max<int64_t>(ra - 2, 0);
  int64_t batchB = std::max<int64_t>(rb - 2, 0);
  int64_t batch = std::max(batchA, batchB);
  Dims dims;
  for (int64_t i = 0; i < batch; ++i) {
    Value first;
    std::pair<unsigned, int64_t> firstAt;
    for (auto [k, t, n] : {std::tuple{0u, a, batchA}, std::tuple{1u, bt, batchB}}) {
      int64_t j = i - (batch - n);
      if (j < 0 || isStaticOne(t, j))
        continue;
      if (!first) {
        first = operands[k][j];
        firstAt = {k, j};
      } else {
        assumptions.push_back({first, operands[k][j],
                               equalDims(firstAt.first, firstAt.second, k, j)});
      }
    }
    dims.push_back(first ? first : s.constant(1));
  }
  if (ra > 1)
    dims.push_back(da[ra - 2]);
  if (rb > 1)
    dims.push_back(db[rb - 1]);
  addResult(s, getResult(), std::move(dims), results);
  return success();
}

LogicalResult
GemmOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,
                           SmallVectorImpl<Dims> &results,
                           SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  int64_t ka = getTransA() ? 0 : 1, kb = getTransB() ? 1 : 0;
  int64_t ma = 1 - ka, nb = 1 - kb;
  assumptions.push_back(
      {operands[0][ka], operands[1][kb], equalDims(0, ka, 1, kb)});
  // C broadcasts (unidirectionally) to the [M, N] result.
  if (getC()) {
    RankedTensorType c = typeOf(getC());
    for (int64_t j = 0; j < c.getRank(); ++j) {
      if (isStaticOne(c, j))
        continue;
      bool isN = j == c.getRank() - 1;
      assumptions.push_back({isN ? operands[1][nb] : operands[0][ma],
                             operands[2][j],
                             isN ? equalDims(1, nb, 2, j)
                                 : equalDims(0, ma, 2, j)});
    }
  }
  Dims dims = {operands[0][ma], operands[1][nb]};
  addResult(s, getResult(), std::move(dims), results);
  return success();
}

LogicalResult
ConvOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,
                           SmallVectorImpl<Dims> &results,
                           SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  const Dims &in = operands[0], &w = operands[1];
  int64_t channels = getChannelDim();
  // With filters_last the count is static (the weight's rows may be
  // padded); else the weight's dim 0.
  Value filters =
      getFiltersLast() ? s.constant(getFilterCount()) : w[getFilterDim()];
  // X's channels are W's channels per group times the group count.
  assumptions.push_back({in[1], s.mul(w[channels], s.constant(getGroup())),
                         "dim 1 of input 0 must be dim " +
                             std::to_string(channels) + " of input 1 times " +
                             std::to_string(getGroup()) + " groups"});
  // The bias has one value per filter.
  if (getBias())
    assumptions.push_back({filters, operands[2][0],
                           getFiltersLast()
                               ? "dim 0 of input 2 must be " +
                                     std::to_string(getFilterCount())
                               : equalDims(1, 0, 2, 0)});
  results.push_back(windowed(s, getType(), in, filters,
                             ArrayRef(w).slice(getKernelDim(), w.size() - 2),
                             getStrides(), getPads(), getDilations(),
                             /*ceil=*/false, assumptions));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling, normalization
//===----------------------------------------------------------------------===//

#define POOL(Op)                                                               \
  LogicalResult Op::reifyShapeContract(                                        \
      OpBuilder &b, const ShapeOperands &operands, SmallVectorImpl<Dims> &results,   \
      SmallVectorImpl<ShapeAssumption> &assumptions) {                         \
    return poolContract(*this, b, operands, results, assumptions);             \
  }
POOL(MaxPoolOp)
POOL(MaxPoolWithIndicesOp)
POOL(AveragePoolOp)
#undef POOL

LogicalResult GlobalAveragePoolOp::reifyShapeContract(
    OpBuilder &b, const ShapeOperands &operands, SmallVectorImpl<Dims> &results,
    SmallVectorImpl<ShapeAssumption> &) {
  ShapeBuilder s(b, getLoc());
  Dims dims = {operands[0][0], operands[0][1]};
  for (size_t d = 2; d < operands[0].size(); ++d)
    dims.push_back(s.constant(1));
  addResult(s, getResult(), std::move(dims), results);
  return success();
}

/// scale, bias, mean and variance have one value per channel (X's dim 1).
static void perChannel(const ShapeOperands &operands,
                       SmallVectorImpl<ShapeAssumption> &assumptions) {
  for (unsigned i = 1; i < operands.size(); ++i)
    assumptions.push_back({operands[0][1], operands[i][0],
                           equalDims(0, 1, i, 0)});
}

LogicalResult
BatchNormOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,
                                SmallVectorImpl<Dims> &results,
                                SmallVectorImpl<ShapeAssumption> &assumptions) {
  perChannel(operands, assumptions);
  return sameAsInput(*this, b, operands, results);
}

LogicalResult BatchNormTrainingOp::reifyShapeContract(
    OpBuilder &b, const ShapeOperands &operands, SmallVectorImpl<Dims> &results,
    SmallVectorImpl<ShapeAssumption> &assumptions) {
  perChannel(operands, assumptions);
  ShapeBuilder s(b, getLoc());
  addResult(s, getResult(), operands[0], results);
  // The running statistics: [C].
  for (unsigned r = 1; r < getNumResults(); ++r)
    addResult(s, getOperation()->getResult(r), {operands[0][1]}, results);
  return success();
}

LogicalResult
LayerNormOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,
                                SmallVectorImpl<Dims> &results,
                                SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  const Dims &x = operands[0];
  int64_t rank = x.size(), axis = getAxis();
  // Scale and bias broadcast to the normalized dims, trailing aligned.
  for (unsigned i = 1; i < operands.size(); ++i) {
    RankedTensorType t = typeOf(getOperand(i));
    for (int64_t j = 0; j < t.getRank(); ++j) {
      int64_t d = rank - t.getRank() + j;
      if (!isStaticOne(t, j))
        assumptions.push_back({x[d], operands[i][j], equalDims(0, d, i, j)});
    }
  }
  addResult(s, getResult(), x, results);
  Dims stats(x.begin(), x.begin() + axis);
  for (int64_t d = axis; d < rank; ++d)
    stats.push_back(s.constant(1));
  addResult(s, getMean(), stats, results);
  addResult(s, getInvStdDev(), stats, results);
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// When `out` is `in` with static unit dims inserted or removed and more
/// than one dynamic dim, the dim of `in` each dim of `out` is (-1 for a
/// static one); empty otherwise. With a single dynamic dim the element
/// count determines it anyway.
static SmallVector<int64_t> unitDimsMapping(RankedTensorType in,
                                            RankedTensorType out) {
  auto significant = [](RankedTensorType t) {
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (t.getDimSize(d) != 1)
        dims.push_back(d);
    return dims;
  };
  SmallVector<int64_t> a = significant(in), b = significant(out);
  if (a.size() != b.size() || out.getNumDynamicDims() < 2)
    return {};
  SmallVector<int64_t> from(out.getRank(), -1);
  for (auto [i, j] : llvm::zip(a, b)) {
    if (in.getDimSize(i) != out.getDimSize(j))
      return {};
    if (out.isDynamicDim(j))
      from[j] = i;
  }
  return from;
}

LogicalResult
ReshapeOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,
                              SmallVectorImpl<Dims> &results,
                              SmallVectorImpl<ShapeAssumption> &assumptions) {
  // A target shape given at run time is read by the plan (host shape ops);
  // its values are no function of the operands' extents.
  if (getShape())
    return emitOpError("has a run-time target shape: its extents are read "
                       "from the shape operand's values");
  ShapeBuilder s(b, getLoc());
  RankedTensorType result = getType();
  Dims dims(result.getRank());
  if (SmallVector<int64_t> from = unitDimsMapping(typeOf(getInput()), result);
      !from.empty()) {
    // Unit dims inserted or removed (Unsqueeze, Squeeze): every other dim
    // is the input's dim it corresponds to.
    for (int64_t d = 0; d < result.getRank(); ++d)
      dims[d] = from[d] < 0 ? s.constant(result.getDimSize(d))
                            : operands[0][from[d]];
    results.push_back(dims);
    return success();
  }
  int64_t staticOut = 1;
  std::optional<int64_t> dynamicAt;
  for (int64_t d = 0; d < result.getRank(); ++d) {
    if (!result.isDynamicDim(d)) {
      dims[d] = s.constant(result.getDimSize(d));
      staticOut *= result.getDimSize(d);
    } else if (dynamicAt) {
      return emitOpError("has several dynamic result dims: their extents are "
                         "not determined by the input's");
    } else {
      dynamicAt = d;
    }
  }
  RankedTensorType in = typeOf(getInput());
  int64_t staticIn = 1;
  SmallVector<Value> dynamicIn;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (in.isDynamicDim(d))
      dynamicIn.push_back(operands[0][d]);
    else
      staticIn *= in.getDimSize(d);
  }
  Value dynamicCount = s.product(dynamicIn);
  if (!dynamicAt) {
    // A static result of an input with dynamic dims: the counts must agree.
    if (!dynamicIn.empty())
      assumptions.push_back(
          {s.mul(dynamicCount, s.constant(staticIn)), s.constant(staticOut),
           "the element count of input 0 must be " +
               std::to_string(staticOut)});
    results.push_back(dims);
    return success();
  }
  // The one dynamic dim takes the rest of the element count; the count must
  // divide evenly.
  if (staticOut != 0 && staticIn % staticOut == 0) {
    dims[*dynamicAt] = s.mul(dynamicCount, s.constant(staticIn / staticOut));
  } else {
    Value count = s.mul(dynamicCount, s.constant(staticIn));
    Value extent = s.floorDiv(count, s.constant(std::max<int64_t>(staticOut, 1)));
    assumptions.push_back({s.mul(extent, s.constant(staticOut)), count,
                           "the element count of input 0 must be a multiple "
                           "of " + std::to_string(staticOut)});
    dims[*dynamicAt] = extent;
  }
  results.push_back(dims);
  return success();
}

LogicalResult TransposeOp::reifyShapeContract(
    OpBuilder &b, const ShapeOperands &operands, SmallVectorImpl<Dims> &results,
    SmallVectorImpl<ShapeAssumption> &) {
  ShapeBuilder s(b, getLoc());
  Dims dims;
  for (int64_t p : getPerm())
    dims.push_back(operands[0][p]);
  addResult(s, getResult(), std::move(dims), results);
  return success();
}

LogicalResult
ConcatOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,
                             SmallVectorImpl<Dims> &results,
                             SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  int64_t axis = getAxis();
  Dims dims = operands[0];
  Value sum = s.constant(0);
  for (auto [i, input] : llvm::enumerate(operands)) {
    sum = s.add(sum, input[axis]);
    if (i == 0)
      continue;
    for (int64_t d = 0; d < static_cast<int64_t>(input.size()); ++d)
      if (d != axis)
        assumptions.push_back({operands[0][d], input[d],
                               equalDims(0, d, i, d)});
  }
  dims[axis] = sum;
  addResult(s, getResult(), std::move(dims), results);
  return success();
}

//===----------------------------------------------------------------------===//
// Shapes as values
//===----------------------------------------------------------------------===//

LogicalResult ShapeOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &,
                                          SmallVectorImpl<Dims> &results,
                                          SmallVectorImpl<ShapeAssumption> &) {
  ShapeBuilder s(b, getLoc());
  results.push_back({s.constant(getEnd() - getStart())});
  return success();
}

LogicalResult
GatherOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,
                             SmallVectorImpl<Dims> &results,
                             SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  int64_t axis = getAxis();
  // The kernel clamps indices into the axis, which must have an element.
  Value extent = operands[0][axis];
  assumptions.push_back({s.max(extent, s.constant(1)), extent,
                         "dim " + std::to_string(axis) +
                             " of input 0 (the gathered axis) must not be "
                             "empty"});
  Dims dims(operands[0].begin(), operands[0].begin() + axis);
  llvm::append_range(dims, operands[1]);
  dims.append(operands[0].begin() + axis + 1, operands[0].end());
  addResult(s, getResult(), std::move(dims), results);
  return success();
}

LogicalResult GatherElementsOp::reifyShapeContract(
    OpBuilder &b, const ShapeOperands &operands, SmallVectorImpl<Dims> &results,
    SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  int64_t axis = getAxis();
  const Dims &data = operands[0], &indices = operands[1];
  Value extent = data[axis];
  assumptions.push_back({s.max(extent, s.constant(1)), extent,
                         "dim " + std::to_string(axis) +
                             " of input 0 (the gathered axis) must not be "
                             "empty"});
  for (size_t d = 0; d < data.size(); ++d)
    if (static_cast<int64_t>(d) != axis)
      assumptions.push_back(
          {s.max(indices[d], data[d]), data[d],
           "dim " + std::to_string(d) +
               " of the indices must not exceed the data's"});
  addResult(s, getResult(), Dims(indices), results);
  return success();
}

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

std::pair<Value, Value> tessel::sliceRange(OpBuilder &b, Location loc, Value n,
                                           Value start, Value end,
                                           int64_t step) {
  ShapeBuilder s(b, loc);
  // A negative bound counts from the end: bound + n * (bound < 0), which
  // never overflows where a select of bound + n would (end = INT64_MAX).
  auto fromEnd = [&](Value bound) {
    return s.add(bound, s.mul(n, s.lessThan(bound, s.constant(0))));
  };
  Value first = fromEnd(start), last = fromEnd(end);
  Value zero = s.constant(0);
  if (step > 0) {
    first = s.min(s.max(first, zero), n);
    last = s.min(s.max(last, zero), n);
    Value extent = s.ceilDiv(s.sub(last, first), s.constant(step));
    return {first, s.max(extent, zero)};
  }
  Value top = s.sub(n, s.constant(1));
  first = s.min(s.max(first, zero), top);
  last = s.min(s.max(last, s.constant(-1)), top);
  Value extent = s.ceilDiv(s.sub(first, last), s.constant(-step));
  return {first, s.max(extent, zero)};
}

//===----------------------------------------------------------------------===//
// Split, Size
//===----------------------------------------------------------------------===//

bool SplitOp::isShapeOperand(unsigned index) { return index == 1; }

LogicalResult SplitOp::reifyShapeContract(
    OpBuilder &b, const ShapeOperands &operands, SmallVectorImpl<Dims> &results,
    SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  int64_t axis = getAxis(), parts = getNumResults();
  Value n = operands[0][axis];
  std::optional<ArrayRef<Value>> sizes;
  if (getSizes()) {
    sizes = operands.values(1);
    if (!sizes)
      return emitError() << describeLoc(getLoc())
                         << ": the split sizes must be an int64 tensor of "
                            "static length (at most 64 values)";
  }
  Value chunk = sizes ? Value() : s.ceilDiv(n, s.constant(parts));
  Value total = s.constant(0);
  for (int64_t i = 0; i < parts; ++i) {
    Dims dims = operands[0];
    if (sizes)
      dims[axis] = (*sizes)[i];
    else if (i + 1 < parts)
      dims[axis] = chunk;
    else // what is left, never negative
      dims[axis] = s.max(s.sub(n, s.mul(chunk, s.constant(i))), s.constant(0));
    total = s.add(total, dims[axis]);
    addResult(s, getResult(i), std::move(dims), results);
  }
  // The parts cover the axis exactly.
  assumptions.push_back(
      {total, n, "the split sizes must add up to dim " + std::to_string(axis) +
                     " of the input"});
  return success();
}

LogicalResult SizeOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &,
                                         SmallVectorImpl<Dims> &results,
                                         SmallVectorImpl<ShapeAssumption> &) {
  results.push_back({});
  return success();
}

//===----------------------------------------------------------------------===//
// Expand, ConstantOfShape
//===----------------------------------------------------------------------===//

bool ExpandOp::isShapeOperand(unsigned index) { return index == 1; }

LogicalResult ExpandOp::reifyShapeContract(
    OpBuilder &b, const ShapeOperands &operands, SmallVectorImpl<Dims> &results,
    SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  std::optional<ArrayRef<Value>> values = operands.values(1);
  if (!values)
    return emitError() << describeLoc(getLoc())
                       << ": the target shape must be an int64 tensor of "
                          "static length (at most 64 values)";
  RankedTensorType in = typeOf(getInput());
  int64_t count = values->size(), rank = std::max(in.getRank(), count);
  Dims dims(rank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t j = i - (rank - in.getRank()), k = i - (rank - count);
    if (k < 0) {
      dims[i] = operands[0][j];
      continue;
    }
    Value v = (*values)[k];
    if (j < 0 || isStaticOne(in, j)) {
      dims[i] = v; // the input's 1 broadcasts to the value
      continue;
    }
    // ONNX broadcasting, with the input's dim known only at run time: the
    // result is x == 1 ? v : x, and v must be 1 or the result.
    Value x = operands[0][j];
    std::string what = "value " + std::to_string(k) +
                       " of the shape must be 1 or dim " + std::to_string(j) +
                       " of the input";
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)) && c.isOne()) {
      dims[i] = x;
    } else if (matchPattern(v, m_ConstantInt(&c))) {
      dims[i] = v;
      assumptions.push_back({s.ifOne(x, v, x), v, what});
    } else {
      dims[i] = s.ifOne(x, v, x);
      assumptions.push_back({s.ifOne(v, dims[i], v), dims[i], what});
    }
  }
  addCheckedResult(s, getResult(), std::move(dims), results, assumptions);
  return success();
}

bool RangeOp::isShapeOperand(unsigned) {
  return getType().getElementType().isInteger(64);
}

LogicalResult RangeOp::reifyShapeContract(
    OpBuilder &b, const ShapeOperands &operands, SmallVectorImpl<Dims> &results,
    SmallVectorImpl<ShapeAssumption> &) {
  ShapeBuilder s(b, getLoc());
  RankedTensorType type = getType();
  if (!type.isDynamicDim(0)) {
    results.push_back({s.constant(type.getDimSize(0))});
    return success();
  }
  std::optional<ArrayRef<Value>> start = operands.values(0),
                                 limit = operands.values(1),
                                 delta = operands.values(2);
  if (!type.getElementType().isInteger(64) || !start || !limit || !delta)
    return emitError() << describeLoc(getLoc())
                       << ": the extent of a Range of "
                       << type.getElementType()
                       << " needs its start, limit and delta as int64 "
                          "scalars";
  // max(ceil((limit - start) / delta), 0); a zero delta is a run-time
  // error of the shape program (division by zero).
  Value count = s.ceilDiv(s.sub((*limit)[0], (*start)[0]), (*delta)[0]);
  results.push_back({s.max(count, s.constant(0))});
  return success();
}

bool ConstantOfShapeOp::isShapeOperand(unsigned index) { return index == 0; }

LogicalResult ConstantOfShapeOp::reifyShapeContract(
    OpBuilder &b, const ShapeOperands &operands, SmallVectorImpl<Dims> &results,
    SmallVectorImpl<ShapeAssumption> &assumptions) {
  ShapeBuilder s(b, getLoc());
  std::optional<ArrayRef<Value>> values = operands.values(0);
  if (!values)
    return emitError() << describeLoc(getLoc())
                       << ": the shape must be an int64 tensor of static "
                          "length (at most 64 values)";
  addCheckedResult(s, getResult(), Dims(values->begin(), values->end()),
                   results, assumptions);
  return success();
}

bool SliceOp::isShapeOperand(unsigned index) { return index == 1 || index == 2; }

LogicalResult SliceOp::reifyShapeContract(OpBuilder &b, const ShapeOperands &operands,
                                          SmallVectorImpl<Dims> &results,
                                          SmallVectorImpl<ShapeAssumption> &) {
  ShapeBuilder s(b, getLoc());
  std::optional<ArrayRef<Value>> starts = operands.values(1),
                                 ends = operands.values(2);
  if (!starts || !ends)
    return emitError() << describeLoc(getLoc())
                       << ": the slice bounds must be int64 tensors of "
                          "static length (at most 64 values)";
  Dims dims = operands[0];
  for (auto [i, axis, step] : llvm::enumerate(getAxes(), getSteps()))
    dims[axis] = sliceRange(b, getLoc(), operands[0][axis], (*starts)[i],
                            (*ends)[i], step)
                     .second;
  addResult(s, getResult(), std::move(dims), results);
  return success();
}
