//===- Stages.h - Conventions of the stages every target lowers -*- C++ -*-===//
//
// What passes on stages agree on: how a target records the launch of a
// stage (read back by the compiler into the artifact's LaunchConfig), and
// the shape an op must have to share a stage with others over one output
// (tessel-fuse-epilogues forms such stages; tessel-distribute-to-workgroups
// splits them).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_STAGES_H
#define TESSEL_CODEGEN_COMMON_STAGES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

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

/// Whether `op` writes its only output at the identity of its first
/// `count` loops (output dim i is loop i), and those loops are parallel:
/// ops of that shape over one output iterate its dims alike, so one split
/// of those loops fits them all.
bool writesLeadingLoops(mlir::linalg::LinalgOp op, unsigned count);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_STAGES_H
