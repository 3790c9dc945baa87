//===- SelectionBodies.cpp - Ops that pick elements by value, as bodies ----===//
//
// Ops whose result picks elements of their input by comparing values or a
// condition (TopK, Unique, NonZero, Compress) or reorders them
// (ReverseSequence):
// each body is its specification's meaning (ONNX 1.22) written with
// comparisons and masked reductions, in ONNX text. See BodyBuilders.h.
// Results whose extent is a count (Unique, NonZero, Compress) are sized by a
// ReduceSum that kernels compute and the plan reads back.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <iterator>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

// TopK (1-24): the K largest (smallest) elements along the axis, in order,
// with their indices; equal elements keep the lower index first, and NaN
// ranks above every number (ONNX's reference sorts with numpy: NaN last
// ascending). Written as a rank by comparison: element i's rank is the
// count of elements j that come before it (x_j > x_i, or equal with j < i),
// which a [n, n] comparison along the axis and a sum give; output p is then
// the element of rank p, picked by a [K, n] mask and a sum (one element
// matches each p). O(n^2) along the axis where a selection kernel does
// O(n log K) (issue 23). sorted = 0 allows any order; the sorted one is
// given. K is an input from TopK-10 on (its value sizes the result: a
// constant, a model input or read back), the attribute k before.
bool buildTopK(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t rank, axis;
  if (!knownRank(c, 0, rank, error) ||
      !axisAttribute(c, "axis", -1, rank, axis, error))
    return false;
  if (rank == 0) {
    error = "needs an input of rank >= 1";
    return false;
  }
  bool largest = c.attr.i("largest", 1) != 0;
  // Dims after the axis, and after the comparison's second axis.
  int64_t after = rank - 1 - axis;
  if (c.opset < 10) {
    if (!c.attr.has("k")) {
      error = "TopK-1 needs the attribute k";
      return false;
    }
    b.Const("K", std::vector<int64_t>{c.attr.i("k", 0)});
  } else if (c.rank(1) > 1 || c.extent(1, 0) > 1) {
    error = "K must be a one-element 1-D tensor";
    return false;
  }
  b.Const("Zero", int64_t(0)).Const("One", int64_t(1))
      .Const("AxisAt", std::vector<int64_t>{axis})
      .Const("NextAxis", std::vector<int64_t>{axis + 1});
  text(b, "N1 = Shape <start = " + std::to_string(axis) + ", end = " +
              std::to_string(axis + 1) + R"(> (X)
    N = Squeeze (N1)
    Positions = Range (Zero, N, One)
    KS = Squeeze (K)
    Slots = Range (Zero, KS, One)
  )");
  // Index tensors: i along the axis, j along the next (the comparison's
  // [n_i, n_j] pairs, in x's rank + 1).
  alongDim(b, "I", "Positions", after + 1);
  alongDim(b, "J", "Positions", after);
  text(b, R"(
    XI = Unsqueeze (X, NextAxis)
    XJ = Unsqueeze (X, AxisAt)
    Tie = Equal (XJ, XI)
    Lower = Less (J, I)
    TieFirst = And (Tie, Lower)
  )");
  text(b, std::string("Strict = ") + (largest ? "Greater" : "Less") +
              " (XJ, XI)");
  if (isFloat(c.elementType(0))) {
    // NaN above every number; NaNs tie among themselves.
    text(b, std::string(R"(
      NanI = IsNaN (XI)
      NanJ = IsNaN (XJ)
      NotNanI = Not (NanI)
      NotNanJ = Not (NanJ)
      BothNan = And (NanI, NanJ)
      NanTie = And (BothNan, Lower)
      AnyTie = Or (TieFirst, NanTie)
    )") + (largest ? "NanAbove = And (NanJ, NotNanI)"
                   : "NanAbove = And (NanI, NotNanJ)") +
                R"(
      Ordered = Or (Strict, NanAbove)
      Before = Or (Ordered, AnyTie)
    )");
  } else {
    b.Add("Before = Or (Strict, TieFirst)");
  }
  text(b, R"(
    Counted = Cast <to = 7> (Before)
    Ranks = ReduceSum <keepdims = 0> (Counted, NextAxis)
    RanksU = Unsqueeze (Ranks, AxisAt)
  )");
  // Output slot p takes the element of rank p: a [K, n] mask along the
  // axis and the next.
  alongDim(b, "P", "Slots", after + 1);
  b.Const("ZeroF", 0.0f);
  text(b, R"(
    Match = Equal (RanksU, P)
    XU = Unsqueeze (X, AxisAt)
    ZeroX = CastLike (ZeroF, X)
    PickedX = Where (Match, XU, ZeroX)
    Values = ReduceSum <keepdims = 0> (PickedX, NextAxis)
  )");
  if (c.hasOutput(1)) {
    alongDim(b, "IndexAlong", "Positions", after);
    text(b, R"(
      PickedI = Where (Match, IndexAlong, Zero)
      Indices = ReduceSum <keepdims = 0> (PickedI, NextAxis)
    )");
  }
  return true;
}

