//===- FormDispatchRegions.cpp - Fusible neighbours as one kernel ---------===//
//
// See Passes.td. An op joins a group when every user of it is in that one
// group, so a group's ops are used inside it except its last op (the
// root), and all of them come before the root in the block. Moving them
// into a region at the root's place therefore keeps every use after its
// definition.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Graph/TesselDialect.h"

#include "llvm/ADT/MapVector.h"

namespace tessel {
#define GEN_PASS_DEF_FORMDISPATCHREGIONSPASS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

bool isFloatTensor(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// A reduction along static axes (LayerNormalization's statistics are).
bool isReduction(Operation *op) {
  return isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, SoftmaxOp,
             LayerNormOp>(op);
}

/// An integer Conv or MatMul (int8 quantization): integer operands, the
/// accumulator's integer result.
bool isIntegerContraction(Operation *op) {
  if (!isa<ConvOp, MatMulOp>(op))
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return type && isa<IntegerType>(type.getElementType()) &&
         !type.getElementType().isInteger(64);
}

/// A cast that quantizes the input of integer contractions (float to
/// integer, every user one) or dequantizes the result of one (integer to
/// float): these integers are tensors, not the shape arithmetic
/// partitioning evaluates on the host, so they fuse like float ops.
bool isQuantizationCast(Operation *op) {
  auto castOp = dyn_cast<CastOp>(op);
  if (!castOp)
    return false;
  if (isFloatTensor(castOp.getInput().getType()))
    return !castOp->use_empty() &&
           llvm::all_of(castOp->getUsers(), isIntegerContraction);
  Operation *def = castOp.getInput().getDefiningOp();
  return def && isIntegerContraction(def) &&
         isFloatTensor(castOp.getType());
}

/// Whether `op` may be part of a dispatch region: an elementwise op
/// (ElementwiseOp) or a reduction, on floats only, or a quantization cast.
bool isFusible(Operation *op) {
  if (isQuantizationCast(op))
    return true;
  if (!isa<ElementwiseOp>(op) && !isReduction(op))
    return false;
  return llvm::all_of(op->getOperandTypes(), isFloatTensor) &&
         llvm::all_of(op->getResultTypes(), isFloatTensor);
}

/// A Conv, MatMul or Gemm on floats, or an integer one: it may join a
/// region of elementwise ops that consume it (its epilogue: bias,
/// activation, residual Add, dequantization).
bool isContraction(Operation *op) {
  return (isa<ConvOp, MatMulOp, GemmOp>(op) &&
          llvm::all_of(op->getResultTypes(), isFloatTensor)) ||
         isIntegerContraction(op);
}

struct FormDispatchRegionsPass
    : tessel::impl::FormDispatchRegionsPassBase<FormDispatchRegionsPass> {
  void runOnOperation() override {
    // Blocks of the graph function and of control-flow regions alike.
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks)
      formRegions(*block);
  }

  void formRegions(Block &block) {
    // The last op of each op's group (its root), and the groups.
    DenseMap<Operation *, Operation *> rootOf;
    llvm::MapVector<Operation *, SmallVector<Operation *>> groups;
    // Groups with a reduction, and groups closed by their contraction (a
    // contraction joins only a group of elementwise ops: its epilogue).
    llvm::SmallPtrSet<Operation *, 8> withReduction, withContraction;
    // The root of the group of every user of `op`, if they share one.
    auto usersRoot = [&](Operation &op) -> Operation * {
      Operation *shared = nullptr;
      for (Operation *user : op.getUsers()) {
        auto it = rootOf.find(user);
        if (user->getBlock() != &block || it == rootOf.end() ||
            (shared && shared != it->second))
          return nullptr;
        shared = it->second;
      }
      return shared;
    };
    for (Operation &op : llvm::reverse(block)) {
      bool contraction = isContraction(&op);
      if (!isFusible(&op) && !contraction)
        continue;
      // A group is closed once it has its contraction: what comes before
      // the contraction (its inputs) is no epilogue.
      Operation *root = usersRoot(op);
      if (!root || withContraction.contains(root))
        root = &op;
      if (contraction) {
        // Never a region of its own, nor the epilogue of a reduction.
        if (root == &op || withReduction.contains(root))
          continue;
        withContraction.insert(root);
      } else if (isReduction(&op)) {
        withReduction.insert(root);
      }
      rootOf[&op] = root;
      groups[root].push_back(&op);
    }
    for (auto &[root, members] : groups) {
      if (members.size() < 2)
        continue;
      // Members were collected last first.
      std::reverse(members.begin(), members.end());
      SmallVector<Location> locs;
      for (Operation *op : members)
        locs.push_back(op->getLoc());
      MLIRContext *context = root->getContext();
      Location loc = FusedLoc::get(context, locs,
                                   StringAttr::get(context, kDispatchRegionLoc));
      OpBuilder b(root);
      auto region =
          DispatchRegionOp::create(b, loc, root->getResultTypes());
      Block *body = new Block;
      region.getBody().push_back(body);
      for (Operation *op : members)
        op->moveBefore(body, body->end());
      root->replaceAllUsesWith(region.getResults());
      b.setInsertionPointToEnd(body);
      YieldOp::create(b, loc, root->getResults());
    }
  }
};

} // namespace
