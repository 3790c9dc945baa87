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
// Every body imports the default domain at opset 21, whose ops it uses
// with their opset-21 meaning (Shape with start/end, ReduceMean and
// Squeeze/Unsqueeze with axes inputs, Split with num_outputs).
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/FunctionBodies.h"

#include "dialects/Graph/NarrowFormats.h"

#include <onnx/defs/function.h>
#include <onnx/defs/tensor_proto_util.h>

#include <cmath>
#include <exception>
#include <limits>
#include <optional>

using namespace tessel;
using namespace tessel::onnx_import;

namespace {

constexpr int kBodyOpset = 21;

/// The node's attributes, with defaults.
struct Attributes {
  const onnx::NodeProto &node;

  const onnx::AttributeProto *find(const char *name) const {
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.name() == name)
        return &a;
    return nullptr;
  }
  bool has(const char *name) const { return find(name) != nullptr; }
  int64_t i(const char *name, int64_t fallback) const {
    const onnx::AttributeProto *a = find(name);
    return a ? a->i() : fallback;
  }
  float f(const char *name, float fallback) const {
    const onnx::AttributeProto *a = find(name);
    return a ? a->f() : fallback;
  }
  std::string s(const char *name, const std::string &fallback) const {
    const onnx::AttributeProto *a = find(name);
    return a ? a->s() : fallback;
  }
};

/// What a builder knows of the node: attributes, inputs and outputs
/// present, the input types the importer inferred.
struct Call {
  const onnx::NodeProto &node;
  const std::vector<onnx::TypeProto> &inputTypes;
  int64_t opset;
  const ConstantInts &constants;
  Attributes attr{node};

  /// The values of input `i` when it is a constant.
  std::optional<std::vector<int64_t>> constantInts(int i) const {
    if (!constants || !hasInput(i))
      return std::nullopt;
    return constants(i);
  }

  bool hasInput(int i) const {
    return i < node.input_size() && !node.input(i).empty();
  }
  bool hasOutput(int i) const {
    return i < node.output_size() && !node.output(i).empty();
  }
  int64_t elementType(int i) const {
    return i < int(inputTypes.size())
               ? inputTypes[i].tensor_type().elem_type()
               : int64_t(onnx::TensorProto::UNDEFINED);
  }
  /// The rank of input `i`, or -1 when unknown.
  int64_t rank(int i) const {
    if (i >= int(inputTypes.size()) ||
        !inputTypes[i].tensor_type().has_shape())
      return -1;
    return inputTypes[i].tensor_type().shape().dim_size();
  }
  /// The static extent of dim `d` of input `i`, or -1.
  int64_t extent(int i, int d) const {
    if (rank(i) <= d)
      return -1;
    const auto &dim = inputTypes[i].tensor_type().shape().dim(d);
    return dim.has_dim_value() ? dim.dim_value() : -1;
  }
};

/// Builds the body into `fn` (its nodes; the formal parameters and opset
/// are set by the caller); false with `error` set refuses the node.
using Builder = bool (*)(const Call &, onnx::FunctionBuilder &,
                         std::string &error);

bool isFloat(int64_t type) {
  return type == onnx::TensorProto::FLOAT ||
         type == onnx::TensorProto::FLOAT16 ||
         type == onnx::TensorProto::BFLOAT16 ||
         type == onnx::TensorProto::DOUBLE;
}

