//===- SelectionBodies.cpp - Ops that pick elements by value, as bodies ----===//
//
// Ops whose result picks elements of their input by comparing values
// (TopK): each body is its specification's meaning (ONNX 1.22) written with
// comparisons and masked reductions, in ONNX text. See BodyBuilders.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <iterator>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

/// `n` ones from dim 1 on, as the axes of an Unsqueeze: [1, 2, ..., n].
std::vector<int64_t> trailingAxes(int64_t n) {
  std::vector<int64_t> axes;
  for (int64_t d = 1; d <= n; ++d)
    axes.push_back(d);
  return axes;
}

/// `out` = `in` (a 1-D tensor) with `n` unit dims after it, so that it
/// broadcasts along the dim that has `n` dims after it.
void alongDim(onnx::FunctionBuilder &b, const std::string &out,
              const std::string &in, int64_t n) {
  if (n == 0) {
    text(b, out + " = Identity (" + in + ")");
    return;
  }
  b.Const(out + "Axes", trailingAxes(n));
  text(b, out + " = Unsqueeze (" + in + ", " + out + "Axes)");
}

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

} // namespace

void bodies::addSelectionBodies(std::vector<NewerOp> &ops) {
  const NewerOp table[] = {
      {"TopK", 1, 9, {"X"}, {"Values", "Indices"}, buildTopK},
      {"TopK", 10, 0, {"X", "K"}, {"Values", "Indices"}, buildTopK},
  };
  ops.insert(ops.end(), std::begin(table), std::end(table));
}
