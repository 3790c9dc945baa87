//===- PlanDialect.cpp - Plan dialect registration ------------------------===//
//
// Registers the plan dialect's ops; folded extents materialize as
// `arith.constant` of index type. The dialect's canonicalization folds
// comparisons that an extent's sign decides: a dim is never negative, so
// `dim < 0` (what a Slice bound's "negative counts from the end" asks of a
// bound that is a sequence length) is false, and `max(dim, 0)` is the dim.
//
//===----------------------------------------------------------------------===//

#include "dialects/Plan/PlanDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tessel::plan;

#include "dialects/Plan/PlanDialect.cpp.inc"

void PlanDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Plan/PlanOps.cpp.inc"
      >();
}

Operation *PlanDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  auto integer = dyn_cast<IntegerAttr>(value);
  if (!integer || !type.isIndex())
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, integer);
}

namespace {
/// `cmpi pred, %dim, %c` with %dim an extent (never negative) and a
/// constant %c that decides it: slt/sle against c <= 0 / c < 0 are false,
/// sgt/sge against c < 0 / c <= 0 are true.
struct FoldExtentSign : OpRewritePattern<arith::CmpIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::CmpIOp op,
                                PatternRewriter &rewriter) const override {
    APInt c;
    if (!op.getLhs().getDefiningOp<DimOp>() ||
        !matchPattern(op.getRhs(), m_ConstantInt(&c)))
      return rewriter.notifyMatchFailure(op, "not an extent against a constant");
    int64_t k = c.getSExtValue();
    std::optional<bool> value;
    switch (op.getPredicate()) {
    case arith::CmpIPredicate::slt:
      if (k <= 0)
        value = false;
      break;
    case arith::CmpIPredicate::sle:
      if (k < 0)
        value = false;
      break;
    case arith::CmpIPredicate::sgt:
      if (k < 0)
        value = true;
      break;
    case arith::CmpIPredicate::sge:
      if (k <= 0)
        value = true;
      break;
    default:
      break;
    }
    if (!value)
      return rewriter.notifyMatchFailure(op, "the sign does not decide it");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op,
                                                   rewriter.getBoolAttr(*value));
    return success();
  }
};
/// `maxsi %dim, %c` with c <= 0 is %dim (a clamp at 0 of an extent).
struct FoldExtentClamp : OpRewritePattern<arith::MaxSIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::MaxSIOp op,
                                PatternRewriter &rewriter) const override {
    for (auto [dim, other] : {std::pair(op.getLhs(), op.getRhs()),
                              std::pair(op.getRhs(), op.getLhs())}) {
      APInt c;
      if (dim.getDefiningOp<DimOp>() &&
          matchPattern(other, m_ConstantInt(&c)) && !c.isStrictlyPositive()) {
        rewriter.replaceOp(op, dim);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(op, "not an extent clamped at <= 0");
  }
};
} // namespace

void PlanDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<FoldExtentSign, FoldExtentClamp>(getContext());
}
