//===- PlanOps.cpp - Plan dialect ops: verifiers, folders -----------------===//
//
// The folders make the plan's shape arithmetic static wherever it can be:
// `plan.dim` resolves to the extent that defined it, views of views
// collapse, and checks whose operands are known disappear.
//
//===----------------------------------------------------------------------===//

#include "dialects/Plan/PlanDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tessel::plan;

#define GET_OP_CLASSES
#include "dialects/Plan/PlanOps.cpp.inc"

/// The number of dynamic dims of `types`, all ranked tensors.
static int64_t dynamicDimCount(TypeRange types) {
  int64_t n = 0;
  for (Type t : types)
    n += cast<RankedTensorType>(t).getNumDynamicDims();
  return n;
}

/// The extent of dynamic dim `d` of `result`, one of `results`, whose
/// dynamic dims are `dims` in order.
static OpFoldResult dimOf(ResultRange results, ValueRange dims, Value result,
                          int64_t d) {
  unsigned next = 0;
  for (Value r : results) {
    auto type = cast<RankedTensorType>(r.getType());
    if (r == result)
      return dims[next + type.getDynamicDimIndex(d)];
    next += type.getNumDynamicDims();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// DimOp
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  auto type = cast<RankedTensorType>(getSource().getType());
  int64_t index = getIndex();
  if (index < 0 || index >= type.getRank())
    return emitOpError("dim ") << getIndex() << " of a rank-"
                               << type.getRank() << " tensor";
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  auto type = cast<RankedTensorType>(getSource().getType());
  int64_t d = getIndex();
  if (!type.isDynamicDim(d))
    return IntegerAttr::get(IndexType::get(getContext()), type.getDimSize(d));
  Operation *def = getSource().getDefiningOp();
  if (auto dispatch = dyn_cast_or_null<DispatchOp>(def))
    return dimOf(dispatch.getResults(), dispatch.getResultDims(), getSource(),
                 d);
  if (auto view = dyn_cast_or_null<ViewOp>(def))
    return view.getDims()[type.getDynamicDimIndex(d)];
  if (auto op = dyn_cast_or_null<IfOp>(def))
    return dimOf(op.getResults(), op.getResultDims(), getSource(), d);
  if (auto op = dyn_cast_or_null<LoopOp>(def))
    return dimOf(op.getResults(), op.getResultDims(), getSource(), d);
  return {};
}

//===----------------------------------------------------------------------===//
// WeightOp
//===----------------------------------------------------------------------===//

LogicalResult WeightOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError("value of type ")
           << getValue().getType() << " for a result of type " << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// DispatchOp
//===----------------------------------------------------------------------===//

LogicalResult DispatchOp::verify() {
  int64_t expected = dynamicDimCount(getResults().getTypes());
  if (static_cast<int64_t>(getResultDims().size()) != expected)
    return emitOpError("has ")
           << getResultDims().size() << " result dims for " << expected
           << " dynamic dims of its results";
  if (getResults().empty())
    return emitOpError("defines no tensor");
  if (std::optional<ArrayRef<int64_t>> tied = getTied()) {
    if (tied->size() != getNumResults())
      return emitOpError("ties ") << tied->size() << " results of "
                                  << getNumResults();
    for (auto [i, arg] : llvm::enumerate(*tied)) {
      if (arg == -1)
        continue;
      if (arg < 0 || arg >= static_cast<int64_t>(getArgs().size()))
        return emitOpError("ties result ") << i << " to no argument";
      if (getArgs()[arg].getType() != getResult(i).getType())
        return emitOpError("ties result ")
               << i << " to argument " << arg << " of another type";
      if (llvm::count(*tied, arg) > 1)
        return emitOpError("ties argument ") << arg << " to two results";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ViewOp
//===----------------------------------------------------------------------===//

LogicalResult ViewOp::verify() {
  auto from = cast<RankedTensorType>(getSource().getType());
  auto to = cast<RankedTensorType>(getType());
  if (from.getElementType() != to.getElementType())
    return emitOpError("changes the element type from ")
           << from.getElementType() << " to " << to.getElementType();
  if (getDims().size() != to.getNumDynamicDims())
    return emitOpError("has ") << getDims().size() << " dims for "
                               << to.getNumDynamicDims() << " dynamic dims";
  if (from.hasStaticShape() && to.hasStaticShape() &&
      from.getNumElements() != to.getNumElements())
    return emitOpError("views ") << from.getNumElements() << " elements as "
                                 << to.getNumElements();
  return success();
}

OpFoldResult ViewOp::fold(FoldAdaptor) {
  // A view of a view is a view of the first source.
  if (auto inner = getSource().getDefiningOp<ViewOp>()) {
    getSourceMutable().assign(inner.getSource());
    return getResult();
  }
  // A view to the type and dims of its source is the source.
  if (getSource().getType() != getType())
    return {};
  auto type = cast<RankedTensorType>(getType());
  for (int64_t d = 0, k = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    auto dim = getDims()[k++].getDefiningOp<DimOp>();
    if (!dim || dim.getSource() != getSource() ||
        static_cast<int64_t>(dim.getIndex()) != d)
      return {};
  }
  return getSource();
}

//===----------------------------------------------------------------------===//
// InputValuesOp
//===----------------------------------------------------------------------===//

LogicalResult InputValuesOp::verify() {
  auto type = cast<RankedTensorType>(getInput().getType());
  if (type.getRank() > 1)
    return emitOpError("reads a rank-") << type.getRank() << " tensor";
  if (static_cast<int64_t>(getValues().size()) != type.getNumElements())
    return emitOpError("has ") << getValues().size() << " results for "
                               << type.getNumElements() << " elements";
  if (!isa<BlockArgument>(getInput()))
    return emitOpError("reads a tensor that is not a model input");
  return success();
}

//===----------------------------------------------------------------------===//
// TensorValuesOp
//===----------------------------------------------------------------------===//

LogicalResult TensorValuesOp::verify() {
  auto type = cast<RankedTensorType>(getTensor().getType());
  if (static_cast<int64_t>(getValues().size()) != type.getNumElements())
    return emitOpError("has ") << getValues().size() << " results for "
                               << type.getNumElements() << " elements";
  return success();
}

//===----------------------------------------------------------------------===//
// HostValuesOp
//===----------------------------------------------------------------------===//

LogicalResult HostValuesOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (static_cast<int64_t>(getValues().size()) != type.getNumElements())
    return emitOpError("has ") << getValues().size() << " values for "
                               << type.getNumElements() << " elements";
  return success();
}

//===----------------------------------------------------------------------===//
// ReshapeDimsOp
//===----------------------------------------------------------------------===//

void ReshapeDimsOp::build(OpBuilder &builder, OperationState &state,
                          ValueRange source, ValueRange values,
                          bool allowzero) {
  SmallVector<Type> types(values.size(), builder.getIndexType());
  build(builder, state, types, source, values, allowzero);
}

LogicalResult ReshapeDimsOp::verify() {
  if (getDims().size() != getValues().size())
    return emitOpError("has ") << getDims().size() << " results for "
                               << getValues().size() << " values";
  return success();
}

std::optional<SmallVector<int64_t>> ReshapeDimsOp::constantDims() {
  auto constants = [](ValueRange values) {
    std::optional<SmallVector<int64_t>> out(SmallVector<int64_t>{});
    for (Value v : values) {
      APInt c;
      if (!matchPattern(v, m_ConstantInt(&c)))
        return std::optional<SmallVector<int64_t>>();
      out->push_back(c.getSExtValue());
    }
    return out;
  };
  auto source = constants(getSource());
  auto values = constants(getValues());
  if (!source || !values)
    return std::nullopt;
  int64_t count = 1;
  for (int64_t d : *source)
    count *= d;
  SmallVector<int64_t> dims = *values;
  int64_t known = 1, inferred = -1;
  bool zero = false;
  for (auto [i, v] : llvm::enumerate(*values)) {
    if (v == 0 && !getAllowzero()) {
      if (i >= source->size())
        return std::nullopt;
      dims[i] = (*source)[i];
    } else if (v == -1) {
      if (inferred >= 0)
        return std::nullopt;
      inferred = i;
      continue;
    } else if (v < 0) {
      return std::nullopt;
    }
    zero |= dims[i] == 0;
    known *= dims[i];
  }
  if (inferred >= 0) {
    if (zero || known == 0 || count % known != 0)
      return std::nullopt;
    dims[inferred] = count / known;
  } else if (known != count) {
    return std::nullopt;
  }
  return dims;
}

namespace {
/// Replaces a reshape_dims whose operands are all constants (and valid) by
/// the constants it computes.
struct FoldConstantReshapeDims : OpRewritePattern<ReshapeDimsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeDimsOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> dims = op.constantDims();
    if (!dims)
      return rewriter.notifyMatchFailure(op, "operands not constant or invalid");
    SmallVector<Value> values;
    for (int64_t d : *dims)
      values.push_back(
          arith::ConstantIndexOp::create(rewriter, op.getLoc(), d));
    rewriter.replaceOp(op, values);
    return success();
  }
};

/// Replaces the uses of each result whose target value is a positive
/// constant by that constant (the op stays for its checks).
struct ForwardConstantReshapeDims : OpRewritePattern<ReshapeDimsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeDimsOp op,
                                PatternRewriter &rewriter) const override {
    bool changed = false;
    for (auto [value, dim] : llvm::zip(op.getValues(), op.getDims())) {
      APInt c;
      if (dim.use_empty() || !matchPattern(value, m_ConstantInt(&c)) ||
          !c.isStrictlyPositive())
        continue;
      rewriter.replaceAllUsesWith(dim, value);
      changed = true;
    }
    return success(changed);
  }
};

