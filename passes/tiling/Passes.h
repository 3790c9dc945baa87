//===- Passes.h - Tiling and fusion on tensors ------------------*- C++ -*-===//

#ifndef TESSEL_PASSES_TILING_PASSES_H
#define TESSEL_PASSES_TILING_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace tessel {

/// The attribute a target puts on a linalg op to have it distributed over
/// workgroups: a DenseI64ArrayAttr of one tile size per loop (0: whole).
inline constexpr llvm::StringLiteral kWorkgroupTilesAttr =
    "tessel.workgroup_tiles";

/// Optional beside it: the split loops in the order of the grid's axes,
/// the fastest-varying first (a DenseI64ArrayAttr of loop indices). The
/// forall's dims are tagged #gpu.block<linear_dim_i> in that order (the
/// loops not listed after them, in loop order), and a target maps its
/// split dims to the axes by that tag. Without it, loop order.
inline constexpr llvm::StringLiteral kWorkgroupOrderAttr =
    "tessel.workgroup_order";

/// What tessel-form-workgroup-groups records: on every op of a group its
/// id, on the group's root the loops a target may split and the bytes of
/// the group's workgroup temporaries per unit tile of those loops (a target
/// with a tile of T1 x T2 ... gives each workgroup T1 * T2 * ... times as
/// many).
inline constexpr llvm::StringLiteral kGroupAttr = "tessel.workgroup_group";
inline constexpr llvm::StringLiteral kLoopsAttr = "tessel.workgroup_loops";
inline constexpr llvm::StringLiteral kWorkgroupTempBytesAttr =
    "tessel.workgroup_temp_bytes";

#define GEN_PASS_DECL
#include "passes/tiling/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/tiling/Passes.h.inc"

} // namespace tessel

#endif // TESSEL_PASSES_TILING_PASSES_H
