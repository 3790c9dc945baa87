//===- Partition.h - Graph -> plan IR + kernel functions --------*- C++ -*-===//
//
// Partitioning lowers the graph function into the plan: a function of the
// plan dialect (dispatches, views, host shape ops, run-time checks) and a
// module of kernel functions, one per compute op, in destination-passing
// style on memrefs (docs/design.md). serializePlan then writes the plan into
// the artifact's model, and expandStages replaces each kernel's launch by
// the launches of its stages once the kernels are lowered.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_PARTITION_H
#define TESSEL_COMPILER_PARTITION_H

#include "runtime/format/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {

/// Creates the plan function `main` in `plan` from the graph function
/// `graph`, and the kernel functions it dispatches in `kernels`. Errors
/// (an op without a known contract, a dim no expression gives) are reported
/// at the op's location.
mlir::LogicalResult partitionGraph(mlir::func::FuncOp graph,
                                   mlir::ModuleOp plan,
                                   mlir::ModuleOp kernels);

/// Fills `artifact`'s signatures, buffers, kernels, launches, shape program
/// and weights from the (canonicalized) plan function `plan`.
mlir::LogicalResult serializePlan(mlir::func::FuncOp plan,
                                  format::Artifact &artifact);

/// After tessel-outline-stages: replaces each launch of a kernel by one
/// launch per stage function (`tessel.kernel_of`), in order, adding its
/// workspaces as Transient buffers (`tessel.workspace_dims`) to every
/// stage's arguments. The artifact's kernels become the stages.
mlir::LogicalResult expandStages(mlir::ModuleOp kernels,
                                 format::Artifact &artifact);

} // namespace tessel

#endif // TESSEL_COMPILER_PARTITION_H
