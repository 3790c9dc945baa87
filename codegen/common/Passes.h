//===- Passes.h - Target-independent codegen passes and pipelines -*- C++ -*-===//
//
// The shared lowering: graph -> linalg on tensors -> fused, bufferized linalg
// on the kernel's own memref arguments. Each target continues from there.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_PASSES_H
#define TESSEL_CODEGEN_COMMON_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace tessel {

#define GEN_PASS_DECL
#include "codegen/common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/common/Passes.h.inc"

/// graph -> linalg on tensors -> elementwise fusion -> one-shot bufferization
/// into the kernel arguments -> buffer deallocation. Runs on a module of
/// kernel functions (see compiler/Partition.h).
void buildSharedLoweringPipeline(mlir::OpPassManager &pm);

/// Registers the pipelines above as `tessel-shared-lowering`.
void registerCodegenCommonPipelines();

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_PASSES_H
