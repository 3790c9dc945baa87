//===- LowerDataMovement.cpp - Transpose, Concat, Reshape, constants -------===//
//
// Ops that move data without arithmetic: linalg.transpose, concatenation as
// insert_slice into the result, reshape as tensor.reshape (in a compiled
// plan a reshape is a buffer view and never reaches a kernel), constants.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

struct LowerTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Value init = emptyResult(rewriter, op); // permuted input dims
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), op.getInput(), init, op.getPerm());
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

struct LowerConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    if (type.isDynamicDim(axis))
      return rewriter.notifyMatchFailure(op, "the concat axis must be static");
    Value result = emptyResult(rewriter, op); // other dims from input 0
    int64_t offset = 0;
    for (Value input : op.getInputs()) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, input);
      offsets[axis] = rewriter.getIndexAttr(offset);
      offset += cast<RankedTensorType>(input.getType()).getDimSize(axis);
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerReshape : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    // The plan makes every reshape a view; one whose shape is an operand
    // never reaches a kernel, and its dims are not the input's to compute.
    if (op.getShape())
      return rewriter.notifyMatchFailure(op, "target shape is an operand");
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    if (type.getNumDynamicDims() > 1)
      return rewriter.notifyMatchFailure(op, "more than one dynamic dim");
    // The one dynamic extent is numel(input) / prod(static result dims).
    SmallVector<Value> extents;
    Value dynamic;
    if (type.getNumDynamicDims() == 1) {
      Value numel = arith::ConstantIndexOp::create(rewriter, loc, 1);
      for (int64_t i = 0; i < inType.getRank(); ++i)
        numel = arith::MulIOp::create(
            rewriter, loc, numel,
            tensor::DimOp::create(rewriter, loc, op.getInput(), i));
      int64_t known = 1;
      for (int64_t d : type.getShape())
        if (!ShapedType::isDynamic(d))
          known *= d;
      dynamic = arith::DivUIOp::create(
          rewriter, loc, numel,
          arith::ConstantIndexOp::create(rewriter, loc, known));
    }
    for (int64_t d : type.getShape())
      extents.push_back(
          ShapedType::isDynamic(d)
              ? dynamic
              : arith::ConstantIndexOp::create(rewriter, loc, d).getResult());
    Value shape = tensor::FromElementsOp::create(rewriter, loc, extents);
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, type, op.getInput(),
                                                   shape);
    return success();
  }
};

struct LowerConstant : OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getType(),
                                                   op.getValue());
    return success();
  }
};

struct LowerIdentity : OpRewritePattern<IdentityOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IdentityOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};

} // namespace

void tessel::populateDataMovementToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerTranspose, LowerConcat, LowerReshape, LowerConstant,
               LowerIdentity>(patterns.getContext());
}
