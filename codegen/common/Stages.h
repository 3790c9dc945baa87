//===- Stages.h - Conventions of the stages every target lowers -*- C++ -*-===//
//
// What passes on stages agree on: how a target records the launch of a
// stage (read back by the compiler into the artifact's LaunchConfig).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_STAGES_H
#define TESSEL_CODEGEN_COMMON_STAGES_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

namespace tessel {

/// One axis of a stage's grid of workgroups: ceil(product of the work
/// sizes `dims` / `tile`) workgroups, or one when `dims` is empty.
struct WorkgroupAxis {
  int64_t tile = 1;
  llvm::SmallVector<int64_t> dims;
};

/// Records on `kernel` its workgroup size (x, y, z) and the count along
/// each of the three axes (`tessel.workgroup_size`, and
/// `tessel.workgroup_count` as `[tile, dim...]` per axis, `[]` unused).
void setLaunchConfig(mlir::Operation *kernel, llvm::ArrayRef<int64_t> size,
                     llvm::ArrayRef<WorkgroupAxis> axes);

/// Reads back what setLaunchConfig recorded; false when `kernel` has none
/// (or it is malformed).
bool getLaunchConfig(mlir::Operation *kernel, int64_t size[3],
                     WorkgroupAxis axes[3]);

/// The iteration of a workgroup forall (tessel-tile-and-fuse-workgroups)
/// that one workgroup runs, built at `b`'s insertion point: per dim its
/// induction value, `lb + idOf(axis) * step` for a dim split into several
/// workgroups (recorded in `axes` as [step, dim]) and `lb` for one left
/// whole (step equal to its bound). The split dims take the axes x, y, z in
/// the order of their `#gpu.block<linear_dim_i>` tags (loop order where
/// the forall has none). Failure, with an error, for a split with a
/// run-time step or on a fourth axis.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
workgroupIteration(mlir::OpBuilder &b, mlir::scf::ForallOp forall,
                   llvm::function_ref<mlir::Value(unsigned axis)> idOf,
                   llvm::SmallVectorImpl<WorkgroupAxis> &axes);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_STAGES_H
