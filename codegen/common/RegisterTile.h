//===- RegisterTile.h - The shape of the CPU's register tiles ---*- C++ -*-===//
//
// What tessel-tile-and-vectorize tiles into registers, shared with the
// passes that must agree with it (tessel-cpu-workgroup-tiles splits
// work between register tiles, never inside one).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_REGISTERTILE_H
#define TESSEL_CODEGEN_COMMON_REGISTERTILE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace tessel {

/// Rows of the CPU's register tile, and its width in vectors: 8
/// accumulators. Measured on AVX2 (ResNet-18 / ResNet-50 / BERT-like, 1
/// thread, ms): 4x2 50.9 / 125.9 / 13.5; 6x2 59.6 / 133.6 / 14.8; 8x1
/// 52.3 / 130.2 / 14.8; 4x3 ten times slower (3-vector tiles scalarize).
constexpr int64_t kTileRows = 4;
constexpr int64_t kTileVectors = 2;

/// The row loop `m` of a register tile whose vectors run along loop `n`
/// (the output's last loop): an output loop that no input indexed by `n`
/// uses (MatMul's M, Conv's output channels), so one vector load feeds a
/// whole column of the tile. Among such loops the one of the largest static
/// extent, else the innermost (dynamic) one, so that a batch of 1 is not
/// the rows; else the output's second-to-last loop; nothing for an output
/// of rank < 2.
std::optional<unsigned> registerRowLoop(mlir::linalg::LinalgOp op, unsigned n);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_REGISTERTILE_H
