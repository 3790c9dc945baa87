//===- Passes.h - The Vulkan target's own passes ----------------*- C++ -*-===//

#ifndef TESSEL_CODEGEN_VULKAN_PASSES_H
#define TESSEL_CODEGEN_VULKAN_PASSES_H

#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tessel {

/// The SPIR-V target environment of the vulkan target: SPIR-V 1.3, its
/// capabilities and extensions, and the limits its kernels are built for.
mlir::spirv::TargetEnvAttr vulkanTargetEnv(mlir::MLIRContext *ctx);

#define GEN_PASS_DECL
#include "codegen/vulkan/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/vulkan/Passes.h.inc"

} // namespace tessel

#endif // TESSEL_CODEGEN_VULKAN_PASSES_H
