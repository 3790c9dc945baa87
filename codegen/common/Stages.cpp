//===- Stages.cpp - Conventions of the stages every target lowers ---------===//

#include "codegen/common/Stages.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/DeviceMappingInterface.h"
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

FailureOr<SmallVector<Value>>
tessel::workgroupIteration(OpBuilder &b, scf::ForallOp forall,
                           function_ref<Value(unsigned axis)> idOf,
                           SmallVectorImpl<WorkgroupAxis> &axes) {
  Location loc = forall.getLoc();
  SmallVector<OpFoldResult> lbs = forall.getMixedLowerBound(),
                            ubs = forall.getMixedUpperBound(),
                            steps = forall.getMixedStep();
  // The split dims (a step below the bound, a constant), in the order of
  // their linear_dim tags: the axes x, y, z.
  SmallVector<unsigned> split;
  for (unsigned d = 0; d < lbs.size(); ++d) {
    std::optional<int64_t> s = getConstantIntValue(steps[d]);
    std::optional<int64_t> u = getConstantIntValue(ubs[d]);
    std::optional<int64_t> l = getConstantIntValue(lbs[d]);
    if (isEqualConstantIntOrValue(steps[d], ubs[d]) ||
        (s && u && l && *s >= *u - *l))
      continue; // whole: its one iteration
    if (!s)
      return forall.emitError("a workgroup dim split by a run-time step");
    split.push_back(d);
  }
  std::optional<ArrayAttr> mapping = forall.getMapping();
  auto tag = [&](unsigned d) -> int64_t {
    if (!mapping || mapping->size() != lbs.size())
      return d;
    auto attr = dyn_cast<DeviceMappingAttrInterface>((*mapping)[d]);
    return attr && attr.isLinearMapping() ? attr.getMappingId() : d;
  };
  llvm::stable_sort(split,
                    [&](unsigned a, unsigned b) { return tag(a) < tag(b); });
  if (split.size() > 3)
    return forall.emitError("dim ")
           << split[3] << " of a workgroup forall is split on a fourth axis";
  SmallVector<Value> ivs;
  for (OpFoldResult lb : lbs)
    ivs.push_back(getValueOrCreateConstantIndexOp(b, loc, lb));
  for (unsigned d : split) {
    int64_t step = *getConstantIntValue(steps[d]);
    Value offset = arith::MulIOp::create(
        b, loc, idOf(axes.size()), arith::ConstantIndexOp::create(b, loc, step));
    ivs[d] = arith::AddIOp::create(b, loc, ivs[d], offset);
    axes.push_back({step, {static_cast<int64_t>(d)}});
  }
  return ivs;
}
