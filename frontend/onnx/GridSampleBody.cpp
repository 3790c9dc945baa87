//===- GridSampleBody.cpp - GridSample and AffineGrid as ONNX bodies -------===//
//
// GridSample (16-22) and AffineGrid (20), the two halves of a spatial
// transformer, written as bodies of supported ops from ONNX's reference
// implementation (ONNX 1.22). See BodyBuilders.h; the cubic kernel is
// Resize's (keysNear, keysFar in ResamplingBodies.cpp).
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <onnx/defs/attr_proto_util.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

// GridSample (16-22), from ONNX's reference implementation (after PyTorch's
// grid_sampler): output position p of image n samples X[n, c] at the
// location grid[n, p] gives, normalized to [-1, 1] per spatial dim (the
// grid's last axis lists the dims in reverse, x first). Per spatial dim of
// extent L the location denormalizes (in f32, as the reference does) to
// x = ((g + 1) L - 1) / 2, or (g + 1) / 2 (L - 1) with align_corners; one
// outside the border ([-0.5, L - 0.5], or [0, L - 1] aligned) is clamped to
// [0, L - 1] (border) or reflected into it (reflection). The taps are
// rint(x) (nearest), floor(x) + {0, 1} (linear) or floor(x) + {-1, .., 2}
// (cubic, Keys with a = -0.75), each tap index mapped by the padding mode
// (zeros: a tap outside reads 0; border: clamped; reflection: reflected).
// The taps of all dims form a grid whose weights are the products of the
// per-dim ones: X is gathered at the flattened tap positions
// (GatherElements over the spatial dims folded into one) and summed.
class GridSampleBody {
public:
  GridSampleBody(const Call &c, onnx::FunctionBuilder &b) : c(c), b(b) {}
  bool build(std::string &error);

private:
  std::string n(const char *base, int64_t d) const {
    return base + std::to_string(d);
  }
  void add(const std::string &nodes) { text(b, nodes); }
  /// Reflects f32 tensor `x` into [lo, hi] (names of f32 scalars) as the
  /// reference's _gs_reflect does, into `out`.
  void reflect(const std::string &x, const std::string &lo,
               const std::string &hi, const std::string &out);
  /// The taps of spatial dim `d` (the [N, P..., n] tensors "Tap<d>" (int64
  /// positions, valid), "Wt<d>" (weights) and "Ok<d>" (where the tap reads
  /// X, for zero padding)).
  void dim(int64_t d);

  const Call &c;
  onnx::FunctionBuilder &b;
  int64_t spatial = 0; ///< spatial dims of X
  std::string mode, padding;
  bool alignCorners = false;
  int64_t computeType = onnx::TensorProto::FLOAT;
};

void GridSampleBody::reflect(const std::string &x, const std::string &lo,
                             const std::string &hi, const std::string &out) {
  // Below lo: d = lo - x, k = floor(d / range), r = d - k range, then
  // lo + r for even k, hi - r for odd; above hi mirrored.
  std::string p = out + "_";
  add(p + "Range = Sub (" + hi + ", " + lo + ")\n" + p + "DLo = Sub (" + lo +
      ", " + x + ")\n" + p + "DHi = Sub (" + x + ", " + hi + ")\n" + p +
      "Below = Less (" + x + ", " + lo + ")\n" + p + "Above = Greater (" + x +
      ", " + hi + ")\n" + p + "D = Where (" + p + "Below, " + p + "DLo, " + p +
      "DHi)\n" + p + "Q = Div (" + p + "D, " + p + "Range)\n" + p +
      "K = Floor (" + p + "Q)\n" + p + "KR = Mul (" + p + "K, " + p +
      "Range)\n" + p + "R = Sub (" + p + "D, " + p + "KR)\n" + p +
      "Half = Div (" + p + "K, TwoF)\n" + p + "HalfF = Floor (" + p +
      "Half)\n" + p + "Twice = Mul (" + p + "HalfF, TwoF)\n" + p +
      "Odd = Sub (" + p + "K, " + p + "Twice)\n" + p + "IsOdd = Equal (" + p +
      "Odd, OneF)\n" + p + "LoR = Add (" + lo + ", " + p + "R)\n" + p +
      "HiR = Sub (" + hi + ", " + p + "R)\n" + p + "FromLo = Where (" + p +
      "IsOdd, " + p + "HiR, " + p + "LoR)\n" + p + "FromHi = Where (" + p +
      "IsOdd, " + p + "LoR, " + p + "HiR)\n" + p + "Moved = Where (" + p +
      "Below, " + p + "FromLo, " + p + "FromHi)\n" + p + "Out = Or (" + p +
      "Below, " + p + "Above)\n" + out + " = Where (" + p + "Out, " + p +
      "Moved, " + x + ")");
}

