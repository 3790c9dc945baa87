//===- GraphToLinalg.cpp - The graph-to-linalg pass and its builders ------===//
//
// Runs the per-family lowering patterns as a partial conversion: every op of
// the graph dialect must lower, and one that cannot is reported at its
// location, which names the ONNX node.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"
#include "codegen/common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tessel {
#define GEN_PASS_DEF_CONVERTGRAPHTOLINALGPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

Value lowering::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                            ArrayRef<DimSource> sources) {
  SmallVector<Value> dynamic;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dynamic.push_back(
          tensor::DimOp::create(b, loc, sources[i].value, sources[i].dim));
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynamic);
}

Value lowering::emptyLike(OpBuilder &b, Location loc, RankedTensorType type,
                          Value like) {
  SmallVector<DimSource> sources;
  for (int64_t i = 0; i < type.getRank(); ++i)
    sources.push_back({like, i});
  return emptyTensor(b, loc, type, sources);
}

Value lowering::scalar(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value lowering::fill(OpBuilder &b, Location loc, Value tensor, double value) {
  Type element = cast<RankedTensorType>(tensor.getType()).getElementType();
  return linalg::FillOp::create(b, loc, scalar(b, loc, element, value), tensor)
      .getResult(0);
}

SmallVector<utils::IteratorType> lowering::iterators(int64_t parallel,
                                                     int64_t reduction) {
  SmallVector<utils::IteratorType> its(parallel, utils::IteratorType::parallel);
  its.append(reduction, utils::IteratorType::reduction);
  return its;
}

void lowering::yield(OpBuilder &b, Location loc, Value value) {
  linalg::YieldOp::create(b, loc, value);
}

Value lowering::generic(
    OpBuilder &b, Location loc, ValueRange inputs, Value init,
    ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iters,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  auto op = linalg::GenericOp::create(b, loc, init.getType(), inputs, init,
                                      maps, iters, body);
  return op.getResult(0);
}

AffineMap lowering::broadcastMap(MLIRContext *ctx, int64_t resultRank,
                                 RankedTensorType operand,
                                 RankedTensorType result) {
  SmallVector<AffineExpr> exprs;
  int64_t offset = resultRank - operand.getRank();
  for (int64_t i = 0; i < operand.getRank(); ++i) {
    int64_t d = operand.getDimSize(i), r = result.getDimSize(i + offset);
    if (d == 1 && r != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(i + offset, ctx));
  }
  return AffineMap::get(resultRank, 0, exprs, ctx);
}

LogicalResult lowering::checkResultExtents(Operation *op,
                                          PatternRewriter &rewriter) {
  if (!isa<ShapeContract>(op))
    return rewriter.notifyMatchFailure(op, "no shape contract");
  // A reshape to a target given at run time has extents from the target's
  // values, not from its operands' dims (the plan makes it a view).
  if (auto reshape = dyn_cast<ReshapeOp>(op); reshape && reshape.getShape())
    return rewriter.notifyMatchFailure(op, "extents come from run-time values");
  return success();
}

std::optional<SmallVector<Value>>
lowering::smallIntegerElements(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!type.hasStaticShape() || !type.getElementType().isInteger(64) ||
      type.getNumElements() > 64)
    return std::nullopt;
  SmallVector<Value> elements;
  SmallVector<int64_t> strides = computeStrides(type.getShape());
  for (int64_t linear = 0; linear < type.getNumElements(); ++linear) {
    SmallVector<Value> indices;
    for (int64_t d = 0; d < type.getRank(); ++d)
      indices.push_back(arith::ConstantIndexOp::create(
          b, loc, (linear / strides[d]) % type.getDimSize(d)));
    Value e = tensor::ExtractOp::create(b, loc, v, indices);
    elements.push_back(
        arith::IndexCastOp::create(b, loc, b.getIndexType(), e).getResult());
  }
  return elements;
}

Value lowering::emptyResult(OpBuilder &b, Operation *op, unsigned result) {
  // The op's shape contract gives the extents from its operands' dims; the
  // plan checks its assumptions before the kernel runs.
  Location loc = op->getLoc();
  SmallVector<SmallVector<Value>> operands;
  SmallVector<std::optional<SmallVector<Value>>> elements;
  for (Value v : op->getOperands()) {
    auto type = cast<RankedTensorType>(v.getType());
    elements.push_back(smallIntegerElements(b, loc, v));
    SmallVector<Value> dims;
    for (int64_t d = 0; d < type.getRank(); ++d)
      dims.push_back(type.isDynamicDim(d)
                         ? tensor::DimOp::create(b, loc, v, d).getResult()
                         : arith::ConstantIndexOp::create(b, loc,
                                                          type.getDimSize(d))
                               .getResult());
    operands.push_back(std::move(dims));
  }
  SmallVector<SmallVector<Value>> results;
  SmallVector<ShapeAssumption> assumptions;
  LogicalResult reified = cast<ShapeContract>(op).reifyShapeContract(
      b, ShapeOperands(operands, elements), results, assumptions);
  // checkResultExtents rejected the ops whose contract fails before any
  // lowering began; one that fails here is a defect, which must not index
  // an empty result list.
  if (failed(reified) || result >= results.size())
    llvm::report_fatal_error(llvm::Twine("internal error: the shape contract "
                                         "of '") +
                             op->getName().getStringRef() +
                             "' failed during lowering");
  auto type = cast<RankedTensorType>(op->getResult(result).getType());
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(results[result][d]);
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dynamic)
      .getResult();
}

Value lowering::padSpatial(OpBuilder &b, Location loc, Value input,
                           ArrayRef<int64_t> pads, Value value) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank(), spatial = pads.size() / 2;
  SmallVector<int64_t> low(rank, 0), high(rank, 0), shape(type.getShape());
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t d = rank - spatial + i;
    low[d] = pads[i];
    high[d] = pads[spatial + i];
    if (!type.isDynamicDim(d))
      shape[d] += low[d] + high[d];
  }
  auto padded = RankedTensorType::get(shape, type.getElementType());
  return tensor::PadOp::create(
      b, loc, padded, input, getAsIndexOpFoldResult(b.getContext(), low),
      getAsIndexOpFoldResult(b.getContext(), high), value);
}

void tessel::populateGraphToLinalgPatterns(RewritePatternSet &patterns) {
  populateElementwiseToLinalgPatterns(patterns);
  populateContractionToLinalgPatterns(patterns);
  populatePoolingToLinalgPatterns(patterns);
  populateDataMovementToLinalgPatterns(patterns);
  populateIndexingToLinalgPatterns(patterns);
  populateNormalizationToLinalgPatterns(patterns);
  populateReductionToLinalgPatterns(patterns);
}

namespace {
struct ConvertGraphToLinalgPass
    : tessel::impl::ConvertGraphToLinalgPassBase<ConvertGraphToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TesselDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           affine::AffineDialect, func::FuncDialect,
                           bufferization::BufferizationDialect>();
    RewritePatternSet patterns(ctx);
    populateGraphToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
