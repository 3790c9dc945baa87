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
#include "mlir/IR/PatternMatch.h"
#include "passes/tiling/Tiles.h"

#include <algorithm>
#include <optional>

namespace tessel {

/// A register tile: `rows` x `cols` outputs, every other loop stepped by 1.
struct RegisterTile {
  llvm::SmallVector<int64_t> sizes; ///< per loop
  unsigned n;                ///< the output's contiguous loop (the vectors)
  std::optional<unsigned> m; ///< the loop of the tile's rows, if any
};

/// The static extent of loop `loop` of `op`, if it has one.
std::optional<int64_t> staticLoopExtent(mlir::linalg::LinalgOp op,
                                        unsigned loop);

/// Whether `op`'s body divides integers: a masked lane of a partial tile
/// would divide by the zero a masked read gives it.
bool dividesIntegers(mlir::linalg::LinalgOp op);

/// Tiles loop `loop` of `op` by `size` (every other loop whole), replacing
/// `op` by the loop nest; the tile inside, or failure (nothing changed).
mlir::FailureOr<mlir::linalg::LinalgOp>
tileOneLoop(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
            unsigned loop, int64_t size);

/// The width of the CPU's register tile in vectors.
constexpr int64_t kTileVectors = 2;

/// The lanes of a SIMD vector of `element`s (bytes at the least).
inline int64_t lanesOf(mlir::Type element, unsigned vectorBits) {
  return vectorBits / std::max(8u, element.getIntOrFloatBitWidth());
}

/// Rows of the CPU's register tile for SIMD registers of `vectorBits`: 4 x 2
/// accumulators in AVX2's 16 registers, 8 x 2 in AVX-512's 32. Measured on
/// AVX2 (ResNet-18 / ResNet-50 / BERT-like, 1 thread, ms): 4x2 50.9 / 125.9
/// / 13.5; 6x2 59.6 / 133.6 / 14.8; 8x1 52.3 / 130.2 / 14.8; 4x3 ten times
/// slower (3-vector tiles scalarize). On AVX-512 (Zen 5), ResNet-50: 4x2
/// 95 ms, 8x2 83 ms; its 1x1 Convs on 7x7 images stream their input from
/// L2 once per row block, so twice the rows halve that traffic.
inline int64_t registerTileRows(unsigned vectorBits) {
  return vectorBits >= 512 ? 8 : 4;
}

/// The loop along which the register tile of contraction `op` puts its
/// vectors: the output's last loop, or a loop of output channels when that
/// one is too short to fill two vectors (a Conv on a 7x7 or 14x14 image) or
/// an input reads it through a window or a stride (a 3x3 or strided Conv),
/// and some input, the weights, holds the channels contiguously in its last
/// dim while no other input uses them (see channelVectorLoop). Nothing for
/// an op that is not a contraction with a single output.
std::optional<unsigned> registerVectorLoop(mlir::linalg::LinalgOp op,
                                           unsigned vectorBits);

/// The row loop `m` of a register tile whose vectors run along loop `n`.
/// When `n` is not the output's last loop, that last loop (the channel
/// vectors of a Conv take its output columns as rows). Else an output loop
/// that no input indexed by `n`
/// uses (MatMul's M, Conv's output channels), so one vector load feeds a
/// whole column of the tile. Among such loops the one of the largest static
/// extent, else the innermost (dynamic) one, so that a batch of 1 is not
/// the rows; else the output's second-to-last loop; nothing for an output
/// of rank < 2.
std::optional<unsigned> registerRowLoop(mlir::linalg::LinalgOp op, unsigned n);

/// Rewrites the inputs of tile `op` (every loop but `m` and `n` of extent
/// 1) whose indices are not plain loops, such as Conv's `ow * s + kw`:
/// loops of extent 1 contribute 0 inside the tile, so the index is
/// `c * m`, `c * n` or 0, and the input becomes a view with stride `c`
/// indexed by the plain loop. The vectorizer then sees only projected
/// permutations.
mlir::LogicalResult specializeTile(mlir::RewriterBase &rewriter,
                                   mlir::linalg::GenericOp op,
                                   const RegisterTile &tile);

/// Drops the loops of extent 1 from specialized tile `op`: every operand
/// becomes a rank-reduced view indexed by `m` and `n` only, and the op a
/// 1- or 2-d elementwise update (the reductions, all of extent 1, vanish).
/// The vectors then carry no unit dims, which vector lowering would
/// otherwise scalarize. Returns the new op and its vector shape.
mlir::FailureOr<std::pair<mlir::linalg::GenericOp, llvm::SmallVector<int64_t>>>
collapseTile(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
             const RegisterTile &tile);

/// The view a register tile's vectors take of `operand` (indexed by `map`,
/// a projected permutation of the tile's loops) where only the loops
/// `kept` vary: a rank-reduced subview (composed with a unit-stride view of
/// the same rank it comes from), and the map from `kept` (in order) to its
/// dims. Failure when a kept dim has static size 1. The vectorized tiles
/// and the dot-product tiles both view their outputs through it, so that
/// an epilogue's reads match the tile's writes (see forwardTileWrites).
mlir::FailureOr<std::pair<mlir::Value, mlir::AffineMap>>
tileView(mlir::RewriterBase &rewriter, mlir::Location loc, mlir::Value operand,
         mlir::AffineMap map, llvm::ArrayRef<unsigned> kept);

/// The lowering of the reads left in vectorized register tiles: transfers
/// that broadcast become a minor-identity transfer and a broadcast (upstream's
/// permutation-map lowering), a 1-d row operand broadcast along the vectors
/// becomes one scalar load per row, and a read at a constant stride one
/// contiguous read and a shuffle.
void populateRegisterTileReadPatterns(mlir::RewritePatternSet &patterns);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_REGISTERTILE_H
