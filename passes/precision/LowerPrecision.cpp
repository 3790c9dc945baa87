//===- LowerPrecision.cpp - Contractions and their epilogues in bf16/f16 --===//
//
// See Passes.td and docs/design.md, "Precision lowering".
//
// Ops are visited in order (outer before nested). A Conv, MatMul or Gemm
// on f32 reads its two multiplicands in the low type and gives its f32
// sums (the accumulator): the products and the weights are low, the bias,
// the epilogue and every other op stay f32, so each value is rounded to
// the low type at most once, where it enters a contraction. With `io`
// the function's f32 arguments are low values (cast up where an op
// needs f32) and its f32 results are cast down.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

namespace tessel {
#define GEN_PASS_DEF_LOWERPRECISIONPASS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

/// A contraction whose multiplicands (operands 0 and 1) the pass lowers.
bool isContraction(Operation *op) { return isa<MatMulOp, GemmOp, ConvOp>(op); }

bool isF32Tensor(Type t) {
  auto ranked = dyn_cast<RankedTensorType>(t);
  return ranked && ranked.getElementType().isF32();
}

struct LowerPrecisionPass
    : tessel::impl::LowerPrecisionPassBase<LowerPrecisionPass> {
  using LowerPrecisionPassBase::LowerPrecisionPassBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (precision == "bf16")
      low = BFloat16Type::get(ctx);
    else if (precision == "fp16")
      low = Float16Type::get(ctx);
    else {
      getOperation()->emitError("tessel-lower-precision: unknown precision '")
          << precision << "' (bf16 or fp16)";
      return signalPassFailure();
    }
    for (const std::string &name : keepFp32)
      kept.insert(name);
    if (io)
      getOperation()->walk([&](func::FuncOp func) { lowerArguments(func); });
    // The walk may reach the casts and constants it inserts after an op
    // it visited: those are the pass's own, never decided again.
    bool error = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!error && !created.contains(op) && !isa<ConstantOp>(op))
        error = visit(op);
    });
    if (error)
      return signalPassFailure();
    recordLoweredContractions(getOperation(), loweredContractions);
  }

