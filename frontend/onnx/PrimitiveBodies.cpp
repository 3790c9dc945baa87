//===- PrimitiveBodies.cpp - Small primitive ops as ONNX bodies -------------===//
//
// Ops ONNX defines as primitives whose meaning is a few supported ops
// (DepthToSpace, Tile, Pad, OneHot, ...): each body is its specification's
// formula (ONNX 1.22) in ONNX text. See BodyBuilders.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <iterator>
#include <limits>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

// ---- Data movement and small ops without libonnx bodies -----------------
//
// Ops ONNX defines as primitives whose meaning is a few supported ops: each
// body is its specification's formula (ONNX 1.22) in ONNX text.

// DepthToSpace-13 (DCR: depth, column, row; CRD: column, row, depth) and
// SpaceToDepth-13 on [N, C, H, W]: a reshape to six dims, a transpose, a
// reshape back.
bool buildDepthToSpace(const Call &c, onnx::FunctionBuilder &b,
                       std::string &error) {
  int64_t rank, block = c.attr.i("blocksize", 0);
  if (!knownRank(c, 0, rank, error))
    return false;
  if (rank != 4 || block <= 0) {
    error = "needs a 4-D input and a positive blocksize";
    return false;
  }
  std::string mode = c.attr.s("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") {
    error = "mode must be DCR or CRD, not '" + mode + "'";
    return false;
  }
  shapeSlice(b, "N", 0, 1);
  shapeSlice(b, "C", 1, 2);
  shapeSlice(b, "H", 2, 3);
  shapeSlice(b, "W", 3, 4);
  b.Const("B", std::vector<int64_t>{block})
      .Const("BB", std::vector<int64_t>{block * block})
      .Add("CB = Div (C, BB)")
      .Add("HB = Mul (H, B)")
      .Add("WB = Mul (W, B)");
  if (mode == "DCR")
    b.Add(R"(
      Six = Concat <axis = 0> (N, B, B, CB, H, W)
      T = Reshape (X, Six)
      P = Transpose <perm = [0, 3, 4, 1, 5, 2]> (T)
    )");
  else
    b.Add(R"(
      Six = Concat <axis = 0> (N, CB, B, B, H, W)
      T = Reshape (X, Six)
      P = Transpose <perm = [0, 1, 4, 2, 5, 3]> (T)
    )");
  b.Add(R"(
    Four = Concat <axis = 0> (N, CB, HB, WB)
    Y = Reshape (P, Four)
  )");
  return true;
}

bool buildSpaceToDepth(const Call &c, onnx::FunctionBuilder &b,
                       std::string &error) {
  int64_t rank, block = c.attr.i("blocksize", 0);
  if (!knownRank(c, 0, rank, error))
    return false;
  if (rank != 4 || block <= 0) {
    error = "needs a 4-D input and a positive blocksize";
    return false;
  }
  shapeSlice(b, "N", 0, 1);
  shapeSlice(b, "C", 1, 2);
  shapeSlice(b, "H", 2, 3);
  shapeSlice(b, "W", 3, 4);
  b.Const("B", std::vector<int64_t>{block})
      .Const("BB", std::vector<int64_t>{block * block})
      .Add(R"(
        HB = Div (H, B)
        WB = Div (W, B)
        CB = Mul (C, BB)
        Six = Concat <axis = 0> (N, C, HB, B, WB, B)
        T = Reshape (X, Six)
        P = Transpose <perm = [0, 3, 5, 1, 2, 4]> (T)
        Four = Concat <axis = 0> (N, CB, HB, WB)
        Y = Reshape (P, Four)
      )");
  return true;
}

