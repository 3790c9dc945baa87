//===- NarrowFormats.h - float8, float4 and sub-byte integers ---*- C++ -*-===//
//
// ONNX's narrow element types (float8 E4M3FN/E4M3FNUZ/E5M2/E5M2FNUZ/E8M0,
// float4 E2M1, int4/uint4, int2/uint2) live in the graph as i8 tensors, one
// element per byte: a float format's bit pattern (float4 in the low four
// bits), a sub-byte integer's value sign- or zero-extended. The ops that
// interpret the bits (Cast, QuantizeLinear, DequantizeLinear) name the format
// with its ONNX data type number; everything else moves bytes. These helpers
// build the scalar conversions in arith on integers and f32/f64, so every
// target lowers them as it lowers any integer code (design.md section 6).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECTS_GRAPH_NARROWFORMATS_H
#define TESSEL_DIALECTS_GRAPH_NARROWFORMATS_H

#include "mlir/IR/Builders.h"

namespace tessel {

/// ONNX TensorProto.DataType numbers of the narrow formats.
enum NarrowFormat : int32_t {
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};

/// Whether `onnxType` is one of the formats above.
bool isNarrowFormat(int32_t onnxType);
/// Whether it is one of the float8/float4 formats.
bool isNarrowFloatFormat(int32_t onnxType);
/// Whether it is int4/uint4/int2/uint2.
bool isNarrowIntFormat(int32_t onnxType);

/// How a conversion to float8 E8M0 rounds (Cast's `round_mode`).
enum class E8M0Rounding { Up, Down, Nearest };

/// The f32 value of a float format's bit pattern `bits` (i8); exact.
mlir::Value decodeNarrowFloat(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value bits, int32_t format);

/// The bit pattern (i8) of float `x` (any float type) in float `format`,
/// rounded to nearest even (E8M0: by `rounding`), by ONNX Cast's rules:
/// with `saturate` a value beyond the format's largest finite one (an
/// infinity included) becomes that value, without it NaN (or E5M2's
/// infinity); NaN stays NaN (float4, which has none, gives its largest
/// value, as its specification asks).
mlir::Value encodeNarrowFloat(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value x, int32_t format, bool saturate,
                              E8M0Rounding rounding);

/// An i8 wrapped into sub-byte integer `format`: its low 4 or 2 bits,
/// sign-extended (int4, int2) or zero-extended (uint4, uint2).
mlir::Value wrapNarrowInt(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value x, int32_t format);

/// `x` (any float type) rounded to an integral value, ties to even.
mlir::Value roundHalfToEven(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x);

} // namespace tessel

#endif // TESSEL_DIALECTS_GRAPH_NARROWFORMATS_H
