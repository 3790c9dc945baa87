//===- IndexBodies.cpp - Ops that move elements by index, as bodies --------===//
//
// Ops that read or write elements at positions an index tensor gives
// (ScatterElements, Scatter, ScatterND, TensorScatter, GatherND) or that
// compute (Col2Im): each body
// is its specification's meaning (ONNX 1.22) in ONNX text. See
// BodyBuilders.h.
//
// A scatter is written as a masked reduction: every output position
// compares itself with the target of every update (an Equal over the pairs)
// and reduces the updates that hit it with the op's reduction, starting
// from the data element (add: data + sum, mul: data * product, max, min).
// Without a reduction the last update that hits a position wins, as in
// ONNX's reference (its loop writes them in order). Exact, and a fused
// kernel's job to make fast: the pairs cost (output positions) x (updates)
// where a scatter kernel costs the updates (issue 23).
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <iterator>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

/// The reduction attribute: "none", "add", "mul", "max" or "min" (max and
/// min from opset 18), or an error.
bool reductionAttribute(const Call &c, std::string &reduction,
                        std::string &error) {
  reduction = c.attr.s("reduction", "none");
  bool known = reduction == "none" || reduction == "add" ||
               reduction == "mul" ||
               (c.opset >= 18 && (reduction == "max" || reduction == "min"));
  if (!known)
    error = "reduction '" + reduction + "' is not one of none, add, mul" +
            (c.opset >= 18 ? ", max, min" : "") + " (opset " +
            std::to_string(c.opset) + ")";
  return known;
}

/// Writes `Result` from the pairs mask `Mask` (output positions along
/// `outAxis`, updates along `outAxis + 1`), the updates `UpdU` and the data
/// `Base` (both broadcasting over the pairs; `BaseU` is Base with a unit
/// dim for the updates), reducing over the updates with `reduction`.
/// `UPos` numbers the updates along that dim (for "none": the last wins).
void scatterReduce(onnx::FunctionBuilder &b, const std::string &reduction,
                   int64_t outAxis) {
  b.Const("UpdAxis", std::vector<int64_t>{outAxis + 1})
      .Const("ZeroF", 0.0f)
      .Const("OneF", 1.0f);
  if (reduction == "add" || reduction == "mul") {
    bool add = reduction == "add";
    text(b, std::string(R"(
      Neutral = CastLike ()") + (add ? "ZeroF" : "OneF") + R"(, Base)
      Picked = Where (Mask, UpdU, Neutral)
      Combined = )" + (add ? "ReduceSum" : "ReduceProd") +
                R"( <keepdims = 0> (Picked, UpdAxis)
      Result = )" + (add ? "Add" : "Mul") + R"( (Base, Combined)
    )");
    return;
  }
  if (reduction == "max" || reduction == "min") {
    // The data element stands in for the updates that miss, and takes
    // part with those that hit.
    bool max = reduction == "max";
    text(b, R"(
      Picked = Where (Mask, UpdU, BaseU)
      Combined = )" + std::string(max ? "ReduceMax" : "ReduceMin") +
                R"( <keepdims = 0> (Picked, UpdAxis)
      Result = )" + std::string(max ? "Max" : "Min") + R"( (Base, Combined)
    )");
    return;
  }
  // none: the last update hitting a position, else the data element.
  b.Const("MinusOne", int64_t(-1));
  text(b, R"(
    Numbered = Where (Mask, UPos, MinusOne)
    Last = ReduceMax <keepdims = 1> (Numbered, UpdAxis)
    IsLast = Equal (UPos, Last)
    ZeroX = CastLike (ZeroF, Base)
    Chosen = Where (IsLast, UpdU, ZeroX)
    Value = ReduceSum <keepdims = 0> (Chosen, UpdAxis)
    LastS = Squeeze (Last, UpdAxis)
    Hit = Greater (LastS, MinusOne)
    Result = Where (Hit, Value, Base)
  )");
}

