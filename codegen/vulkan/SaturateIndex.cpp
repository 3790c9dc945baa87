//===- SaturateIndex.cpp - Index values within the 32-bit Vulkan index -----===//
//
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "codegen/vulkan/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace tessel {
#define GEN_PASS_DEF_SATURATEINDEXPASS
#include "codegen/vulkan/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

constexpr int64_t kLow = std::numeric_limits<int32_t>::min(),
                  kHigh = std::numeric_limits<int32_t>::max();

struct SaturateIndexPass
    : tessel::impl::SaturateIndexPassBase<SaturateIndexPass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    getOperation()->walk([&](Operation *op) {
      if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        auto value = dyn_cast<IntegerAttr>(constant.getValue());
        if (!value || !value.getType().isIndex())
          return;
        int64_t v = value.getInt();
        if (v < kLow || v > kHigh)
          constant.setValueAttr(b.getIndexAttr(std::clamp(v, kLow, kHigh)));
        return;
      }
      auto cast = dyn_cast<arith::IndexCastOp>(op);
      if (!cast || !cast.getType().isIndex() ||
          !cast.getIn().getType().isInteger(64))
        return;
      b.setInsertionPoint(cast);
      Location loc = cast.getLoc();
      Value low = arith::ConstantIntOp::create(b, loc, kLow, 64);
      Value high = arith::ConstantIntOp::create(b, loc, kHigh, 64);
      Value clamped = arith::MinSIOp::create(
          b, loc, arith::MaxSIOp::create(b, loc, cast.getIn(), low), high);
      cast.getInMutable().assign(clamped);
    });
  }
};

} // namespace
