//===- PackOperands.h - Copies of strided streamed operands ---*- C++ -*-===//
//
// tessel-tile-and-vectorize copies the operand a contraction streams along
// its vectors (MatMul's B) onto the workgroup's stack when it is a strided
// view that every row block of the register tiles re-reads: in place, its
// rows can fall in one L1 cache set.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_PACKOPERANDS_H
#define TESSEL_CODEGEN_COMMON_PACKOPERANDS_H

#include "codegen/common/RegisterTile.h"

namespace tessel {

/// When the strided streamed operand of `op` is too large to pack, splits
/// `op` along `n` into chunks (a multiple of the register tile's width that
/// divides the extent) whose slice of it fits: the LM head of GPT-like
/// (256 x 8192 weights, rows 32 KiB apart) streams 128 KiB per workgroup.
/// Returns the op to tile further: the chunk, or `op` itself.
mlir::linalg::LinalgOp chunkForPacking(mlir::RewriterBase &rewriter,
                                       mlir::linalg::LinalgOp op,
                                       const RegisterTile &tile);

/// Copies the operand that contraction `op` streams along `n` and its
/// reductions (indexed by `n`, not by the rows `m`) into a contiguous
/// buffer on the stack, when it is a static strided view that every row
/// block re-reads and fits 32 KiB (an L1 data cache's worth). In
/// place its rows are a full row of the tensor apart: with a wide MatMul
/// (N = 1024 floats, 4 KiB) every row of the slice falls in the same L1
/// cache set, and each register tile misses on all of them.
void packStreamedOperand(mlir::RewriterBase &rewriter,
                         mlir::linalg::LinalgOp op, const RegisterTile &tile);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_PACKOPERANDS_H
