//===- LowerLogical.cpp - Comparisons, bool logic and Where to linalg -----===//
//
// Each op is one linalg.generic over its result with numpy-broadcast maps
// for its operands: comparisons as arith.cmpf (ordered: NaN compares false)
// or arith.cmpi (signed, or unsigned with is_unsigned), And/Or/Xor/Not as
// i1 arithmetic, Where as arith.select.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GraphToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace tessel;
using namespace tessel::lowering;

namespace {

/// One generic over the result of `op`, each operand read with its numpy
/// broadcast map, computing an element with `fn`.
LogicalResult
lowerBroadcasting(Operation *op, PatternRewriter &rewriter,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
  if (failed(checkResultExtents(op, rewriter)))
    return failure();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineMap> maps;
  for (Value v : op->getOperands())
    maps.push_back(broadcastMap(ctx, type.getRank(),
                                cast<RankedTensorType>(v.getType()), type));
  maps.push_back(AffineMap::getMultiDimIdentityMap(type.getRank(), ctx));
  Value init = emptyResult(rewriter, op);
  Value result = generic(rewriter, op->getLoc(), op->getOperands(), init, maps,
                         iterators(type.getRank()),
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           yield(b, l, fn(b, l, args.drop_back()));
                         });
  rewriter.replaceOp(op, result);
  return success();
}

template <typename Op>
struct LowerCompare : OpRewritePattern<Op> {
  LowerCompare(MLIRContext *ctx, arith::CmpFPredicate f,
               arith::CmpIPredicate s, arith::CmpIPredicate u)
      : OpRewritePattern<Op>(ctx), floatPred(f), signedPred(s),
        unsignedPred(u) {}
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    bool isUnsigned = op.getIsUnsigned();
    return lowerBroadcasting(
        op, rewriter, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          if (isa<FloatType>(a[0].getType()))
            return arith::CmpFOp::create(b, l, floatPred, a[0], a[1]);
          return arith::CmpIOp::create(b, l,
                                       isUnsigned ? unsignedPred : signedPred,
                                       a[0], a[1]);
        });
  }
  arith::CmpFPredicate floatPred;
  arith::CmpIPredicate signedPred, unsignedPred;
};

template <typename Op, typename ArithOp>
struct LowerLogical : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    return lowerBroadcasting(op, rewriter,
                             [](OpBuilder &b, Location l, ValueRange a) {
                               return ArithOp::create(b, l, a[0], a[1]);
                             });
  }
};

struct LowerNot : OpRewritePattern<NotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NotOp op,
                                PatternRewriter &rewriter) const override {
    return lowerBroadcasting(
        op, rewriter, [](OpBuilder &b, Location l, ValueRange a) {
          Value one = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
          return arith::XOrIOp::create(b, l, a[0], one);
        });
  }
};

struct LowerWhere : OpRewritePattern<WhereOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhereOp op,
                                PatternRewriter &rewriter) const override {
    return lowerBroadcasting(op, rewriter,
                             [](OpBuilder &b, Location l, ValueRange a) {
                               return arith::SelectOp::create(b, l, a[0], a[1],
                                                              a[2]);
                             });
  }
};

} // namespace

void tessel::populateLogicalToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  using F = arith::CmpFPredicate;
  using I = arith::CmpIPredicate;
  patterns.add<LowerCompare<EqualOp>>(ctx, F::OEQ, I::eq, I::eq);
  patterns.add<LowerCompare<LessOp>>(ctx, F::OLT, I::slt, I::ult);
  patterns.add<LowerCompare<LessOrEqualOp>>(ctx, F::OLE, I::sle, I::ule);
  patterns.add<LowerCompare<GreaterOp>>(ctx, F::OGT, I::sgt, I::ugt);
  patterns.add<LowerCompare<GreaterOrEqualOp>>(ctx, F::OGE, I::sge, I::uge);
  patterns.add<LowerLogical<AndOp, arith::AndIOp>,
               LowerLogical<OrOp, arith::OrIOp>,
               LowerLogical<XorOp, arith::XOrIOp>, LowerNot, LowerWhere>(ctx);
}
