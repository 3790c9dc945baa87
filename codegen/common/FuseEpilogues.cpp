//===- FuseEpilogues.cpp - A contraction and its epilogue in one stage ----===//
//
// See Passes.td. Runs on bufferized kernels, before tessel-outline-stages.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"
#include "codegen/common/Stages.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace tessel {
#define GEN_PASS_DEF_FUSEEPILOGUESPASS
#include "codegen/common/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// Whether `op` writes `buffer` as its only output, at the identity of its
/// leading loops (so that those loops are the buffer's dims, in order).
bool writesInOrder(linalg::LinalgOp op, Value buffer) {
  return op.getNumDpsInits() == 1 &&
         op.getDpsInitOperand(0)->get() == buffer &&
         tessel::writesLeadingLoops(
             op, cast<MemRefType>(buffer.getType()).getRank());
}

/// Whether `op` is elementwise: every loop parallel, `buffer` read and the
/// output written at the identity.
bool isEpilogueOf(linalg::GenericOp op, Value buffer, unsigned rank) {
  if (op.getNumLoops() != rank || op.getNumReductionLoops() != 0 ||
      op.getNumDpsInits() != 1)
    return false;
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, op.getContext());
  bool reads = false;
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == buffer) {
      if (op.getMatchingIndexingMap(input) != id)
        return false;
      reads = true;
    }
  return reads &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)) == id &&
         op.getDpsInitOperand(0)->get() != buffer;
}

/// Fuses around the temporary `alloc` when it is the output of producers
/// (its initialization and a contraction) that one elementwise epilogue
/// reads: the producers then write the epilogue's output, the epilogue
/// updates it in place, and all are one stage group.
bool fuse(memref::AllocOp alloc, int64_t group) {
  Value temp = alloc.getResult();
  SmallVector<linalg::LinalgOp> producers;
  linalg::GenericOp epilogue;
  for (Operation *user : temp.getUsers()) {
    if (isa<memref::DeallocOp>(user))
      continue;
    auto op = dyn_cast<linalg::LinalgOp>(user);
    if (!op || op->getBlock() != alloc->getBlock() ||
        !op.hasPureBufferSemantics())
      return false;
    if (writesInOrder(op, temp)) {
      producers.push_back(op);
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (epilogue || !generic)
      return false;
    epilogue = generic;
  }
  auto type = cast<MemRefType>(temp.getType());
  if (!epilogue || producers.empty() ||
      !isEpilogueOf(epilogue, temp, type.getRank()))
    return false;
  bool contraction = llvm::any_of(producers, [](linalg::LinalgOp op) {
    return op.getNumReductionLoops() > 0;
  });
  Value out = epilogue.getDpsInitOperand(0)->get();
  if (!contraction || out.getType() != temp.getType())
    return false;
  // Producers in block order, all before the epilogue; nothing in between
  // touches the output, which must exist before the first producer.
  llvm::sort(producers, [](linalg::LinalgOp a, linalg::LinalgOp b) {
    return a->isBeforeInBlock(b);
  });
  Operation *first = producers.front();
  if (!llvm::all_of(producers, [&](linalg::LinalgOp p) {
        return p->isBeforeInBlock(epilogue);
      }))
    return false;
  if (Operation *def = out.getDefiningOp())
    if (def->getBlock() != first->getBlock() || !def->isBeforeInBlock(first))
      return false;
  for (Operation *op = first; op != epilogue.getOperation();
       op = op->getNextNode())
    if (llvm::is_contained(op->getOperands(), out))
      return false;
  for (Operation *user : llvm::make_early_inc_range(temp.getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  temp.replaceAllUsesWith(out);
  alloc.erase();
  Builder b(epilogue.getContext());
  for (linalg::LinalgOp p : producers)
    p->setAttr("tessel.stage_group", b.getI64IntegerAttr(group));
  epilogue->setAttr("tessel.stage_group", b.getI64IntegerAttr(group));
  return true;
}

struct FuseEpiloguesPass
    : tessel::impl::FuseEpiloguesPassBase<FuseEpiloguesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isDeclaration())
      return;
    SmallVector<memref::AllocOp> allocs(
        func.getBody().front().getOps<memref::AllocOp>());
    int64_t group = 0;
    for (memref::AllocOp alloc : allocs)
      if (fuse(alloc, group))
        ++group;
  }
};

} // namespace
