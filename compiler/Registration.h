//===- Registration.h - Register Tessel's dialects and passes ---*- C++ -*-===//
//
// One place that knows every dialect and pass the compiler uses, for the
// tools and for embedders.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_REGISTRATION_H
#define TESSEL_COMPILER_REGISTRATION_H

#include "mlir/IR/DialectRegistry.h"

namespace tessel {

/// Adds the graph dialect and the upstream dialects Tessel lowers through,
/// with their interface implementations (bufferization, LLVM translation).
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers Tessel's passes and pipelines and the upstream passes used by
/// them, so that tessel-opt can run any step by name.
void registerAllPasses();

} // namespace tessel

#endif // TESSEL_COMPILER_REGISTRATION_H