/// Erases an assert_eq whose operands are the same value or equal constants.
struct EraseTrivialAssertEq : OpRewritePattern<AssertEqOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AssertEqOp op,
                                PatternRewriter &rewriter) const override {
    APInt a, b;
    if (op.getLhs() != op.getRhs() &&
        !(matchPattern(op.getLhs(), m_ConstantInt(&a)) &&
          matchPattern(op.getRhs(), m_ConstantInt(&b)) && a == b))
      return rewriter.notifyMatchFailure(op, "not known to hold");
    rewriter.eraseOp(op);
    return success();
  }
};
/// A reshape_dims that repeats an earlier one in its block (same source,
/// same values, same allowzero: the same dims and the same checks) is that
/// one. It is not pure, so CSE leaves it; its results are.
struct MergeRepeatedReshapeDims : OpRewritePattern<ReshapeDimsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeDimsOp op,
                                PatternRewriter &rewriter) const override {
    for (Operation *prev = op->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      auto earlier = dyn_cast<ReshapeDimsOp>(prev);
      if (earlier && earlier.getSource() == op.getSource() &&
          earlier.getValues() == op.getValues() &&
          earlier.getAllowzero() == op.getAllowzero()) {
        rewriter.replaceOp(op, earlier.getDims());
        return success();
      }
    }
    return rewriter.notifyMatchFailure(op, "no earlier equal reshape_dims");
  }
};