/// `out` = the positions where the 1-D bool `mask` is true, in order
/// (int64 [count]): position i goes to slot p when mask[i] and p trues come
/// before it (an exclusive CumSum), picked by a [count, n] mask and a sum.
/// O(n^2) for the prefix count and O(n count) for the pick.
void truePositions(onnx::FunctionBuilder &b, const std::string &out,
                   const std::string &mask) {
  const std::string &p = out; // the prefix of the body's own values
  b.Const(p + "Zero", int64_t(0)).Const(p + "One", int64_t(1))
      .Const(p + "Axis0", std::vector<int64_t>{0})
      .Const(p + "Axis1", std::vector<int64_t>{1});
  auto line = [&](const std::string &name, const std::string &op,
                  std::initializer_list<std::string> args) {
    std::string node = name + " = " + op + " (";
    bool first = true;
    for (const std::string &a : args)
      node += (first ? "" : ", ") + a, first = false;
    text(b, node + ")");
  };
  line(p + "Ones", "Cast <to = 7>", {mask});
  line(p + "Before", "CumSum <exclusive = 1>", {p + "Ones", p + "Zero"});
  line(p + "Count", "ReduceSum <keepdims = 0>", {p + "Ones"});
  line(p + "N1", "Shape", {mask});
  line(p + "N", "Squeeze", {p + "N1"});
  line(p + "Slots", "Range", {p + "Zero", p + "Count", p + "One"});
  line(p + "Positions", "Range", {p + "Zero", p + "N", p + "One"});
  line(p + "SlotCol", "Unsqueeze", {p + "Slots", p + "Axis1"});
  line(p + "BeforeRow", "Unsqueeze", {p + "Before", p + "Axis0"});
  line(p + "MaskRow", "Unsqueeze", {mask, p + "Axis0"});
  line(p + "Rank", "Equal", {p + "SlotCol", p + "BeforeRow"});
  line(p + "Hit", "And", {p + "Rank", p + "MaskRow"});
  line(p + "PosRow", "Unsqueeze", {p + "Positions", p + "Axis0"});
  line(p + "Picked", "Where", {p + "Hit", p + "PosRow", p + "Zero"});
  line(out, "ReduceSum <keepdims = 0>", {p + "Picked", p + "Axis1"});
}

// NonZero (9-13): the coordinates of the nonzero elements in row-major
// order, [rank, count]: their flat positions, unraveled by the strides.
bool buildNonZero(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  b.Const("Flat", std::vector<int64_t>{-1}).Const("ZeroF", 0.0f);
  if (c.elementType(0) == onnx::TensorProto::BOOL)
    b.Add("XFlat = Reshape (X, Flat)\nMask = Identity (XFlat)");
  else
    b.Add(R"(
      XFlat = Reshape (X, Flat)
      Zero = CastLike (ZeroF, X)
      IsZero = Equal (XFlat, Zero)
      Mask = Not (IsZero)
    )");
  truePositions(b, "Linear", "Mask");
  if (rank == 0) {
    // A scalar counts as one element of a 1-D tensor: [1, count], as
    // numpy's nonzero (ONNX's reference) has it.
    b.Const("Row", std::vector<int64_t>{1, -1});
    b.Add("Y = Reshape (Linear, Row)");
    return true;
  }
  std::string rows;
  for (int64_t d = 0; d < rank; ++d) {
    std::string s = std::to_string(d);
    if (d + 1 < rank)
      text(b, "After" + s + " = Shape <start = " + std::to_string(d + 1) +
                  "> (X)\nStride" + s + " = ReduceProd <keepdims = 0> (After" +
                  s + ")\nQ" + s + " = Div (Linear, Stride" + s + ")");
    else
      text(b, "Q" + s + " = Identity (Linear)");
    text(b, "Dim" + s + "1 = Shape <start = " + s + ", end = " +
                std::to_string(d + 1) + "> (X)\nDim" + s + " = Squeeze (Dim" +
                s + "1)\nC" + s + " = Mod (Q" + s + ", Dim" + s + ")\nRow" + s +
                " = Unsqueeze (C" + s + ", LinearAxis0)");
    rows += (d ? ", Row" : "Row") + s;
  }
  text(b, "Y = Concat <axis = 0> (" + rows + ")");
  return true;
}