/// The stash_type / softmax_precision of `name`: a float type, else an
/// error.
bool floatAttribute(const Call &c, const char *name, int64_t fallback,
                    int64_t &type, std::string &error) {
  type = c.attr.i(name, fallback);
  if (isFloat(type))
    return true;
  error = std::string(name) + " must be a float type (float, float16, "
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
    error = "approximate must be \"none\" or \"tanh\", not \"" + approximate +
            "\"";
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
  int64_t axis = c.attr.i("axis", -1);
  if (axis < -rank || axis >= rank) {
    error = "axis " + std::to_string(axis) + " is out of range for rank " +
            std::to_string(rank);
    return false;
  }
  if (axis < 0)
    axis += rank;
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

// ---- Quantization -----------------------------------------------------------
//
// QuantizeLinear and DequantizeLinear are primitives in ONNX, not functions;
// their bodies are written here because as compositions of Cast, Div,
// Round, Clip and Mul they become one fused elementwise kernel, and the
// narrow formats (float8, float4, int4, int2) come with Cast.

constexpr int64_t kInt32 = onnx::TensorProto::INT32;

/// Adds nodes written as a std::string.
void text(onnx::FunctionBuilder &b, const std::string &nodes) {
  b.Add(nodes.c_str());
}
constexpr int64_t kFloat = onnx::TensorProto::FLOAT;

/// Makes scale (or zero point) `in` (already named `in`) broadcast to X as
/// `out`: a scalar as it is, a 1-D tensor along `axis` (per-axis), and for
/// block_size > 0 a tensor of X's rank whose `axis` is ceil(n / block_size)
/// repeated block_size times along it and cut to n (ONNX's reshape_input).
bool broadcastQuantParam(const Call &c, onnx::FunctionBuilder &b, int param,
                         const std::string &in, const std::string &out,
                         std::string &error) {
  int64_t rank = c.rank(0), paramRank = c.rank(param);
  if (rank < 0 || paramRank < 0) {
    error = "the ranks of the input and its scale must be known";
    return false;
  }
  int64_t axis = c.attr.i("axis", 1), blockSize = c.attr.i("block_size", 0);
  if (paramRank == 0 || (rank == 0 && paramRank == 1)) {
    text(b, out + " = Identity (" + in + ")");
    return true;
  }
  if (axis < -rank || axis >= rank) {
    error = "axis " + std::to_string(axis) + " is out of range for rank " +
            std::to_string(rank);
    return false;
  }
  if (axis < 0)
    axis += rank;
  if (blockSize < 0) {
    error = "block_size must not be negative";
    return false;
  }
  if (blockSize == 0) {
    if (paramRank != 1) {
      error = "a scale of rank " + std::to_string(paramRank) +
              " needs block_size (per-tensor scales are scalars, per-axis "
              "ones 1-D)";
      return false;
    }
    std::vector<int64_t> shape(rank, 1);
    shape[axis] = -1;
    b.Const(out + "Shape", shape);
    text(b, out + " = Reshape (" + in + ", " + out + "Shape)");
    return true;
  }
  if (paramRank != rank) {
    error = "a blocked scale must have the input's rank " +
            std::to_string(rank) + ", not " + std::to_string(paramRank);
    return false;
  }
  // Element i of the axis takes block i / block_size.
  b.Const(out + "Zero", int64_t(0))
      .Const(out + "One", int64_t(1))
      .Const(out + "Block", blockSize);
  text(b, out + "N = Shape <start = " + std::to_string(axis) +
              ", end = " + std::to_string(axis + 1) + "> (X)");
  text(b, out + "Extent = Squeeze (" + out + "N)");
  text(b, out + "Index = Range (" + out + "Zero, " + out + "Extent, " + out +
              "One)");
  text(b, out + "BlockIndex = Div (" + out + "Index, " + out + "Block)");
  text(b, out + " = Gather <axis = " + std::to_string(axis) + "> (" + in +
              ", " + out + "BlockIndex)");
  return true;
}

bool isNarrowFloatType(int64_t t) { return isNarrowFloatFormat(int32_t(t)); }

// DequantizeLinear-10/13/19/21/23/25: (x - zero_point) * scale in float32,
// cast to output_dtype (default: the scale's type); scale and zero point
// per tensor, per axis or per block.
bool buildDequantizeLinear(const Call &c, onnx::FunctionBuilder &b,
                           std::string &error) {
  int64_t scaleType = c.elementType(1);
  int64_t outType = c.attr.i("output_dtype", 0);
  if (!outType)
    outType = isNarrowFloatType(scaleType) ? kFloat : scaleType;
  if (!isFloat(outType)) {
    error = "output_dtype must be a float type, not ONNX type " +
            std::to_string(outType);
    return false;
  }
  b.Add("XF = Cast (X)", "to", kFloat).Add("SF = Cast (x_scale)", "to", kFloat);
  if (!broadcastQuantParam(c, b, 1, "SF", "S", error))
    return false;
  std::string diff = "XF";
  if (c.hasInput(2)) {
    b.Add("ZF = Cast (x_zero_point)", "to", kFloat);
    if (!broadcastQuantParam(c, b, 2, "ZF", "Z", error))
      return false;
    b.Add("D = Sub (XF, Z)");
    diff = "D";
  }
  text(b, "Y32 = Mul (" + diff + ", S)");
  b.Add("Y = Cast (Y32)", "to", outType);
  return true;
}

// QuantizeLinear-10/13/19/21/23/25: x / scale (in `precision`, default the
// wider of the two types), then for integer types round to nearest even, add
// the zero point and clamp to the type's range; float8 casts the quotient
// (saturate as Cast); float4 casts quotient + zero point.
bool buildQuantizeLinear(const Call &c, onnx::FunctionBuilder &b,
                         std::string &error) {
  int64_t type = c.hasInput(2) ? c.elementType(2)
                               : c.attr.i("output_dtype", 0);
  if (!type)
    type = onnx::TensorProto::UINT8;
  if (c.hasInput(2) && c.attr.i("output_dtype", 0) &&
      c.attr.i("output_dtype", 0) != type) {
    error = "output_dtype " + std::to_string(c.attr.i("output_dtype", 0)) +
            " differs from the zero point's type " + std::to_string(type);
    return false;
  }
  struct Range {
    int64_t lo, hi;
  };
  std::optional<Range> range;
  switch (type) {
  case onnx::TensorProto::UINT8: range = Range{0, 255}; break;
  case onnx::TensorProto::INT8: range = Range{-128, 127}; break;
  case onnx::TensorProto::UINT16: range = Range{0, 65535}; break;
  case onnx::TensorProto::INT16: range = Range{-32768, 32767}; break;
  case kUInt4: range = Range{0, 15}; break;
  case kInt4: range = Range{-8, 7}; break;
  case kUInt2: range = Range{0, 3}; break;
  case kInt2: range = Range{-2, 1}; break;
  default:
    if (!isNarrowFloatType(type) || type == kFloat8E8M0) {
      error = "ONNX type " + std::to_string(type) +
              " is not a quantized type of QuantizeLinear";
      return false;
    }
  }
  int64_t xType = c.elementType(0), scaleType = c.elementType(1);
  int64_t precision = c.attr.i("precision", 0);
  if (!precision) // numpy's promotion of x / scale
    precision = xType == scaleType ? xType
                : (xType == onnx::TensorProto::DOUBLE ||
                   scaleType == onnx::TensorProto::DOUBLE)
                    ? onnx::TensorProto::DOUBLE
                    : kFloat;
  if (!isFloat(precision)) {
    error = "precision must be a float type, not ONNX type " +
            std::to_string(precision);
    return false;
  }
  b.Add("XP = Cast (X)", "to", precision)
      .Add("SP = Cast (y_scale)", "to", precision);
  if (!broadcastQuantParam(c, b, 1, "SP", "S", error))
    return false;
  b.Add("Q = Div (XP, S)");
  if (!range) {
    std::string value = "Q";
    if (type == kFloat4E2M1 && c.hasInput(2)) {
      b.Add("ZP = Cast (y_zero_point)", "to", precision);
      if (!broadcastQuantParam(c, b, 2, "ZP", "Z", error))
        return false;
      b.Add("QZ = Add (Q, Z)");
      value = "QZ";
    }
    text(b, "Y = Cast <to = " + std::to_string(type) + ", saturate = " +
                std::to_string(c.attr.i("saturate", 1)) + "> (" + value + ")");
    return true;
  }
  b.Add("R = Round (Q)").Add("RI = Cast (R)", "to", kInt32);
  std::string sum = "RI";
  if (c.hasInput(2)) {
    b.Add("ZI = Cast (y_zero_point)", "to", kInt32);
    if (!broadcastQuantParam(c, b, 2, "ZI", "Z", error))
      return false;
    b.Add("RZ = Add (RI, Z)");
    sum = "RZ";
  }
  b.Const("Lo64", range->lo)
      .Const("Hi64", range->hi)
      .Add("Lo = Cast (Lo64)", "to", kInt32)
      .Add("Hi = Cast (Hi64)", "to", kInt32);
  text(b, "C = Clip (" + sum + ", Lo, Hi)");
  b.Add("Y = Cast (C)", "to", type);
  return true;
}

/// The node's attributes named in `names`, as ONNX text ("<a = 1, b = [2]>",
/// or "" when none is set), to forward to an op of a body.
std::string forwardAttributes(const Call &c,
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

/// `name` = input `param` cast to `type`, made to broadcast as a per-row
/// (rank-1 against a matrix: [M] -> [M, 1]) or per-output-channel ([M] ->
/// [M, 1, ...], `channelRank` > 0) parameter; scalars stay scalars.
void quantParam(const Call &c, onnx::FunctionBuilder &b, int param,
                const std::string &formal, const std::string &name,
                int64_t type, int64_t trailingOnes) {
  text(b, name + "Cast = Cast <to = " + std::to_string(type) + "> (" +
              formal + ")");
  if (c.rank(param) == 1 && trailingOnes > 0) {
    std::vector<int64_t> axes;
    for (int64_t i = 1; i <= trailingOnes; ++i)
      axes.push_back(i);
    b.Const(name + "Axes", axes);
    text(b, name + " = Unsqueeze (" + name + "Cast, " + name + "Axes)");
  } else {
    text(b, name + " = Identity (" + name + "Cast)");
  }
}

/// `out` = input `in` (a quantized integer tensor) minus its zero point
/// (input `zp`, when present), in int32.
void centered(const Call &c, onnx::FunctionBuilder &b, int in,
              const std::string &formal, int zp, const std::string &zpFormal,
              const std::string &out, int64_t trailingOnes) {
  text(b, out + "I = Cast <to = 6> (" + formal + ")");
  if (!c.hasInput(zp)) {
    text(b, out + " = Identity (" + out + "I)");
    return;
  }
  quantParam(c, b, zp, zpFormal, out + "Z", kInt32, trailingOnes);
  text(b, out + " = Sub (" + out + "I, " + out + "Z)");
}

/// The integer range of a quantized type, for the clamp after requantizing.
bool quantRange(int64_t type, int64_t &lo, int64_t &hi, std::string &error) {
  if (type == onnx::TensorProto::UINT8)
    return lo = 0, hi = 255, true;
  if (type == onnx::TensorProto::INT8)
    return lo = -128, hi = 127, true;
  error = "quantized tensors must be int8 or uint8, not ONNX type " +
          std::to_string(type);
  return false;
}

/// Y = saturate(round(acc * a_scale * b_scale / y_scale + y_zero_point)):
/// the factor in the scales' type, the rest in float64 (the reference's
/// numpy promotion of int32 by a float scale), rounded to nearest even.
bool requantize(const Call &c, onnx::FunctionBuilder &b, const char *acc,
                const std::string &aScale, const std::string &bScale,
                const std::string &yScaleFormal, int yZero,
                const std::string &yZeroFormal, int64_t outType,
                std::string &error) {
  int64_t lo, hi;
  if (!quantRange(outType, lo, hi, error))
    return false;
  constexpr int64_t kDouble = onnx::TensorProto::DOUBLE;
  text(b, "Factor1 = Mul (" + aScale + ", " + bScale + ")");
  text(b, "Factor = Div (Factor1, " + yScaleFormal + ")");
  b.Add("Factor64 = Cast (Factor)", "to", kDouble);
  text(b, std::string("AccWide = Cast <to = 11> (") + acc + ")");
  b.Add("Scaled = Mul (AccWide, Factor64)");
  std::string sum = "Scaled";
  if (c.hasInput(yZero)) {
    text(b, "YZ = Cast <to = 11> (" + yZeroFormal + ")");
    b.Add("Shifted = Add (Scaled, YZ)");
    sum = "Shifted";
  }
  b.Const("Lo", double(lo)).Const("Hi", double(hi));
  text(b, "Rounded = Round (" + sum + ")");
  b.Add("Clamped = Clip (Rounded, Lo, Hi)");
  b.Add("Y = Cast (Clamped)", "to", outType);
  return true;
}

// MatMulInteger-10: (A - a_zero_point) @ (B - b_zero_point) in int32; a
// zero point per row of A ([M] -> [M, 1]) or per column of B ([N]).
bool buildMatMulInteger(const Call &c, onnx::FunctionBuilder &b,
                        std::string &) {
  centered(c, b, 0, "A", 2, "a_zero_point", "AC", c.rank(0) >= 2 ? 1 : 0);
  centered(c, b, 1, "B", 3, "b_zero_point", "BC", 0);
  b.Add("Y = MatMul (AC, BC)");
  return true;
}

// QLinearMatMul-10/21: the integer product of the centred operands,
// requantized to the output's scale and zero point.
bool buildQLinearMatMul(const Call &c, onnx::FunctionBuilder &b,
                        std::string &error) {
  int64_t rowOnes = c.rank(0) >= 2 ? 1 : 0;
  centered(c, b, 0, "a", 2, "a_zero_point", "AC", rowOnes);
  centered(c, b, 3, "b", 5, "b_zero_point", "BC", 0);
  b.Add("Acc = MatMul (AC, BC)");
  int64_t scaleType = c.elementType(1);
  quantParam(c, b, 1, "a_scale", "AS", scaleType, rowOnes);
  int64_t outType = c.hasInput(7) ? c.elementType(7) : c.elementType(0);
  return requantize(c, b, "Acc", "AS", "b_scale", "y_scale", 7,
                    "y_zero_point", outType, error);
}

const std::initializer_list<const char *> kConvAttributes = {
    "auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};

/// Conv of the centred integer operands, exact in float64 (sums of 8-bit
/// products stay far below 2^53), as int32 `Acc`; input `bias` (int32; -1
/// for none) is added.
void integerConv(const Call &c, onnx::FunctionBuilder &b, int x,
                 const std::string &xFormal, int xZero,
                 const std::string &xZeroFormal, int w,
                 const std::string &wFormal, int wZero,
                 const std::string &wZeroFormal, int bias,
                 const std::string &biasFormal) {
  int64_t spatialOnes = std::max<int64_t>(c.rank(w) - 1, 0);
  centered(c, b, x, xFormal, xZero, xZeroFormal, "XC", 0);
  centered(c, b, w, wFormal, wZero, wZeroFormal, "WC", spatialOnes);
  b.Add("X64 = Cast (XC)", "to", int64_t(onnx::TensorProto::DOUBLE))
      .Add("W64 = Cast (WC)", "to", int64_t(onnx::TensorProto::DOUBLE));
  std::string inputs = "X64, W64";
  if (bias >= 0 && c.hasInput(bias)) {
    text(b, "B64 = Cast <to = 11> (" + biasFormal + ")");
    inputs += ", B64";
  }
  text(b, "Acc64 = Conv " + forwardAttributes(c, kConvAttributes) + " (" +
              inputs + ")");
  b.Add("Acc = Cast (Acc64)", "to", kInt32);
}

// ConvInteger-10: Conv of (x - x_zero_point) and (w - w_zero_point, per
// output channel when 1-D) in int32.
bool buildConvInteger(const Call &c, onnx::FunctionBuilder &b, std::string &) {
  integerConv(c, b, 0, "x", 2, "x_zero_point", 1, "w", 3, "w_zero_point", -1,
              "");
  b.Add("y = Identity (Acc)");
  return true;
}

// QLinearConv-10: the integer Conv (plus the int32 bias) requantized; w_scale
// per output channel when 1-D.
bool buildQLinearConv(const Call &c, onnx::FunctionBuilder &b,
                      std::string &error) {
  integerConv(c, b, 0, "x", 2, "x_zero_point", 3, "w", 5, "w_zero_point", 8,
              "B");
  int64_t rank = c.rank(0);
  if (rank < 3) {
    error = "x must have rank >= 3";
    return false;
  }
  // A per-channel w_scale [M] multiplies the channel axis of [N, M, ...].
  int64_t scaleType = c.elementType(4);
  quantParam(c, b, 4, "w_scale", "WS", scaleType, rank - 2);
  int64_t outType = c.hasInput(7) ? c.elementType(7) : c.elementType(0);
  return requantize(c, b, "Acc", "x_scale", "WS", "y_scale", 7,
                    "y_zero_point", outType, error);
}

// ---- Data movement and small ops without libonnx bodies -----------------
//
// Ops ONNX defines as primitives whose meaning is a few supported ops: each
// body is its specification's formula (ONNX 1.22) in ONNX text.

/// `rank` of input `i`, or an error naming it.
bool knownRank(const Call &c, int i, int64_t &rank, std::string &error) {
  rank = c.rank(i);
  if (rank >= 0)
    return true;
  error = "the rank of input " + std::to_string(i) + " must be known";
  return false;
}

/// An axis attribute normalized into [0, rank), or an error.
bool axisAttribute(const Call &c, const char *name, int64_t fallback,
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

/// Dims [begin, end) of X's shape as `name` (1-D int64).
void shapeSlice(onnx::FunctionBuilder &b, const std::string &name,
                int64_t begin, int64_t end) {
  text(b, name + " = Shape <start = " + std::to_string(begin) +
              ", end = " + std::to_string(end) + "> (X)");
}

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
bool buildEyeLike(const Call &c, onnx::FunctionBuilder &b,
                  std::string &error) {
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
  if (!knownRank(c, 0, rank, error))
    return false;
  if (rank < 3) {
    error = "needs an input of rank >= 3";
    return false;
  }
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
  std::string attrs = forwardAttributes(
      c, {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads",
          "strides"});
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
bool buildOneHot(const Call &c, onnx::FunctionBuilder &b,
                 std::string &error) {
  int64_t rank, axis;
  if (!knownRank(c, 0, rank, error) ||
      !axisAttribute(c, "axis", -1, rank + 1, axis, error))
    return false;
  int64_t depthType = c.elementType(1);
  if (depthType != onnx::TensorProto::INT64 &&
      depthType != onnx::TensorProto::INT32) {
    // The output's extent is the depth: the plan computes extents on the
    // host, in integers.
    error = std::string(kUnsupportedPrefix) +
            "a depth of ONNX type " + std::to_string(depthType) +
            " is not supported (int64 or int32 only)";
    return false;
  }
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
bool buildDropout(const Call &c, onnx::FunctionBuilder &b,
                  std::string &error) {
  if (c.hasInput(2)) {
    error = std::string(kUnsupportedPrefix) +
            "a training_mode input (random dropout) is not supported; "
            "inference drops nothing";
    return false;
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
    b.Const("Pads", std::vector<int64_t>(pads->ints().begin(),
                                         pads->ints().end()))
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
  b.Const("Zero", int64_t(0)).Const("One", int64_t(1)).Const("Two",
                                                             int64_t(2));
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
    text(b, p + "N1 = Shape <start = " + i + ", end = " + std::to_string(d + 1) +
                "> (data)");
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
      text(b, index + " = Where (" + p + "Inside, " + p + "M, " + p +
                  "Mirror)");
    }
    std::string next = p + "Out";
    text(b, p + "G = Gather <axis = " + i + "> (" + current + ", " + index +
                ")");
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

struct NewerOp {
  const char *type;
  int64_t since, last; // opsets of the default domain
  std::vector<const char *> inputs, outputs;
  Builder build;
};

const std::vector<NewerOp> &newerOps() {
  static const std::vector<NewerOp> ops = {
      {"Gelu", 20, 0, {"X"}, {"Y"}, buildGelu},
      {"Swish", 24, 0, {"X"}, {"Y"}, buildSwish},
      {"Mish", 18, 0, {"X"}, {"Y"}, buildMish},
      {"PRelu", 7, 0, {"X", "slope"}, {"Y"}, buildPRelu},
      {"DequantizeLinear", 10, 0, {"X", "x_scale", "x_zero_point"}, {"Y"},
       buildDequantizeLinear},
      {"QuantizeLinear", 10, 0, {"X", "y_scale", "y_zero_point"}, {"Y"},
       buildQuantizeLinear},
      {"DepthToSpace", 13, 0, {"X"}, {"Y"}, buildDepthToSpace},
      {"DepthToSpace", 1, 12, {"X"}, {"Y"}, buildDepthToSpace},
      {"SpaceToDepth", 1, 0, {"X"}, {"Y"}, buildSpaceToDepth},
      {"EyeLike", 9, 0, {"X"}, {"Y"}, buildEyeLike},
      {"GlobalMaxPool", 1, 0, {"X"}, {"Y"}, buildGlobalMaxPool},
      {"Shrink", 9, 0, {"X"}, {"Y"}, buildShrink},
      {"Tile", 6, 0, {"X", "repeats"}, {"Y"}, buildTile},
      {"LpNormalization", 1, 0, {"X"}, {"Y"}, buildLpNormalization},
      {"LpPool", 11, 0, {"X"}, {"Y"}, buildLpPool},
      {"OneHot", 9, 0, {"indices", "depth", "values"}, {"output"},
       buildOneHot},
      {"Dropout", 7, 0, {"data", "ratio", "training_mode"}, {"output", "mask"},
       buildDropout},
      {"Pad", 2, 0, {"data", "pads", "constant_value", "axes"}, {"output"},
       buildPad},
      {"CenterCropPad", 18, 0, {"input_data", "shape"}, {"output_data"},
       buildCenterCropPad},
      {"MatMulInteger", 10, 0, {"A", "B", "a_zero_point", "b_zero_point"},
       {"Y"}, buildMatMulInteger},
      {"QLinearMatMul",
       10,
       0,
       {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point",
        "y_scale", "y_zero_point"},
       {"Y"},
       buildQLinearMatMul},
      {"ConvInteger", 10, 0, {"x", "w", "x_zero_point", "w_zero_point"},
       {"y"}, buildConvInteger},
      {"QLinearConv",
       10,
       0,
       {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point",
        "y_scale", "y_zero_point", "B"},
       {"Y"},
       buildQLinearConv},
      {"RMSNormalization", 23, 0, {"X", "scale"}, {"Y"},
       buildRMSNormalization},
      {"GroupNormalization", 21, 0, {"X", "scale", "bias"}, {"Y"},
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
  return ops;
}

} // namespace

bool onnx_import::newerFunctionBody(
    const onnx::NodeProto &node, const std::string &domain, int64_t opset,
    const std::vector<onnx::TypeProto> &inputTypes, FunctionBody &body,
    std::string &error, const ConstantInts &constants) {
  if (!domain.empty())
    return false;
  for (const NewerOp &op : newerOps()) {
    if (node.op_type() != op.type || opset < op.since ||
        (op.last && opset > op.last))
      continue;
    body = FunctionBody();
    body.sinceVersion = opset;
    onnx::FunctionProto &fn = body.function;
    fn.set_name(op.type);
    for (const char *in : op.inputs)
      fn.add_input(in);
    for (const char *out : op.outputs)
      fn.add_output(out);
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
