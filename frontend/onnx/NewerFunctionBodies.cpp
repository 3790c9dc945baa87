//===- NewerFunctionBodies.cpp - Bodies of ONNX functions newer than libonnx ===//
//
// ONNX defines many recent ops as functions (Attention, RMSNormalization,
// RotaryEmbedding, Gelu, Swish, ...), but the libonnx this builds against
// (Debian's 1.12) knows opsets up to 17 only, so its schema registry has no
// body for them. Their bodies are written here, each from the op's ONNX
// specification (its formula and reference implementation at ONNX 1.22,
// the version of the node tests), in ONNX's text syntax, and built for the
// node like libonnx's context-dependent functions: attribute values and
// which optional inputs and outputs are present decide the body. The
// importer expands them exactly like libonnx's bodies (FunctionBodies.h).
//
// This file has the ops ONNX defines as functions (activations,
// normalizations, attention), the helpers every body file shares
// (BodyBuilders.h) and the lookup over all of their tables; the primitive
// ops written as bodies are in QuantizationBodies.cpp and
// PrimitiveBodies.cpp.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <onnx/defs/function.h>
#include <onnx/defs/tensor_proto_util.h>

#include <cmath>
#include <exception>
#include <limits>
#include <optional>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

// ---- Helpers shared by the body files (BodyBuilders.h) ------------------

bool bodies::isFloat(int64_t type) {
  return type == onnx::TensorProto::FLOAT ||
         type == onnx::TensorProto::FLOAT16 ||
         type == onnx::TensorProto::BFLOAT16 ||
         type == onnx::TensorProto::DOUBLE;
}

void bodies::text(onnx::FunctionBuilder &b, const std::string &nodes) {
  b.Add(nodes.c_str());
}

std::string
bodies::forwardAttributes(const Call &c,
                          std::initializer_list<const char *> names) {
  std::string text;
  for (const char *name : names) {
    const onnx::AttributeProto *a = c.attr.find(name);
    if (!a)
      continue;
    text += text.empty() ? "<" : ", ";
    text += std::string(name) + " = ";
    if (a->type() == onnx::AttributeProto::INT) {
      text += std::to_string(a->i());
    } else if (a->type() == onnx::AttributeProto::STRING) {
      text += "\"" + a->s() + "\"";
    } else {
      text += "[";
      for (int i = 0; i < a->ints_size(); ++i)
        text += (i ? ", " : "") + std::to_string(a->ints(i));
      text += "]";
    }
  }
  return text.empty() ? text : text + ">";
}

