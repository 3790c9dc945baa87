//===- DetectionBodies.cpp - Detection post-processing, as bodies ---------===//
//
// The ops detection models end with: NonMaxSuppression and RoiAlign, each
// its specification's meaning (ONNX 1.22 and its reference) in ONNX text.
// See BodyBuilders.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <limits>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

// NonMaxSuppression (10/11): per batch and class, the boxes in order of
// score (equal scores: the lower index first) whose score is above
// score_threshold (when given), each kept unless its IoU with a box kept
// before it is above iou_threshold, at most max_output_boxes_per_class
// (absent: 0) of them; [K, 3] rows (batch, class, box) in that order.
//
// The IoU of every pair of boxes is one [B, N, N] comparison (the
// reference's rules: no overlap, or an empty box or union, never
// suppresses). The scores are sorted by TopK; then a Loop over the ranks
// keeps the rank-i box of every (batch, class) at once where it is valid,
// not suppressed and there is room, and suppresses what overlaps it (its
// row of the IoU comparison, by GatherND). The kept ranks, stacked, are
// found by NonZero in (batch, class, rank) order, which is the output's;
// the box index is the sort's index at that rank.
bool buildNonMaxSuppression(const Call &c, onnx::FunctionBuilder &b,
                            std::string &error) {
  if (c.rank(0) != 3 || c.rank(1) != 3) {
    error = "boxes must be [batch, boxes, 4] and scores [batch, classes, "
            "boxes]";
    return false;
  }
  if (c.extent(0, 2) >= 0 && c.extent(0, 2) != 4) {
    error = "boxes must have 4 coordinates per box";
    return false;
  }
  int64_t center = c.attr.i("center_point_box", 0);
  if (center != 0 && center != 1) {
    error = "center_point_box must be 0 or 1";
    return false;
  }
  b.Const("ZeroF", 0.0f)
      .Const("TwoF", 2.0f)
      .Const("Scalar", std::vector<int64_t>{})
      .Const("Axis2", std::vector<int64_t>{2})
      .Const("Axis1", std::vector<int64_t>{1})
      .Const("Zero64", int64_t(0))
      .Const("Zero1", std::vector<int64_t>{0})
      .Const("Two1", std::vector<int64_t>{2});
  text(b, R"(
    Zero = CastLike (ZeroF, boxes)
    C0, C1, C2, C3 = Split <axis = 2, num_outputs = 4> (boxes)
  )");
  if (center == 0)
    text(b, R"(
      XMin = Min (C1, C3)
      XMax = Max (C1, C3)
      YMin = Min (C0, C2)
      YMax = Max (C0, C2)
    )");
  else
    text(b, R"(
      Two = CastLike (TwoF, boxes)
      HalfW = Div (C2, Two)
      HalfH = Div (C3, Two)
      XMin = Sub (C0, HalfW)
      XMax = Add (C0, HalfW)
      YMin = Sub (C1, HalfH)
      YMax = Add (C1, HalfH)
    )");
  // Rows are the candidate (i), columns the kept box (j).
  text(b, R"(
    XMinT = Transpose <perm = [0, 2, 1]> (XMin)
    XMaxT = Transpose <perm = [0, 2, 1]> (XMax)
    YMinT = Transpose <perm = [0, 2, 1]> (YMin)
    YMaxT = Transpose <perm = [0, 2, 1]> (YMax)
    IXMin = Max (XMin, XMinT)
    IXMax = Min (XMax, XMaxT)
    IYMin = Max (YMin, YMinT)
    IYMax = Min (YMax, YMaxT)
    IW = Sub (IXMax, IXMin)
    IH = Sub (IYMax, IYMin)
    Inter = Mul (IW, IH)
    W = Sub (XMax, XMin)
    H = Sub (YMax, YMin)
    Area = Mul (W, H)
    AreaT = Transpose <perm = [0, 2, 1]> (Area)
    Sum = Add (Area, AreaT)
    Union = Sub (Sum, Inter)
    IoU = Div (Inter, Union)
    P0 = Greater (IW, Zero)
    P1 = Greater (IH, Zero)
    P2 = Greater (Inter, Zero)
    P3 = Greater (Area, Zero)
    P4 = Greater (AreaT, Zero)
    P5 = Greater (Union, Zero)
    Q0 = And (P0, P1)
    Q1 = And (Q0, P2)
    Q2 = And (Q1, P3)
    Q3 = And (Q2, P4)
    Q4 = And (Q3, P5)
  )");
  if (c.hasInput(3))
    text(b, "IouThr = Reshape (iou_threshold, Scalar)");
  else
    text(b, "IouThr = Identity (Zero)");
  text(b, R"(
    Above = Greater (IoU, IouThr)
    Overlaps = And (Q4, Above)
    ScoreShape = Shape (scores)
    N1 = Shape <start = 2, end = 3> (scores)
    N = Squeeze (N1)
    Sorted, Order = TopK <axis = 2, largest = 1, sorted = 1> (scores, N1)
  )");
  // Without score_threshold every box is a candidate (NaN scores too).
  if (c.hasInput(4))
    text(b, R"(
      ScoreThr = Reshape (score_threshold, Scalar)
      Valid = Greater (Sorted, ScoreThr)
    )");
  else
    text(b, R"(
      TrueB = Constant <value = bool {1}> ()
      Valid = Expand (TrueB, ScoreShape)
    )");
  if (c.hasInput(2))
    text(b, R"(
      MaxGiven = Reshape (max_output_boxes_per_class, Scalar)
      Max = Max (MaxGiven, Zero64)
    )");
  else
    text(b, "Max = Identity (Zero64)");
  text(b, R"(
    Classes = Shape <start = 0, end = 2> (scores)
    FalseB = Constant <value = bool {0}> ()
    Supp0 = Expand (FalseB, ScoreShape)
    Count0 = Expand (Zero64, Classes)
    Go = Constant <value = bool {1}> ()
    SuppN, CountN, KeptRanks = Loop (N, Go, Supp0, Count0) <body = nmsrank (int64 i, bool go, bool supp, int64 count) => (bool go_out, bool supp_out, int64 count_out, bool keep) {
      go_out = Identity (go)
      Oi = Gather <axis = 2> (Order, i)
      Vi = Gather <axis = 2> (Valid, i)
      OiU = Unsqueeze (Oi, Axis2)
      SiU = GatherElements <axis = 2> (supp, OiU)
      Si = Squeeze (SiU, Axis2)
      Free = Not (Si)
      Room = Less (count, Max)
      K0 = And (Vi, Free)
      keep = And (K0, Room)
      Row = GatherND <batch_dims = 1> (Overlaps, OiU)
      KeepU = Unsqueeze (keep, Axis2)
      Hit = And (KeepU, Row)
      supp_out = Or (supp, Hit)
      KeepI = Cast <to = 7> (keep)
      count_out = Add (count, KeepI)
    }>
    Kept = Transpose <perm = [1, 2, 0]> (KeptRanks)
    Where3 = NonZero (Kept)
    Rows = Transpose <perm = [1, 0]> (Where3)
    BatchClass = Slice (Rows, Zero1, Two1, Axis1)
    Box = GatherND (Order, Rows)
    BoxU = Unsqueeze (Box, Axis1)
    selected_indices = Concat <axis = 1> (BatchClass, BoxU)
  )");
  return true;
}


