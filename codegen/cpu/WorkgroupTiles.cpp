//===- WorkgroupTiles.cpp - The CPU's workgroup tiles ---------------------===//
//
// See Passes.td. A small cost model over the static extents; the tiling
// itself is passes/tiling's.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/Passes.h"
#include "codegen/common/RegisterTile.h"
#include "passes/tiling/Passes.h"
#include "passes/tiling/Tiles.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace tessel {
#define GEN_PASS_DEF_CPUWORKGROUPTILESPASS
#include "codegen/cpu/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// Grid axes: x, y, z.
constexpr unsigned kAxes = 3;

/// One split loop: work dim `dim` in tiles of `tile` iterations.
struct Split {
  unsigned dim;
  int64_t tile;
};

/// The step of loop `dim` in TileAndVectorize's register tile of `op`: two
/// vectors for the loop of its vectors `n` (registerVectorLoop), its rows
/// for its row loop (registerRowLoop), 1 otherwise and for ops without
/// reductions. A workgroup tile is a multiple of it, so that workgroups
/// split a loop between register tiles.
int64_t granule(linalg::LinalgOp op, unsigned dim, unsigned vectorBits) {
  bool reduces = llvm::is_contained(op.getIteratorTypesArray(),
                                    utils::IteratorType::reduction);
  if (!reduces || op.getNumDpsInits() != 1)
    return 1;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (out.getNumResults() == 0 || !out.isProjectedPermutation())
    return 1;
  std::optional<unsigned> vectors = tessel::registerVectorLoop(op, vectorBits);
  if (!vectors)
    return 1;
  unsigned n = *vectors;
  if (dim == n) {
    Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8)
      return 1;
    return tessel::kTileVectors * tessel::lanesOf(element, vectorBits);
  }
  return tessel::registerRowLoop(op, n) == dim
             ? tessel::registerTileRows(vectorBits)
             : 1;
}

/// Per loop of `op`, the static elements of its inputs that loop indexes
/// (0 for loops other than `workDims`): what splitting it partitions, and
/// what a workgroup reads again when a loop it does not index is split.
SmallVector<int64_t> partitionedData(linalg::LinalgOp op,
                                     ArrayRef<int64_t> workDims) {
  SmallVector<int64_t> partitioned(op.getNumLoops(), 0);
  for (OpOperand *in : op.getDpsInputOperands()) {
    auto type = dyn_cast<ShapedType>(in->get().getType());
    if (!type)
      continue;
    int64_t size = 1;
    for (int64_t e : type.getShape())
      if (!ShapedType::isDynamic(e))
        size = std::min<int64_t>(size * e, int64_t(1) << 40);
    for (int64_t d : workDims)
      if (op.getMatchingIndexingMap(in).isFunctionOfDim(d))
        partitioned[d] += size;
  }
  return partitioned;
}

