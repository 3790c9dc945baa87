//===- Stages.cpp - Conventions of the stages every target lowers ---------===//

#include "codegen/common/Stages.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

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

FailureOr<SmallVector<std::optional<int64_t>>>
tessel::workgroupSteps(scf::ForallOp forall) {
  SmallVector<std::optional<int64_t>> steps;
  for (auto [lb, ub, step] :
       llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                 forall.getMixedStep())) {
    std::optional<int64_t> s = getConstantIntValue(step);
    std::optional<int64_t> u = getConstantIntValue(ub);
    std::optional<int64_t> l = getConstantIntValue(lb);
    if (isEqualConstantIntOrValue(step, ub) || (s && u && l && *s >= *u - *l))
      steps.push_back(std::nullopt);
    else if (s)
      steps.push_back(*s);
    else
      return forall.emitError("a workgroup dim split by a run-time step");
  }
  return steps;
}
