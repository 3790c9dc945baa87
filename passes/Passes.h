//===- Passes.h - Target-independent graph passes ---------------*- C++ -*-===//

#ifndef TESSEL_PASSES_PASSES_H
#define TESSEL_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"

namespace tessel {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The function attribute of `main` listing the ONNX nodes of the
/// contractions a precision pass lowered (tessel-lower-precision,
/// tessel-quantize-int8): what the precision report says ran at the low
/// precision.
inline constexpr llvm::StringLiteral kLoweredContractionsAttr =
    "tessel.lowered_contractions";

/// Appends `nodes` to that attribute of the `main` function in `root`.
void recordLoweredContractions(mlir::Operation *root,
                               llvm::ArrayRef<std::string> nodes);

} // namespace tessel

#endif // TESSEL_PASSES_PASSES_H