/// host_values of constants -> weight.
struct HostValuesToWeight : OpRewritePattern<HostValuesOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(HostValuesOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<int64_t> constants;
    for (Value v : op.getValues()) {
      APInt c;
      if (!matchPattern(v, m_ConstantInt(&c)))
        return rewriter.notifyMatchFailure(op, "a value is computed");
      constants.push_back(c.getSExtValue());
    }
    auto type = cast<RankedTensorType>(op.getType());
    rewriter.replaceOpWithNewOp<WeightOp>(
        op, type, DenseElementsAttr::get(type, ArrayRef<int64_t>(constants)));
    return success();
  }
};
} // namespace

void HostValuesOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<HostValuesToWeight>(context);
}

void ReshapeDimsOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                MLIRContext *context) {
  patterns.add<FoldConstantReshapeDims, ForwardConstantReshapeDims,
               MergeRepeatedReshapeDims>(context);
}

void AssertEqOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                             MLIRContext *context) {
  patterns.add<EraseTrivialAssertEq>(context);
}

//===----------------------------------------------------------------------===//
// IfOp, LoopOp
//===----------------------------------------------------------------------===//

/// Checks that `dims` holds one index per dynamic dim of `results`.
static LogicalResult verifyResultDims(Operation *op, ValueRange results,
                                      ValueRange dims) {
  int64_t expected = dynamicDimCount(results.getTypes());
  if (static_cast<int64_t>(dims.size()) != expected)
    return op->emitOpError("has ") << dims.size() << " result dims for "
                                   << expected << " dynamic dims of its results";
  return success();
}

/// Checks that the terminator of `region` yields `count` tensors whose
/// element types and ranks match `types` from index `first` on.
static LogicalResult verifyYield(Operation *op, Region &region,
                                 TypeRange types, StringRef what) {
  auto yield = cast<YieldOp>(region.front().getTerminator());
  if (yield.getValues().size() != types.size())
    return op->emitOpError() << what << " yields " << yield.getValues().size()
                             << " tensors for " << types.size();
  for (auto [i, v, t] : llvm::enumerate(yield.getValues(), types)) {
    auto a = cast<RankedTensorType>(v.getType()), b = cast<RankedTensorType>(t);
    if (a.getElementType() != b.getElementType() || a.getRank() != b.getRank())
      return op->emitOpError() << what << " yields " << a << " for " << b
                               << " (value " << i << ")";
  }
  return success();
}

LogicalResult IfOp::verify() {
  if (failed(verifyResultDims(*this, getResults(), getResultDims())))
    return failure();
  SmallVector<Type> types(getResults().getTypes());
  if (failed(verifyYield(*this, getThenRegion(), types, "the then branch")) ||
      failed(verifyYield(*this, getElseRegion(), types, "the else branch")))
    return failure();
  return success();
}

LogicalResult LoopOp::verify() {
  if (failed(verifyResultDims(*this, getResults(), getResultDims())))
    return failure();
  Block &body = getBody().front();
  unsigned carried = getInits().size();
  if (body.getNumArguments() < 3 + carried)
    return emitOpError("the body has too few arguments");
  int64_t carriedDims = dynamicDimCount(ValueRange(getCarriedArgs()).getTypes());
  if (body.getNumArguments() != 3 + carried + carriedDims ||
      !getIterationIndex().getType().isIndex())
    return emitOpError("the body has ")
           << body.getNumArguments() << " arguments; it needs 2 + " << carried
           << " carried tensors + the iteration index + " << carriedDims
           << " dims";
  if (getResults().size() < carried)
    return emitOpError("has fewer results than carried tensors");
  SmallVector<Type> yielded{body.getArgument(1).getType()};
  for (BlockArgument arg : getCarriedArgs())
    yielded.push_back(arg.getType());
  for (Value scan : getResults().drop_front(carried)) {
    auto t = cast<RankedTensorType>(scan.getType());
    if (t.getRank() == 0)
      return emitOpError("a scan result has rank 0");
    yielded.push_back(
        RankedTensorType::get(t.getShape().drop_front(), t.getElementType()));
  }
  return verifyYield(*this, getBody(), yielded, "the body");
}