/// Which of the work dims `workDims` (loops) of `op` to split, and by how much, until the grid has
/// about `maxWorkgroups` workgroups of at least
/// `minWork` loop iterations each (counting the reductions). A dynamic dim
/// (a batch, a sequence) is split into tiles of at least `minWork`
/// iterations as far as the static extents tell. Dims that partition the
/// most input data come first; the output's last loop is split only in a
/// MatMul-like op or when it is the only work dim. `partitioned` is
/// partitionedData(op, workDims).
SmallVector<Split> chooseSplits(linalg::LinalgOp op,
                                ArrayRef<int64_t> workDims,
                                ArrayRef<int64_t> partitioned,
                                int64_t maxWorkgroups, int64_t minWork,
                                unsigned vectorBits) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t work = 1;
  for (int64_t r : ranges)
    if (!ShapedType::isDynamic(r))
      work = r > 0 && work > std::numeric_limits<int64_t>::max() / r
                 ? std::numeric_limits<int64_t>::max()
                 : work * r;
  int64_t wanted = std::clamp<int64_t>(work / std::max<int64_t>(minWork, 1),
                                       1, maxWorkgroups);
  SmallVector<Split> splits;
  std::optional<unsigned> contiguous;
  if (op.getNumDpsInits() == 1) {
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    if (out.getNumResults() > 0)
      if (auto d = dyn_cast<AffineDimExpr>(out.getResults().back()))
        contiguous = d.getPosition();
  }
  // The dims that partition the most input data first (outer first among
  // equals): a workgroup then reads its slice of the largest operand, where
  // a split along another dim makes every workgroup stream all of it (a
  // MatMul's weights when its rows are split, a 1x1 Conv's input when its
  // channels are). The output's last loop only in a MatMul-like op (every
  // index a plain loop; a Conv's vectors run along it) or when it is the
  // only work dim.
  bool matmulLike =
      llvm::is_contained(op.getIteratorTypesArray(),
                         utils::IteratorType::reduction) &&
      llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *in) {
        return op.getMatchingIndexingMap(in).isProjectedPermutation();
      });
  SmallVector<unsigned> order;
  for (int64_t d : workDims)
    if (contiguous != d || matmulLike || workDims.size() == 1)
      order.push_back(d);
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return partitioned[a] > partitioned[b];
  });
  for (unsigned d : order) {
    if (splits.size() == kAxes)
      break;
    int64_t extent = ranges[d];
    int64_t step = granule(op, d, vectorBits);
    if (ShapedType::isDynamic(extent)) {
      // Tiles of at least `minWork` iterations, from the static extents of
      // the other loops (the dynamic ones counted as 1).
      int64_t unit = 1;
      for (auto [i, r] : llvm::enumerate(ranges))
        if (i != d && !ShapedType::isDynamic(r))
          unit = std::min<int64_t>(unit * std::max<int64_t>(r, 1), minWork);
      int64_t tile = (minWork + unit - 1) / unit;
      splits.push_back({d, (tile + step - 1) / step * step});
      continue;
    }
    if (wanted <= 1 || extent <= 1)
      continue;
    // The smallest tile (the most workgroups, at most `wanted`, or twice
    // that when nothing divides the extent within it: 7 rows) that
    // divides the extent, so that every tile is full and keeps static
    // sizes; else tiles of about extent / wanted. A partial tile has
    // run-time sizes, and a workgroup temporary of that size run-time
    // strides, which the dot-product tiles refuse (an int8 3x3 Conv at
    // 7x7 whose i32 sums are a temporary, in row tiles of 2, summed one k
    // at a time: 3x slower).
    std::optional<int64_t> tile;
    for (int64_t limit : {wanted, 2 * wanted})
      for (int64_t t = step; t < extent && !tile; t += step)
        if (extent % t == 0 && extent / t <= limit)
          tile = t;
    if (!tile) {
      int64_t t = (extent + wanted - 1) / wanted;
      t = (t + step - 1) / step * step;
      if (t >= extent)
        continue;
      tile = t;
    }
    int64_t count = (extent + *tile - 1) / *tile;
    splits.push_back({d, *tile});
    wanted /= count;
  }
  // Axes in loop order: the tile loops come out that way.
  llvm::sort(splits, [](const Split &a, const Split &b) { return a.dim < b.dim; });
  return splits;
}

/// The op whose shape decides the split of `root`'s group: the contraction
/// below it when it is an elementwise epilogue of the contraction's result
/// (through ops of the group that update it in place, or read it, at the
/// identity of their loops), else itself. An int8 epilogue (i32 sums to a
/// u8 tensor) reads the sums as an input: counted on its own loops it was
/// too little work to split, and ResNet-50's int8 3x3 Convs ran as one
/// workgroup at any thread count.
linalg::LinalgOp decider(linalg::LinalgOp root) {
  auto group = root->getAttr(tessel::kGroupAttr);
  // The producer of `use` when it is in the group and writes its one output
  // at its leading loops, in order, which `op` reads at the identity.
  auto producerAt = [&](linalg::LinalgOp op,
                        OpOperand &use) -> linalg::LinalgOp {
    auto producer = use.get().getDefiningOp<linalg::LinalgOp>();
    if (!producer || producer->getAttr(tessel::kGroupAttr) != group ||
        producer.getNumDpsInits() != 1 ||
        !op.getMatchingIndexingMap(&use).isIdentity())
      return nullptr;
    AffineMap write =
        producer.getMatchingIndexingMap(producer.getDpsInitOperand(0));
    if (write.getNumResults() != op.getNumLoops() ||
        write != AffineMap::getMultiDimIdentityMap(producer.getNumLoops(),
                                                   op.getContext())
                     .getMajorSubMap(op.getNumLoops()))
      return nullptr;
    return producer;
  };
  linalg::LinalgOp op = root;
  while (op.getNumReductionLoops() == 0 && op.getNumDpsInits() == 1) {
    linalg::LinalgOp next = producerAt(op, *op.getDpsInitOperand(0));
    for (OpOperand *in : op.getDpsInputOperands())
      if (!next)
        next = producerAt(op, *in);
    if (!next)
      return root;
    op = next;
  }
  return op;
}