// Compress (9-11): the slices along the axis (of the flattened input
// without one) where condition is true; a condition shorter than the axis
// selects none of the rest.
bool buildCompress(const Call &c, onnx::FunctionBuilder &b,
                   std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  int64_t axis = 0;
  std::string data = "input";
  if (c.attr.has("axis")) {
    if (!axisAttribute(c, "axis", 0, rank, axis, error))
      return false;
  } else {
    b.Const("Flat", std::vector<int64_t>{-1});
    b.Add("Flattened = Reshape (input, Flat)");
    data = "Flattened";
  }
  if (c.rank(1) != 1) {
    error = "condition must be 1-D";
    return false;
  }
  // The condition, cut to the axis's extent.
  b.Const("ZeroV", std::vector<int64_t>{0});
  text(b, "Extent = Shape <start = " + std::to_string(axis) + ", end = " +
              std::to_string(axis + 1) + "> (" + data + ")");
  b.Add(R"(
    Given = Cast <to = 9> (condition)
    Cut = Slice (Given, ZeroV, Extent, ZeroV)
  )");
  truePositions(b, "Selected", "Cut");
  text(b, "output = Gather <axis = " + std::to_string(axis) + "> (" + data +
              ", Selected)");
  return true;
}

// ReverseSequence (10): along the time axis, the first sequence_lens[b]
// elements of batch entry b reversed, the rest kept: a GatherElements from
// t' = t < len ? len - 1 - t : t.
bool buildReverseSequence(const Call &c, onnx::FunctionBuilder &b,
                          std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  int64_t batchAxis = c.attr.i("batch_axis", 1),
          timeAxis = c.attr.i("time_axis", 0);
  if (rank < 2 || (batchAxis != 0 && batchAxis != 1) ||
      (timeAxis != 0 && timeAxis != 1) || batchAxis == timeAxis) {
    error = "needs rank >= 2 and batch_axis, time_axis one each of 0 and 1";
    return false;
  }
  // Time positions along the time axis, lengths along the batch axis.
  std::vector<int64_t> timeShape(rank, 1), lenShape(rank, 1);
  timeShape[timeAxis] = -1;
  lenShape[batchAxis] = -1;
  b.Const("TimeShape", timeShape).Const("LenShape", lenShape)
      .Const("Zero", int64_t(0)).Const("One", int64_t(1));
  text(b, "T1 = Shape <start = " + std::to_string(timeAxis) + ", end = " +
              std::to_string(timeAxis + 1) + "> (input)");
  text(b, R"(
    T = Squeeze (T1)
    Steps = Range (Zero, T, One)
    TimeCol = Reshape (Steps, TimeShape)
    Lens = Cast <to = 7> (sequence_lens)
    LenCol = Reshape (Lens, LenShape)
    Inside = Less (TimeCol, LenCol)
    Last = Sub (LenCol, One)
    Mirrored = Sub (Last, TimeCol)
    Source = Where (Inside, Mirrored, TimeCol)
    XShape = Shape (input)
    SourceAll = Expand (Source, XShape)
    Y = GatherElements <axis = )" + std::to_string(timeAxis) +
              R"(> (input, SourceAll)
  )");
  return true;
}

