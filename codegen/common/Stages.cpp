//===- Stages.cpp - Conventions of the stages every target lowers ---------===//

#include "codegen/common/Stages.h"

using namespace mlir;

static constexpr llvm::StringLiteral kWorkgroupSize = "tessel.workgroup_size";
static constexpr llvm::StringLiteral kWorkgroupCount = "tessel.workgroup_count";

void tessel::setLaunchConfig(Operation *kernel, ArrayRef<int64_t> size,
                             ArrayRef<WorkgroupAxis> axes) {
  assert(size.size() == 3 && axes.size() <= 3 && "three axes");
  Builder b(kernel->getContext());
  SmallVector<Attribute> count;
  for (unsigned a = 0; a < 3; ++a) {
    SmallVector<int64_t> axis;
    if (a < axes.size() && !axes[a].dims.empty()) {
      axis.push_back(axes[a].tile);
      llvm::append_range(axis, axes[a].dims);
    }
    count.push_back(b.getDenseI64ArrayAttr(axis));
  }
  kernel->setAttr(kWorkgroupCount, b.getArrayAttr(count));
  kernel->setAttr(kWorkgroupSize, b.getDenseI64ArrayAttr(size));
}

bool tessel::getLaunchConfig(Operation *kernel, int64_t size[3],
                             WorkgroupAxis axes[3]) {
  auto sizeAttr = kernel->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupSize);
  auto countAttr = kernel->getAttrOfType<ArrayAttr>(kWorkgroupCount);
  if (!sizeAttr || !countAttr || sizeAttr.size() != 3 ||
      countAttr.size() != 3)
    return false;
  for (unsigned a = 0; a < 3; ++a) {
    size[a] = sizeAttr[a];
    auto axis = dyn_cast<DenseI64ArrayAttr>(countAttr[a]);
    if (!axis)
      return false;
    axes[a] = {};
    if (axis.empty())
      continue;
    axes[a].tile = axis[0];
    llvm::append_range(axes[a].dims, axis.asArrayRef().drop_front());
  }
  return true;
}

bool tessel::writesLeadingLoops(linalg::LinalgOp op, unsigned count) {
  if (op.getNumDpsInits() != 1)
    return false;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto iterators = op.getIteratorTypesArray();
  if (map.getNumResults() < count)
    return false;
  for (unsigned i = 0; i < count; ++i) {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(i));
    if (!dim || dim.getPosition() != i ||
        iterators[i] != utils::IteratorType::parallel)
      return false;
  }
  return true;
}
