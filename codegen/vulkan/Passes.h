//===- Passes.h - The Vulkan target's own passes ----------------*- C++ -*-===//

#ifndef TESSEL_CODEGEN_VULKAN_PASSES_H
#define TESSEL_CODEGEN_VULKAN_PASSES_H

#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tessel {

/// The SPIR-V target environment of the vulkan target: SPIR-V 1.3, its
/// capabilities and extensions, and the limits its kernels are built for.
mlir::spirv::TargetEnvAttr vulkanTargetEnv(mlir::MLIRContext *ctx);

/// On the lowered module: kernel name -> the tessel.aliased_args of the
/// kernel (pairs of bindings that may be one buffer), set by
/// tessel-vulkan-kernel-abi for the emitter.
inline constexpr llvm::StringLiteral kVulkanAliasedBindingsAttr =
    "tessel.vulkan_aliased_bindings";

/// Decorates the storage-buffer variables of `module` (the SPIR-V module of
/// kernel `kernel`) that `lowered`'s kVulkanAliasedBindingsAttr lists with
/// Aliased: Vulkan lets a shader assume distinct bindings do not overlap,
/// and an in-place launch binds one buffer twice.
void markAliasedBindings(mlir::ModuleOp lowered, mlir::spirv::ModuleOp module,
                         llvm::StringRef kernel);

#define GEN_PASS_DECL
#include "codegen/vulkan/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "codegen/vulkan/Passes.h.inc"

} // namespace tessel

#endif // TESSEL_CODEGEN_VULKAN_PASSES_H