/// Indices as int64 with negative ones counted from `Extent`'s end (Extent
/// broadcasting against them): `out`.
void wrapIndices(onnx::FunctionBuilder &b, const std::string &out,
                 const std::string &indices, const std::string &extent) {
  b.Const(out + "Zero", int64_t(0));
  text(b, out + "I = Cast <to = 7> (" + indices + ")\n" + out + "Neg = Less (" +
              out + "I, " + out + "Zero)\n" + out + "Wrapped = Add (" + out +
              "I, " + extent + ")\n" + out + " = Where (" + out + "Neg, " +
              out + "Wrapped, " + out + "I)");
}

/// The index tuples of `indices` (last dim k) as rows of data viewed
/// [P, S] from dim `batch` on: Head (data's dims [batch, batch + k)), P1
/// (their product), S1 (the product of the dims after them, [1] when none),
/// Tail (those dims, when any) and Linear (each tuple's row-major position
/// among the P, negative entries counted from the end), the shape of
/// indices without its last dim.
void tupleRows(onnx::FunctionBuilder &b, int64_t batch, int64_t k,
               int64_t rank) {
  auto shape = [](const std::string &out, int64_t start, int64_t end) {
    return out + " = Shape <start = " + std::to_string(start) +
           (end >= 0 ? ", end = " + std::to_string(end) : std::string()) +
           "> (data)\n";
  };
  b.Const("OneV", std::vector<int64_t>{1})
      .Const("LastAxis", std::vector<int64_t>{-1});
  text(b, shape("Head", batch, batch + k) +
              "P1 = ReduceProd <keepdims = 1> (Head)");
  if (batch + k < rank)
    text(b, shape("Tail", batch + k, -1) +
                "S1 = ReduceProd <keepdims = 1> (Tail)");
  else
    b.Add("S1 = Identity (OneV)");
  std::string strides;
  for (int64_t j = 0; j < k; ++j) {
    std::string s = "Stride" + std::to_string(j);
    if (j + 1 == k)
      text(b, s + " = Identity (OneV)");
    else
      text(b, shape(s + "D", batch + j + 1, batch + k) + s +
                  " = ReduceProd <keepdims = 1> (" + s + "D)");
    strides += (j ? ", " : "") + s;
  }
  text(b, "Strides = Concat <axis = 0> (" + strides + ")");
  wrapIndices(b, "Tuples", "indices", "Head");
  b.Add(R"(
    Scaled = Mul (Tuples, Strides)
    Linear = ReduceSum <keepdims = 0> (Scaled, LastAxis)
  )");
}