void GridSampleBody::dim(int64_t d) {
  // The grid lists x (the last spatial dim) first.
  int64_t component = spatial - 1 - d;
  std::string g = n("G", d), x = n("Xd", d), l = n("LF", d);
  b.Const(n("Comp", d), std::vector<int64_t>{component});
  add(n("GC", d) + " = Gather <axis = -1> (GridF, " + n("Comp", d) + ")\n" +
      g + " = Squeeze (" + n("GC", d) + ", LastAxis)\n" + n("L", d) +
      " = Shape <start = " + std::to_string(d + 2) + ", end = " +
      std::to_string(d + 3) + "> (X)\n" + n("LS", d) + " = Squeeze (" +
      n("L", d) + ")\n" + l + " = Cast <to = 1> (" + n("LS", d) + ")\n" +
      n("Lm1", d) + " = Sub (" + l + ", OneF)\n" + n("G1", d) + " = Add (" +
      g + ", OneF)");
  // Denormalize, and the border outside which padding moves the location.
  std::string lo = n("Lo", d), hi = n("Hi", d);
  if (alignCorners) {
    add(n("GH", d) + " = Div (" + n("G1", d) + ", TwoF)\n" + x + "0 = Mul (" +
        n("GH", d) + ", " + n("Lm1", d) + ")\n" + lo + " = Identity (ZeroF)\n" +
        hi + " = Identity (" + n("Lm1", d) + ")");
  } else {
    add(n("GL", d) + " = Mul (" + n("G1", d) + ", " + l + ")\n" + n("GLm", d) +
        " = Sub (" + n("GL", d) + ", OneF)\n" + x + "0 = Div (" + n("GLm", d) +
        ", TwoF)\n" + lo + " = Identity (MinusHalfF)\n" + hi + " = Sub (" + l +
        ", HalfF)");
  }
  std::string at = x + "0";
  if (mode == "nearest") {
    add(x + "R = Round (" + at + ")");
    at = x + "R";
  }
  if (padding == "border") {
    add(x + "Out1 = Less (" + at + ", " + lo + ")\n" + x + "Out2 = Greater (" +
        at + ", " + hi + ")\n" + x + "Out = Or (" + x + "Out1, " + x +
        "Out2)\n" + x + "C1 = Max (" + at + ", ZeroF)\n" + x + "C = Min (" + x +
        "C1, " + n("Lm1", d) + ")\n" + x + " = Where (" + x + "Out, " + x +
        "C, " + at + ")");
  } else if (padding == "reflection") {
    reflect(at, lo, hi, x);
  } else {
    add(x + " = Identity (" + at + ")");
  }
  // The taps and their weights ([N, P..., n]).
  std::string base = n("Base", d), t = n("Frac", d), w = n("Wt", d);
  if (mode == "nearest") {
    add(base + " = Unsqueeze (" + x + ", LastAxis)\n" + n("BaseShape", d) +
        " = Shape (" + base + ")\n" + w + " = ConstantOfShape <value = " +
        (computeType == onnx::TensorProto::DOUBLE ? "double" : "float") +
        "[1] {1}> (" + n("BaseShape", d) + ")\n" + n("Pos", d) +
        " = Identity (" + base + ")");
  } else {
    bool cubic = mode == "cubic";
    add(n("Fl", d) + " = Floor (" + x + ")\n" + t + " = Sub (" + x + ", " +
        n("Fl", d) + ")\n" + base + " = Unsqueeze (" + n("Fl", d) +
        ", LastAxis)\n" + n("TU", d) + " = Unsqueeze (" + t + ", LastAxis)\n" +
        n("Pos", d) + " = Add (" + base + ", " +
        (cubic ? "CubicOffsets" : "LinearOffsets") + ")");
    if (!cubic) {
      // [1 - t, t]
      add(n("W0", d) + " = Sub (OneF, " + n("TU", d) + ")\n" + w +
          "F = Concat <axis = -1> (" + n("W0", d) + ", " + n("TU", d) + ")");
    } else {
      // Keys' kernel at distances t + 1, t, 1 - t, 2 - t (a = -0.75), as
      // the reference writes it.
      std::string tu = n("TU", d);
      add(n("D0", d) + " = Add (" + tu + ", OneF)\n" + n("D2", d) +
          " = Sub (OneF, " + tu + ")\n" + n("D3", d) + " = Sub (TwoF, " + tu +
          ")");
      add(keysFar(n("D0", d), n("C0_", d)));
      add(keysNear(tu, n("C1_", d), "OneF"));
      add(keysNear(n("D2", d), n("C2_", d), "OneF"));
      add(keysFar(n("D3", d), n("C3_", d)));
      add(w + "F = Concat <axis = -1> (" + n("C0_", d) + ", " + n("C1_", d) +
          ", " + n("C2_", d) + ", " + n("C3_", d) + ")");
    }
    add(w + " = Cast <to = " + std::to_string(computeType) + "> (" + w +
        "F)");
  }
  // Each tap's index into [0, L), by the padding mode.
  std::string pos = n("Pos", d), ok = n("Ok", d), tap = n("TapF", d);
  if (padding == "zeros") {
    add(n("InLo", d) + " = GreaterOrEqual (" + pos + ", ZeroF)\n" +
        n("InHi", d) + " = LessOrEqual (" + pos + ", " + n("Lm1", d) + ")\n" +
        ok + " = And (" + n("InLo", d) + ", " + n("InHi", d) + ")\n" +
        n("PC1", d) + " = Max (" + pos + ", ZeroF)\n" + tap + " = Min (" +
        n("PC1", d) + ", " + n("Lm1", d) + ")");
  } else if (padding == "border") {
    add(n("PC1", d) + " = Max (" + pos + ", ZeroF)\n" + tap + " = Min (" +
        n("PC1", d) + ", " + n("Lm1", d) + ")");
  } else {
    reflect(pos, lo, hi, n("PR", d));
    // Truncated toward zero, as the reference's int().
    add(n("PRN", d) + " = Less (" + n("PR", d) + ", ZeroF)\n" + n("PRC", d) +
        " = Ceil (" + n("PR", d) + ")\n" + n("PRF", d) + " = Floor (" +
        n("PR", d) + ")\n" + n("PRT", d) + " = Where (" + n("PRN", d) + ", " +
        n("PRC", d) + ", " + n("PRF", d) + ")\n" + n("PC1", d) +
        " = Max (" + n("PRT", d) + ", ZeroF)\n" + tap + " = Min (" +
        n("PC1", d) + ", " + n("Lm1", d) + ")");
  }
  add(n("Tap", d) + " = Cast <to = 7> (" + tap + ")");
}