// Unique (11): the distinct elements (slices along the axis, or elements
// of the flattened input), in order of value (sorted, numpy's
// lexicographic order of slices) or of first occurrence, with each one's
// first index, each input's slot (inverse_indices) and the counts. With
// the slices as rows [n, m]: a [n, n] equality of rows, the first
// occurrences (no equal row before), and each first row's rank among the
// firsts (rows before it in value, or in position); slot p takes the first
// row of rank p. The count of distinct rows, a ReduceSum that kernels
// compute, sizes the results through read back. O(n^2 m).
bool buildUnique(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  bool sorted = c.attr.i("sorted", 1) != 0;
  int64_t axis = 0;
  bool hasAxis = c.attr.has("axis");
  if (hasAxis && !axisAttribute(c, "axis", 0, rank, axis, error))
    return false;
  b.Const("Zero", int64_t(0)).Const("One", int64_t(1))
      .Const("Axis0", std::vector<int64_t>{0})
      .Const("Axis1", std::vector<int64_t>{1})
      .Const("Axis2", std::vector<int64_t>{2})
      .Const("Flat", std::vector<int64_t>{-1, 1})
      .Const("AnyV", std::vector<int64_t>{-1});
  std::string source = "X";
  if (!hasAxis) {
    b.Const("FlatAll", std::vector<int64_t>{-1});
    b.Add("Source = Reshape (X, FlatAll)\nRows = Reshape (X, Flat)");
    source = "Source";
    axis = 0;
  } else {
    std::vector<int64_t> perm{axis};
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        perm.push_back(d);
    text(b, "Moved = Transpose <perm = " + intList(perm) + "> (X)\nN1 = Shape <start = " +
                std::to_string(axis) + ", end = " + std::to_string(axis + 1) +
                "> (X)\nRowShape = Concat <axis = 0> (N1, AnyV)\nRows = Reshape (Moved, RowShape)");
  }
  text(b, R"(
    RowsI = Unsqueeze (Rows, Axis1)
    RowsJ = Unsqueeze (Rows, Axis0)
    SameE = Equal (RowsJ, RowsI)
    SameN = Cast <to = 7> (SameE)
    SameMin = ReduceMin <keepdims = 0> (SameN, Axis2)
    Same = Cast <to = 9> (SameMin)
    NR = Shape <start = 0, end = 1> (Rows)
    N = Squeeze (NR)
    Positions = Range (Zero, N, One)
    I = Unsqueeze (Positions, Axis1)
    J = Unsqueeze (Positions, Axis0)
    EarlierJ = Less (J, I)
    SameEarlier = And (Same, EarlierJ)
    SameEarlierN = Cast <to = 7> (SameEarlier)
    Repeats = ReduceSum <keepdims = 0> (SameEarlierN, Axis1)
    First = Equal (Repeats, Zero)
    FirstRow = Unsqueeze (First, Axis0)
  )");
  if (sorted) {
    // Row j before row i: at the first element where they differ, j's is
    // smaller (an exclusive count of differences along the row).
    text(b, R"(
      DiffE = Not (SameE)
      DiffN = Cast <to = 7> (DiffE)
      DiffBefore = CumSum <exclusive = 1> (DiffN, Axis2)
      PrefixSame = Equal (DiffBefore, Zero)
      Smaller = Less (RowsJ, RowsI)
      Decides = And (Smaller, PrefixSame)
      DecidesN = Cast <to = 7> (Decides)
      BeforeN = ReduceMax <keepdims = 0> (DecidesN, Axis2)
      Before = Cast <to = 9> (BeforeN)
    )");
  } else {
    b.Add("Before = Identity (EarlierJ)");
  }
  text(b, R"(
    FirstBefore = And (Before, FirstRow)
    FirstBeforeN = Cast <to = 7> (FirstBefore)
    Ranks = ReduceSum <keepdims = 0> (FirstBeforeN, Axis1)
    FirstN = Cast <to = 7> (First)
    Count = ReduceSum <keepdims = 0> (FirstN)
    Slots = Range (Zero, Count, One)
    SlotCol = Unsqueeze (Slots, Axis1)
    RanksRow = Unsqueeze (Ranks, Axis0)
    RankMatch = Equal (SlotCol, RanksRow)
    Chosen = And (RankMatch, FirstRow)
    ChosenPos = Where (Chosen, J, Zero)
    indices = ReduceSum <keepdims = 0> (ChosenPos, Axis1)
    SameFirst = And (Same, FirstRow)
    SlotOfFirst = Where (SameFirst, RanksRow, Zero)
    inverse_indices = ReduceSum <keepdims = 0> (SlotOfFirst, Axis1)
    InverseRow = Unsqueeze (inverse_indices, Axis0)
    Members = Equal (SlotCol, InverseRow)
    MembersN = Cast <to = 7> (Members)
    counts = ReduceSum <keepdims = 0> (MembersN, Axis1)
  )");
  text(b, "Y = Gather <axis = " + std::to_string(axis) + "> (" + source +
              ", indices)");
  return true;
}

} // namespace

void bodies::addSelectionBodies(std::vector<NewerOp> &ops) {
  const NewerOp table[] = {
      {"TopK", 1, 9, {"X"}, {"Values", "Indices"}, buildTopK},
      {"TopK", 10, 0, {"X", "K"}, {"Values", "Indices"}, buildTopK},
      {"NonZero", 9, 0, {"X"}, {"Y"}, buildNonZero},
      {"Unique",
       11,
       0,
       {"X"},
       {"Y", "indices", "inverse_indices", "counts"},
       buildUnique},
      {"Compress", 9, 0, {"input", "condition"}, {"output"}, buildCompress},
      {"ReverseSequence",
       10,
       0,
       {"input", "sequence_lens"},
       {"Y"},
       buildReverseSequence},
  };
  ops.insert(ops.end(), std::begin(table), std::end(table));
}
