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

/// Adds the f32 expansions of math.erf and math.powf into ops the GPU
/// targets have instructions for.
void populateDeviceMathExpansionPatterns(mlir::RewritePatternSet &patterns);

/// Fails, with an error at the op (its ONNX node), when a math op that
/// needs a device library is left under `root`.
mlir::LogicalResult checkDeviceMathExpanded(mlir::Operation *root);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_EXPANDDEVICEMATH_H