// ScatterElements (11-18) and Scatter (9-10, and later as the deprecated
// alias): output[..., indices[u], ...] (along the axis) combines
// updates[u]; the other coordinates are the update's own. Over the
// updates' extent in the other dims and the data's along the axis, the
// pairs (output position p, update position u) along the axis hit where
// indices[u] == p. Updates may be smaller than the data in the other dims:
// the result then covers that corner, padded and placed over the data.
bool buildScatterElements(const Call &c, onnx::FunctionBuilder &b,
                          std::string &error) {
  int64_t rank, axis;
  std::string reduction = "none";
  if (!knownRank(c, 0, rank, error) ||
      !axisAttribute(c, "axis", 0, rank, axis, error) ||
      (c.node.op_type() != "Scatter" && !reductionAttribute(c, reduction, error)))
    return false;
  if (rank == 0 || c.rank(1) != rank || c.rank(2) != rank) {
    error = "data, indices and updates must have one rank (>= 1)";
    return false;
  }
  // Whether updates cover the data in every dim but the axis.
  bool covers = true;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && (c.extent(0, d) < 0 || c.extent(0, d) != c.extent(2, d)))
      covers = false;
  int64_t after = rank - 1 - axis;
  b.Const("Zero", int64_t(0)).Const("One", int64_t(1))
      .Const("AxisAt", std::vector<int64_t>{axis})
      .Const("NextAxis", std::vector<int64_t>{axis + 1});
  text(b, "Da1 = Shape <start = " + std::to_string(axis) + ", end = " +
              std::to_string(axis + 1) + "> (data)\n" +
              "Ua1 = Shape <start = " + std::to_string(axis) + ", end = " +
              std::to_string(axis + 1) + "> (updates)");
  text(b, R"(
    Da = Squeeze (Da1)
    Ua = Squeeze (Ua1)
    OutPositions = Range (Zero, Da, One)
    UpdPositions = Range (Zero, Ua, One)
  )");
  wrapIndices(b, "Target", "indices", "Da");
  alongDim(b, "P", "OutPositions", after + 1);
  alongDim(b, "UPos", "UpdPositions", after);
  if (covers) {
    b.Add("Base = Identity (data)");
  } else {
    // The corner of data the updates reach: their extents, the data's
    // along the axis.
    b.Const("Starts", std::vector<int64_t>(rank, 0));
    b.Add("DShape = Shape (data)\nUShape = Shape (updates)");
    b.Const("RankI", int64_t(rank)).Const("AxisI", int64_t(axis));
    text(b, R"(
      Dims2 = Range (Zero, RankI, One)
      AtAxis = Equal (Dims2, AxisI)
      Ends = Where (AtAxis, DShape, UShape)
      Base = Slice (data, Starts, Ends)
    )");
  }
  text(b, R"(
    TargetU = Unsqueeze (Target, AxisAt)
    Mask = Equal (TargetU, P)
    UpdU = Unsqueeze (updates, AxisAt)
    BaseU = Unsqueeze (Base, NextAxis)
  )");
  scatterReduce(b, reduction, axis);
  if (covers) {
    b.Add("output = Identity (Result)");
    return true;
  }
  // Pad the corner to the data's shape and keep data outside it.
  text(b, R"(
    Missing = Sub (DShape, Ends)
    ZerosR = Sub (Ends, Ends)
    Pads = Concat <axis = 0> (ZerosR, Missing)
    Padded = Pad (Result, Pads)
    Inside = Constant <value = bool {1}> ()
  )");
  std::string inside = "Inside";
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis)
      continue;
    std::string s = std::to_string(d);
    text(b, "Ud" + s + "1 = Shape <start = " + s + ", end = " +
                std::to_string(d + 1) + "> (updates)\nDd" + s +
                "1 = Shape <start = " + s + ", end = " + std::to_string(d + 1) +
                "> (data)\nDd" + s + " = Squeeze (Dd" + s + "1)\nUd" + s +
                " = Squeeze (Ud" + s + "1)\nRow" + s + " = Range (Zero, Dd" +
                s + ", One)");
    alongDim(b, "RowA" + s, "Row" + s, rank - 1 - d);
    text(b, "In" + s + " = Less (RowA" + s + ", Ud" + s + ")\nInside" + s +
                " = And (" + inside + ", In" + s + ")");
    inside = "Inside" + s;
  }
  text(b, "output = Where (" + inside + ", Padded, data)");
  return true;
}

