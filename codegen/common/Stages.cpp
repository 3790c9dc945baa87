//===- Stages.cpp - Conventions of the stages every target lowers ---------===//

#include "codegen/common/Stages.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
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
  SmallVector<Value> ivs;
  for (auto [d, lb, ub, step] :
       llvm::enumerate(forall.getMixedLowerBound(),
                       forall.getMixedUpperBound(), forall.getMixedStep())) {
    Value lower = getValueOrCreateConstantIndexOp(b, loc, lb);
    std::optional<int64_t> s = getConstantIntValue(step);
    std::optional<int64_t> u = getConstantIntValue(ub);
    std::optional<int64_t> l = getConstantIntValue(lb);
    if (isEqualConstantIntOrValue(step, ub) || (s && u && l && *s >= *u - *l)) {
      ivs.push_back(lower); // whole: its one iteration
      continue;
    }
    if (!s)
      return forall.emitError("a workgroup dim split by a run-time step");
    if (axes.size() == 3)
      return forall.emitError("dim ")
             << d << " of a workgroup forall is split on a fourth axis";
    Value offset = arith::MulIOp::create(
        b, loc, idOf(axes.size()), arith::ConstantIndexOp::create(b, loc, *s));
    ivs.push_back(arith::AddIOp::create(b, loc, lower, offset));
    axes.push_back({*s, {static_cast<int64_t>(d)}});
  }
  return ivs;
}