bool GridSampleBody::build(std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  spatial = rank - 2;
  if (spatial < 1 || (c.opset < 20 && spatial != 2)) {
    error = c.opset < 20 ? "X must be 4-D (N, C, H, W) before opset 20"
                         : "X must have a batch, a channel and spatial dims";
    return false;
  }
  if (c.rank(1) >= 0 && c.rank(1) != rank) {
    error = "grid must have X's rank";
    return false;
  }
  if (c.extent(1, rank - 1) >= 0 && c.extent(1, rank - 1) != spatial) {
    error = "the grid's last dim must be " + std::to_string(spatial) +
            " (one coordinate per spatial dim)";
    return false;
  }
  // Opsets 16-19 name the modes bilinear and bicubic.
  bool old = c.opset < 20;
  mode = c.attr.s("mode", old ? "bilinear" : "linear");
  std::string given = mode;
  if (old)
    mode = mode == "bilinear" ? "linear"
           : mode == "bicubic" ? "cubic"
           : mode == "nearest" ? mode
                               : "";
  if (mode != "linear" && mode != "cubic" && mode != "nearest") {
    error = std::string("mode must be ") +
            (old ? "bilinear, nearest or bicubic" : "linear, nearest or cubic") +
            ", not '" + given + "'";
    return false;
  }
  padding = c.attr.s("padding_mode", "zeros");
  if (padding != "zeros" && padding != "border" && padding != "reflection") {
    error = "padding_mode must be zeros, border or reflection, not '" +
            padding + "'";
    return false;
  }
  alignCorners = c.attr.i("align_corners", 0) != 0;
  computeType = c.elementType(0) == onnx::TensorProto::DOUBLE
                    ? onnx::TensorProto::DOUBLE
                    : onnx::TensorProto::FLOAT;

  b.Const("ZeroF", 0.0f).Const("OneF", 1.0f).Const("TwoF", 2.0f)
      .Const("HalfF", 0.5f).Const("MinusHalfF", -0.5f)
      .Const("CubicA", -0.75f).Const("CubicA2", 1.25f).Const("CubicA3", 2.25f)
      .Const("CubicA4", -3.0f).Const("CubicA5", -3.75f).Const("CubicA8", -6.0f)
      .Const("LastAxis", std::vector<int64_t>{-1})
      .Const("LinearOffsets", std::vector<float>{0, 1})
      .Const("CubicOffsets", std::vector<float>{-1, 0, 1, 2});
  add("GridF = Cast <to = 1> (grid)");
  for (int64_t d = 0; d < spatial; ++d)
    dim(d);

  // The tap grid: flattened positions sum_d Tap_d * stride_d and weights
  // prod_d Wt_d (times the validity with zero padding), each [N, P..., T]
  // with T the product of the per-dim tap counts.
  std::string index, weight, valid;
  for (int64_t d = 0; d < spatial; ++d) {
    // Dim d's taps along axis d of the tap grid: [N, P..., 1.., n, 1..].
    std::string tap = n("Tap", d), wt = n("Wt", d), ok = n("Ok", d);
    if (spatial > 1) {
      // Insert unit dims so that dim d's taps sit at position d of the
      // trailing `spatial` axes.
      std::vector<int64_t> axes;
      for (int64_t e = 0; e < spatial; ++e)
        if (e != d)
          axes.push_back(e - spatial);
      // Unsqueeze with negative axes counts in the output's rank.
      b.Const(n("Units", d), axes);
      add(n("TapU", d) + " = Unsqueeze (" + tap + ", " + n("Units", d) +
          ")\n" + n("WtU", d) + " = Unsqueeze (" + wt + ", " + n("Units", d) +
          ")");
      tap = n("TapU", d);
      wt = n("WtU", d);
      if (padding == "zeros") {
        add(n("OkU", d) + " = Unsqueeze (" + ok + ", " + n("Units", d) + ")");
        ok = n("OkU", d);
      }
    }
    // The stride of dim d in the folded spatial dims: prod of L after d.
    std::string stride = "Stride" + std::to_string(d);
    if (d == spatial - 1) {
      b.Const(stride, int64_t(1));
    } else {
      add(n("After", d) + " = Shape <start = " + std::to_string(d + 3) +
          "> (X)\n" + n("AfterP", d) + " = ReduceProd <keepdims = 0> (" +
          n("After", d) + ")\n" + stride + " = Identity (" + n("AfterP", d) +
          ")");
    }
    add(n("TapS", d) + " = Mul (" + tap + ", " + stride + ")");
    if (index.empty()) {
      index = n("TapS", d);
      weight = wt;
      valid = padding == "zeros" ? ok : "";
      continue;
    }
    add(n("Idx", d) + " = Add (" + index + ", " + n("TapS", d) + ")\n" +
        n("Wgt", d) + " = Mul (" + weight + ", " + wt + ")");
    index = n("Idx", d);
    weight = n("Wgt", d);
    if (padding == "zeros") {
      add(n("Val", d) + " = And (" + valid + ", " + ok + ")");
      valid = n("Val", d);
    }
  }
  if (padding == "zeros") {
    add("ZeroW = CastLike (ZeroF, " + weight + ")\nWeights = Where (" + valid +
        ", " + weight + ", ZeroW)");
    weight = "Weights";
  }
  // Gather: X [N, C, S] (S the spatial dims folded), the tap positions
  // [N, 1, M] expanded over C (M = P... x T), then [N, C, P..., T].
  add("NC = Shape <start = 0, end = 2> (X)\nMinusOne = Constant <value = "
      "int64[1] {-1}> ()\nFlatShape = Concat <axis = 0> (NC, MinusOne)\nXF = "
      "Reshape (X, FlatShape)\nXC = Cast <to = " +
      std::to_string(computeType) + "> (XF)\nN1 = Shape <start = 0, end = 1> "
      "(grid)\nOneC = Constant <value = int64[1] {1}> ()\nIdxShape = Concat "
      "<axis = 0> (N1, OneC, MinusOne)\nIdxFlat = Reshape (" + index +
      ", IdxShape)\nMCount = Shape <start = 2> (IdxFlat)\nIdxTarget = Concat "
      "<axis = 0> (NC, MCount)\nIdxAll = Expand (IdxFlat, IdxTarget)\n"
      "Picked = GatherElements <axis = 2> (XC, IdxAll)\nOut = Shape <start = "
      "1, end = " + std::to_string(rank - 1) + "> (grid)\nTaps = Shape "
      "<start = " + std::to_string(-spatial) + "> (" + weight + ")\n"
      "PickedShape = Concat <axis = 0> (NC, Out, Taps)\nPickedFull = Reshape "
      "(Picked, PickedShape)\nWN = Unsqueeze (" + weight + ", OneC)\n"
      "Products = Mul (PickedFull, WN)");
  // Sum over the taps of every dim (the trailing `spatial` axes).
  std::vector<int64_t> tapAxes;
  for (int64_t d = 0; d < spatial; ++d)
    tapAxes.push_back(-1 - d);
  b.Const("TapAxes", tapAxes);
  add("Sum = ReduceSum <keepdims = 0> (Products, TapAxes)\nY = CastLike "
      "(Sum, X)");
  return true;
}