// ScatterND (11-18): data viewed as [P, S] (P the positions the index
// tuples of length k address, S the elements of each slice), the index
// tuples as linear positions L[m] of M updates [M, S]; the pairs [P, M] hit
// where L[m] == p.
bool buildScatterND(const Call &c, onnx::FunctionBuilder &b,
                    std::string &error) {
  int64_t rank, q;
  std::string reduction;
  if (!knownRank(c, 0, rank, error) || !knownRank(c, 1, q, error) ||
      !reductionAttribute(c, reduction, error))
    return false;
  int64_t k = q >= 1 ? c.extent(1, q - 1) : -1;
  if (k < 1 || k > rank) {
    error = "the last dim of indices must be static and in [1, rank of data]";
    return false;
  }
  b.Const("Zero", int64_t(0)).Const("One", int64_t(1))
      .Const("MinusOneV", std::vector<int64_t>{-1})
      .Const("Axis0", std::vector<int64_t>{0})
      .Const("Axis1", std::vector<int64_t>{1})
      .Const("Axis2", std::vector<int64_t>{2});
  tupleRows(b, 0, k, rank);
  text(b, R"(
    DShape = Shape (data)
    Flat = Concat <axis = 0> (P1, S1)
    Base = Reshape (data, Flat)
    L = Reshape (Linear, MinusOneV)
    UFlat = Concat <axis = 0> (MinusOneV, S1)
    U2 = Reshape (updates, UFlat)
    M1 = Shape (L)
    M = Squeeze (M1)
    P = Squeeze (P1)
    OutPositions = Range (Zero, P, One)
    UpdPositions = Range (Zero, M, One)
    PCol = Unsqueeze (OutPositions, Axis1)
    LRow = Unsqueeze (L, Axis0)
    Pairs = Equal (PCol, LRow)
    Mask = Unsqueeze (Pairs, Axis2)
    UpdU = Unsqueeze (U2, Axis0)
    BaseU = Unsqueeze (Base, Axis1)
    UPosRow = Unsqueeze (UpdPositions, Axis0)
    UPos = Unsqueeze (UPosRow, Axis2)
  )");
  scatterReduce(b, reduction, 0);
  b.Add("output = Reshape (Result, DShape)");
  return true;
}

// TensorScatter (24): a KV cache update. update's slice t along the axis
// goes to position write_indices[b] + t of batch b (modulo the cache's
// extent in circular mode); every other dim matches the cache. The pairs
// (cache position p, update position t) along the axis hit where
// p == target(b, t).
bool buildTensorScatter(const Call &c, onnx::FunctionBuilder &b,
                        std::string &error) {
  int64_t rank, axis;
  if (!knownRank(c, 0, rank, error) ||
      !axisAttribute(c, "axis", -2, rank, axis, error))
    return false;
  if (axis == 0 || c.rank(1) != rank) {
    error = "past_cache and update must have one rank, and the axis must "
            "not be the batch dim 0";
    return false;
  }
  std::string mode = c.attr.s("mode", "linear");
  if (mode != "linear" && mode != "circular") {
    error = "mode '" + mode + "' is not linear or circular";
    return false;
  }
  int64_t after = rank - 1 - axis;
  b.Const("Zero", int64_t(0)).Const("One", int64_t(1))
      .Const("AxisAt", std::vector<int64_t>{axis})
      .Const("NextAxis", std::vector<int64_t>{axis + 1});
  text(b, "S1 = Shape <start = " + std::to_string(axis) + ", end = " +
              std::to_string(axis + 1) + "> (past_cache)\nT1 = Shape <start = " +
              std::to_string(axis) + ", end = " + std::to_string(axis + 1) +
              "> (update)\nB1 = Shape <start = 0, end = 1> (past_cache)");
  text(b, R"(
    S = Squeeze (S1)
    T = Squeeze (T1)
    CachePositions = Range (Zero, S, One)
    UpdPositions = Range (Zero, T, One)
  )");
  if (c.hasInput(2)) {
    b.Add("Writes = Cast <to = 7> (write_indices)");
  } else {
    b.Add("Writes = ConstantOfShape <value = int64[1] {0}> (B1)");
  }
  // write_indices[b] over the rank + 1 dims of the pairs.
  alongDim(b, "W", "Writes", rank);
  alongDim(b, "TPos", "UpdPositions", after);
  alongDim(b, "P", "CachePositions", after + 1);
  b.Add("Target = Add (W, TPos)");
  if (mode == "circular")
    b.Add("Wrapped = Mod (Target, S)\nTargetP = Identity (Wrapped)");
  else
    b.Add("TargetP = Identity (Target)");
  b.Const("ZeroF", 0.0f);
  text(b, R"(
    Mask = Equal (P, TargetP)
    UpdU = Unsqueeze (update, AxisAt)
    Zeros = CastLike (ZeroF, update)
    Picked = Where (Mask, UpdU, Zeros)
    Value = ReduceSum <keepdims = 0> (Picked, NextAxis)
    Hits = Cast <to = 7> (Mask)
    HitCount = ReduceSum <keepdims = 0> (Hits, NextAxis)
    Hit = Greater (HitCount, Zero)
    present_cache = Where (Hit, Value, past_cache)
  )");
  return true;
}

