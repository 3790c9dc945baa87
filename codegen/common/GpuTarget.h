//===- GpuTarget.h - What differs between GPU targets -----------*- C++ -*-===//
//
// The GPU lowering is shared up to a gpu.module of kernels mapped onto
// workgroups and threads (tessel-map-stages-to-gpu). A GpuTarget supplies
// the rest: the parameters of that mapping, the conversion of the mapped
// kernels to its dialect (NVVM, ROCDL, SPIR-V) and the binary (PTX, hsaco,
// SPIR-V modules).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_GPUTARGET_H
#define TESSEL_CODEGEN_COMMON_GPUTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace tessel {

/// The choices of the shared GPU mapping that a target makes: the tiles,
/// workgroup shapes and reduction splits follow from them
/// (tessel-gpu-workgroup-tiles, tessel-map-stages-to-gpu).
struct GpuMapping {
  /// Threads of a workgroup (along x).
  int64_t threads = 256;
  /// The most bytes of workgroup (shared) memory a kernel's tile
  /// temporaries may take.
  int64_t maxSharedBytes = 32768;
};

class GpuTarget {
public:
  virtual ~GpuTarget() = default;
  /// "cuda:sm_80", "rocm:gfx942", "vulkan", ...
  virtual std::string name() const = 0;
  /// The mapping this target's kernels are tiled with.
  virtual GpuMapping mapping() const { return GpuMapping(); }
  /// Converts the mapped gpu.module (module-level passes) to the target's
  /// dialect.
  virtual void addLoweringPasses(mlir::OpPassManager &pm) const = 0;
  /// The loadable binary of the lowered module.
  virtual bool emitBinary(mlir::ModuleOp lowered, std::vector<uint8_t> &out,
                          std::string &error) const = 0;
};

/// A target whose last mile is LLVM: the vendor's conversion to the LLVM
/// dialect, then LLVM's backend.
class LlvmGpuTarget : public GpuTarget {
public:
  void addLoweringPasses(mlir::OpPassManager &pm) const final;
  bool emitBinary(mlir::ModuleOp lowered, std::vector<uint8_t> &out,
                  std::string &error) const final;

protected:
  /// Converts the gpu.module's kernels to the LLVM dialect with the vendor's
  /// intrinsics (nested on gpu.module).
  virtual void addToLlvmPasses(mlir::OpPassManager &pm) const = 0;
  /// Turns the translated LLVM IR of the kernels into the loadable binary.
  virtual bool emitLlvmBinary(llvm::Module &module, std::vector<uint8_t> &out,
                              std::string &error) const = 0;
};

/// cuda:sm_NN: NVVM -> PTX (for the CUDA driver's JIT).
std::unique_ptr<GpuTarget> createNvidiaTarget(const std::string &chip);
/// rocm:gfxNNN: ROCDL -> AMDGPU code object (hsaco).
std::unique_ptr<GpuTarget> createAmdTarget(const std::string &chip);
/// vulkan: SPIR-V 1.3 compute shaders, one module per kernel. `mapping`
/// is the mapping to tile with (another target's, to run its kernels).
std::unique_ptr<GpuTarget> createVulkanTarget(GpuMapping mapping);
/// The limits of the vulkan target: a mapping it runs must fit them.
GpuMapping vulkanLimits();

/// Stages (bufferized linalg on memrefs) -> gpu.module in the target's
/// dialect.
void buildGpuLoweringPipeline(mlir::OpPassManager &pm, const GpuTarget &target);

/// Grouped linalg on tensors (buildSharedLoweringPipeline) -> a GPU's block
/// tiles -> stages (buildStagePipeline); the same for every GPU target but
/// for the mapping's parameters.
void buildGpuStagePipeline(mlir::OpPassManager &pm, const GpuMapping &mapping);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_GPUTARGET_H
