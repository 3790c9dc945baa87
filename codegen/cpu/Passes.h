//===- Passes.h - The CPU's own codegen passes ------------------*- C++ -*-===//

#ifndef TESSEL_CODEGEN_CPU_PASSES_H
#define TESSEL_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace tessel {

#define GEN_PASS_DECL
#include "codegen/cpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/cpu/Passes.h.inc"

} // namespace tessel

#endif // TESSEL_CODEGEN_CPU_PASSES_H