// EyeLike-9: ones where column - row == k, of `dtype` (default X's type).
bool buildEyeLike(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  if (rank != 2) {
    error = "needs a 2-D input";
    return false;
  }
  b.Const("Zero", int64_t(0))
      .Const("One", int64_t(1))
      .Const("K", c.attr.i("k", 0))
      .Const("Axis0", std::vector<int64_t>{0})
      .Const("Axis1", std::vector<int64_t>{1})
      .Add(R"(
        Rows1 = Shape <start = 0, end = 1> (X)
        Cols1 = Shape <start = 1, end = 2> (X)
        Rows = Squeeze (Rows1)
        Cols = Squeeze (Cols1)
        R = Range (Zero, Rows, One)
        Cl = Range (Zero, Cols, One)
        RC = Unsqueeze (R, Axis1)
        CR = Unsqueeze (Cl, Axis0)
        RK = Add (RC, K)
        E = Equal (RK, CR)
      )")
      .Add("Y = Cast (E)", "to", c.attr.i("dtype", c.elementType(0)));
  return true;
}

// GlobalMaxPool-1: the maximum over every spatial dim, kept.
bool buildGlobalMaxPool(const Call &c, onnx::FunctionBuilder &b,
                        std::string &error) {
  int64_t rank;
  if (!knownImageRank(c, 0, rank, error))
    return false;
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  b.Const("Axes", axes).Add("Y = ReduceMax <keepdims = 1> (X, Axes)");
  return true;
}

// Shrink-9: x + bias below -lambd, x - bias above lambd, 0 between.
bool buildShrink(const Call &c, onnx::FunctionBuilder &b, std::string &) {
  b.Const("LambdF", c.attr.f("lambd", 0.5f))
      .Const("BiasF", c.attr.f("bias", 0.0f))
      .Const("ZeroF", 0.0f)
      .Add(R"(
        Lambd = CastLike (LambdF, X)
        Bias = CastLike (BiasF, X)
        Zero = CastLike (ZeroF, X)
        NegLambd = Neg (Lambd)
        Low = Less (X, NegLambd)
        High = Greater (X, Lambd)
        Raised = Add (X, Bias)
        Lowered = Sub (X, Bias)
        Middle = Where (High, Lowered, Zero)
        Y = Where (Low, Raised, Middle)
      )");
  return true;
}

// Tile-13: X repeated repeats[i] times along dim i: X unsqueezed before
// every dim, expanded to [r0, d0, r1, d1, ...], reshaped to [r0 d0, ...].
bool buildTile(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  if (rank == 0) {
    b.Add("Y = Identity (X)");
    return true;
  }
  // [r0, d0, r1, d1, ...] picked from [repeats..., shape...] (one host
  // value of the plan, so that its elements are read on the host).
  std::vector<int64_t> axes, interleave;
  for (int64_t d = 0; d < rank; ++d) {
    axes.push_back(2 * d);
    interleave.push_back(d);
    interleave.push_back(rank + d);
  }
  b.Const("Axes", axes).Const("Interleave", interleave).Add(R"(
    XS = Shape (X)
    Both = Concat <axis = 0> (repeats, XS)
    Expanded = Gather (Both, Interleave)
    XU = Unsqueeze (X, Axes)
    XE = Expand (XU, Expanded)
    Out = Mul (XS, repeats)
    Y = Reshape (XE, Out)
  )");
  return true;
}

// LpNormalization-1: x / ||x||_p along axis (p 1 or 2).
bool buildLpNormalization(const Call &c, onnx::FunctionBuilder &b,
                          std::string &error) {
  int64_t rank, axis, p = c.attr.i("p", 2);
  if (!knownRank(c, 0, rank, error) ||
      !axisAttribute(c, "axis", -1, rank, axis, error))
    return false;
  if (p != 1 && p != 2) {
    error = "p must be 1 or 2, not " + std::to_string(p);
    return false;
  }
  b.Const("Axes", std::vector<int64_t>{axis});
  text(b, std::string("Norm = ") + (p == 1 ? "ReduceL1" : "ReduceL2") +
              " <keepdims = 1> (X, Axes)");
  // A zero norm gives 0, not 0 / 0 (ONNX's reference).
  b.Const("ZeroF", 0.0f).Add(R"(
    Zero = CastLike (ZeroF, X)
    IsZero = Equal (Norm, Zero)
    Quotient = Div (X, Norm)
    Y = Where (IsZero, Zero, Quotient)
  )");
  return true;
}

