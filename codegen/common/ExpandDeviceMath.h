//===- ExpandDeviceMath.h - Math without a device library ------*- C++ -*-===//
//
// Expansions of the math ops GPU kernels cannot call a library for; see
// ExpandDeviceMath.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_EXPANDDEVICEMATH_H
#define TESSEL_CODEGEN_COMMON_EXPANDDEVICEMATH_H

#include "mlir/IR/PatternMatch.h"

namespace tessel {

/// Adds the expansions of the math ops without a GPU instruction (erf,
/// powf, the trigonometric and hyperbolic functions, f64 exp and log, ...)
/// into ops the GPU targets have instructions for.
void populateDeviceMathExpansionPatterns(mlir::RewritePatternSet &patterns);

/// The f64 exp and log of ExpandDeviceMathF64.cpp (part of the above).
void populateDeviceMathF64Patterns(mlir::RewritePatternSet &patterns);

/// Fails, with an error at the op (its ONNX node), when a math op that
/// needs a device library is left under `root`.
mlir::LogicalResult checkDeviceMathExpanded(mlir::Operation *root);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_EXPANDDEVICEMATH_H
