//===- ObserveContractions.cpp - Contraction results as extra outputs -----===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringMap.h"

namespace tessel {
#define GEN_PASS_DEF_OBSERVECONTRACTIONSPASS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

struct ObserveContractionsPass
    : tessel::impl::ObserveContractionsPassBase<ObserveContractionsPass> {
  void runOnOperation() override {
    auto main = getOperation().lookupSymbol<func::FuncOp>("main");
    if (!main || main.getBody().empty())
      return;
    Block &body = main.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    auto names = main->getAttrOfType<ArrayAttr>("tessel.output_names");
    auto dtypes = main->getAttrOfType<ArrayAttr>("tessel.output_dtypes");
    if (!names || !dtypes) {
      main.emitError("tessel-observe-contractions: main has no output names");
      return signalPassFailure();
    }
    Builder b(&getContext());
    SmallVector<Value> results(ret.getOperands());
    SmallVector<Attribute> outNames(names.getValue()),
        outTypes(dtypes.getValue());
    llvm::StringMap<unsigned> seen;
    for (Operation &op : body) {
      if (!isa<MatMulOp, GemmOp, ConvOp>(op))
        continue;
      auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
      if (!type || !type.getElementType().isF32())
        continue;
      std::string node, opType;
      onnxNodeOf(op.getLoc(), node, opType);
      unsigned n = ++seen[node];
      std::string name = "tessel.observe:" + node;
      if (n > 1)
        name += "#" + std::to_string(n);
      results.push_back(op.getResult(0));
      outNames.push_back(b.getStringAttr(name));
      outTypes.push_back(b.getI32IntegerAttr(1)); // ONNX FLOAT
    }
    OpBuilder builder(ret);
    func::ReturnOp::create(builder, ret.getLoc(), results);
    ret.erase();
    main.setFunctionType(b.getFunctionType(main.getArgumentTypes(),
                                           ValueRange(results).getTypes()));
    main->setAttr("tessel.output_names", b.getArrayAttr(outNames));
    main->setAttr("tessel.output_dtypes", b.getArrayAttr(outTypes));
  }
};

} // namespace
