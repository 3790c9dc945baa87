//===- SpirvExactF64.cpp - NoContraction on f64 arithmetic ----------------===//
//
// See Passes.td. The serializer turns the `no_contraction` unit attribute
// of an op into OpDecorate ... NoContraction.
//
//===----------------------------------------------------------------------===//

#include "codegen/vulkan/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/TypeUtilities.h"

namespace tessel {
#define GEN_PASS_DEF_SPIRVEXACTF64PASS
#include "codegen/vulkan/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct SpirvExactF64Pass
    : tessel::impl::SpirvExactF64PassBase<SpirvExactF64Pass> {
  void runOnOperation() override {
    auto exact = UnitAttr::get(&getContext());
    getOperation()->walk([&](Operation *op) {
      if (!isa<spirv::FAddOp, spirv::FSubOp, spirv::FMulOp, spirv::FDivOp,
               spirv::FNegateOp, spirv::FRemOp, spirv::FModOp,
               spirv::GLFmaOp>(op))
        return;
      if (getElementTypeOrSelf(op->getResult(0).getType()).isF64())
        op->setAttr("no_contraction", exact);
    });
  }
};

} // namespace
