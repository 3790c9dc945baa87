//===- DimSources.cpp - Where a dynamic result dim comes from --------------===//
//
// A dynamic dim of a graph op's result mostly equals some operand's dim
// (the batch flows through): this file says which, per op. The compiler
// uses it to name every dynamic dim of the plan with a model symbol. The
// exception is a reshape whose target shape is an operand: its dims come
// from that operand's values at run time.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/TesselDialect.h"

using namespace mlir;
using namespace tessel;

using Source = std::optional<std::pair<unsigned, int64_t>>;

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// numpy broadcasting: the first operand whose aligned dim is dynamic.
static Source broadcastSource(Operation *op, int64_t rank, int64_t dim,
                              unsigned numOperands) {
  for (unsigned i = 0; i < numOperands; ++i) {
    RankedTensorType t = typeOf(op->getOperand(i));
    int64_t j = dim - (rank - t.getRank());
    if (j >= 0 && t.isDynamicDim(j))
      return std::pair{i, j};
  }
  return std::nullopt;
}

Source tessel::dynamicDimSource(Operation *op, unsigned resultIndex,
                                int64_t d) {
  // Every op with several results gives them all the same shape.
  auto result = cast<RankedTensorType>(op->getResult(resultIndex).getType());
  int64_t rank = result.getRank();
  if (isa<AddOp, SubOp, MulOp, DivOp>(op))
    return broadcastSource(op, rank, d, 2);
  if (isa<ReluOp, SigmoidOp, TanhOp, SoftmaxOp, BatchNormOp, IdentityOp>(op))
    return std::pair{0u, d};
  if (isa<BatchNormTrainingOp>(op)) // y has the input's shape; the rest [C]
    return resultIndex == 0 ? std::pair{0u, d} : std::pair{0u, int64_t(1)};
  if (isa<ConvOp, MaxPoolOp, MaxPoolWithIndicesOp, AveragePoolOp,
          GlobalAveragePoolOp>(op)) {
    if (d == 0 || (d == 1 && !isa<ConvOp>(op)))
      return std::pair{0u, d};
    return std::nullopt;
  }
  if (auto t = dyn_cast<TransposeOp>(op))
    return std::pair{0u, t.getPerm()[d]};
  if (auto c = dyn_cast<ConcatOp>(op))
    return d == c.getAxis() ? Source() : Source(std::pair{0u, d});
  if (auto g = dyn_cast<GemmOp>(op))
    return d == 0 ? std::pair{0u, int64_t(g.getTransA() ? 1 : 0)}
                  : std::pair{1u, int64_t(g.getTransB() ? 0 : 1)};
  if (auto m = dyn_cast<MatMulOp>(op)) {
    RankedTensorType a = typeOf(m.getLhs()), b = typeOf(m.getRhs());
    bool vecA = a.getRank() == 1, vecB = b.getRank() == 1;
    int64_t batch = rank - (vecA ? 0 : 1) - (vecB ? 0 : 1);
    if (d < batch) {
      for (auto [i, t] : llvm::enumerate(SmallVector<RankedTensorType>{a, b})) {
        int64_t j = d - (batch - (t.getRank() - 2));
        if (t.getRank() > 2 && j >= 0 && t.isDynamicDim(j))
          return std::pair{unsigned(i), j};
      }
      return std::nullopt;
    }
    if (!vecA && d == batch)
      return std::pair{0u, a.getRank() - 2};
    return std::pair{1u, b.getRank() - 1};
  }
  if (auto r = dyn_cast<ReshapeOp>(op)) {
    // Extents taken from a shape operand's values at run time: no operand
    // dim (the compiler binds them from that input; see Partition.cpp).
    if (r.getShape())
      return std::nullopt;
    // One dynamic dim on each side, with equal static remainders: the same
    // extent moved to another position.
    RankedTensorType in = typeOf(r.getInput());
    if (in.getNumDynamicDims() != 1 || result.getNumDynamicDims() != 1)
      return std::nullopt;
    auto staticProduct = [](RankedTensorType t) {
      int64_t p = 1;
      for (int64_t x : t.getShape())
        if (!ShapedType::isDynamic(x))
          p *= x;
      return p;
    };
    if (staticProduct(in) != staticProduct(result))
      return std::nullopt;
    for (int64_t i = 0; i < in.getRank(); ++i)
      if (in.isDynamicDim(i))
        return std::pair{0u, i};
  }
  return std::nullopt;
}
