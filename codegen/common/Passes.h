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

/// graph -> linalg on tensors -> elementwise fusion -> workgroup groups
/// (tessel-form-workgroup-groups). Runs on a module of kernel functions (see
/// compiler/Partition.h); each target then chooses its workgroup tiles and
/// runs tessel-tile-and-fuse-workgroups.
void buildSharedLoweringPipeline(mlir::OpPassManager &pm);

/// Tiled linalg on tensors -> one-shot bufferization into the kernel
/// arguments -> stages (tessel-outline-stages). Every target runs it after
/// its tiling; the stages it yields are the same on every target.
void buildStagePipeline(mlir::OpPassManager &pm);

/// Appends the built-in pipeline `text` (pass names as tessel-opt spells
/// them) to `pm`. A text that does not parse is a compiler bug: it aborts,
/// naming the text.
void addBuiltinPipeline(mlir::OpPassManager &pm, llvm::StringRef text);

/// Registers the pipelines above as `tessel-shared-lowering` and
/// `tessel-stages`.
void registerCodegenCommonPipelines();

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_PASSES_H
