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
  using ObserveContractionsPassBase::ObserveContractionsPassBase;
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
      Value observed = inputs ? op.getOperand(0) : op.getResult(0);
      if (!getElementTypeOrSelf(observed.getType()).isF32())
        continue;
      results.push_back(observed);
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

void tessel::recordLoweredContractions(Operation *root,
                                       ArrayRef<std::string> nodes) {
  func::FuncOp main;
  if (auto module = dyn_cast<ModuleOp>(root))
    main = module.lookupSymbol<func::FuncOp>("main");
  else
    main = root->getParentOfType<ModuleOp>().lookupSymbol<func::FuncOp>(
        "main");
  if (!main)
    return;
  Builder b(root->getContext());
  SmallVector<Attribute> list;
  if (auto old = main->getAttrOfType<ArrayAttr>(kLoweredContractionsAttr))
    list.append(old.begin(), old.end());
  for (const std::string &node : nodes)
    list.push_back(b.getStringAttr(node));
  main->setAttr(kLoweredContractionsAttr, b.getArrayAttr(list));
}
