//===- DotTiles.cpp - Register tiles on x86 dot-product instructions ------===//
//
// The int8 (vpdpbusd) and bf16 (vdpbf16ps) register tiles of
// tessel-tile-and-vectorize: which tiles take them (dotTile) and how they
// are emitted (emitDotTile). See DotTiles.h and docs/design.md, section 8.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/DotTiles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <functional>

using namespace mlir;
using namespace tessel;

namespace {

/// The operand `v` of a contraction body extended by an op of type `Ext`
/// from block argument `arg`.
template <typename Ext>
bool isExtensionOf(Value v, BlockArgument arg, Type from, Type to) {
  auto ext = v.getDefiningOp<Ext>();
  return ext && ext.getIn() == arg && arg.getType() == from &&
         ext.getType() == to;
}

/// Whether the body of `op` is `acc + ext(in0) * ext(in1)` of `kind`: a
/// zero-extended u8 times a sign-extended i8 summed in i32 (`unsignedInput`
/// says which input is the u8 one), or bf16 times bf16 summed in f32, and
/// nothing else.
bool isDotBody(linalg::LinalgOp op, DotTile::Kind kind,
               unsigned &unsignedInput) {
  Block *body = op.getBlock();
  if (body->getOperations().size() != 5)
    return false;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  BlockArgument in0 = body->getArgument(0), in1 = body->getArgument(1),
                acc = body->getArgument(2);
  MLIRContext *ctx = op.getContext();
  Operation *sum = yield.getValues().front().getDefiningOp();
  if (!sum || sum->getNumOperands() != 2)
    return false;
  Value product = sum->getOperand(0) == acc   ? sum->getOperand(1)
                  : sum->getOperand(1) == acc ? sum->getOperand(0)
                                              : Value();
  Operation *mul = product ? product.getDefiningOp() : nullptr;
  if (!mul || mul->getNumOperands() != 2)
    return false;
  Value x = mul->getOperand(0), y = mul->getOperand(1);
  if (kind == DotTile::Int8) {
    Type i8 = IntegerType::get(ctx, 8), i32 = IntegerType::get(ctx, 32);
    // `u` extends `a` unsigned and `s` extends `b` signed.
    auto pair = [&](Value u, BlockArgument a, Value s, BlockArgument b) {
      return isExtensionOf<arith::ExtUIOp>(u, a, i8, i32) &&
             isExtensionOf<arith::ExtSIOp>(s, b, i8, i32);
    };
    if (!isa<arith::AddIOp>(sum) || !isa<arith::MulIOp>(mul) ||
        acc.getType() != i32)
      return false;
    if (pair(x, in0, y, in1) || pair(y, in0, x, in1)) {
      unsignedInput = 0;
      return true;
    }
    if (pair(x, in1, y, in0) || pair(y, in1, x, in0)) {
      unsignedInput = 1;
      return true;
    }
    return false;
  }
  Type bf16 = BFloat16Type::get(ctx), f32 = Float32Type::get(ctx);
  auto operands = [&](Value a, Value b) {
    return isExtensionOf<arith::ExtFOp>(a, in0, bf16, f32) &&
           isExtensionOf<arith::ExtFOp>(b, in1, bf16, f32);
  };
  unsignedInput = 0;
  return isa<arith::AddFOp>(sum) && isa<arith::MulFOp>(mul) &&
         acc.getType() == f32 && (operands(x, y) || operands(y, x));
}

/// The strides of memref `v` (ShapedType::kDynamic where only known at
/// run time), if its layout is strided. A dot-product tile needs static
/// strides in the dims it vectorizes and groups only: the others (a
/// sequence-first activation [S, B, K] with a run-time batch) step between
/// rows and tiles.
std::optional<SmallVector<int64_t>> memrefStrides(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || failed(type.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  return strides;
}

} // namespace

std::optional<DotTile> tessel::dotTile(linalg::LinalgOp op,
                                       const RegisterTile &tile,
                                       unsigned vectorBits, bool int8Dot,
                                       bool bf16Dot) {
  if (!tile.m || (vectorBits != 256 && vectorBits != 512) ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !isa<linalg::GenericOp>(op.getOperation()))
    return std::nullopt;
  unsigned m = *tile.m, n = tile.n, numLoops = op.getNumLoops();
  MLIRContext *ctx = op.getContext();
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  std::optional<unsigned> outDim =
      out.getResultPosition(getAffineDimExpr(n, ctx));
  std::optional<SmallVector<int64_t>> outStrides =
      memrefStrides(op.getDpsInitOperand(0)->get());
  if (!outDim || !out.isFunctionOfDim(m) || !out.isProjectedPermutation() ||
      !outStrides || ShapedType::isDynamic((*outStrides)[*outDim]))
    return std::nullopt;
  // The inputs' indices as linear forms; which is the rows', which the
  // vectors'.
  struct Operand {
    unsigned number;
    SmallVector<SmallVector<int64_t>> forms;
    SmallVector<int64_t> strides;
  };
  std::optional<Operand> rows, vectors;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Operand operand{input->getOperandNumber(), {}, {}};
    for (AffineExpr e : op.getMatchingIndexingMap(input).getResults()) {
      std::optional<SmallVector<int64_t>> form = linearForm(e, numLoops);
      if (!form)
        return std::nullopt;
      operand.forms.push_back(*form);
    }
    std::optional<SmallVector<int64_t>> strides = memrefStrides(input->get());
    if (!strides || operand.forms.empty())
      return std::nullopt;
    operand.strides = *strides;
    auto uses = [&](unsigned d) {
      return llvm::any_of(operand.forms,
                          [&](ArrayRef<int64_t> f) { return f[d] != 0; });
    };
    if (uses(m) && !uses(n) && !rows)
      rows = operand;
    else if (uses(n) && !uses(m) && !vectors)
      vectors = operand;
    else
      return std::nullopt;
  }
  if (!rows || !vectors)
    return std::nullopt;
  // The vectors' operand: n in its last dim alone, step 1, contiguous.
  ArrayRef<int64_t> last = vectors->forms.back();
  if (last[n] != 1 || vectors->strides.back() != 1 ||
      llvm::any_of(ArrayRef(vectors->forms).drop_back(),
                   [&](ArrayRef<int64_t> f) { return f[n] != 0; }))
    return std::nullopt;
  // The group's loop: a reduction of more than one step in one dim of the
  // rows' operand, step 1, unit stride, with nothing but `m` beside it,
  // and in the vectors' operand elsewhere than the last dim.
  std::optional<unsigned> k, rowDim;
  for (auto [d, kind] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (kind != utils::IteratorType::reduction ||
        staticLoopExtent(op, d) == std::optional<int64_t>(1) || last[d] != 0 ||
        llvm::none_of(vectors->forms,
                      [&](ArrayRef<int64_t> f) { return f[d] != 0; }))
      continue;
    std::optional<unsigned> dim;
    bool ok = true;
    for (auto [r, f] : llvm::enumerate(rows->forms)) {
      if (!f[d])
        continue;
      bool alone = llvm::all_of(llvm::enumerate(f), [&](auto entry) {
        auto [loop, c] = entry;
        return c == 0 || loop == d || loop == m;
      });
      ok = ok && !dim && f[d] == 1 && rows->strides[r] == 1 && alone;
      dim = r;
    }
    if (ok && dim) {
      if (k)
        return std::nullopt;
      k = d;
      rowDim = dim;
    }
  }
  if (!k)
    return std::nullopt;
  unsigned unsignedInput = 0;
  // Inside another reduction of more than one step (a Conv's kernel rows),
  // a last partial group would be an ordinary tile beside the dot tile in
  // the same loop, each keeping the outputs in registers of its own: the
  // group must divide k's extent there.
  auto divides = [&](int64_t group) {
    std::optional<int64_t> extent = staticLoopExtent(op, *k);
    if (extent && *extent % group == 0)
      return true;
    for (auto [d, kind] : llvm::enumerate(op.getIteratorTypesArray()))
      if (d != *k && kind == utils::IteratorType::reduction &&
          staticLoopExtent(op, d) != std::optional<int64_t>(1))
        return false;
    return true;
  };
  if (int8Dot && divides(4) && isDotBody(op, DotTile::Int8, unsignedInput))
    return DotTile{DotTile::Int8,
                   m,
                   *k,
                   4,
                   rows->number,
                   vectors->number,
                   *rowDim,
                   *outDim,
                   unsignedInput == rows->number};
  if (bf16Dot && divides(2) && isDotBody(op, DotTile::BF16, unsignedInput))
    return DotTile{DotTile::BF16,   m,       *k,      2,    rows->number,
                   vectors->number, *rowDim, *outDim, false};
  return std::nullopt;
}