// GatherND (11-13): data viewed as [B * P, S] (B the batch_dims' positions,
// P those the index tuples of length k address, S the elements of each
// slice); each tuple becomes a linear row b * P + L, gathered, and the
// rows reshaped to indices.shape[:-1] + data.shape[batch_dims + k:].
bool buildGatherND(const Call &c, onnx::FunctionBuilder &b,
                   std::string &error) {
  int64_t rank, q;
  if (!knownRank(c, 0, rank, error) || !knownRank(c, 1, q, error))
    return false;
  int64_t batch = c.attr.i("batch_dims", 0);
  int64_t k = q >= 1 ? c.extent(1, q - 1) : -1;
  if (batch < 0 || batch >= std::min(rank, q)) {
    error = "batch_dims must be in [0, min(rank of data, rank of indices))";
    return false;
  }
  if (k < 1 || batch + k > rank) {
    error = "the last dim of indices must be static, >= 1 and at most the "
            "rank of data less batch_dims";
    return false;
  }
  b.Const("Zero", int64_t(0)).Const("One", int64_t(1));
  tupleRows(b, batch, k, rank);
  text(b, "Front = Shape <start = 0, end = " + std::to_string(q - 1) +
              "> (indices)");
  b.Add(batch + k < rank ? "OutShape = Concat <axis = 0> (Front, Tail)"
                         : "OutShape = Identity (Front)");
  if (batch > 0) {
    // Row of batch position (b_0, ..., b_{batch-1}): its linear number
    // times P, broadcast over the other dims of the tuples' grid.
    text(b, "Batch = Shape <start = 0, end = " + std::to_string(batch) +
                "> (data)\n"
                "B1 = ReduceProd <keepdims = 1> (Batch)\n"
                "B = Squeeze (B1)\n"
                "BatchPositions = Range (Zero, B, One)\n"
                "BatchGrid = Reshape (BatchPositions, Batch)\n"
                "P = Squeeze (P1)\n"
                "Offsets = Mul (BatchGrid, P)");
    if (q - 1 > batch) {
      std::vector<int64_t> rest;
      for (int64_t d = batch; d < q - 1; ++d)
        rest.push_back(d);
      b.Const("RestAxes", rest);
      b.Add("OffsetsU = Unsqueeze (Offsets, RestAxes)");
    } else {
      b.Add("OffsetsU = Identity (Offsets)");
    }
    text(b, R"(
      Rows = Add (Linear, OffsetsU)
      BP = Mul (B1, P1)
      Flat = Concat <axis = 0> (BP, S1)
    )");
  } else {
    b.Add("Rows = Identity (Linear)\nFlat = Concat <axis = 0> (P1, S1)");
  }
  text(b, R"(
    Data2 = Reshape (data, Flat)
    Gathered = Gather <axis = 0> (Data2, Rows)
    output = Reshape (Gathered, OutShape)
  )");
  return true;
}

