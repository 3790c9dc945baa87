//===- QuantizationBodies.cpp - Quantization ops as ONNX bodies -------------===//
//
// QuantizeLinear, DequantizeLinear, MatMulInteger, QLinearMatMul,
// ConvInteger and QLinearConv, written as bodies of Cast, Mul, Round, Clip,
// MatMul and Conv from their ONNX specification (ONNX 1.22). See
// BodyBuilders.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include "dialects/Graph/NarrowFormats.h"

#include <iterator>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

// ---- Quantization -----------------------------------------------------------
//
// QuantizeLinear and DequantizeLinear are primitives in ONNX, not functions;
// their bodies are written here because as compositions of Cast, Div,
// Round, Clip and Mul they become one fused elementwise kernel, and the
// narrow formats (float8, float4, int4, int2) come with Cast.

constexpr int64_t kInt32 = onnx::TensorProto::INT32;
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
  int64_t type = c.hasInput(2) ? c.elementType(2) : c.attr.i("output_dtype", 0);
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
  case onnx::TensorProto::UINT8:
    range = Range{0, 255};
    break;
  case onnx::TensorProto::INT8:
    range = Range{-128, 127};
    break;
  case onnx::TensorProto::UINT16:
    range = Range{0, 65535};
    break;
  case onnx::TensorProto::INT16:
    range = Range{-32768, 32767};
    break;
  case kUInt4:
    range = Range{0, 15};
    break;
  case kInt4:
    range = Range{-8, 7};
    break;
  case kUInt2:
    range = Range{0, 3};
    break;
  case kInt2:
    range = Range{-2, 1};
    break;
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

/// `name` = input `param` cast to `type`, made to broadcast as a per-row
/// (rank-1 against a matrix: [M] -> [M, 1]) or per-output-channel ([M] ->
/// [M, 1, ...], `channelRank` > 0) parameter; scalars stay scalars.
void quantParam(const Call &c, onnx::FunctionBuilder &b, int param,
                const std::string &formal, const std::string &name,
                int64_t type, int64_t trailingOnes) {
  text(b, name + "Cast = Cast <to = " + std::to_string(type) + "> (" + formal +
              ")");
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
  return requantize(c, b, "Acc", "AS", "b_scale", "y_scale", 7, "y_zero_point",
                    outType, error);
}

const std::initializer_list<const char *> kConvAttributes = {
    "auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};

/// Conv of the centred integer operands in int32 (an integer contraction:
/// the sums of products of 9-bit values stay far inside int32 for any
/// realistic kernel), as int32 `Acc`; input `bias` (int32; -1 for none) is
/// added. The importer's Conv takes integer operands only in these bodies.
void integerConv(const Call &c, onnx::FunctionBuilder &b, int x,
                 const std::string &xFormal, int xZero,
                 const std::string &xZeroFormal, int w,
                 const std::string &wFormal, int wZero,
                 const std::string &wZeroFormal, int bias,
                 const std::string &biasFormal) {
  int64_t spatialOnes = std::max<int64_t>(c.rank(w) - 1, 0);
  centered(c, b, x, xFormal, xZero, xZeroFormal, "XC", 0);
  centered(c, b, w, wFormal, wZero, wZeroFormal, "WC", spatialOnes);
  std::string inputs = "XC, WC";
  if (bias >= 0 && c.hasInput(bias))
    inputs += ", " + biasFormal;
  text(b, "Acc = Conv " + forwardAttributes(c, kConvAttributes) + " (" +
              inputs + ")");
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
  return requantize(c, b, "Acc", "x_scale", "WS", "y_scale", 7, "y_zero_point",
                    outType, error);
}

} // namespace

void bodies::addQuantizationBodies(std::vector<NewerOp> &ops) {
  const NewerOp table[] = {
      {"DequantizeLinear",
       10,
       0,
       {"X", "x_scale", "x_zero_point"},
       {"Y"},
       buildDequantizeLinear},
      {"QuantizeLinear",
       10,
       0,
       {"X", "y_scale", "y_zero_point"},
       {"Y"},
       buildQuantizeLinear},
      {"MatMulInteger",
       10,
       0,
       {"A", "B", "a_zero_point", "b_zero_point"},
       {"Y"},
       buildMatMulInteger},
      {"QLinearMatMul",
       10,
       0,
       {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point",
        "y_scale", "y_zero_point"},
       {"Y"},
       buildQLinearMatMul},
      {"ConvInteger",
       10,
       0,
       {"x", "w", "x_zero_point", "w_zero_point"},
       {"y"},
       buildConvInteger},
      {"QLinearConv",
       10,
       0,
       {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point",
        "y_scale", "y_zero_point", "B"},
       {"Y"},
       buildQLinearConv},
  };
  ops.insert(ops.end(), std::begin(table), std::end(table));
}
