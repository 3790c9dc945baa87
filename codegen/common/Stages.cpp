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
  // The split dims, ordered by their linear_dim tags.
  SmallVector<unsigned> split;
  for (unsigned d = 0; d < lbs.size(); ++d) {
    std::optional<int64_t> s = getConstantIntValue(steps[d]);
    std::optional<int64_t> u = getConstantIntValue(ubs[d]);
    std::optional<int64_t> l = getConstantIntValue(lbs[d]);
    if (!isEqualConstantIntOrValue(steps[d], ubs[d]) &&
        !(s && u && l && *s >= *u - *l))
      split.push_back(d);
  }
  auto tag = [&](unsigned d) -> int64_t {
    std::optional<ArrayAttr> mapping = forall.getMapping();
    if (!mapping || mapping->size() != lbs.size())
      return d;
    auto attr = dyn_cast<DeviceMappingAttrInterface>((*mapping)[d]);
    return attr && attr.isLinearMapping() ? attr.getMappingId() : d;
  };
  llvm::stable_sort(split, [&](unsigned a, unsigned b) { return tag(a) < tag(b); });
  if (split.size() > 3)
    return forall.emitError("dim ")
           << split[3] << " of a workgroup forall is split on a fourth axis";
  SmallVector<Value> ivs;
  for (unsigned d = 0; d < lbs.size(); ++d) {
    Value lower = getValueOrCreateConstantIndexOp(b, loc, lbs[d]);
    auto axis = llvm::find(split, d);
    if (axis == split.end()) {
      ivs.push_back(lower); // whole: its one iteration
      continue;
    }
    std::optional<int64_t> s = getConstantIntValue(steps[d]);
    if (!s)
      return forall.emitError("a workgroup dim split by a run-time step");
    ivs.push_back(lower);
  }
  // The axes in order, then each split dim's induction value.
  axes.clear();
  for (unsigned d : split)
    axes.push_back({*getConstantIntValue(steps[d]), {static_cast<int64_t>(d)}});
  for (auto [a, d] : llvm::enumerate(split)) {
    Value offset = arith::MulIOp::create(
        b, loc, idOf(a), arith::ConstantIndexOp::create(b, loc, axes[a].tile));
    ivs[d] = arith::AddIOp::create(b, loc, ivs[d], offset);
  }
  return ivs;
}