// LpPool-11/18: (sum over the window of |x|^p)^(1/p): the sum is an
// AveragePool counting the padding, times the kernel's size.
bool buildLpPool(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  const onnx::AttributeProto *kernel = c.attr.find("kernel_shape");
  if (!kernel || kernel->ints_size() == 0) {
    error = "kernel_shape is required";
    return false;
  }
  int64_t p = c.attr.i("p", 2), size = 1;
  if (p <= 0) {
    error = "p must be positive, not " + std::to_string(p);
    return false;
  }
  for (int64_t k : kernel->ints())
    size *= k;
  b.Const("PF", float(p))
      .Const("InvPF", 1.0f / float(p))
      .Const("SizeF", float(size))
      .Add(R"(
        P = CastLike (PF, X)
        InvP = CastLike (InvPF, X)
        Size = CastLike (SizeF, X)
        A = Abs (X)
        AP = Pow (A, P)
      )");
  std::string attrs =
      forwardAttributes(c, {"auto_pad", "ceil_mode", "dilations",
                            "kernel_shape", "pads", "strides"});
  attrs.insert(1, "count_include_pad = 1, ");
  text(b, "Mean = AveragePool " + attrs + " (AP)");
  b.Add(R"(
    Sum = Mul (Mean, Size)
    Y = Pow (Sum, InvP)
  )");
  return true;
}

// OneHot-11: values[1] where the index (negative ones counting from depth)
// equals the position along the new axis, values[0] elsewhere.
bool buildOneHot(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t rank, axis;
  if (!knownRank(c, 0, rank, error) ||
      !axisAttribute(c, "axis", -1, rank + 1, axis, error))
    return false;
  // The depth may be any number (ONNX's reference takes int(depth)): a
  // float one converts toward zero; its value is the output's extent, which
  // the plan reads back when kernels compute it.
  std::vector<int64_t> shape(rank + 1, 1);
  shape[axis] = -1;
  b.Const("Zero", int64_t(0))
      .Const("One", int64_t(1))
      .Const("Off", std::vector<int64_t>{0})
      .Const("On", std::vector<int64_t>{1})
      .Const("Axes", std::vector<int64_t>{axis})
      .Const("PositionShape", shape)
      .Add(R"(
        DepthAny = Cast <to = 7> (depth)
        Depth = Squeeze (DepthAny)
        I = Cast <to = 7> (indices)
        Negative = Less (I, Zero)
        Wrapped = Add (I, Depth)
        Index = Where (Negative, Wrapped, I)
        IndexU = Unsqueeze (Index, Axes)
        Position = Range (Zero, Depth, One)
        PositionB = Reshape (Position, PositionShape)
        Hot = Equal (IndexU, PositionB)
        OffV1 = Gather (values, Off)
        OnV1 = Gather (values, On)
        OffV = Squeeze (OffV1)
        OnV = Squeeze (OnV1)
        output = Where (Hot, OnV, OffV)
      )");
  return true;
}

// Dropout-7/10/12/13/22 at inference: the input, and a mask of ones. A
// training_mode input could turn on random dropping, which is refused.
// Dropout: inference drops nothing, and neither does training with a
// ratio of 0 (torch exports training_mode = true with ratio 0 where a
// module's dropout probability is 0). Any other training is random.
bool buildDropout(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  if (c.hasInput(2)) {
    std::optional<std::vector<int64_t>> training = c.constantInts(2);
    std::optional<std::vector<double>> ratio = c.constantFloats(1);
    bool inference = training && training->size() == 1 && (*training)[0] == 0;
    bool dropsNothing = ratio && ratio->size() == 1 && (*ratio)[0] == 0.0;
    if (!inference && !dropsNothing) {
      error = std::string(kUnsupportedPrefix) +
              "training_mode (random dropout) with a ratio that is not a "
              "constant 0 is not supported; inference drops nothing";
      return false;
    }
  }
  b.Add("output = Identity (data)");
  if (c.hasOutput(1)) {
    onnx::TensorProto one = onnx::ToTensor(true);
    one.add_dims(1);
    b.Add("S = Shape (data)")
        .Add("mask = ConstantOfShape (S)", onnx::MakeAttribute("value", one));
  }
  return true;
}