// RoiAlign (10, 16): per region, an output_height x output_width grid of
// bins, each the average (mode avg) or maximum (mode max) of a
// sampling_ratio x sampling_ratio grid of bilinear samples (0: ceil(the
// bin's extent) per axis, per region), by the reference's rules: a sample
// outside [-1, H] x [-1, W] counts as 0, coordinates clamp at 0 and at the
// last row/column. Coordinates and weights are f64 (the reference's
// Python floats); values stay in X's type.
//
// Every region samples the largest grid of any (read back, a Range); a
// region's samples past its own grid are masked out. Rows are gathered
// from X seen as [N * H, C, W] (batch index * H + row), then columns along
// W: [R, S, C, T] for S = output_height * grid rows, T = output_width *
// grid columns. avg interpolates per axis (the bilinear weights are a
// product) and sums; max takes the reference's max of the four weighted
// corners per sample.
bool buildRoiAlign(const Call &c, onnx::FunctionBuilder &b,
                   std::string &error) {
  if (c.rank(0) != 4 || c.rank(1) != 2 || c.rank(2) != 1) {
    error = "X must be [N, C, H, W], rois [R, 4] and batch_indices [R]";
    return false;
  }
  std::string mode = c.attr.s("mode", "avg");
  if (mode != "avg" && mode != "max") {
    error = "mode must be avg or max, not '" + mode + "'";
    return false;
  }
  // RoiAlign-10 has no coordinate_transformation_mode: output_half_pixel.
  std::string transform = c.attr.s(
      "coordinate_transformation_mode",
      c.opset >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    error = "coordinate_transformation_mode must be half_pixel or "
            "output_half_pixel, not '" + transform + "'";
    return false;
  }
  bool halfPixel = transform == "half_pixel";
  int64_t oh = c.attr.i("output_height", 1), ow = c.attr.i("output_width", 1);
  int64_t ratio = c.attr.i("sampling_ratio", 0);
  if (oh < 1 || ow < 1 || ratio < 0) {
    error = "output_height and output_width must be positive and "
            "sampling_ratio not negative";
    return false;
  }
  double scale = c.attr.f("spatial_scale", 1.0f);
  auto series = [](int64_t n) {
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i)
      v.push_back(double(i));
    return v;
  };
  b.Const("Scale", std::vector<double>{scale})
      .Const("Offset", std::vector<double>{halfPixel ? 0.5 : 0.0})
      .Const("OneD", 1.0)
      .Const("ZeroD", 0.0)
      .Const("MinusOneD", -1.0)
      .Const("HalfD", 0.5)
      .Const("OH", double(oh))
      .Const("OW", double(ow))
      .Const("PHs", series(oh))
      .Const("PWs", series(ow))
      .Const("ZeroI", int64_t(0))
      .Const("OneI", int64_t(1))
      .Const("Axes25", std::vector<int64_t>{2, 5})
      .Const("Flat", std::vector<int64_t>{-1})
      .Const("Shape11", std::vector<int64_t>{-1, 1, 1})
      .Const("Shape111", std::vector<int64_t>{-1, 1, 1, 1})
      .Const("ShapePH", std::vector<int64_t>{1, oh, 1})
      .Const("ShapePW", std::vector<int64_t>{1, ow, 1})
      .Const("ShapeG", std::vector<int64_t>{1, 1, -1})
      .Const("Ratio", int64_t(ratio))
      .Const("Axis12", std::vector<int64_t>{1, 2})
      .Const("Axis23", std::vector<int64_t>{2, 3})
      .Const("OHv", std::vector<int64_t>{oh})
      .Const("OWv", std::vector<int64_t>{ow})
      .Const("NegInfF", -std::numeric_limits<float>::infinity());
  text(b, R"(
    RoisD = Cast <to = 11> (rois)
    X1, Y1, X2, Y2 = Split <axis = 1, num_outputs = 4> (RoisD)
    X1S = Mul (X1, Scale)
    Y1S = Mul (Y1, Scale)
    X2S = Mul (X2, Scale)
    Y2S = Mul (Y2, Scale)
    SW = Sub (X1S, Offset)
    SH = Sub (Y1S, Offset)
    EW = Sub (X2S, Offset)
    EH = Sub (Y2S, Offset)
    RW0 = Sub (EW, SW)
    RH0 = Sub (EH, SH)
  )");
  if (halfPixel)
    text(b, "RW = Identity (RW0)\nRH = Identity (RH0)");
  else // malformed regions become 1 x 1
    text(b, "RW = Max (RW0, OneD)\nRH = Max (RH0, OneD)");
  text(b, R"(
    BinH = Div (RH, OH)
    BinW = Div (RW, OW)
  )");
  if (ratio > 0)
    text(b, R"(
      RatioD = Cast <to = 11> (Ratio)
      RegionShape = Shape (RH)
      GridHD = Expand (RatioD, RegionShape)
      GridWD = Expand (RatioD, RegionShape)
    )");
  else
    text(b, R"(
      GridHD = Ceil (BinH)
      GridWD = Ceil (BinW)
    )");
  // The grids every region samples: the largest of any (at least 1).
  text(b, R"(
    GridH = Cast <to = 7> (GridHD)
    GridW = Cast <to = 7> (GridWD)
    GH0 = ReduceMax <keepdims = 0> (GridH)
    GW0 = ReduceMax <keepdims = 0> (GridW)
    GH = Max (GH0, OneI)
    GW = Max (GW0, OneI)
    IYs = Range (ZeroI, GH, OneI)
    IXs = Range (ZeroI, GW, OneI)
    XShape = Shape (X)
    HI1 = Shape <start = 2, end = 3> (X)
    WI1 = Shape <start = 3, end = 4> (X)
    HI = Squeeze (HI1)
    WI = Squeeze (WI1)
    Channels = Shape <start = 1, end = 2> (X)
    Regions = Shape <start = 0, end = 1> (rois)
  )");
  // Per axis a (Y: rows, X: columns): the sample positions [R, bins, grid],
  // which are valid (inside the region's grid and the map), the low and
  // high rows/columns and their weights, zero where not valid.
  auto axis = [&](const std::string &a, const std::string &start,
                  const std::string &bin, const std::string &grid,
                  const std::string &binsShape, const std::string &bins,
                  const std::string &samples, const std::string &extent) {
    auto t = [&](const std::string &name) { return a + name; };
    text(b, t("Start") + " = Reshape (" + start + ", Shape11)\n" +
                t("Bin") + " = Reshape (" + bin + ", Shape11)\n" + t("Grid") +
                " = Reshape (" + grid + ", Shape11)\n" + t("P") +
                " = Reshape (" + bins + ", " + binsShape + ")\n" + t("I0") +
                " = Cast <to = 11> (" + samples + ")\n" + t("I") +
                " = Reshape (" + t("I0") + ", ShapeG)\n" + t("PB") + " = Mul (" +
                t("P") + ", " + t("Bin") + ")\n" + t("A") + " = Add (" +
                t("Start") + ", " + t("PB") + ")\n" + t("IH") + " = Add (" +
                t("I") + ", HalfD)\n" + t("IB") + " = Mul (" + t("IH") + ", " +
                t("Bin") + ")\n" + t("Step") + " = Div (" + t("IB") + ", " +
                t("Grid") + ")\n" + t("Pos") + " = Add (" + t("A") + ", " +
                t("Step") + ")\n" + t("InGrid") + " = Less (" + t("I") + ", " +
                t("Grid") + ")\n" + t("ExtD") + " = Cast <to = 11> (" + extent +
                ")\n" + t("Lo") + " = Less (" + t("Pos") + ", MinusOneD)\n" +
                t("Hi") + " = Greater (" + t("Pos") + ", " + t("ExtD") + ")\n" +
                t("Out") + " = Or (" + t("Lo") + ", " + t("Hi") + ")\n" +
                t("PosShape") + " = Shape (" + t("Pos") + ")\n" + t("Sampled") +
                " = Expand (" + t("InGrid") + ", " + t("PosShape") + ")\n" +
                t("In") + " = Not (" + t("Out") + ")\n" + t("Ok") + " = And (" +
                t("In") + ", " + t("InGrid") + ")\n" + t("C") + " = Max (" +
                t("Pos") + ", ZeroD)\n" + t("F") + " = Floor (" + t("C") +
                ")\n" + t("LastD") + " = Sub (" + t("ExtD") + ", OneD)\n" +
                t("Edge") + " = GreaterOrEqual (" + t("F") + ", " + t("LastD") +
                ")\n" + t("F1") + " = Add (" + t("F") + ", OneD)\n" + t("LowD") +
                " = Where (" + t("Edge") + ", " + t("LastD") + ", " + t("F") +
                ")\n" + t("HighD") + " = Where (" + t("Edge") + ", " + t("LastD") +
                ", " + t("F1") + ")\n" + t("V") + " = Where (" + t("Edge") + ", " +
                t("LowD") + ", " + t("C") + ")\n" + t("L") + " = Sub (" + t("V") +
                ", " + t("LowD") + ")\n" + t("H") + " = Sub (OneD, " + t("L") +
                ")\n" + t("OkD") + " = Cast <to = 11> (" + t("Ok") + ")\n" +
                t("WLow") + " = Mul (" + t("H") + ", " + t("OkD") + ")\n" +
                t("WHigh") + " = Mul (" + t("L") + ", " + t("OkD") + ")\n" +
                t("Low") + " = Cast <to = 7> (" + t("LowD") + ")\n" + t("High") +
                " = Cast <to = 7> (" + t("HighD") + ")");
  };
  axis("Y", "SH", "BinH", "GridHD", "ShapePH", "PHs", "IYs", "HI");
  axis("X", "SW", "BinW", "GridWD", "ShapePW", "PWs", "IXs", "WI");
  // Rows: X as [N * H, C, W], row batch * H + y, [R, S] with S = oh * GH.
  text(b, R"(
    XT = Transpose <perm = [0, 2, 1, 3]> (X)
    CW = Shape <start = 2> (XT)
    Rows = Concat <axis = 0> (Flat, CW)
    XRows = Reshape (XT, Rows)
    Batch = Reshape (batch_indices, Shape11)
    BatchH = Mul (Batch, HI)
    RowL0 = Add (BatchH, YLow)
    RowH0 = Add (BatchH, YHigh)
    RS = Concat <axis = 0> (Regions, Flat)
    RowL = Reshape (RowL0, RS)
    RowH = Reshape (RowH0, RS)
    AL = Gather <axis = 0> (XRows, RowL)
    AH = Gather <axis = 0> (XRows, RowH)
    ColL1 = Reshape (XLow, RS)
    ColH1 = Reshape (XHigh, RS)
    ColL2 = Unsqueeze (ColL1, Axis12)
    ColH2 = Unsqueeze (ColH1, Axis12)
    SCount1 = Shape <start = 1, end = 2> (RowL)
    TCount1 = Shape <start = 1, end = 2> (ColL1)
    ColShape = Concat <axis = 0> (Regions, SCount1, Channels, TCount1)
    ColL = Expand (ColL2, ColShape)
    ColH = Expand (ColH2, ColShape)
    WYL1 = Reshape (YWLow, RS)
    WYH1 = Reshape (YWHigh, RS)
    WXL1 = Reshape (XWLow, RS)
    WXH1 = Reshape (XWHigh, RS)
    WYLD = Unsqueeze (WYL1, Axis23)
    WYHD = Unsqueeze (WYH1, Axis23)
    WXLD = Unsqueeze (WXL1, Axis12)
    WXHD = Unsqueeze (WXH1, Axis12)
    WYL = CastLike (WYLD, X)
    WYH = CastLike (WYHD, X)
    WXL = CastLike (WXLD, X)
    WXH = CastLike (WXHD, X)
    GH1 = Reshape (GH, Flat)
    GW1 = Reshape (GW, Flat)
    Split6 = Concat <axis = 0> (Regions, OHv, GH1, Channels, OWv, GW1)
  )");
  if (mode == "avg") {
    text(b, R"(
      RowsL = Mul (AL, WYL)
      RowsH = Mul (AH, WYH)
      RowsY = Add (RowsL, RowsH)
      ZL = GatherElements <axis = 3> (RowsY, ColL)
      ZH = GatherElements <axis = 3> (RowsY, ColH)
      ZLW = Mul (ZL, WXL)
      ZHW = Mul (ZH, WXH)
      Z = Add (ZLW, ZHW)
      Z6 = Reshape (Z, Split6)
      Sums = ReduceSum <keepdims = 0> (Z6, Axes25)
      CountI = Mul (GridH, GridW)
      CountI1 = Max (CountI, OneI)
      CountD = Cast <to = 11> (CountI1)
      Count1 = Reshape (CountD, Shape111)
      CountX = CastLike (Count1, X)
      SumsT = Transpose <perm = [0, 2, 1, 3]> (Sums)
      Y = Div (SumsT, CountX)
    )");
    return true;
  }
  // max: the four weighted corners per sample; samples past a region's
  // grid are -inf, and a region with no samples (an empty grid) gives 0.
  text(b, R"(
    LL = GatherElements <axis = 3> (AL, ColL)
    LH = GatherElements <axis = 3> (AL, ColH)
    HL = GatherElements <axis = 3> (AH, ColL)
    HH = GatherElements <axis = 3> (AH, ColH)
    W1 = Mul (WYL, WXL)
    W2 = Mul (WYL, WXH)
    W3 = Mul (WYH, WXL)
    W4 = Mul (WYH, WXH)
    V1 = Mul (W1, LL)
    V2 = Mul (W2, LH)
    V3 = Mul (W3, HL)
    V4 = Mul (W4, HH)
    V = Max (V1, V2, V3, V4)
    SampledY1 = Reshape (YSampled, RS)
    SampledX1 = Reshape (XSampled, RS)
    SampledY = Unsqueeze (SampledY1, Axis23)
    SampledX = Unsqueeze (SampledX1, Axis12)
    Sampled = And (SampledY, SampledX)
    NegInf = CastLike (NegInfF, X)
    VM = Where (Sampled, V, NegInf)
    V6 = Reshape (VM, Split6)
    Maxes = ReduceMax <keepdims = 0> (V6, Axes25)
    MaxesT = Transpose <perm = [0, 2, 1, 3]> (Maxes)
    CountI = Mul (GridH, GridW)
    Any0 = Greater (CountI, ZeroI)
    Any = Reshape (Any0, Shape111)
    ZeroF = Constant <value = float {0}> ()
    ZeroX = CastLike (ZeroF, X)
    Y = Where (Any, MaxesT, ZeroX)
  )");
  return true;
}

} // namespace

void bodies::addDetectionBodies(std::vector<NewerOp> &ops) {
  const NewerOp table[] = {
      {"NonMaxSuppression",
       10,
       0,
       {"boxes", "scores", "max_output_boxes_per_class", "iou_threshold",
        "score_threshold"},
       {"selected_indices"},
       buildNonMaxSuppression},
      {"RoiAlign", 10, 0, {"X", "rois", "batch_indices"}, {"Y"},
       buildRoiAlign},
  };
  ops.insert(ops.end(), std::begin(table), std::end(table));
}
