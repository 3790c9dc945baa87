//===- LowerDataMovement.cpp - Transpose, Concat, Reshape, constants -------===//
//
// Ops that move data without arithmetic: linalg.transpose, concatenation as
// insert_slice into the result, reshape as tensor.reshape (in a compiled
// plan a reshape is a buffer view and never reaches a kernel), Expand as a
// broadcasting copy, constants and ConstantOfShape's fill.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/Matchers.h"

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

/// `a + b` for extents, folded when both are constants.
static OpFoldResult addExtents(OpBuilder &b, Location loc, OpFoldResult a,
                               OpFoldResult c) {
  std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(c);
  if (x && y)
    return b.getIndexAttr(*x + *y);
  return b.createOrFold<arith::AddIOp>(
      loc, getValueOrCreateConstantIndexOp(b, loc, a),
      getValueOrCreateConstantIndexOp(b, loc, c));
}

struct LowerConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    Value result = emptyResult(rewriter, op); // extents from the contract
    // Each part goes at the sum of the extents before it along the axis
    // (index arithmetic where one is dynamic).
    OpFoldResult offset = rewriter.getIndexAttr(0);
    for (Value input : op.getInputs()) {
      // An empty part adds nothing (and its offset may be the axis' end).
      if (cast<RankedTensorType>(input.getType()).getDimSize(axis) == 0)
        continue;
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, input);
      offsets[axis] = offset;
      offset = addExtents(rewriter, loc, offset, sizes[axis]);
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

/// Expand: each result element reads the input at the same index, or at 0
/// along a dim the input broadcasts. A static 1 broadcasts always (an
/// indexing map); a dynamic dim of the input may be 1 at run time, so the
/// body reads it at min(i, n - 1), which is i when it is not.
struct LowerExpand : OpRewritePattern<ExpandOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ExpandOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    RankedTensorType type = op.getType();
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank(), offset = rank - inputType.getRank();
    int64_t count = cast<RankedTensorType>(op.getShape().getType()).getDimSize(0);
    MLIRContext *ctx = rewriter.getContext();
    Location loc = op.getLoc();
    // The input dims that may broadcast at run time: dynamic, against a
    // shape value that is not a constant 1.
    DenseIntElementsAttr values;
    bool constant = matchPattern(op.getShape(), m_Constant(&values));
    SmallVector<bool> mayBroadcast(inputType.getRank(), false);
    for (int64_t j = 0; j < inputType.getRank(); ++j) {
      int64_t k = j + offset - (rank - count);
      mayBroadcast[j] =
          inputType.isDynamicDim(j) && k >= 0 &&
          !(constant && values.getValues<APInt>()[k].isOne());
    }
    Value init = emptyResult(rewriter, op);
    auto identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value result;
    if (llvm::none_of(mayBroadcast, [](bool b) { return b; })) {
      result = generic(rewriter, loc, op.getInput(), init,
                       {broadcastMap(ctx, rank, inputType, type), identity},
                       iterators(rank, 0),
                       [](OpBuilder &b, Location l, ValueRange args) {
                         yield(b, l, args[0]);
                       });
    } else {
      Value input = op.getInput();
      SmallVector<Value> last(inputType.getRank());
      for (int64_t j = 0; j < inputType.getRank(); ++j)
        if (mayBroadcast[j])
          last[j] = arith::SubIOp::create(
              rewriter, loc, tensor::DimOp::create(rewriter, loc, input, j),
              arith::ConstantIndexOp::create(rewriter, loc, 1));
      result = generic(
          rewriter, loc, ValueRange{}, init, {identity}, iterators(rank, 0),
          [&](OpBuilder &b, Location l, ValueRange) {
            SmallVector<Value> coords;
            for (int64_t j = 0; j < inputType.getRank(); ++j) {
              Value i = linalg::IndexOp::create(b, l, j + offset);
              if (!inputType.isDynamicDim(j) && inputType.getDimSize(j) == 1)
                i = arith::ConstantIndexOp::create(b, l, 0);
              else if (mayBroadcast[j])
                i = arith::MinSIOp::create(b, l, i, last[j]);
              coords.push_back(i);
            }
            yield(b, l, tensor::ExtractOp::create(b, l, input, coords));
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Range: element i is start + i * delta, in the element type.
struct LowerRange : OpRewritePattern<RangeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RangeOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    Type element = op.getType().getElementType();
    Value start = tensor::ExtractOp::create(rewriter, loc, op.getStart());
    Value delta = tensor::ExtractOp::create(rewriter, loc, op.getDelta());
    Value init = emptyResult(rewriter, op);
    auto id = AffineMap::getMultiDimIdentityMap(1, rewriter.getContext());
    Value result = generic(
        rewriter, loc, ValueRange{}, init, {id}, iterators(1, 0),
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = linalg::IndexOp::create(b, l, 0);
          Value v;
          if (isa<FloatType>(element)) {
            Value n = arith::IndexCastOp::create(b, l, b.getI64Type(), i);
            n = arith::SIToFPOp::create(b, l, element, n);
            v = arith::AddFOp::create(
                b, l, start, arith::MulFOp::create(b, l, n, delta));
          } else {
            Value n = arith::IndexCastOp::create(b, l, element, i);
            v = arith::AddIOp::create(
                b, l, start, arith::MulIOp::create(b, l, n, delta));
          }
          yield(b, l, v);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerConstantOfShape : OpRewritePattern<ConstantOfShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOfShapeOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkResultExtents(op, rewriter)))
      return failure();
    auto value = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "value is not dense");
    Value init = emptyResult(rewriter, op);
    Value scalar = arith::ConstantOp::create(
        rewriter, op.getLoc(), cast<TypedAttr>(value.getSplatValue<Attribute>()));
    rewriter.replaceOp(
        op, linalg::FillOp::create(rewriter, op.getLoc(), scalar, init)
                .getResult(0));
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
               LowerIdentity, LowerExpand, LowerConstantOfShape, LowerRange>(
      patterns.getContext());
}
