//===- Partition.h - Graph -> execution plan + kernel functions -*- C++ -*-===//
//
// Splits the graph function into the artifact's execution plan (buffers,
// launches, signatures, weights) and a module of kernel functions, one per
// compute op, in destination-passing style on memrefs (docs/design.md).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_PARTITION_H
#define TESSEL_COMPILER_PARTITION_H

#include "runtime/format/Artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessel {

/// Fills `artifact`'s signatures, buffers, kernels, plan and weights from the
/// graph function `graph`, and creates the kernel functions in `kernels`.
/// Errors (e.g. a dim that cannot be named by a model symbol) are reported
/// at the op's location.
mlir::LogicalResult partitionGraph(mlir::func::FuncOp graph,
                                   mlir::ModuleOp kernels,
                                   format::Artifact &artifact);

/// After tessel-outline-stages: replaces each launch of a kernel by one
/// launch per stage function (`tessel.kernel_of`), in order, adding its
/// workspaces as Transient buffers (`tessel.workspace_dims`) to every
/// stage's arguments. The artifact's kernels become the stages.
mlir::LogicalResult expandStages(mlir::ModuleOp kernels,
                                 format::Artifact &artifact);

} // namespace tessel

#endif // TESSEL_COMPILER_PARTITION_H
