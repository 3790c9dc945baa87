//===- Tiles.h - Arithmetic shared by the tilings ---------------*- C++ -*-===//
//
// Small helpers that the grouping (passes/tiling) and the targets' tile
// choices (codegen) compute alike.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PASSES_TILING_TILES_H
#define TESSEL_PASSES_TILING_TILES_H

#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tessel {

/// `expr` as a sum of coefficient * loop, when it is one (no constant term:
/// padding is a separate op).
std::optional<llvm::SmallVector<int64_t>> linearForm(mlir::AffineExpr expr,
                                                     unsigned numLoops);

/// The bytes of a group's workgroup temporaries with `tiles` (0: whole, its
/// static extent from `ranges`) on its workgroup loops `loops`, given
/// `unitBytes` per unit tile (kWorkgroupTempBytesAttr); INT64_MAX when a
/// whole loop is dynamic or the product overflows.
int64_t workgroupTempBytes(int64_t unitBytes, llvm::ArrayRef<int64_t> loops,
                           llvm::ArrayRef<int64_t> tiles,
                           llvm::ArrayRef<int64_t> ranges);

} // namespace tessel

#endif // TESSEL_PASSES_TILING_TILES_H