// Pad-2/11/13/18/19/21/23/24/25: per padded axis a Gather of the source
// index of each output position, Range(-begin, n + end) mapped into
// [0, n) by the mode (constant: clamped, then the constant where it was
// outside; edge: clamped; reflect: folded with period 2(n - 1); wrap:
// modulo n). Negative pads crop. Axes (opset 18) must be constants.
bool buildPad(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  std::string mode = c.attr.s("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect" &&
      mode != "wrap") {
    error = "mode must be constant, edge, reflect or wrap, not '" + mode + "'";
    return false;
  }
  // Which entry of pads (begin k, end k + count) pads each dim, if any.
  std::vector<int64_t> entry(rank, -1);
  int64_t count = rank;
  if (c.opset < 11) {
    const onnx::AttributeProto *pads = c.attr.find("pads");
    if (!pads || pads->ints_size() != 2 * rank) {
      error = "pads must hold 2 * rank values";
      return false;
    }
    b.Const("Pads",
            std::vector<int64_t>(pads->ints().begin(), pads->ints().end()))
        .Const("ValueF", c.attr.f("value", 0.0f))
        .Add("Value = CastLike (ValueF, data)");
  } else {
    b.Add("Pads = Identity (pads)");
    if (c.hasInput(2))
      b.Add("Value = Identity (constant_value)");
    else
      b.Const("ValueF", 0.0f).Add("Value = CastLike (ValueF, data)");
  }
  if (c.opset >= 18 && c.hasInput(3)) {
    std::optional<std::vector<int64_t>> axes = c.constantInts(3);
    if (!axes) {
      error = std::string(kUnsupportedPrefix) +
              "axes computed at run time are not supported (constants only)";
      return false;
    }
    count = axes->size();
    for (int64_t k = 0; k < count; ++k) {
      int64_t a = (*axes)[k];
      if (a < -rank || a >= rank || entry[a < 0 ? a + rank : a] >= 0) {
        error = "axes must be distinct and in range";
        return false;
      }
      entry[a < 0 ? a + rank : a] = k;
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      entry[d] = d;
  }
  std::optional<std::vector<int64_t>> known =
      c.opset < 11 ? std::optional<std::vector<int64_t>>(std::vector<int64_t>(
                         c.attr.find("pads")->ints().begin(),
                         c.attr.find("pads")->ints().end()))
                   : c.constantInts(1);
  b.Const("Zero", int64_t(0)).Const("One", int64_t(1)).Const("Two", int64_t(2));
  std::string current = "data";
  for (int64_t d = 0; d < rank; ++d) {
    int64_t k = entry[d];
    if (k < 0 || (known && int64_t(known->size()) == 2 * count &&
                  (*known)[k] == 0 && (*known)[k + count] == 0))
      continue; // not padded
    std::string i = std::to_string(d), p = "P" + i + "_";
    std::vector<int64_t> shape(rank, 1);
    shape[d] = -1;
    b.Const(p + "BeginAt", std::vector<int64_t>{k})
        .Const(p + "EndAt", std::vector<int64_t>{k + count})
        .Const(p + "MaskShape", shape);
    text(b, p + "Begin1 = Gather (Pads, " + p + "BeginAt)");
    text(b, p + "End1 = Gather (Pads, " + p + "EndAt)");
    text(b, p + "N1 = Shape <start = " + i +
                ", end = " + std::to_string(d + 1) + "> (data)");
    text(b, p + "Begin = Squeeze (" + p + "Begin1)");
    text(b, p + "End = Squeeze (" + p + "End1)");
    text(b, p + "N = Squeeze (" + p + "N1)");
    text(b, p + "Start = Sub (Zero, " + p + "Begin)");
    text(b, p + "Limit = Add (" + p + "N, " + p + "End)");
    text(b, p + "I = Range (" + p + "Start, " + p + "Limit, One)");
    text(b, p + "Last = Sub (" + p + "N, One)");
    std::string index = p + "Index";
    if (mode == "constant" || mode == "edge") {
      text(b, index + " = Clip (" + p + "I, Zero, " + p + "Last)");
    } else if (mode == "wrap") {
      text(b, index + " = Mod (" + p + "I, " + p + "N)");
    } else { // reflect: fold with period 2(n - 1), at least 1
      text(b, p + "Period0 = Mul (" + p + "Last, Two)");
      text(b, p + "Period = Max (" + p + "Period0, One)");
      text(b, p + "M = Mod (" + p + "I, " + p + "Period)");
      text(b, p + "Mirror = Sub (" + p + "Period, " + p + "M)");
      text(b, p + "Inside = Less (" + p + "M, " + p + "N)");
      text(b,
           index + " = Where (" + p + "Inside, " + p + "M, " + p + "Mirror)");
    }
    std::string next = p + "Out";
    text(b,
         p + "G = Gather <axis = " + i + "> (" + current + ", " + index + ")");
    if (mode == "constant") {
      text(b, p + "Low = GreaterOrEqual (" + p + "I, Zero)");
      text(b, p + "High = Less (" + p + "I, " + p + "N)");
      text(b, p + "Valid = And (" + p + "Low, " + p + "High)");
      text(b, p + "Mask = Reshape (" + p + "Valid, " + p + "MaskShape)");
      text(b, next + " = Where (" + p + "Mask, " + p + "G, Value)");
    } else {
      text(b, next + " = Identity (" + p + "G)");
    }
    current = next;
  }
  text(b, "output = Identity (" + current + ")");
  return true;
}

// CenterCropPad-18: each axis cropped or padded (with zeros) to `shape`,
// centred (the odd element goes to the end).
bool buildCenterCropPad(const Call &c, onnx::FunctionBuilder &b,
                        std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  std::vector<int64_t> axes;
  if (const onnx::AttributeProto *a = c.attr.find("axes")) {
    for (int64_t axis : a->ints()) {
      if (axis < -rank || axis >= rank) {
        error = "axis " + std::to_string(axis) + " is out of range";
        return false;
      }
      axes.push_back(axis < 0 ? axis + rank : axis);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  b.Const("Axes", axes).Const("Two", std::vector<int64_t>{2}).Add(R"(
    InShape = Shape (input_data)
    Have = Gather (InShape, Axes)
    Wide = Max (Have, shape)
    PadAmount = Sub (Wide, Have)
    PadBegin = Div (PadAmount, Two)
    PadEnd = Sub (PadAmount, PadBegin)
    Pads = Concat <axis = 0> (PadBegin, PadEnd)
    Padded = Pad (input_data, Pads, , Axes)
    CropAmount = Sub (Wide, shape)
    Starts = Div (CropAmount, Two)
    Ends = Add (Starts, shape)
    output_data = Slice (Padded, Starts, Ends, Axes)
  )");
  return true;
}

// InstanceNormalization-6: per sample and channel, (x - mean) /
// sqrt(var + epsilon) over the spatial dims, then scale and B per channel.
bool buildInstanceNormalization(const Call &c, onnx::FunctionBuilder &b,
                                std::string &error) {
  int64_t rank;
  if (!knownImageRank(c, 0, rank, error))
    return false;
  std::vector<int64_t> spatial, perChannel;
  for (int64_t d = 2; d < rank; ++d)
    spatial.push_back(d);
  for (int64_t d = 1; d < rank - 1; ++d)
    perChannel.push_back(d);
  b.Const("Spatial", spatial)
      .Const("PerChannel", perChannel)
      .Const("EpsilonF", c.attr.f("epsilon", 1e-5f))
      .Add(R"(
        Epsilon = CastLike (EpsilonF, input)
        Mean = ReduceMean <keepdims = 1> (input, Spatial)
        Centered = Sub (input, Mean)
        Square = Mul (Centered, Centered)
        Var = ReduceMean <keepdims = 1> (Square, Spatial)
        VarEps = Add (Var, Epsilon)
        Std = Sqrt (VarEps)
        Normalized = Div (Centered, Std)
        Scale = Unsqueeze (scale, PerChannel)
        Bias = Unsqueeze (B, PerChannel)
        Scaled = Mul (Normalized, Scale)
        output = Add (Scaled, Bias)
      )");
  return true;
}

// LRN-13: x / (bias + alpha / size * s)^beta, s the sum of squares over
// the channels [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] that
// exist: the squares zero-padded along the channel dim, summed over `size`
// shifted slices.
bool buildLRN(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t rank, size = c.attr.i("size", 0);
  if (!knownImageRank(c, 0, rank, error))
    return false;
  if (size <= 0) {
    error = "size is required and must be positive";
    return false;
  }
  std::vector<int64_t> pads(2 * rank, 0);
  pads[1] = (size - 1) / 2;
  pads[rank + 1] = size / 2; // ceil((size - 1) / 2)
  b.Const("Pads", pads)
      .Const("Channel", std::vector<int64_t>{1})
      .Const("AlphaF", c.attr.f("alpha", 1e-4f) / float(size))
      .Const("BetaF", c.attr.f("beta", 0.75f))
      .Const("BiasF", c.attr.f("bias", 1.0f))
      .Add(R"(
        Square = Mul (X, X)
        Padded = Pad (Square, Pads)
      )");
  std::string sum;
  for (int64_t j = 0; j < size; ++j) {
    // Slice [j, j + C) of the C + size - 1 padded channels.
    int64_t endFromBack = j - (size - 1);
    std::string name = "Window" + std::to_string(j);
    b.Const(name + "Start", std::vector<int64_t>{j})
        .Const(name + "End",
               std::vector<int64_t>{endFromBack < 0
                                        ? endFromBack
                                        : std::numeric_limits<int64_t>::max()});
    text(b, name + " = Slice (Padded, " + name + "Start, " + name + "End, " +
                "Channel)");
    if (sum.empty()) {
      sum = name;
      continue;
    }
    std::string next = "Sum" + std::to_string(j);
    text(b, next + " = Add (" + sum + ", " + name + ")");
    sum = next;
  }
  text(b, "SquareSum = Identity (" + sum + ")");
  b.Add(R"(
    Alpha = CastLike (AlphaF, X)
    Beta = CastLike (BetaF, X)
    Bias = CastLike (BiasF, X)
    Scaled = Mul (SquareSum, Alpha)
    Base = Add (Scaled, Bias)
    Denominator = Pow (Base, Beta)
    Y = Div (X, Denominator)
  )");
  return true;
}

// Hardmax-13: 1 at the first maximum along axis, 0 elsewhere. Before 13 the
// input is read as the matrix [prod(dims < axis), prod(dims >= axis)] and
// each row gets its one.
bool buildHardmax(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t rank, axis;
  if (!knownRank(c, 0, rank, error))
    return false;
  if (rank == 0) {
    error = "needs an input of rank >= 1";
    return false;
  }
  bool coerced = c.opset < 13;
  if (!axisAttribute(c, "axis", coerced ? 1 : -1, rank, axis, error))
    return false;
  std::string in = "input";
  if (coerced) {
    text(b, "Flat = Flatten <axis = " + std::to_string(axis) + "> (input)");
    in = "Flat";
    axis = 1;
    rank = 2;
  }
  std::vector<int64_t> trailing;
  for (int64_t d = 1; d < rank - axis; ++d)
    trailing.push_back(d);
  text(b, "First = ArgMax <axis = " + std::to_string(axis) +
              ", keepdims = 1, select_last_index = 0> (" + in + ")");
  text(b, "Extent1 = Shape <start = " + std::to_string(axis) +
              ", end = " + std::to_string(axis + 1) + "> (" + in + ")");
  b.Const("Zero", int64_t(0)).Const("One", int64_t(1)).Add(R"(
    Extent = Squeeze (Extent1)
    Positions = Range (Zero, Extent, One)
  )");
  if (trailing.empty())
    b.Add("Along = Identity (Positions)");
  else
    b.Const("Trailing", trailing)
        .Add("Along = Unsqueeze (Positions, Trailing)");
  text(b, "Hit = Equal (Along, First)");
  if (!coerced) {
    b.Add("output = CastLike (Hit, input)");
    return true;
  }
  b.Add(R"(
    Rows = CastLike (Hit, input)
    InShape = Shape (input)
    output = Reshape (Rows, InShape)
  )");
  return true;
}

// CumSum (11-14) and CumProd (26): y_i is the sum (product) of x_j along the
// axis over j <= i (j < i exclusive; j >= i, j > i with reverse). Written as
// a masked reduction over a new axis: x gets a unit dim for i in front of
// the axis (which becomes j), a [n, n] mask of the pairs to combine picks
// x_j or the identity (a Where, so that inf and NaN stay where they are),
// and the reduction over j gives y. O(n^2) along the axis where a scan
// kernel does O(n) (issue 23). The axis is an input: a constant one is
// used directly; one known only at run time folds x into [outer, n, inner]
// (extents computed from the axis by kernels, read back by the plan) so the
// scan runs along dim 1.
bool buildCumulative(const Call &c, onnx::FunctionBuilder &b,
                     std::string &error, bool product) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  if (rank == 0) {
    error = "needs an input of rank >= 1";
    return false;
  }
  if (c.rank(1) > 1 || c.extent(1, 0) > 1) {
    error = "axis must be a scalar";
    return false;
  }
  bool exclusive = c.attr.i("exclusive", 0) != 0,
       reverse = c.attr.i("reverse", 0) != 0;
  // j combines into i where j <= i (exclusive: j < i; reversed: >=, >).
  const char *pairs = reverse ? (exclusive ? "Greater" : "GreaterOrEqual")
                              : (exclusive ? "Less" : "LessOrEqual");
  std::optional<std::vector<int64_t>> given = c.constantInts(1);
  std::string in = "x";
  int64_t axis = 1, inRank = 3;
  if (given) {
    axis = given->empty() ? 0 : (*given)[0];
    if (axis < -rank || axis >= rank) {
      error = "axis " + std::to_string(axis) + " is out of range for rank " +
              std::to_string(rank);
      return false;
    }
    axis = axis < 0 ? axis + rank : axis;
    inRank = rank;
  } else {
    // [outer, n, inner] from the axis read at run time.
    b.Const("RankI", int64_t(rank)).Const("ZeroS", int64_t(0))
        .Const("EmptyShape", std::vector<int64_t>{})
        .Add(R"(
      AxisI = Cast <to = 7> (axis)
      AxisS = Reshape (AxisI, EmptyShape)
      Negative = Less (AxisS, ZeroS)
      Wrapped = Add (AxisS, RankI)
      Axis = Where (Negative, Wrapped, AxisS)
      XShape = Shape (x)
    )");
    foldAroundAxis(b, "F", "XShape", rank, "Axis");
    b.Add(R"(
      Folded = Concat <axis = 0> (FOuter, FN, FInner)
      X3 = Reshape (x, Folded)
    )");
    in = "X3";
  }
  text(b, "N1 = Shape <start = " + std::to_string(axis) + ", end = " +
              std::to_string(axis + 1) + "> (" + in + ")");
  b.Const("Zero", int64_t(0)).Const("One", int64_t(1))
      .Const("IAxis", std::vector<int64_t>{1})
      .Const("JAxis", std::vector<int64_t>{0})
      .Const("NewAxis", std::vector<int64_t>{axis})
      .Const("JDim", std::vector<int64_t>{axis + 1});
  text(b, R"(
    N = Squeeze (N1)
    Positions = Range (Zero, N, One)
    I = Unsqueeze (Positions, IAxis)
    J = Unsqueeze (Positions, JAxis)
    Pairs = )" + std::string(pairs) + R"( (J, I)
  )");
  std::vector<int64_t> trailing;
  for (int64_t d = axis + 1; d < inRank; ++d)
    trailing.push_back(d - axis + 1);
  if (trailing.empty())
    b.Add("Mask = Identity (Pairs)");
  else
    b.Const("Trailing", trailing).Add("Mask = Unsqueeze (Pairs, Trailing)");
  b.Const("IdentityF", product ? 1.0f : 0.0f);
  text(b, "XU = Unsqueeze (" + in + R"(, NewAxis)
    Neutral = CastLike (IdentityF, x)
    Picked = Where (Mask, XU, Neutral)
  )");
  std::string reduce = product ? "ReduceProd" : "ReduceSum";
  if (given) {
    text(b, "y = " + reduce + " <keepdims = 0> (Picked, JDim)");
    return true;
  }
  text(b, "Y3 = " + reduce + R"( <keepdims = 0> (Picked, JDim)
    y = Reshape (Y3, XShape)
  )");
  return true;
}

bool buildCumSum(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  return buildCumulative(c, b, error, false);
}

bool buildCumProd(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  return buildCumulative(c, b, error, true);
}

} // namespace

void bodies::addPrimitiveBodies(std::vector<NewerOp> &ops) {
  const NewerOp table[] = {
      {"InstanceNormalization",
       6,
       0,
       {"input", "scale", "B"},
       {"output"},
       buildInstanceNormalization},
      {"LRN", 1, 0, {"X"}, {"Y"}, buildLRN},
      {"Hardmax", 1, 0, {"input"}, {"output"}, buildHardmax},
      {"CumSum", 11, 0, {"x", "axis"}, {"y"}, buildCumSum},
      {"CumProd", 26, 0, {"x", "axis"}, {"y"}, buildCumProd},
      {"DepthToSpace", 13, 0, {"X"}, {"Y"}, buildDepthToSpace},
      {"DepthToSpace", 1, 12, {"X"}, {"Y"}, buildDepthToSpace},
      {"SpaceToDepth", 1, 0, {"X"}, {"Y"}, buildSpaceToDepth},
      {"EyeLike", 9, 0, {"X"}, {"Y"}, buildEyeLike},
      {"GlobalMaxPool", 1, 0, {"X"}, {"Y"}, buildGlobalMaxPool},
      {"Shrink", 9, 0, {"X"}, {"Y"}, buildShrink},
      {"Tile", 6, 0, {"X", "repeats"}, {"Y"}, buildTile},
      {"LpNormalization", 1, 0, {"X"}, {"Y"}, buildLpNormalization},
      {"LpPool", 11, 0, {"X"}, {"Y"}, buildLpPool},
      {"OneHot", 9, 0, {"indices", "depth", "values"}, {"output"}, buildOneHot},
      {"Dropout",
       7,
       0,
       {"data", "ratio", "training_mode"},
       {"output", "mask"},
       buildDropout},
      {"Pad",
       2,
       0,
       {"data", "pads", "constant_value", "axes"},
       {"output"},
       buildPad},
      {"CenterCropPad",
       18,
       0,
       {"input_data", "shape"},
       {"output_data"},
       buildCenterCropPad},
  };
  ops.insert(ops.end(), std::begin(table), std::end(table));
}
