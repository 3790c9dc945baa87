//===- DimEqualities.cpp - Operand dims an op requires to be equal --------===//
//
// Per op: which operand dims its kernel assumes equal. Every graph op has a
// case, even when it requires nothing, so a new op without one is refused
// instead of silently going unchecked.
//
//===----------------------------------------------------------------------===//

#include "compiler/DimEqualities.h"

#include "dialects/Graph/TesselDialect.h"

using namespace mlir;
using namespace tessel;

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// numpy broadcasting of `operands` (their trailing dims aligned, each with
/// `batch[i]` leading dims taking part): every two dims at one position that
/// are not a static 1 must be equal.
static void broadcastEqualities(ArrayRef<unsigned> operands,
                                ArrayRef<int64_t> ranks,
                                SmallVectorImpl<DimEquality> &out,
                                ArrayRef<Type> types) {
  int64_t rank = 0;
  for (int64_t r : ranks)
    rank = std::max(rank, r);
  for (int64_t i = 0; i < rank; ++i) {
    std::optional<OperandDim> first;
    for (auto [k, operand] : llvm::enumerate(operands)) {
      int64_t j = i - (rank - ranks[k]);
      if (j < 0)
        continue;
      auto type = cast<RankedTensorType>(types[k]);
      if (!type.isDynamicDim(j) && type.getDimSize(j) == 1)
        continue;
      OperandDim d{operand, j};
      if (first)
        out.push_back({*first, d});
      else
        first = d;
    }
  }
}

LogicalResult
tessel::collectDimEqualities(Operation *op,
                             SmallVectorImpl<DimEquality> &equalities) {
  if (isa<AddOp, SubOp, MulOp, DivOp>(op)) {
    SmallVector<int64_t> ranks;
    SmallVector<Type> types;
    for (Value v : op->getOperands()) {
      ranks.push_back(typeOf(v).getRank());
      types.push_back(v.getType());
    }
    broadcastEqualities({0, 1}, ranks, equalities, types);
    return success();
  }
  if (auto matmul = dyn_cast<MatMulOp>(op)) {
    RankedTensorType a = typeOf(matmul.getLhs()), b = typeOf(matmul.getRhs());
    // The contraction: A's last dim with B's second-to-last (a vector B's
    // only dim).
    equalities.push_back(
        {{0, a.getRank() - 1}, {1, b.getRank() == 1 ? 0 : b.getRank() - 2}});
    // The batch dims broadcast.
    int64_t batchA = std::max<int64_t>(a.getRank() - 2, 0);
    int64_t batchB = std::max<int64_t>(b.getRank() - 2, 0);
    broadcastEqualities({0, 1}, {batchA, batchB}, equalities, {a, b});
    return success();
  }
  if (auto gemm = dyn_cast<GemmOp>(op)) {
    equalities.push_back(
        {{0, gemm.getTransA() ? 0 : 1}, {1, gemm.getTransB() ? 1 : 0}});
    // C broadcasts against the [M, N] result, whose dims are A's M and B's N.
    if (gemm.getC()) {
      RankedTensorType c = typeOf(gemm.getC());
      OperandDim m{0, gemm.getTransA() ? 1 : 0};
      OperandDim n{1, gemm.getTransB() ? 0 : 1};
      for (int64_t j = 0; j < c.getRank(); ++j) {
        if (!c.isDynamicDim(j) && c.getDimSize(j) == 1)
          continue;
        bool isN = j == c.getRank() - 1;
        equalities.push_back({isN ? n : m, {2, j}});
      }
    }
    return success();
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    for (unsigned i = 1; i < op->getNumOperands(); ++i)
      for (int64_t d = 0; d < typeOf(op->getOperand(i)).getRank(); ++d)
        if (d != concat.getAxis())
          equalities.push_back({{0, d}, {i, d}});
    return success();
  }
  if (auto conv = dyn_cast<ConvOp>(op)) {
    // X's channels are W's channels per group times the group count; the
    // bias has one value per filter (W's dim 0).
    RankedTensorType in = typeOf(conv.getInput());
    if (conv.getGroup() == 1)
      equalities.push_back({{0, 1}, {1, 1}});
    else if (in.isDynamicDim(1))
      return op->emitError() << describeLoc(op->getLoc())
                             << ": a grouped Conv needs a static channel dim";
    if (conv.getBias())
      equalities.push_back({{1, 0}, {2, 0}});
    return success();
  }
  if (isa<BatchNormOp, BatchNormTrainingOp>(op)) {
    // scale, bias, mean, var: one value per channel (dim 1 of X).
    for (unsigned i = 1; i < op->getNumOperands(); ++i)
      equalities.push_back({{0, 1}, {i, 0}});
    return success();
  }
  // Ops that assume nothing of their operands' dims beyond their types.
  if (isa<ReluOp, SigmoidOp, TanhOp, SoftmaxOp, IdentityOp, MaxPoolOp,
          MaxPoolWithIndicesOp, AveragePoolOp, GlobalAveragePoolOp,
          TransposeOp>(op))
    return success();
  return op->emitError() << describeLoc(op->getLoc()) << ": op '"
                         << op->getName()
                         << "' does not declare which dims it requires to be "
                            "equal, so it cannot be partitioned";
}