LogicalResult tessel::emitDotTile(RewriterBase &rewriter, linalg::GenericOp op,
                                  const RegisterTile &tile, const DotTile &dot,
                                  unsigned vectorBits, int64_t rows,
                                  int64_t extent) {
  Value rowOperand = op.getDpsInputOperand(dot.rowInput)->get();
  Value vectorOperand = op.getDpsInputOperand(dot.vectorInput)->get();
  Value out = op.getDpsInitOperand(0)->get();
  std::optional<SmallVector<int64_t>> rowStrides = memrefStrides(rowOperand);
  std::optional<SmallVector<int64_t>> vectorStrides =
      memrefStrides(vectorOperand);
  std::optional<SmallVector<int64_t>> outStrides = memrefStrides(out);
  if (!rowStrides || (*rowStrides)[dot.rowDim] != 1 || !vectorStrides ||
      vectorStrides->back() != 1 || !outStrides ||
      ShapedType::isDynamic((*outStrides)[dot.outDim]))
    return failure();
  // Output vectors along a dim other than the last (a Conv's channels)
  // are read and written element by element, once per tile.
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Type i8 = rewriter.getI8Type(), i16 = rewriter.getI16Type(),
       i32 = rewriter.getI32Type();
  bool int8 = dot.kind == DotTile::Int8;
  Type element = int8 ? i8 : Type(BFloat16Type::get(ctx));
  Type accElement = int8 ? i32 : Type(rewriter.getF32Type());
  int64_t lanes = vectorBits / 32, width = tile.sizes[tile.n];
  int64_t group = dot.group;
  unsigned numLoops = op.getNumLoops();
  // Indices of `map` (linear) with loop m at `row`, n at `col`, k at `kk`
  // and every other loop at 0 (the tile's views start at its origin).
  auto at = [&](AffineMap map, int64_t row, int64_t col, int64_t kk) {
    SmallVector<OpFoldResult> indices;
    for (AffineExpr e : map.getResults()) {
      SmallVector<int64_t> form = *linearForm(e, numLoops);
      int64_t v = form[dot.m] * row + form[tile.n] * col + form[dot.k] * kk;
      indices.push_back(rewriter.getIndexAttr(v));
    }
    return indices;
  };
  auto values = [&](ArrayRef<OpFoldResult> indices) {
    SmallVector<Value> v;
    for (OpFoldResult index : indices)
      v.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, index));
    return v;
  };
  // The 1-d view of `memref` at `offsets` along `dim`, `size` elements.
  auto line = [&](Value memref, ArrayRef<OpFoldResult> offsets, unsigned dim,
                  int64_t size) {
    SmallVector<OpFoldResult> sizes(offsets.size(), rewriter.getIndexAttr(1)),
        strides(offsets.size(), rewriter.getIndexAttr(1));
    sizes[dim] = rewriter.getIndexAttr(size);
    auto type = memref::SubViewOp::inferRankReducedResultType(
        {size}, cast<MemRefType>(memref.getType()), offsets, sizes, strides);
    return memref::SubViewOp::create(rewriter, loc, cast<MemRefType>(type),
                                     memref, offsets, sizes, strides)
        .getResult();
  };
  AffineMap rowMap =
      op.getMatchingIndexingMap(op.getDpsInputOperand(dot.rowInput));
  AffineMap vectorMap =
      op.getMatchingIndexingMap(op.getDpsInputOperand(dot.vectorInput));
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto vec = [](int64_t size, Type t) { return VectorType::get({size}, t); };
  // Element i of the result is element i / 2 of `a` when i is even, of
  // `b` when odd.
  auto interleave = [&](Value a, Value b) {
    return vector::InterleaveOp::create(rewriter, loc, a, b).getResult();
  };
  auto bitcast = [&](Value v, VectorType to) {
    return vector::BitCastOp::create(rewriter, loc, to, v).getResult();
  };
  // The vector operand: the group's rows of `width` elements, interleaved
  // into 32-bit lanes of one column each (bytes 0-3 of lane c are rows 0-3
  // of column c), then split into vectors.
  // A partial tile (`extent` < `width` columns) reads its columns masked
  // (the others 0) and its output vectors bounded.
  SmallVector<Value> groupRows;
  Value padding = arith::ConstantOp::create(rewriter, loc, element,
                                            rewriter.getZeroAttr(element));
  for (int64_t kk = 0; kk < group; ++kk) {
    SmallVector<Value> indices = values(at(vectorMap, 0, 0, kk));
    groupRows.push_back(
        extent == width
            ? vector::LoadOp::create(rewriter, loc, vec(width, element),
                                     vectorOperand, indices)
                  .getResult()
            : vector::TransferReadOp::create(rewriter, loc, vec(width, element),
                                             vectorOperand, indices, padding,
                                             ArrayRef<bool>{false})
                  .getResult());
  }
  VectorType operandType =
      vec(vectorBits / element.getIntOrFloatBitWidth(), element);
  SmallVector<Value> columns;
  if (dot.gather != DotTile::Interleave && vectorBits == 512 &&
      width == 2 * lanes) {
    // One two-source permute per vector of columns from the group's rows
    // (concatenated in pairs): about 3 register moves per vector where the
    // interleaves below take about 10 (LLVM splits any generic shuffle of
    // bytes back into unpacks, hence the intrinsics). Byte g of lane c of
    // vector j is row g of column j * lanes + c.
    bool bytes = int8 && dot.gather == DotTile::BytePermute;
    Type unit = bytes ? i8 : i16;
    int64_t units = vectorBits / unit.getIntOrFloatBitWidth();
    VectorType unitType = vec(units, unit);
    auto concat = [&](Value a, Value b) {
      auto type = cast<VectorType>(a.getType());
      SmallVector<int64_t> mask =
          llvm::to_vector(llvm::seq<int64_t>(0, 2 * type.getNumElements()));
      return vector::ShuffleOp::create(rewriter, loc, a, b, mask).getResult();
    };
    // The two sources, and where column c's group (its 16-bit half `half`
    // for int8 by words) is in them (an index of the pair, second + units).
    Value first, second;
    std::function<int64_t(int64_t c, int64_t g)> source;
    if (bytes) {
      // vpermi2b: [r0 r1] and [r2 r3], `width` bytes each.
      first = concat(groupRows[0], groupRows[1]);
      second = concat(groupRows[2], groupRows[3]);
      source = [&](int64_t c, int64_t g) {
        return (g / 2) * units + (g % 2) * width + c;
      };
    } else if (int8) {
      // vpunpck{l,h}bw of [r0 r2] and [r1 r3] pair the bytes of rows 0-1
      // and 2-3 per 128-bit lane; vpermi2w then picks the pairs. Lane q
      // of the low unpack holds columns 16 * (q % 2) + 0..7 of rows
      // 2 * (q / 2) + 0..1, the high one columns 8..15 of each.
      Value x = concat(groupRows[0], groupRows[2]);
      Value y = concat(groupRows[1], groupRows[3]);
      SmallVector<int64_t> low, high;
      for (int64_t q = 0; q < 4; ++q)
        for (int64_t i = 0; i < 8; ++i) {
          low.append({q * 16 + i, 2 * width + q * 16 + i});
          high.append({q * 16 + 8 + i, 2 * width + q * 16 + 8 + i});
        }
      first = bitcast(
          vector::ShuffleOp::create(rewriter, loc, x, y, low).getResult(),
          unitType);
      second = bitcast(
          vector::ShuffleOp::create(rewriter, loc, x, y, high).getResult(),
          unitType);
      source = [&](int64_t c, int64_t half) {
        return (c % 16 < 8 ? 0 : units) + (c / 16) * 8 + c % 8 + 16 * half;
      };
    } else {
      // bf16, vpermi2w: r0 and r1, `width` words each.
      first = bitcast(groupRows[0], unitType);
      second = bitcast(groupRows[1], unitType);
      source = [&](int64_t c, int64_t g) { return g * units + c; };
    }
    // Units of a 32-bit lane taken from the sources: 4 bytes, or 2 words
    // (bf16 values, int8 pairs).
    int64_t perLane = 32 / unit.getIntOrFloatBitWidth();
    std::string permute = bytes ? "llvm.x86.avx512.vpermi2var.qi.512"
                                : "llvm.x86.avx512.vpermi2var.hi.512";
    for (int64_t j = 0; j < width / lanes; ++j) {
      SmallVector<Attribute> index;
      for (int64_t c = 0; c < lanes; ++c)
        for (int64_t g = 0; g < perLane; ++g)
          index.push_back(
              rewriter.getIntegerAttr(unit, source(j * lanes + c, g)));
      Value indices = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(unitType, index));
      Value part = LLVM::CallIntrinsicOp::create(
                       rewriter, loc, unitType,
                       rewriter.getStringAttr(permute),
                       ValueRange{first, indices, second})
                       ->getResult(0);
      columns.push_back(bitcast(part, operandType));
    }
  } else {
    Value packed;
    if (int8) {
      Value low = interleave(groupRows[0], groupRows[1]);
      Value high = interleave(groupRows[2], groupRows[3]);
      packed = interleave(bitcast(low, vec(width, i16)),
                          bitcast(high, vec(width, i16)));
    } else {
      packed = interleave(bitcast(groupRows[0], vec(width, i16)),
                          bitcast(groupRows[1], vec(width, i16)));
    }
    // 16-bit lanes now; as the instruction's operand type.
    int64_t operandWords = vectorBits / 16;
    for (int64_t j = 0; j < width / lanes; ++j) {
      Value part = vector::ExtractStridedSliceOp::create(
          rewriter, loc, packed, ArrayRef<int64_t>{j * operandWords},
          ArrayRef<int64_t>{operandWords}, ArrayRef<int64_t>{1});
      columns.push_back(bitcast(part, operandType));
    }
  }
  std::string intrinsic =
      (int8 ? "llvm.x86.avx512.vpdpbusd." : "llvm.x86.avx512bf16.dpbf16ps.") +
      std::to_string(vectorBits);
  VectorType accType = vec(lanes, accElement);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  // The accumulators: the whole tile (its rows by `width`) in one 2-d
  // transfer of the view, mask and padding that a vectorized epilogue's
  // slice of the tile reads (tileView), so that forwardTileWrites hands it
  // the sums in registers; by rows of single vectors where the output's
  // rows do not come before its vectors.
  int64_t tileRows = tile.sizes[dot.m];
  FailureOr<std::pair<Value, AffineMap>> whole =
      tessel::tileView(rewriter, loc, out, outMap, {dot.m, tile.n});
  Value tileAcc, tileMask;
  SmallVector<Value> tileIndices = {zero, zero};
  ArrayAttr tileInBounds = rewriter.getBoolArrayAttr({true, true});
  if (succeeded(whole) && !whole->second.isIdentity())
    whole = failure();
  if (succeeded(whole)) {
    if (rows < tileRows || extent < width)
      tileMask = vector::ConstantMaskOp::create(
          rewriter, loc, VectorType::get({tileRows, width}, rewriter.getI1Type()),
          ArrayRef<int64_t>{rows, extent});
    tileAcc = vector::TransferReadOp::create(
        rewriter, loc, VectorType::get({tileRows, width}, accElement),
        whole->first, tileIndices, whole->second,
        ub::PoisonOp::create(rewriter, loc, accElement), tileMask,
        tileInBounds);
  }
  for (int64_t r = 0; r < rows; ++r) {
    Value groupView = line(rowOperand, at(rowMap, r, 0, 0), dot.rowDim, group);
    Value group32 =
        bitcast(vector::LoadOp::create(rewriter, loc, vec(group, element),
                                       groupView, ValueRange{zero}),
                vec(1, i32));
    Value row = bitcast(
        vector::BroadcastOp::create(rewriter, loc, vec(lanes, i32), group32),
        operandType);
    Value rowAcc =
        tileAcc ? vector::ExtractOp::create(rewriter, loc, tileAcc, r)
                      .getResult()
                : Value();
    for (auto [j, column] : llvm::enumerate(columns)) {
      int64_t first = int64_t(j) * lanes;
      if (first >= extent)
        break;
      int64_t size = std::min(lanes, extent - first);
      Value view, acc;
      if (rowAcc) {
        acc = vector::ExtractStridedSliceOp::create(
            rewriter, loc, rowAcc, ArrayRef<int64_t>{first},
            ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1});
      } else {
        view = line(out, at(outMap, r, first, 0), dot.outDim, size);
        acc = vector::TransferReadOp::create(
            rewriter, loc, accType, view, ValueRange{zero},
            /*padding=*/std::nullopt, ArrayRef<bool>{size == lanes});
      }
      // vpdpbusd's first multiplicand is the unsigned one.
      Value a = dot.rowUnsigned || !int8 ? row : column;
      Value b = a == row ? column : row;
      Value sum = LLVM::CallIntrinsicOp::create(
                      rewriter, loc, accType, rewriter.getStringAttr(intrinsic),
                      ValueRange{acc, a, b})
                      ->getResult(0);
      if (rowAcc)
        rowAcc = vector::InsertStridedSliceOp::create(
            rewriter, loc, sum, rowAcc, ArrayRef<int64_t>{first},
            ArrayRef<int64_t>{1});
      else
        vector::TransferWriteOp::create(rewriter, loc, sum, view,
                                        ValueRange{zero},
                                        ArrayRef<bool>{size == lanes});
    }
    if (tileAcc)
      tileAcc = vector::InsertOp::create(rewriter, loc, rowAcc, tileAcc, r);
  }
  if (tileAcc)
    vector::TransferWriteOp::create(rewriter, loc, tileAcc, whole->first,
                                    tileIndices,
                                    AffineMapAttr::get(whole->second),
                                    tileMask, tileInBounds);
  rewriter.eraseOp(op);
  return success();
}

std::optional<std::pair<int64_t, int64_t>>
tessel::dotTileShape(linalg::GenericOp op, const RegisterTile &tile,
                     const DotTile &dot) {
  SmallVector<int64_t> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).getStaticLoopRanges();
  for (auto [d, extent] : llvm::enumerate(ranges)) {
    if (ShapedType::isDynamic(extent))
      return std::nullopt;
    int64_t want = d == dot.k ? dot.group : tile.sizes[d];
    if (d == dot.m || d == tile.n ? extent > want : extent != want)
      return std::nullopt;
  }
  return std::make_pair(ranges[dot.m], ranges[tile.n]);
}

FailureOr<linalg::GenericOp> tessel::stepReduction(RewriterBase &rewriter,
                                                   linalg::GenericOp op,
                                                   unsigned k) {
  FailureOr<linalg::LinalgOp> stepped = tileOneLoop(rewriter, op, k, 1);
  if (failed(stepped))
    return failure();
  return cast<linalg::GenericOp>(stepped->getOperation());
}