private:
  /// Decides `op` and rewrites its operands; true on an error.
  bool visit(Operation *op) {
    if (io && isa<func::ReturnOp>(op) &&
        isa<func::FuncOp>(op->getParentOp())) {
      lowerResults(cast<func::ReturnOp>(op));
      return false;
    }
    std::string node, opType;
    onnxNodeOf(op->getLoc(), node, opType);
    // (A multiplicand may already be low: an --io-precision argument.)
    auto f32OrLowered = [&](Value v) {
      return isF32Tensor(v.getType()) || lowered.contains(v);
    };
    bool lowers = isContraction(op) && !kept.contains(node) &&
                  !kept.contains(opType) &&
                  isF32Tensor(op->getResult(0).getType()) &&
                  f32OrLowered(op->getOperand(0)) &&
                  f32OrLowered(op->getOperand(1));
    if (!lowers) {
      // An op in f32: what enters it in the low type (an --io-precision
      // argument) goes back to f32.
      for (OpOperand &use : op->getOpOperands())
        if (lowered.contains(use.get()))
          use.set(upcast(use.get()));
      return false;
    }
    // The multiplicands in the low type; the sums, and so the result, in
    // the op contract's accumulator: f32.
    for (unsigned i : {0u, 1u})
      op->setOperand(i, downcast(op->getOperand(i), op->getLoc()));
    Type f32 = Float32Type::get(op->getContext());
    if (auto m = dyn_cast<MatMulOp>(op))
      m.setAccTypeAttr(TypeAttr::get(f32));
    else if (auto g = dyn_cast<GemmOp>(op))
      g.setAccTypeAttr(TypeAttr::get(f32));
    else if (auto c = dyn_cast<ConvOp>(op))
      c.setAccTypeAttr(TypeAttr::get(f32));
    loweredContractions.push_back(node);
    if (failed(verify(op, /*verifyRecursively=*/false))) {
      op->emitError("internal compiler error: lowering this op to ")
          << low << " broke its contract";
      return true;
    }
    return false;
  }

  /// The ONNX data type of the low type (tessel.dtype, output_dtypes).
  int64_t lowOnnxType() const { return low.isBF16() ? 16 : 10; }

  /// --io-precision low: the f32 arguments become low values.
  void lowerArguments(func::FuncOp func) {
    if (func.getBody().empty())
      return;
    Builder b(func.getContext());
    for (BlockArgument arg : func.getArguments()) {
      if (!isF32Tensor(arg.getType()))
        continue;
      arg.setType(cast<RankedTensorType>(arg.getType()).clone(low));
      lowered.insert(arg);
      if (func.getArgAttr(arg.getArgNumber(), "tessel.dtype"))
        func.setArgAttr(arg.getArgNumber(), "tessel.dtype",
                        b.getI32IntegerAttr(lowOnnxType()));
    }
    func.setFunctionType(b.getFunctionType(
        func.getBody().getArgumentTypes(), func.getResultTypes()));
  }

  /// --io-precision low: every f32 result is returned in the low type.
  void lowerResults(func::ReturnOp ret) {
    auto func = cast<func::FuncOp>(ret->getParentOp());
    Builder b(func.getContext());
    auto dtypes = func->getAttrOfType<ArrayAttr>("tessel.output_dtypes");
    SmallVector<Attribute> outTypes;
    if (dtypes)
      outTypes.assign(dtypes.begin(), dtypes.end());
    for (OpOperand &use : ret->getOpOperands()) {
      if (isF32Tensor(use.get().getType()))
        use.set(downcast(use.get(), ret.getLoc()));
      else if (!lowered.contains(use.get()))
        continue; // not a float the pass lowers (an index, a bf16 output)
      if (dtypes)
        outTypes[use.getOperandNumber()] = b.getI32IntegerAttr(lowOnnxType());
    }
    func.setFunctionType(b.getFunctionType(func.getArgumentTypes(),
                                           ret->getOperandTypes()));
    if (dtypes)
      func->setAttr("tessel.output_dtypes", b.getArrayAttr(outTypes));
  }

  /// `v` (f32) in the low type: a constant converted at compile time, else
  /// one cast after its definition, shared by every user (located at the
  /// first, `loc`: the node it feeds).
  Value downcast(Value v, Location loc) {
    if (lowered.contains(v))
      return v; // an --io-precision argument
    auto [it, inserted] = down.try_emplace(v, Value());
    if (!inserted)
      return it->second;
    auto type = cast<RankedTensorType>(v.getType()).clone(low);
    OpBuilder b(v.getContext());
    if (auto constant = v.getDefiningOp<ConstantOp>()) {
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue())) {
        const llvm::fltSemantics &sem = cast<FloatType>(low).getFloatSemantics();
        b.setInsertionPointAfter(constant);
        DenseElementsAttr converted =
            dense.mapValues(low, [&](const APFloat &x) {
              APFloat y = x;
              bool lost;
              y.convert(sem, APFloat::rmNearestTiesToEven, &lost);
              return y.bitcastToAPInt();
            });
        it->second = ConstantOp::create(b, constant.getLoc(), converted);
        created.insert(it->second.getDefiningOp());
        return it->second;
      }
    }
    setAfterDefinition(b, v);
    it->second = CastOp::create(b, loc, type, v, false, false);
    created.insert(it->second.getDefiningOp());
    return it->second;
  }

  /// `v` (lowered here) back in f32: one cast after its definition.
  Value upcast(Value v) {
    auto [it, inserted] = up.try_emplace(v, Value());
    if (!inserted)
      return it->second;
    OpBuilder b(v.getContext());
    setAfterDefinition(b, v);
    auto type = cast<RankedTensorType>(v.getType())
                    .clone(Float32Type::get(v.getContext()));
    it->second = CastOp::create(b, v.getLoc(), type, v, false, false);
    created.insert(it->second.getDefiningOp());
    return it->second;
  }

  static void setAfterDefinition(OpBuilder &b, Value v) {
    if (Operation *def = v.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
  }

  Type low;
  llvm::StringSet<> kept;
  llvm::DenseSet<Value> lowered;
  llvm::DenseMap<Value, Value> down, up;
  llvm::DenseSet<Operation *> created;
  std::vector<std::string> loweredContractions;
};

} // namespace
