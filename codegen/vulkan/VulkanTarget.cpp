//===- VulkanTarget.cpp - SPIR-V compute shaders for Vulkan ---------------===//
//
// The kernels of the shared GPU mapping, given the Vulkan kernel ABI
// (tessel-vulkan-kernel-abi: flat storage buffers and a shape buffer), are
// converted by MLIR's GPU-to-SPIR-V conversion, one spirv.module per
// kernel (f64 arithmetic decorated NoContraction: tessel-spirv-exact-f64),
// serialized, and validated with SPIRV-Tools for Vulkan 1.1. The
// binary is the modules in the TSPV container (format/SpirvModules.h).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GpuTarget.h"
#include "codegen/common/Passes.h"
#include "codegen/vulkan/Passes.h"
#include "format/SpirvModules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVTypes.h"
#include "mlir/Target/SPIRV/Serialization.h"

#include "spirv-tools/libspirv.hpp"

using namespace mlir;

namespace {

/// The bytes of `type` (scalars, vectors, arrays and structs of them, as
/// workgroup variables are), or nullopt.
std::optional<uint64_t> sizeOf(Type type) {
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  if (auto vector = dyn_cast<VectorType>(type)) {
    std::optional<uint64_t> element = sizeOf(vector.getElementType());
    return element ? std::optional<uint64_t>(*element * vector.getNumElements())
                   : std::nullopt;
  }
  if (auto array = dyn_cast<spirv::ArrayType>(type)) {
    std::optional<uint64_t> element = sizeOf(array.getElementType());
    return element ? std::optional<uint64_t>(*element * array.getNumElements())
                   : std::nullopt;
  }
  if (auto structure = dyn_cast<spirv::StructType>(type)) {
    uint64_t total = 0;
    for (Type member : structure.getElementTypes()) {
      std::optional<uint64_t> size = sizeOf(member);
      if (!size)
        return std::nullopt;
      total += *size;
    }
    return total;
  }
  return std::nullopt;
}

/// Bytes of workgroup memory `module` declares.
uint64_t workgroupBytes(spirv::ModuleOp module) {
  uint64_t bytes = 0;
  module.walk([&](spirv::GlobalVariableOp var) {
    auto pointer = cast<spirv::PointerType>(var.getType());
    if (pointer.getStorageClass() != spirv::StorageClass::Workgroup)
      return;
    std::optional<uint64_t> size = sizeOf(pointer.getPointeeType());
    // A type without a size cannot be checked: count it as too large.
    bytes += size ? uint64_t(*size) : ~uint64_t(0) / 2;
  });
  return bytes;
}

class VulkanTarget : public tessel::GpuTarget {
public:
  explicit VulkanTarget(tessel::GpuMapping mapping) : chosen(mapping) {}

  std::string name() const override { return "vulkan"; }
  tessel::GpuMapping mapping() const override { return chosen; }

  void addLoweringPasses(OpPassManager &pm) const override {
    tessel::addBuiltinPipeline(pm, "gpu.module(expand-strided-metadata),"
                    " tessel-vulkan-kernel-abi,"
                    " gpu.module(lower-affine, arith-expand,"
                    // bf16 arithmetic in f32, its conversions as integer
                    // ops, and what only moves bf16 values as i16: SPIR-V
                    // has no bf16.
                    " arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
                    " tessel-expand-bf16,"
                    " canonicalize, cse, tessel-saturate-index, canonicalize,"
                    " convert-math-to-spirv),"
                    " convert-gpu-to-spirv{use-64bit-index=false},"
                    " spirv.module(spirv-lower-abi-attrs, spirv-update-vce,"
                    " canonicalize, tessel-spirv-exact-f64)");
  }

  bool emitBinary(ModuleOp lowered, std::vector<uint8_t> &out,
                  std::string &error) const override {
    const uint64_t limit = tessel::vulkanLimits().maxSharedBytes;
    std::vector<tessel::format::SpirvModule> modules;
    spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
    std::string diagnostics;
    tools.SetMessageConsumer([&](spv_message_level_t, const char *,
                                 const spv_position_t &position,
                                 const char *message) {
      diagnostics += "word " + std::to_string(position.index) + ": " +
                     message + "\n";
    });
    for (auto module : lowered.getOps<spirv::ModuleOp>()) {
      auto entries = module.getOps<spirv::EntryPointOp>();
      if (std::distance(entries.begin(), entries.end()) != 1) {
        error = "a SPIR-V module without exactly one entry point";
        return false;
      }
      std::string kernel = (*entries.begin()).getFn().str();
      uint64_t shared = workgroupBytes(module);
      if (shared > limit) {
        error = "kernel '" + kernel + "' needs " + std::to_string(shared) +
                " bytes of workgroup memory, more than the vulkan target's " +
                std::to_string(limit);
        return false;
      }
      tessel::markAliasedBindings(lowered, module, kernel);
      SmallVector<uint32_t> words;
      if (failed(spirv::serialize(module, words))) {
        error = "cannot serialize the SPIR-V of kernel '" + kernel + "'";
        return false;
      }
      diagnostics.clear();
      if (!tools.Validate(words.data(), words.size())) {
        error = "the SPIR-V of kernel '" + kernel +
                "' is invalid for Vulkan 1.1 (spirv-val): " + diagnostics;
        return false;
      }
      modules.push_back({kernel, {words.begin(), words.end()}});
    }
    out = tessel::format::encodeSpirvModules(modules);
    return true;
  }

private:
  tessel::GpuMapping chosen;
};

} // namespace

tessel::GpuMapping tessel::vulkanLimits() {
  GpuMapping limits;
  limits.threads = 1024;
  limits.maxSharedBytes = 32768;
  return limits;
}

std::unique_ptr<tessel::GpuTarget>
tessel::createVulkanTarget(GpuMapping mapping) {
  return std::make_unique<VulkanTarget>(mapping);
}