bool buildGridSample(const Call &c, onnx::FunctionBuilder &b,
                     std::string &error) {
  return GridSampleBody(c, b).build(error);
}

// AffineGrid (20): the grid GridSample reads for an affine transform of a
// batch of images: for output position (d,) h, w of image n, theta[n] times
// the normalized coordinates (x_w, y_h(, z_d), 1), x along the last spatial
// dim. Position i of a spatial dim of extent L lies at (2 i + 1) / L - 1,
// or with align_corners at 2 i / (L - 1) - 1 (-1 when L is 1), as the
// reference's linspace gives. The coordinates are computed in theta's type
// and the transform is one batched MatMul of the [P, k + 1] base grid (P
// positions) with theta transposed.
bool buildAffineGrid(const Call &c, onnx::FunctionBuilder &b,
                     std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  int64_t rows = rank == 3 ? c.extent(0, 1) : -1;
  int64_t cols = rank == 3 ? c.extent(0, 2) : -1;
  if (!((rows == 2 && cols == 3) || (rows == 3 && cols == 4))) {
    error = "theta must be [N, 2, 3] (2-D) or [N, 3, 4] (3-D), with static "
            "trailing dims";
    return false;
  }
  if (c.rank(1) != 1 || c.extent(1, 0) != rows + 2) {
    error = "size must be [N, C, H, W] for a 2-D theta and [N, C, D, H, W] "
            "for a 3-D one";
    return false;
  }
  int64_t spatial = rows;
  bool aligned = c.attr.i("align_corners", 0) != 0;
  b.Const("Zero", int64_t(0))
      .Const("One", int64_t(1))
      .Const("Zero1", std::vector<int64_t>{0})
      .Const("One1", std::vector<int64_t>{1})
      .Const("Spatial", std::vector<int64_t>{spatial})
      .Const("OneD", 1.0)
      .Const("TwoD", 2.0);
  text(b, R"(
    OneT = CastLike (OneD, theta)
    TwoT = CastLike (TwoD, theta)
    Batch = Slice (size, Zero1, One1)
  )");
  // Per spatial dim k: its extent Lk (and Lk1, as [1]) and the coordinate
  // Ck of each of its positions.
  std::string extents;
  for (int64_t d = 0; d < spatial; ++d) {
    std::string k = std::to_string(d);
    b.Const("At" + k, std::vector<int64_t>{2 + d})
        .Const("Next" + k, std::vector<int64_t>{3 + d});
    text(b, "L" + k + "1 = Slice (size, At" + k + ", Next" + k + ")\n" +
                "L" + k + " = Squeeze (L" + k + "1)\n" +
                "I" + k + " = Range (Zero, L" + k + ", One)\n" +
                "F" + k + " = CastLike (I" + k + ", theta)\n" +
                "LF" + k + " = CastLike (L" + k + ", theta)\n" +
                "Twice" + k + " = Mul (F" + k + ", TwoT)");
    if (aligned)
      text(b, "Den" + k + "0 = Sub (LF" + k + ", OneT)\n" +
                  "Den" + k + " = Max (Den" + k + "0, OneT)\n" +
                  "Q" + k + " = Div (Twice" + k + ", Den" + k + ")\n" +
                  "C" + k + " = Sub (Q" + k + ", OneT)");
    else
      text(b, "Odd" + k + " = Add (Twice" + k + ", OneT)\n" +
                  "Q" + k + " = Div (Odd" + k + ", LF" + k + ")\n" +
                  "C" + k + " = Sub (Q" + k + ", OneT)");
    extents += (d ? ", L" : "L") + k + "1";
  }
  text(b, "Extents = Concat <axis = 0> (" + extents + ")\n" +
              "Full = Concat <axis = 0> (Extents, One1)");
  // Component j of the base vector varies along spatial dim spatial - 1 - j.
  std::string parts;
  for (int64_t j = 0; j < spatial; ++j) {
    int64_t d = spatial - 1 - j;
    std::vector<int64_t> shape(spatial + 1, 1);
    shape[d] = -1;
    std::string k = std::to_string(d);
    b.Const("Shape" + k, shape);
    text(b, "R" + k + " = Reshape (C" + k + ", Shape" + k + ")\n" +
                "E" + k + " = Expand (R" + k + ", Full)");
    parts += "E" + k + ", ";
  }
  text(b, "Ones = Expand (OneT, Full)\n"
          "Base = Concat <axis = -1> (" + parts + "Ones)");
  b.Const("Rows", std::vector<int64_t>{-1, spatial + 1});
  text(b, R"(
    Flat = Reshape (Base, Rows)
    ThetaT = Transpose <perm = [0, 2, 1]> (theta)
    Points = MatMul (Flat, ThetaT)
    OutShape = Concat <axis = 0> (Batch, Extents, Spatial)
    grid = Reshape (Points, OutShape)
  )");
  return true;
}

} // namespace

void bodies::addGridSampleBody(std::vector<NewerOp> &ops) {
  ops.push_back({"GridSample", 16, 0, {"X", "grid"}, {"Y"}, buildGridSample});
  ops.push_back({"AffineGrid", 20, 0, {"theta", "size"}, {"grid"},
                 buildAffineGrid});
}