std::string bodies::intList(const std::vector<int64_t> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

bool bodies::knownRank(const Call &c, int i, int64_t &rank,
                       std::string &error) {
  rank = c.rank(i);
  if (rank >= 0)
    return true;
  error = "the rank of input " + std::to_string(i) + " must be known";
  return false;
}

bool bodies::knownImageRank(const Call &c, int i, int64_t &rank,
                            std::string &error) {
  if (!knownRank(c, i, rank, error))
    return false;
  if (rank >= 3)
    return true;
  error = "input " + std::to_string(i) +
          " must have rank >= 3 ([N, C, D1, ...]), not " + std::to_string(rank);
  return false;
}

bool bodies::axisAttribute(const Call &c, const char *name, int64_t fallback,
                           int64_t rank, int64_t &axis, std::string &error) {
  axis = c.attr.i(name, fallback);
  if (axis < -rank || axis >= rank) {
    error = std::string(name) + " " + std::to_string(axis) +
            " is out of range for rank " + std::to_string(rank);
    return false;
  }
  if (axis < 0)
    axis += rank;
  return true;
}

void bodies::shapeSlice(onnx::FunctionBuilder &b, const std::string &name,
                        int64_t begin, int64_t end) {
  text(b, name + " = Shape <start = " + std::to_string(begin) +
              ", end = " + std::to_string(end) + "> (X)");
}

void bodies::alongDim(onnx::FunctionBuilder &b, const std::string &out,
                      const std::string &in, int64_t n) {
  if (n == 0) {
    text(b, out + " = Identity (" + in + ")");
    return;
  }
  std::vector<int64_t> axes;
  for (int64_t d = 1; d <= n; ++d)
    axes.push_back(d);
  b.Const(out + "Axes", axes);
  text(b, out + " = Unsqueeze (" + in + ", " + out + "Axes)");
}

void bodies::foldAroundAxis(onnx::FunctionBuilder &b,
                            const std::string &prefix,
                            const std::string &shape, int64_t rank,
                            const std::string &axis) {
  const std::string &p = prefix;
  b.Const(p + "Rank", rank).Const(p + "Zero", int64_t(0))
      .Const(p + "One", int64_t(1));
  text(b, p + "Dims = Range (" + p + "Zero, " + p + "Rank, " + p + "One)\n" +
              p + "Before = Less (" + p + "Dims, " + axis + ")\n" + p +
              "After = Greater (" + p + "Dims, " + axis + ")\n" + p +
              "At = Equal (" + p + "Dims, " + axis + ")\n" + p +
              "OuterDims = Where (" + p + "Before, " + shape + ", " + p +
              "One)\n" + p + "InnerDims = Where (" + p + "After, " + shape +
              ", " + p + "One)\n" + p + "AtDims = Where (" + p + "At, " +
              shape + ", " + p + "Zero)\n" + p +
              "Outer = ReduceProd <keepdims = 1> (" + p + "OuterDims)\n" + p +
              "Inner = ReduceProd <keepdims = 1> (" + p + "InnerDims)\n" + p +
              "N = ReduceSum <keepdims = 1> (" + p + "AtDims)");
}

namespace {

/// The stash_type / softmax_precision of `name`: a float type, else an
/// error.
bool floatAttribute(const Call &c, const char *name, int64_t fallback,
                    int64_t &type, std::string &error) {
  type = c.attr.i(name, fallback);
  if (isFloat(type))
    return true;
  error = std::string(name) +
          " must be a float type (float, float16, "
          "bfloat16 or double), not ONNX type " +
          std::to_string(type);
  return false;
}

// ---- Element-wise activations ---------------------------------------------

// Gelu-20: x/2 (1 + erf(x / sqrt 2)), or with approximate = "tanh"
// x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
bool buildGelu(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  std::string approximate = c.attr.s("approximate", "none");
  b.Add(R"(
    HalfF = Constant <value = float {0.5}> ()
    Half = CastLike (HalfF, X)
    OneF = Constant <value = float {1.0}> ()
    One = CastLike (OneF, X)
    HalfX = Mul (Half, X)
  )");
  if (approximate == "tanh") {
    b.Add(R"(
      KF = Constant <value = float {0.7978845608028654}> ()
      K = CastLike (KF, X)
      CF = Constant <value = float {0.044715}> ()
      C = CastLike (CF, X)
      X2 = Mul (X, X)
      X3 = Mul (X2, X)
      CX3 = Mul (C, X3)
      Inner = Add (X, CX3)
      Arg = Mul (K, Inner)
      T = Tanh (Arg)
      Phi2 = Add (One, T)
      Y = Mul (HalfX, Phi2)
    )");
  } else if (approximate == "none") {
    b.Add(R"(
      InvSqrt2F = Constant <value = float {0.7071067811865476}> ()
      InvSqrt2 = CastLike (InvSqrt2F, X)
      Scaled = Mul (X, InvSqrt2)
      E = Erf (Scaled)
      Phi2 = Add (One, E)
      Y = Mul (HalfX, Phi2)
    )");
  } else {
    error =
        "approximate must be \"none\" or \"tanh\", not \"" + approximate + "\"";
    return false;
  }
  return true;
}

// Swish-24: x sigmoid(alpha x).
bool buildSwish(const Call &c, onnx::FunctionBuilder &b, std::string &) {
  b.Const("AlphaF", c.attr.f("alpha", 1.0f)).Add(R"(
    Alpha = CastLike (AlphaF, X)
    AlphaX = Mul (Alpha, X)
    S = Sigmoid (AlphaX)
    Y = Mul (X, S)
  )");
  return true;
}

// Mish-18: x tanh(softplus(x)).
bool buildMish(const Call &, onnx::FunctionBuilder &b, std::string &) {
  b.Add(R"(
    SP = Softplus (X)
    T = Tanh (SP)
    Y = Mul (X, T)
  )");
  return true;
}

// PRelu: x where x >= 0, else slope x (slope broadcast to x).
bool buildPRelu(const Call &, onnx::FunctionBuilder &b, std::string &) {
  b.Add(R"(
    ZeroF = Constant <value = float {0.0}> ()
    Zero = CastLike (ZeroF, X)
    Negative = Less (X, Zero)
    Sloped = Mul (slope, X)
    Y = Where (Negative, Sloped, X)
  )");
  return true;
}

// ---- Normalizations -------------------------------------------------------

// RMSNormalization-23: x / sqrt(mean(x^2 over [axis, rank)) + epsilon) in
// stash_type, cast back to x's type, times scale.
bool buildRMSNormalization(const Call &c, onnx::FunctionBuilder &b,
                           std::string &error) {
  int64_t stash;
  if (!floatAttribute(c, "stash_type", onnx::TensorProto::FLOAT, stash, error))
    return false;
  int64_t rank = c.rank(0);
  if (rank < 0) {
    error = "the rank of X must be known";
    return false;
  }
  int64_t axis;
  if (!axisAttribute(c, "axis", -1, rank, axis, error))
    return false;
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < rank; ++d)
    axes.push_back(d);
  b.Const("EpsilonF", c.attr.f("epsilon", 1e-5f))
      .Add("Epsilon = Cast (EpsilonF)", "to", stash)
      .Add("XU = Cast (X)", "to", stash)
      .Const("Axes", axes)
      .Add(R"(
        Squares = Mul (XU, XU)
        MeanSquare = ReduceMean <keepdims = 1> (Squares, Axes)
        Shifted = Add (MeanSquare, Epsilon)
        RMS = Sqrt (Shifted)
        Normalized = Div (XU, RMS)
      )")
      .Add("NormalizedT = Cast (Normalized)", "to", c.elementType(0))
      .Add("Y = Mul (NormalizedT, scale)");
  return true;
}

// GroupNormalization-21: per instance and group of C / num_groups channels,
// (x - mean) / sqrt(var + epsilon) in stash_type, cast back, then the
// per-channel scale and bias.
bool buildGroupNormalization(const Call &c, onnx::FunctionBuilder &b,
                             std::string &error) {
  int64_t stash;
  if (!floatAttribute(c, "stash_type", onnx::TensorProto::FLOAT, stash, error))
    return false;
  if (!c.attr.has("num_groups")) {
    error = "the num_groups attribute is required";
    return false;
  }
  int64_t groups = c.attr.i("num_groups", 0);
  int64_t channels = c.extent(0, 1);
  if (groups <= 0 || (channels > 0 && channels % groups != 0)) {
    error = "num_groups " + std::to_string(groups) +
            " must be positive and divide the channels";
    return false;
  }
  b.Const("EpsilonF", c.attr.f("epsilon", 1e-5f))
      .Add("Epsilon = Cast (EpsilonF)", "to", stash)
      .Add("XU = Cast (X)", "to", stash)
      .Const("GroupShape", std::vector<int64_t>{0, groups, -1})
      .Add(R"(
        XShape = Shape (X)
        Grouped = Reshape (XU, GroupShape)
        Axes = Constant <value = int64[1] {2}> ()
        Mean = ReduceMean <keepdims = 1> (Grouped, Axes)
        Deviation = Sub (Grouped, Mean)
        Squares = Mul (Deviation, Deviation)
        Variance = ReduceMean <keepdims = 1> (Squares, Axes)
        Shifted = Add (Variance, Epsilon)
        StdDev = Sqrt (Shifted)
        NormalizedGroups = Div (Deviation, StdDev)
        Normalized = Reshape (NormalizedGroups, XShape)
      )")
      .Add("NormalizedT = Cast (Normalized)", "to", c.elementType(0));
  // scale and bias are (C): along dim 1 of X.
  std::vector<int64_t> perChannel(std::max<int64_t>(c.rank(0), 2) - 1, 1);
  perChannel[0] = -1;
  b.Const("ChannelShape", perChannel).Add(R"(
    ScaleC = Reshape (scale, ChannelShape)
    BiasC = Reshape (bias, ChannelShape)
    Scaled = Mul (NormalizedT, ScaleC)
    Y = Add (Scaled, BiasC)
  )");
  return true;
}

// CausalConvWithState-27: a depthwise causal Conv1d over (B, C, L) that
// carries its last k - 1 inputs: the input is prefixed with past_state (or
// k - 1 zeros), convolved with group = C and no padding (plus bias), SiLU
// applied in float when activation is "silu" or "swish", and
// present_state is the last k - 1 positions of the prefixed input.
bool buildCausalConvWithState(const Call &c, onnx::FunctionBuilder &b,
                              std::string &error) {
  std::string activation = c.attr.s("activation", "none");
  if (activation != "none" && activation != "silu" && activation != "swish") {
    error = "activation must be \"none\", \"silu\" or \"swish\", not \"" +
            activation + "\"";
    return false;
  }
  if (c.rank(0) != 3) {
    error = "input must have rank 3 (batch, channels, length)";
    return false;
  }
  // Conv's group is an attribute: the channel count must be static.
  int64_t channels = c.extent(0, 1);
  if (channels < 0)
    channels = c.extent(1, 0);
  if (channels <= 0) {
    error = "the channel count (dim 1 of input or dim 0 of weight) must be "
            "static";
    return false;
  }
  b.Add(R"(
    One1 = Constant <value = int64[1] {1}> ()
    Kernel = Shape <start = 2, end = 3> (weight)
    Carried = Sub (Kernel, One1)
  )");
  if (c.hasInput(3))
    b.Add("Prefixed = Concat <axis = 2> (past_state, input)");
  else
    b.Add(R"(
      BatchAndChannels = Shape <start = 0, end = 2> (input)
      ZerosShape = Concat <axis = 0> (BatchAndChannels, Carried)
      ZerosF = ConstantOfShape (ZerosShape)
      Zeros = CastLike (ZerosF, input)
      Prefixed = Concat <axis = 2> (Zeros, input)
    )");
  b.Add(c.hasInput(2) ? "Convolved = Conv (Prefixed, weight, bias)"
                      : "Convolved = Conv (Prefixed, weight)",
        "group", channels);
  if (activation == "none")
    b.Add("output = Identity (Convolved)");
  else
    b.Add(R"(
      ConvolvedF = Cast <to = 1> (Convolved)
      Gate = Sigmoid (ConvolvedF)
      ActivatedF = Mul (ConvolvedF, Gate)
      output = CastLike (ActivatedF, Convolved)
    )");
  // The last k - 1 positions (none when k is 1).
  b.Add(R"(
    Length = Shape <start = 2, end = 3> (Prefixed)
    Start = Sub (Length, Carried)
    Axis2 = Constant <value = int64[1] {2}> ()
    present_state = Slice (Prefixed, Start, Length, Axis2)
  )");
  return true;
}

// ---- Attention ------------------------------------------------------------

// RotaryEmbedding-23 on X (B, H, S, D) or (B, S, H*D) with num_heads: the
// first rotary_embedding_dim (default D) channels of each head are rotated
// by the angles of cos_cache/sin_cache (at position_ids when given), as
// halves or interleaved pairs; the rest pass through.
bool buildRotaryEmbedding(const Call &c, onnx::FunctionBuilder &b,
                          std::string &error) {
  int64_t rank = c.rank(0);
  int64_t heads = c.attr.i("num_heads", 0);
  if (rank != 3 && rank != 4) {
    error = "X must have rank 3 or 4";
    return false;
  }
  if (rank == 3 && heads <= 0) {
    error = "a 3-D X needs the num_heads attribute";
    return false;
  }
  // To (B, S, H, D).
  if (rank == 4)
    b.Add("XIn = Transpose <perm = [0, 2, 1, 3]> (X)");
  else
    b.Const("HeadsShape", std::vector<int64_t>{0, 0, heads, -1})
        .Add("XIn = Reshape (X, HeadsShape)");
  int64_t rotary = c.attr.i("rotary_embedding_dim", 0);
  b.Add("HeadSize = Shape <start = 3, end = 4> (XIn)");
  if (rotary > 0) {
    b.Const("RotaryDim", std::vector<int64_t>{rotary}).Add(R"(
      Rest = Sub (HeadSize, RotaryDim)
      SplitSizes = Concat <axis = 0> (RotaryDim, Rest)
      XRotate, XKeep = Split <axis = -1> (XIn, SplitSizes)
    )");
  } else {
    b.Add("XRotate = Identity (XIn)");
  }
  // The caches at the positions: (B, S, R/2), then (B, S, 1, R/2).
  if (c.hasInput(3))
    b.Add(R"(
      CosAt = Gather <axis = 0> (cos_cache, position_ids)
      SinAt = Gather <axis = 0> (sin_cache, position_ids)
    )");
  else
    b.Add(R"(
      CosAt = Identity (cos_cache)
      SinAt = Identity (sin_cache)
    )");
  b.Add(R"(
    Two = Constant <value = int64[1] {2}> ()
    Cos = Unsqueeze (CosAt, Two)
    Sin = Unsqueeze (SinAt, Two)
  )");
  bool interleaved = c.attr.i("interleaved", 0) != 0;
  if (interleaved)
    // Pairs (x[2i], x[2i+1]): (B, S, H, R/2, 2), split on the last dim.
    b.Add(R"(
      PairShape = Constant <value = int64[5] {0, 0, 0, -1, 2}> ()
      Pairs = Reshape (XRotate, PairShape)
      X1P, X2P = Split <axis = -1, num_outputs = 2> (Pairs)
      Last = Constant <value = int64[1] {-1}> ()
      X1 = Squeeze (X1P, Last)
      X2 = Squeeze (X2P, Last)
    )");
  else
    b.Add("X1, X2 = Split <axis = -1, num_outputs = 2> (XRotate)");
  b.Add(R"(
    CosX1 = Mul (Cos, X1)
    SinX2 = Mul (Sin, X2)
    Real = Sub (CosX1, SinX2)
    SinX1 = Mul (Sin, X1)
    CosX2 = Mul (Cos, X2)
    Imaginary = Add (SinX1, CosX2)
  )");
  if (interleaved)
    b.Add(R"(
      RealP = Unsqueeze (Real, Last)
      ImaginaryP = Unsqueeze (Imaginary, Last)
      RotatedPairs = Concat <axis = -1> (RealP, ImaginaryP)
      RotatedShape = Shape (XRotate)
      Rotated = Reshape (RotatedPairs, RotatedShape)
    )");
  else
    b.Add("Rotated = Concat <axis = -1> (Real, Imaginary)");
  if (rotary > 0)
    b.Add("XOut = Concat <axis = -1> (Rotated, XKeep)");
  else
    b.Add("XOut = Identity (Rotated)");
  if (rank == 4)
    b.Add("Y = Transpose <perm = [0, 2, 1, 3]> (XOut)");
  else
    b.Add(R"(
      XShape = Shape (X)
      Y = Reshape (XOut, XShape)
    )");
  return true;
}

// Attention-23/24: softmax(Q K^T * scale [softcapped] + bias) V over Q
// (B, Hq, S, D) and K/V (B, Hkv, T, D/Dv), or 3-D (B, S, H*D) with
// q_num_heads and kv_num_heads. past_key/past_value are prepended along T
// (present_key/present_value); each KV head serves Hq / Hkv query heads.
// The bias adds: the mask (bool: -inf where false; from 24, padded with
// -inf to the total length), -inf above the diagonal shifted by the past
// length (is_causal), -inf past nonpad_kv_seqlen[b] (24). softcap c
// replaces the scores s by c tanh(s / c) before the bias; softmax runs in
// softmax_precision. qk_matmul_output is the scores (mode 0), softcapped
// (1), biased (2) or after the softmax (3).
bool buildAttention(const Call &c, onnx::FunctionBuilder &b,
                    std::string &error) {
  int64_t t1 = c.elementType(0);
  int64_t precision;
  if (!floatAttribute(c, "softmax_precision", t1, precision, error))
    return false;
  int64_t rank = c.rank(0);
  if (rank != 3 && rank != 4) {
    error = "Q must have rank 3 or 4";
    return false;
  }
  int64_t qHeads = c.attr.i("q_num_heads", 0);
  int64_t kvHeads = c.attr.i("kv_num_heads", 0);
  if (rank == 3 && (qHeads <= 0 || kvHeads <= 0)) {
    error = "3-D Q, K and V need the q_num_heads and kv_num_heads attributes";
    return false;
  }
  int64_t mode = c.attr.i("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) {
    error = "qk_matmul_output_mode must be 0, 1, 2 or 3";
    return false;
  }
  bool causal = c.attr.i("is_causal", 0) != 0;
  bool nonpad = c.opset >= 24 && c.hasInput(6);

  b.Const("NegInf", std::vector<float>{-std::numeric_limits<float>::infinity()})
      .Const("ZeroF", std::vector<float>{0.0f})
      .Add(R"(
        Zero1 = Constant <value = int64[1] {0}> ()
        One1 = Constant <value = int64[1] {1}> ()
        Zero0 = Constant <value = int64 {0}> ()
        One0 = Constant <value = int64 {1}> ()
      )");
  // Heads as dim 1: (B, H, S, D).
  if (rank == 3) {
    b.Const("QHeadsShape", std::vector<int64_t>{0, 0, qHeads, -1})
        .Const("KVHeadsShape", std::vector<int64_t>{0, 0, kvHeads, -1})
        .Add(R"(
          QSplit = Reshape (Q, QHeadsShape)
          KSplit = Reshape (K, KVHeadsShape)
          VSplit = Reshape (V, KVHeadsShape)
          Q4 = Transpose <perm = [0, 2, 1, 3]> (QSplit)
          K4 = Transpose <perm = [0, 2, 1, 3]> (KSplit)
          V4 = Transpose <perm = [0, 2, 1, 3]> (VSplit)
        )");
  } else {
    b.Add(R"(
      Q4 = Identity (Q)
      K4 = Identity (K)
      V4 = Identity (V)
    )");
  }
  // The cache.
  if (c.hasInput(4))
    b.Add(R"(
      PresentK = Concat <axis = 2> (past_key, K4)
      PastLength = Shape <start = -2, end = -1> (past_key)
    )");
  else
    b.Add(R"(
      PresentK = Identity (K4)
      PastLength = Identity (Zero1)
    )");
  if (c.hasInput(5))
    b.Add("PresentV = Concat <axis = 2> (past_value, V4)");
  else
    b.Add("PresentV = Identity (V4)");
  if (c.hasOutput(1))
    b.Add("present_key = Identity (PresentK)");
  if (c.hasOutput(2))
    b.Add("present_value = Identity (PresentV)");

  // Scale: both sides by its square root (as ONNX's body does).
  if (c.attr.has("scale"))
    b.Const("RootScaleF", std::vector<float>{std::sqrt(c.attr.f("scale", 1))});
  else
    b.Add(R"(
      HeadSizeI = Shape <start = 3, end = 4> (Q4)
      HeadSizeF = Cast <to = 1> (HeadSizeI)
      OneF = Constant <value = float[1] {1.0}> ()
      RootHeadSize = Sqrt (HeadSizeF)
      DefaultScale = Div (OneF, RootHeadSize)
      RootScaleF = Sqrt (DefaultScale)
    )");
  b.Add("RootScale = Cast (RootScaleF)", "to", t1);

  // Grouped-query attention: KV head h serves query heads
  // [h G, (h + 1) G), G = Hq / Hkv.
  b.Add(R"(
    BatchSize = Shape <start = 0, end = 1> (Q4)
    QHeads = Shape <start = 1, end = 2> (Q4)
    KVHeads = Shape <start = 1, end = 2> (PresentK)
    Group = Div (QHeads, KVHeads)
    TotalLength = Shape <start = -2, end = -1> (PresentK)
    KHeadSize = Shape <start = 3, end = 4> (PresentK)
    VHeadSize = Shape <start = 3, end = 4> (PresentV)
    Two1 = Constant <value = int64[1] {2}> ()
    KOne = Unsqueeze (PresentK, Two1)
    VOne = Unsqueeze (PresentV, Two1)
    KGroupShape = Concat <axis = 0> (BatchSize, KVHeads, Group, TotalLength, KHeadSize)
    VGroupShape = Concat <axis = 0> (BatchSize, KVHeads, Group, TotalLength, VHeadSize)
    KGroups = Expand (KOne, KGroupShape)
    VGroups = Expand (VOne, VGroupShape)
    KShape = Concat <axis = 0> (BatchSize, QHeads, TotalLength, KHeadSize)
    VShape = Concat <axis = 0> (BatchSize, QHeads, TotalLength, VHeadSize)
    KAll = Reshape (KGroups, KShape)
    VAll = Reshape (VGroups, VShape)
  )");

  // Scores, then softcap.
  b.Add(R"(
    KT = Transpose <perm = [0, 1, 3, 2]> (KAll)
    QScaled = Mul (Q4, RootScale)
    KScaled = Mul (KT, RootScale)
    Scores = MatMul (QScaled, KScaled)
  )");
  float softcap = c.attr.f("softcap", 0);
  if (softcap != 0)
    b.Const("CapF", std::vector<float>{softcap})
        .Add("Cap = Cast (CapF)", "to", t1)
        .Add(R"(
          ScoresOverCap = Div (Scores, Cap)
          Squashed = Tanh (ScoresOverCap)
          Capped = Mul (Squashed, Cap)
        )");
  else
    b.Add("Capped = Identity (Scores)");

  // The additive bias, as float (or the float mask's type).
  std::vector<std::string> biases;
  if (c.hasInput(3)) {
    if (c.elementType(3) == onnx::TensorProto::BOOL)
      b.Add("MaskBias = Where (attn_mask, ZeroF, NegInf)");
    else
      b.Add("MaskBias = Identity (attn_mask)");
    // From opset 24 a mask shorter than the total length is padded with
    // -inf at the end of its last dim.
    int64_t maskLength = c.extent(3, std::max<int64_t>(c.rank(3), 1) - 1);
    int64_t total = c.extent(1, rank == 4 ? 2 : 1);
    if (c.hasInput(4))
      total = total >= 0 && c.extent(4, 2) >= 0 ? total + c.extent(4, 2) : -1;
    if (c.opset >= 24 && !(maskLength >= 0 && maskLength == total))
      b.Add(R"(
        MaskLength = Shape <start = -1> (MaskBias)
        PadLength = Sub (TotalLength, MaskLength)
        MaskLead = Shape <start = 0, end = -1> (MaskBias)
        PadShape = Concat <axis = 0> (MaskLead, PadLength)
        NegInfMask = CastLike (NegInf, MaskBias)
        PadBlock = Expand (NegInfMask, PadShape)
        MaskPadded = Concat <axis = -1> (MaskBias, PadBlock)
      )");
    else
      b.Add("MaskPadded = Identity (MaskBias)");
    biases.push_back("MaskPadded");
  }
  if (causal) {
    // Query row i sits at position past + i: it sees columns j <= past + i.
    b.Add(R"(
      QLength = Shape <start = -2, end = -1> (Q4)
      QLength0 = Squeeze (QLength, Zero1)
      TotalLength0 = Squeeze (TotalLength, Zero1)
      Rows = Range (Zero0, QLength0, One0)
      Columns = Range (Zero0, TotalLength0, One0)
      Rows2 = Unsqueeze (Rows, One1)
      Columns2 = Unsqueeze (Columns, Zero1)
      RowPositions = Add (Rows2, PastLength)
      Future = Less (RowPositions, Columns2)
      CausalBias = Where (Future, NegInf, ZeroF)
    )");
    biases.push_back("CausalBias");
  }
  if (nonpad) {
    b.Add(R"(
      KVLength = Shape <start = -2, end = -1> (K4)
      KVLength0 = Squeeze (KVLength, Zero1)
      KVPositions = Range (Zero0, KVLength0, One0)
      Lengths = Unsqueeze (nonpad_kv_seqlen, One1)
      Valid = Less (KVPositions, Lengths)
      PaddingBias2 = Where (Valid, ZeroF, NegInf)
      HeadAndRow = Constant <value = int64[2] {1, 2}> ()
      PaddingBias = Unsqueeze (PaddingBias2, HeadAndRow)
    )");
    biases.push_back("PaddingBias");
  }
  if (biases.empty()) {
    b.Add("Biased = Identity (Capped)");
  } else {
    std::string sum = biases[0];
    for (size_t i = 1; i < biases.size(); ++i) {
      std::string next = "BiasSum" + std::to_string(i);
      std::string part = "BiasPart" + std::to_string(i);
      b.Add((part + " = CastLike (" + biases[i] + ", " + sum + ")").c_str());
      b.Add((next + " = Add (" + sum + ", " + part + ")").c_str());
      sum = next;
    }
    b.Add(("Bias = Cast (" + sum + ")").c_str(), "to", t1);
    b.Add("Biased = Add (Capped, Bias)");
  }

  // Softmax over the keys in softmax_precision, then the values.
  b.Add("SoftmaxIn = Cast (Biased)", "to", precision)
      .Add("Weights = Softmax <axis = -1> (SoftmaxIn)")
      .Add("WeightsT = Cast (Weights)", "to", t1)
      .Add("Y4 = MatMul (WeightsT, VAll)");
  if (c.hasOutput(3)) {
    const char *modes[] = {"Scores", "Capped", "Biased", "WeightsT"};
    b.Add((std::string("qk_matmul_output = Identity (") + modes[mode] + ")")
              .c_str());
  }
  if (rank == 3)
    b.Add(R"(
      YSplit = Transpose <perm = [0, 2, 1, 3]> (Y4)
      YShape = Constant <value = int64[3] {0, 0, -1}> ()
      Y = Reshape (YSplit, YShape)
    )");
  else
    b.Add("Y = Identity (Y4)");
  return true;
}

const std::vector<NewerOp> &newerOps() {
  static const std::vector<NewerOp> ops = [] {
    std::vector<NewerOp> ops = {
        {"Gelu", 20, 0, {"X"}, {"Y"}, buildGelu},
        {"Swish", 24, 0, {"X"}, {"Y"}, buildSwish},
        {"Mish", 18, 0, {"X"}, {"Y"}, buildMish},
        {"PRelu", 7, 0, {"X", "slope"}, {"Y"}, buildPRelu},
        {"RMSNormalization",
         23,
         0,
         {"X", "scale"},
         {"Y"},
         buildRMSNormalization},
        {"GroupNormalization",
         21,
         0,
         {"X", "scale", "bias"},
         {"Y"},
         buildGroupNormalization},
        {"RotaryEmbedding",
         23,
         0,
         {"X", "cos_cache", "sin_cache", "position_ids"},
         {"Y"},
         buildRotaryEmbedding},
        {"CausalConvWithState",
         27,
         0,
         {"input", "weight", "bias", "past_state"},
         {"output", "present_state"},
         buildCausalConvWithState},
        {"Attention",
         23,
         24,
         {"Q", "K", "V", "attn_mask", "past_key", "past_value",
          "nonpad_kv_seqlen"},
         {"Y", "present_key", "present_value", "qk_matmul_output"},
         buildAttention},
    };
    addQuantizationBodies(ops);
    addPrimitiveBodies(ops);
    addResamplingBodies(ops);
    addSelectionBodies(ops);
    addIndexBodies(ops);
    addRecurrentBodies(ops);
    addEinsumBody(ops);
    addSignalBodies(ops);
    addDomainBodies(ops);
    addMatrixBodies(ops);
    addGridSampleBody(ops);
    addDetectionBodies(ops);
    return ops;
  }();
  return ops;
}

} // namespace

