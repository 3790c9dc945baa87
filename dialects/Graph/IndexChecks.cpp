//===- IndexChecks.cpp - count_out_of_range and assert_zero ---------------===//
//
// ONNX makes an index outside [-n, n) an error in Gather, GatherElements,
// GatherND, ScatterElements and ScatterND. Their kernels clamp every index
// into range, because a kernel must never read or write out of bounds; the
// error is these two ops, which the importer adds beside such a node
// (frontend/onnx/IndexRange.cpp): `count_out_of_range` counts the indices
// outside their dims (a kernel like any other, lowered in
// codegen/common/LowerIndexing.cpp), and `assert_zero` makes a nonzero
// count an error naming the node (compiler/Partition.cpp turns it into a
// plan check). Both are defined here: verifier, folder, shape contract and
// canonicalization.
//
//===----------------------------------------------------------------------===//

#include "dialects/Graph/GraphOpUtils.h"
#include "dialects/Graph/TesselDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::graph_detail;

LogicalResult CountOutOfRangeOp::verify() {
  RankedTensorType data = rankedType(getData());
  RankedTensorType indices = rankedType(getIndices());
  int64_t axis = getAxis(), rank = data.getRank();
  if (!getTuples()) {
    if (axis < 0 || axis >= rank)
      return emitOpError("axis ") << axis << " is out of range for rank "
                                  << rank;
    return success();
  }
  int64_t k = indices.getRank() ? indices.getShape().back() : 0;
  if (indices.getRank() == 0 || ShapedType::isDynamic(k) || k < 1)
    return emitOpError("index tuples need a static last dim of at least 1");
  if (axis < 0 || axis + k > rank)
    return emitOpError("tuples of ")
           << k << " indices from dim " << axis
           << " do not fit data of rank " << rank;
  return success();
}

OpFoldResult CountOutOfRangeOp::fold(FoldAdaptor adaptor) {
  std::optional<SmallVector<APInt>> indices = intElements(adaptor.getIndices());
  if (!indices)
    return {};
  ArrayRef<int64_t> shape = rankedType(getData()).getShape();
  int64_t k = getTuples() ? rankedType(getIndices()).getShape().back() : 1;
  int64_t count = 0;
  for (size_t e = 0; e < indices->size(); ++e) {
    int64_t n = shape[getAxis() + static_cast<int64_t>(e) % k];
    if (ShapedType::isDynamic(n))
      return {};
    int64_t i = (*indices)[e].getSExtValue();
    count += i < -n || i >= n;
  }
  return DenseElementsAttr::get(getType(), APInt(64, count));
}

LogicalResult
CountOutOfRangeOp::reifyShapeContract(OpBuilder &, const ShapeOperands &,
                                      SmallVectorImpl<SmallVector<Value>> &results,
                                      SmallVectorImpl<ShapeAssumption> &) {
  results.push_back({}); // a scalar; any indices and extents are valid
  return success();
}

namespace {

/// A check of a count known to be 0 has nothing to check.
struct EraseZeroAssert : OpRewritePattern<AssertZeroOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AssertZeroOp op,
                                PatternRewriter &rewriter) const override {
    DenseIntElementsAttr count;
    if (!matchPattern(op.getCount(), m_Constant(&count)) ||
        !count.getSplatValue<APInt>().isZero())
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void AssertZeroOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<EraseZeroAssert>(context);
}