// Col2Im (18): the columns [N, C * K, L] (K = prod(block_shape) kernel
// offsets, L sliding blocks) summed back into an image [N, C,
// *image_shape]. Each output position o and kernel offset k receive from
// at most one block: per dim, l = (o + pad - k * dilation) / stride when
// that divides and lands in [0, blocks). So a [K, P] table of block
// numbers (computed from image_shape and block_shape, which may be inputs)
// drives one GatherElements, and a masked sum over k gives the image:
// O(K P), a Conv's cost.
bool buildCol2Im(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t dims = c.extent(1, 0);
  if (c.rank(0) != 3 || c.rank(1) != 1 || dims < 1 || c.extent(2, 0) != dims) {
    error = "input must be [N, C * prod(block_shape), L], and image_shape "
            "and block_shape 1-D of one static length";
    return false;
  }
  std::vector<int64_t> dilations = c.attr.ints("dilations"),
                       pads = c.attr.ints("pads"),
                       strides = c.attr.ints("strides");
  if (dilations.empty())
    dilations.assign(dims, 1);
  if (pads.empty())
    pads.assign(2 * dims, 0);
  if (strides.empty())
    strides.assign(dims, 1);
  if (int64_t(dilations.size()) != dims || int64_t(pads.size()) != 2 * dims ||
      int64_t(strides.size()) != dims) {
    error = "dilations and strides need one entry per spatial dim, pads two";
    return false;
  }
  for (int64_t d = 0; d < dims; ++d)
    if (dilations[d] < 1 || strides[d] < 1) {
      error = "dilations and strides must be >= 1";
      return false;
    }
  b.Const("Zero", int64_t(0)).Const("One", int64_t(1))
      .Const("ZeroF", 0.0f)
      .Const("Axis0", std::vector<int64_t>{0})
      .Const("Axis1", std::vector<int64_t>{1})
      .Const("KeepDim", std::vector<int64_t>{0})
      .Const("AnyDim", std::vector<int64_t>{-1})
      .Const("OffsetAxis", std::vector<int64_t>{2});
  b.Add(R"(
    P1 = ReduceProd <keepdims = 1> (image_shape)
    K1 = ReduceProd <keepdims = 1> (block_shape)
    P = Squeeze (P1)
    K = Squeeze (K1)
    ORange = Range (Zero, P, One)
    KRange = Range (Zero, K, One)
    O = Unsqueeze (ORange, Axis0)
    Kc = Unsqueeze (KRange, Axis1)
  )");
  // Per dim: extents, blocks, and the strides of o, k and l.
  for (int64_t d = 0; d < dims; ++d) {
    std::string s = std::to_string(d);
    b.Const("D" + s, d)
        .Const("Pad" + s, pads[d] + pads[d + dims])
        .Const("PadBegin" + s, pads[d])
        .Const("Dil" + s, dilations[d])
        .Const("Stride" + s, strides[d]);
    text(b, "Img" + s + " = Gather <axis = 0> (image_shape, D" + s + ")\nBlk" +
                s + " = Gather <axis = 0> (block_shape, D" + s + ")\nSpan" + s +
                "a = Sub (Blk" + s + ", One)\nSpan" + s + " = Mul (Span" + s +
                "a, Dil" + s + ")\nRoom" + s + "a = Add (Img" + s + ", Pad" + s +
                ")\nRoom" + s + "b = Sub (Room" + s + "a, Span" + s + ")\nRoom" +
                s + " = Sub (Room" + s + "b, One)\nSteps" + s + " = Div (Room" +
                s + ", Stride" + s + ")\nNB" + s + " = Add (Steps" + s +
                ", One)");
  }
  auto product = [&](const std::string &out, const std::string &stem,
                     int64_t from) {
    if (from >= dims) {
      text(b, out + " = Identity (One)");
      return;
    }
    std::string acc = stem + std::to_string(from);
    for (int64_t d = from + 1; d < dims; ++d) {
      std::string next = out + "x" + std::to_string(d);
      text(b, next + " = Mul (" + acc + ", " + stem + std::to_string(d) + ")");
      acc = next;
    }
    text(b, out + " = Identity (" + acc + ")");
  };
  b.Add("Acc0 = Identity (Zero)");
  b.Add("Valid0 = Constant <value = bool {1}> ()");
  for (int64_t d = 0; d < dims; ++d) {
    std::string s = std::to_string(d), n = std::to_string(d + 1);
    product("OStride" + s, "Img", d + 1);
    product("KStride" + s, "Blk", d + 1);
    product("LStride" + s, "NB", d + 1);
    text(b, "Oq" + s + " = Div (O, OStride" + s + ")\nOd" + s + " = Mod (Oq" +
                s + ", Img" + s + ")\nKq" + s + " = Div (Kc, KStride" + s +
                ")\nKd" + s + " = Mod (Kq" + s + ", Blk" + s + ")\nKo" + s +
                " = Mul (Kd" + s + ", Dil" + s + ")\nShifted" + s +
                " = Add (Od" + s + ", PadBegin" + s + ")\nNum" + s +
                " = Sub (Shifted" + s + ", Ko" + s + ")\nNonNeg" + s +
                " = GreaterOrEqual (Num" + s + ", Zero)\nNumPos" + s +
                " = Where (NonNeg" + s + ", Num" + s + ", Zero)\nRem" + s +
                " = Mod (NumPos" + s + ", Stride" + s + ")\nOnStride" + s +
                " = Equal (Rem" + s + ", Zero)\nQ" + s + " = Div (NumPos" + s +
                ", Stride" + s + ")\nInBlocks" + s + " = Less (Q" + s + ", NB" +
                s + ")\nV" + s + "a = And (NonNeg" + s + ", OnStride" + s +
                ")\nV" + s + "b = And (V" + s + "a, InBlocks" + s + ")\nValid" +
                n + " = And (Valid" + s + ", V" + s + "b)\nLq" + s +
                " = Mul (Q" + s + ", LStride" + s + ")\nAcc" + n + " = Add (Acc" +
                s + ", Lq" + s + ")");
  }
  std::string last = std::to_string(dims);
  text(b, "Block = Where (Valid" + last + ", Acc" + last + ", Zero)");
  text(b, R"(
    L1 = Shape <start = 2, end = 3> (input)
    Grouped = Concat <axis = 0> (KeepDim, AnyDim, K1, L1)
    X4 = Reshape (input, Grouped)
    NC = Shape <start = 0, end = 2> (X4)
    TableShape = Concat <axis = 0> (NC, K1, P1)
    Table = Expand (Block, TableShape)
    Gathered = GatherElements <axis = 3> (X4, Table)
    ZeroX = CastLike (ZeroF, input)
  )");
  text(b, "Kept = Where (Valid" + last + ", Gathered, ZeroX)");
  b.Add(R"(
    Image = ReduceSum <keepdims = 0> (Kept, OffsetAxis)
    OutShape = Concat <axis = 0> (NC, image_shape)
    output = Reshape (Image, OutShape)
  )");
  return true;
}

} // namespace

void bodies::addIndexBodies(std::vector<NewerOp> &ops) {
  const NewerOp table[] = {
      {"ScatterElements",
       11,
       0,
       {"data", "indices", "updates"},
       {"output"},
       buildScatterElements},
      {"Scatter",
       9,
       0,
       {"data", "indices", "updates"},
       {"output"},
       buildScatterElements},
      {"ScatterND",
       11,
       0,
       {"data", "indices", "updates"},
       {"output"},
       buildScatterND},
      {"TensorScatter",
       24,
       0,
       {"past_cache", "update", "write_indices"},
       {"present_cache"},
       buildTensorScatter},
      {"GatherND", 11, 0, {"data", "indices"}, {"output"}, buildGatherND},
      {"Col2Im",
       18,
       0,
       {"input", "image_shape", "block_shape"},
       {"output"},
       buildCol2Im},
  };
  ops.insert(ops.end(), std::begin(table), std::end(table));
}
