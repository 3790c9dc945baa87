//===- FormDispatchRegions.cpp - Elementwise chains as one kernel ---------===//
//
// See Passes.td. Groups are trees: an op joins its only user's group, so a
// group's ops are used inside it except its last op (the root), and all of
// them come before the root in the block. Moving them into a region at the
// root's place therefore keeps every use after its definition.
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

/// Whether `op` computes each result element from the operand elements at
/// the same (broadcast) position, on floats only.
bool isFusibleElementwise(Operation *op) {
  if (!isa<AddOp, SubOp, MulOp, DivOp, PowOp, ReluOp, SigmoidOp, TanhOp,
           SqrtOp, ErfOp, ClipOp, CastOp>(op))
    return false;
  auto isFloatTensor = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && isa<FloatType>(tensor.getElementType());
  };
  return llvm::all_of(op->getOperandTypes(), isFloatTensor) &&
         llvm::all_of(op->getResultTypes(), isFloatTensor);
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
    // The root each op's group ends in: its only user's root.
    DenseMap<Operation *, Operation *> rootOf;
    llvm::MapVector<Operation *, SmallVector<Operation *>> groups;
    for (Operation &op : llvm::reverse(block)) {
      if (!isFusibleElementwise(&op))
        continue;
      Operation *root = &op;
      if (op.hasOneUse()) {
        Operation *user = *op.getUsers().begin();
        auto it = rootOf.find(user);
        if (user->getBlock() == &block && it != rootOf.end())
          root = it->second;
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
