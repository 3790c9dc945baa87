//===- DotTiles.h - Register tiles on x86 dot-product instructions -*- C++ -*-===//
//
// tessel-tile-and-vectorize's int8 and bf16 register tiles on vpdpbusd and
// vdpbf16ps (docs/design.md, section 8).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_DOTTILES_H
#define TESSEL_CODEGEN_COMMON_DOTTILES_H

#include "codegen/common/RegisterTile.h"

#include <optional>
#include <utility>

namespace tessel {

/// A register tile that an x86 dot-product instruction computes: each
/// instruction adds `group` consecutive products of the reduction `k` to
/// every lane (`vpdpbusd`: 4 u8 x i8 products into an i32; `vdpbf16ps`: 2
/// bf16 products into an f32). The *row operand* (an input indexed by the
/// tile's rows `m`, not by its vectors `n`: MatMul's A, a 1x1 Conv's
/// weights) holds a group contiguously in its dim `rowDim`; the *vector
/// operand* (indexed by `n` in its last dim: MatMul's B, a Conv's input
/// pixels) holds the group's rows elsewhere.
struct DotTile {
  enum Kind { Int8, BF16 } kind;
  unsigned m, k;
  int64_t group;
  unsigned rowInput, vectorInput; ///< input numbers
  unsigned rowDim;                ///< the row operand's dim of `k`
  unsigned outDim;                ///< the output's dim of the vectors
  bool rowUnsigned;               ///< int8: which operand is the u8 one
  /// How emitDotTile gathers the vector operand's groups into lanes: by
  /// interleaves (any target), or by two-source permutes of 16-bit words
  /// (vpermi2w, AVX512-BW) or of bytes (vpermi2b, AVX512-VBMI).
  enum Gather { Interleave, WordPermute, BytePermute } gather = Interleave;
};

/// The dot-product form of register tile `tile` of `op`, when the target
/// has the instruction (`int8Dot`, `bf16Dot`) and `op` is a contraction
/// `out[.., m, .., n, ..] += ext(row[...]) * ext(vec[..., n])` with a
/// reduction `k` that indexes one dim of the row operand contiguously
/// (step 1, unit stride; with the rows `m` or alone: a group is then one
/// broadcast per row) and a dim of the vector operand other than its last:
/// MatMul (A the rows); a 1x1 Conv (filters-first weights the rows, the
/// input's pixels the vectors); a Conv whose kernel rows have 4 taps (the
/// input the rows, its taps `ow * s + kw` the group; filters-last weights
/// the vectors, along the output channels). Every other reduction steps
/// by 1 in a register tile. Every index must be linear in the loops.
std::optional<DotTile> dotTile(mlir::linalg::LinalgOp op,
                               const RegisterTile &tile, unsigned vectorBits,
                               bool int8Dot, bool bf16Dot);

/// Computes tile `op` of `rows` rows and `extent` columns (at most the
/// register tile's; the reduction one group, every other loop 1) with
/// dot-product instructions: per row, the
/// group of the row operand broadcast as one 32-bit lane; per vector of
/// outputs, the group's rows of the vector operand interleaved so that
/// each 32-bit lane holds one column's group; one instruction per row and
/// vector. Each output vector is read and written through its own view, so
/// hoistAccumulators keeps it in a register across the reduction.
/// With permutes (`dot.gather`) and 512-bit vectors, each vector of the
/// vector operand is one two-source permute of the group's rows (int8
/// with words: after one unpack of bytes per two vectors) instead of a
/// tree of interleaves.
/// Fails, creating nothing, when the group's, the vectors' or the outputs'
/// strides are not the static ones dotTile checks (on the tile's views).
mlir::LogicalResult emitDotTile(mlir::RewriterBase &rewriter,
                                mlir::linalg::GenericOp op,
                                const RegisterTile &tile, const DotTile &dot,
                                unsigned vectorBits, int64_t rows,
                                int64_t extent);

/// The rows and columns of dot-product tile `op` when its reduction is one
/// whole group, every loop but the rows and columns has extent 1, and those
/// two have static extents (a peeled partial tile of a static extent has).
std::optional<std::pair<int64_t, int64_t>>
dotTileShape(mlir::linalg::GenericOp op, const RegisterTile &tile,
             const DotTile &dot);

/// Tiles the reduction `k` of tile `op` by 1 (a partial dot-product tile,
/// or the last partial group): the tile inside is an ordinary one.
mlir::FailureOr<mlir::linalg::GenericOp>
stepReduction(mlir::RewriterBase &rewriter, mlir::linalg::GenericOp op,
              unsigned k);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_DOTTILES_H
