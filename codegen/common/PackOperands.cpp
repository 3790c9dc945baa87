//===- PackOperands.cpp - Contiguous copies of strided streamed operands --===//
//
// tessel-tile-and-vectorize's packing of the operand a contraction streams
// along its vectors (see PackOperands.h).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/PackOperands.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using tessel::RegisterTile;
using tessel::staticLoopExtent;
using tessel::tileOneLoop;

namespace {

/// The most bytes packStreamedOperand copies onto a workgroup's stack: an
/// L1 data cache's worth, so that the copy stays there for every reuse.
constexpr int64_t kMaxPackBytes = 32 * 1024;

/// The operand that contraction `op` streams along `n` and its reductions
/// (MatMul's B: indexed by `n`, not by the rows `m`) when it is a static
/// view that is not contiguous (a slice of a wider tensor), and every row
/// block of the register tiles (`m` by its register rows) re-reads it; else
/// null.
OpOperand *stridedStreamedOperand(linalg::LinalgOp op,
                                  const RegisterTile &tile) {
  std::optional<int64_t> rows =
      tile.m ? staticLoopExtent(op, *tile.m) : std::nullopt;
  if (!rows || *rows < 2 * tile.sizes[*tile.m])
    return nullptr;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (!type || !type.hasStaticShape() || type.getRank() < 2 ||
        !map.isProjectedPermutation() || map.isFunctionOfDim(*tile.m) ||
        !map.isFunctionOfDim(tile.n) || !type.getElementType().isIntOrFloat())
      continue;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      continue;
    int64_t expected = 1;
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      if (type.getDimSize(d) != 1 && strides[d] != expected)
        return input;
      expected *= type.getDimSize(d);
    }
  }
  return nullptr;
}

int64_t bytesOf(MemRefType type) {
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

} // namespace

linalg::LinalgOp tessel::chunkForPacking(RewriterBase &rewriter,
                                         linalg::LinalgOp op,
                                         const RegisterTile &tile) {
  OpOperand *streamed = stridedStreamedOperand(op, tile);
  std::optional<int64_t> extent = staticLoopExtent(op, tile.n);
  if (!streamed || !extent)
    return op;
  int64_t bytes = bytesOf(cast<MemRefType>(streamed->get().getType()));
  if (bytes <= kMaxPackBytes)
    return op;
  int64_t width = tile.sizes[tile.n];
  int64_t chunk = kMaxPackBytes / (bytes / *extent) / width * width;
  while (chunk >= width && *extent % chunk != 0)
    chunk -= width;
  if (chunk < width || chunk >= *extent)
    return op;
  FailureOr<linalg::LinalgOp> chunked = tileOneLoop(rewriter, op, tile.n, chunk);
  return succeeded(chunked) ? *chunked : op;
}

void tessel::packStreamedOperand(RewriterBase &rewriter, linalg::LinalgOp op,
                                 const RegisterTile &tile) {
  OpOperand *input = stridedStreamedOperand(op, tile);
  if (!input)
    return;
  auto type = cast<MemRefType>(input->get().getType());
  if (bytesOf(type) > kMaxPackBytes)
    return;
  Location loc = op.getLoc();
  // At the function's entry, not in the chunk loop: an alloca in a loop
  // takes more stack every iteration.
  auto func = op->getParentOfType<func::FuncOp>();
  rewriter.setInsertionPointToStart(&func.getBody().front());
  Value packed = memref::AllocaOp::create(
      rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
      ValueRange{}, ValueRange{}, rewriter.getI64IntegerAttr(64));
  rewriter.setInsertionPoint(op);
  linalg::CopyOp::create(rewriter, loc, input->get(), packed);
  rewriter.modifyOpInPlace(op, [&] { input->set(packed); });
}