bool onnx_import::newerFunctionBody(
    const onnx::NodeProto &node, const std::string &domain, int64_t opset,
    const std::vector<onnx::TypeProto> &inputTypes, FunctionBody &body,
    std::string &error, const ConstantInputs &constants) {
  for (const NewerOp &op : newerOps()) {
    if (node.op_type() != op.type || domain != op.domain || opset < op.since ||
        (op.last && opset > op.last))
      continue;
    body = FunctionBody();
    body.sinceVersion = opset;
    onnx::FunctionProto &fn = body.function;
    fn.set_name(op.type);
    for (const char *in : op.inputs)
      fn.add_input(in);
    // A variadic op (no formal inputs listed): Inputs0, Inputs1, ... for
    // the node's inputs.
    if (op.inputs.empty())
      for (int i = 0; i < node.input_size(); ++i)
        fn.add_input("Inputs" + std::to_string(i));
    for (const char *out : op.outputs)
      fn.add_output(out);
    if (op.outputs.empty())
      for (int i = 0; i < node.output_size(); ++i)
        fn.add_output("Outputs" + std::to_string(i));
    onnx::OperatorSetIdProto *import = fn.add_opset_import();
    import->set_domain("");
    import->set_version(kBodyOpset);
    Call call{node, inputTypes, opset, constants};
    onnx::FunctionBuilder builder(fn);
    try {
      if (!op.build(call, builder, error))
        return false;
    } catch (const std::exception &e) {
      error = std::string("building its function body failed: ") + e.what();
      return false;
    }
    return true;
  }
  return false;
}
