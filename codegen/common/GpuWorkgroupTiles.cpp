//===- GpuWorkgroupTiles.cpp - A GPU's block tiles ------------------------===//
//
// See Passes.td. Shared by every GPU target; the tiling itself is
// passes/tiling's.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"
#include "passes/tiling/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace tessel {
#define GEN_PASS_DEF_GPUWORKGROUPTILESPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

struct GpuWorkgroupTilesPass
    : tessel::impl::GpuWorkgroupTilesPassBase<GpuWorkgroupTilesPass> {
  using GpuWorkgroupTilesPassBase::GpuWorkgroupTilesPassBase;

  void runOnOperation() override {
    getOperation().walk([&](linalg::LinalgOp root) {
      auto loops = root->getAttrOfType<DenseI64ArrayAttr>(tessel::kLoopsAttr);
      if (!loops)
        return;
      SmallVector<int64_t> ranges = root.getStaticLoopRanges();
      SmallVector<int64_t> tiles(root.getNumLoops(), 0);
      // The bytes of workgroup memory per element of the tile.
      auto perUnit =
          root->getAttrOfType<IntegerAttr>(tessel::kWorkgroupTempBytesAttr);
      int64_t unitBytes = perUnit ? perUnit.getInt() : 0;
      int64_t elements = threads;
      if (unitBytes > 0)
        elements = std::clamp<int64_t>(maxTempBytes / unitBytes, 1, threads);
      // Innermost first, a loop that fits whole stays whole; with
      // temporaries the run-time loops first, which they need split.
      SmallVector<int64_t> order(llvm::reverse(loops.asArrayRef()));
      if (unitBytes > 0)
        std::stable_partition(order.begin(), order.end(), [&](int64_t d) {
          return ShapedType::isDynamic(ranges[d]);
        });
      unsigned split = 0;
      for (int64_t d : order) {
        if (split == 3)
          break;
        int64_t extent = ranges[d];
        int64_t tile = std::max<int64_t>(elements, 1);
        if (!ShapedType::isDynamic(extent) && extent <= tile) {
          elements = std::max<int64_t>(1, elements / std::max<int64_t>(extent, 1));
          continue;
        }
        tiles[d] = tile;
        elements = 1;
        ++split;
      }
      root->setAttr(tessel::kWorkgroupTilesAttr,
                    DenseI64ArrayAttr::get(root.getContext(), tiles));
    });
  }
};

} // namespace
