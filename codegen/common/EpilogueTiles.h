//===- EpilogueTiles.h - Epilogues inside a contraction's tiles -*- C++ -*-===//
//
// tessel-tile-and-vectorize runs a contraction's initializer (a bias
// broadcast, a fill) and its elementwise epilogues (a Clip, a residual Add,
// int8 requantization) on each register tile of the contraction, between
// its loads and its stores, instead of as whole passes over the output:
// the tile's values then stay in registers from the first multiply-add to
// the one store (see forwardTileWrites).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_EPILOGUETILES_H
#define TESSEL_CODEGEN_COMMON_EPILOGUETILES_H

#include "codegen/common/RegisterTile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tessel {

/// The ops of a stage that a contraction's register tiles take in.
struct EpilogueChain {
  /// Writes the contraction's whole output before it, reading nothing of it
  /// (a bias broadcast, a fill), or null.
  mlir::linalg::GenericOp init;
  /// Elementwise ops after it, in order, each on the tile the one before
  /// left: updating it in place, or reading it (input `reads[i]`, at the
  /// identity) into a buffer of their own, which the next ones then take.
  llvm::SmallVector<mlir::linalg::GenericOp> epilogues;
  llvm::SmallVector<int> reads; ///< per epilogue: the input, -1 in place

  bool empty() const { return !init && epilogues.empty(); }
  /// Its ops, the initializer first.
  llvm::SmallVector<mlir::Operation *> ops() const;
  /// This chain without the ops not in `allowed`: the initializer, and the
  /// epilogues from the first one left out.
  EpilogueChain restrictedTo(llvm::ArrayRef<mlir::Operation *> allowed) const;
  /// The buffer the contraction accumulates into, as the chain names it.
  mlir::Value source() const;
};

/// The initializer and epilogues of contraction `op` (one output, reduction
/// loops): the ops just before and after it in its block (pure ops between
/// them aside) that write or read its output at the identity of their
/// loops, with no reduction, no integer division (a masked lane would
/// divide by zero), no `linalg.index`, elements of at least a byte, and no
/// other operand in a buffer the chain writes. Changes nothing (a
/// `linalg.fill` initializer must be generalized first).
EpilogueChain findEpilogueChain(mlir::linalg::LinalgOp op);

/// Generalizes each `linalg.fill` of the buffer that a contraction right
/// after it accumulates into, for findEpilogueChain (the i32 sums of an
/// integer contraction start from a fill of zeros).
void generalizeInitFills(mlir::RewriterBase &rewriter, mlir::func::FuncOp func);

/// `chain` with the pure ops that define its epilogues' operands after
/// `contraction` (the view of an epilogue's own output) moved before it,
/// where its tiles will need them; cut before the first epilogue with an
/// operand that cannot move.
EpilogueChain hoistChainOperands(EpilogueChain chain,
                                 mlir::Operation *contraction);

/// Whether `a` and `b` are the same buffer: the same value, or the same
/// pure view (collapse, subview) of the same value.
bool sameBuffer(mlir::Value a, mlir::Value b);

/// The register tiles of one tiling of a contraction: the ops marked
/// `marker`, tiled to `tile`.
struct TileGroup {
  llvm::StringRef marker;
  RegisterTile tile;
};

/// Puts `chain` into each register tile of its contraction, already tiled
/// into the ops of `groups` (not yet vectorized): for every tile's output
/// view, the initializer's slice of it goes before the tile's reduction
/// loops and the epilogues' slices after them; `vectorize` then vectorizes
/// each slice with the tile's shape. `outLoops` are the contraction's loops
/// of its output dims. The originals are erased. Returns false, changing
/// nothing, when some tile's output is not a slice of the chain's buffer
/// or its reductions are not the only ops writing it there.
mlir::FailureOr<bool> fuseEpilogueTiles(
    mlir::RewriterBase &rewriter, mlir::func::FuncOp func,
    const EpilogueChain &chain, llvm::ArrayRef<unsigned> outLoops,
    llvm::ArrayRef<TileGroup> groups,
    llvm::function_ref<void(mlir::linalg::GenericOp, const RegisterTile &)>
        vectorize);

/// Store-to-load forwarding and dead stores within a block, for the
/// vectors of fused tiles: a `vector.transfer_read` of exactly what a
/// transfer_write before it wrote (same view, indices, mask, shape, all in
/// bounds; nothing in between may write that buffer) takes the written
/// vector, provided the lanes its mask leaves out are poison or reach
/// nothing but elementwise ops and writes under that same mask; a write that an
/// identical one overwrites before anything reads the buffer goes; then
/// temporaries no one reads go with their stores. Buffers with distinct
/// roots (a stage's arguments, its allocations) never alias, but for the
/// arguments of an in-place result (`tessel.aliased_args`).
void forwardTileWrites(mlir::RewriterBase &rewriter, mlir::func::FuncOp func);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_EPILOGUETILES_H