struct CpuWorkgroupTilesPass
    : tessel::impl::CpuWorkgroupTilesPassBase<CpuWorkgroupTilesPass> {
  using CpuWorkgroupTilesPassBase::CpuWorkgroupTilesPassBase;

  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](linalg::LinalgOp root) {
      auto loops = root->getAttrOfType<DenseI64ArrayAttr>(tessel::kLoopsAttr);
      if (!loops)
        return;
      linalg::LinalgOp op = decider(root);
      SmallVector<int64_t> partitioned =
          partitionedData(op, loops.asArrayRef());
      SmallVector<Split> splits =
          chooseSplits(op, loops.asArrayRef(), partitioned, maxWorkgroups,
                       minWork, vectorBits);
      SmallVector<int64_t> tiles(root.getNumLoops(), 0);
      for (const Split &s : splits)
        tiles[s.dim] = s.tile;
      // The group's temporaries, per workgroup: the bytes per unit tile
      // times the tile of every workgroup loop (its extent when whole).
      auto perUnit =
          root->getAttrOfType<IntegerAttr>(tessel::kWorkgroupTempBytesAttr);
      SmallVector<int64_t> ranges = root.getStaticLoopRanges();
      auto axesUsed = [&] {
        return llvm::count_if(tiles, [](int64_t t) { return t != 0; });
      };
      // The group's temporaries need its run-time loops split: in tiles of
      // one where the cost model left them whole, in place of a static
      // split when three axes are taken.
      if (perUnit && perUnit.getInt() > 0) {
        for (int64_t d : loops.asArrayRef()) {
          if (tiles[d] != 0 || !ShapedType::isDynamic(ranges[d]))
            continue;
          if (axesUsed() == 3)
            for (int64_t s : llvm::reverse(loops.asArrayRef()))
              if (tiles[s] != 0 && !ShapedType::isDynamic(ranges[s])) {
                tiles[s] = 0;
                break;
              }
          tiles[d] = 1;
        }
      }
      auto tempBytes = [&] {
        return tessel::workgroupTempBytes(perUnit ? perUnit.getInt() : 0,
                                          loops.asArrayRef(), tiles, ranges);
      };
      bool fits = true;
      while (perUnit && perUnit.getInt() > 0 && tempBytes() > maxTempBytes) {
        // Halve the largest split tile; with none left, split the largest
        // loop left whole while an axis is free.
        std::optional<int64_t> pick;
        for (int64_t d : loops.asArrayRef())
          if (tiles[d] > 1 && (!pick || tiles[d] > tiles[*pick]))
            pick = d;
        if (pick) {
          tiles[*pick] = (tiles[*pick] + 1) / 2;
          continue;
        }
        if (axesUsed() < 3)
          for (int64_t d : loops.asArrayRef())
            if (tiles[d] == 0 && ranges[d] > 1 &&
                (!pick || ranges[d] > ranges[*pick]))
              pick = d;
        if (!pick) {
          fits = false;
          break;
        }
        tiles[*pick] = ranges[*pick] / 2 + 1; // two workgroups
      }
      if (!fits) {
        root.emitError("the workgroup temporaries of this group need ")
            << tempBytes() << " bytes of stack at the least, over the CPU's "
            << static_cast<int64_t>(maxTempBytes);
        failed = true;
        return;
      }
      root->setAttr(tessel::kWorkgroupTilesAttr,
                    DenseI64ArrayAttr::get(root.getContext(), tiles));
      // The grid's fastest axis (the runtime's x, consecutive workgroups of
      // a thread's chunk) on the split loop that partitions the least input
      // data: consecutive workgroups then share their slice of the largest
      // operand, read once from memory and again from cache. In loop order
      // the row tiles of ResNet-50's 3x3 Convs at 7x7 were the slowest
      // axis, and each streamed all 9.4 MB of the weights from memory.
      SmallVector<int64_t> order;
      for (int64_t d : loops.asArrayRef())
        if (tiles[d] != 0)
          order.push_back(d);
      llvm::stable_sort(order, [&](int64_t a, int64_t b) {
        return partitioned[a] < partitioned[b];
      });
      if (order.size() > 1)
        root->setAttr(tessel::kWorkgroupOrderAttr,
                      DenseI64ArrayAttr::get(root.getContext(), order));
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
