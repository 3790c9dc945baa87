//===- GpuTarget.h - What differs between GPU vendors -----------*- C++ -*-===//
//
// The GPU lowering is shared up to a gpu.module of grid-stride kernels
// (tessel-map-stages-to-gpu). A GpuTarget supplies the rest: the vendor's
// conversion to the LLVM dialect (NVVM, ROCDL) and the binary (PTX, hsaco).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_GPUTARGET_H
#define TESSEL_CODEGEN_COMMON_GPUTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace tessel {

class GpuTarget {
public:
  virtual ~GpuTarget() = default;
  /// "cuda:sm_80", "rocm:gfx942", ...
  virtual std::string name() const = 0;
  /// Converts the gpu.module's kernels to the LLVM dialect with the vendor's
  /// intrinsics (nested on gpu.module).
  virtual void addToLlvmPasses(mlir::OpPassManager &pm) const = 0;
  /// Turns the translated LLVM IR of the kernels into the loadable binary.
  virtual bool emitBinary(llvm::Module &module, std::vector<uint8_t> &out,
                          std::string &error) const = 0;
};

/// cuda:sm_NN: NVVM -> PTX (for the CUDA driver's JIT).
std::unique_ptr<GpuTarget> createNvidiaTarget(const std::string &chip);
/// rocm:gfxNNN: ROCDL -> AMDGPU code object (hsaco).
std::unique_ptr<GpuTarget> createAmdTarget(const std::string &chip);
/// Stages (bufferized linalg on memrefs) -> gpu.module in the LLVM dialect.
void buildGpuLoweringPipeline(mlir::OpPassManager &pm, const GpuTarget &target);

/// Grouped linalg on tensors (buildSharedLoweringPipeline) -> a GPU's block
/// tiles -> stages (buildStagePipeline); the same for every GPU target.
void buildGpuStagePipeline(mlir::OpPassManager &pm);

/// Translates the lowered gpu.module of `module` and emits the binary.
bool emitGpuBinary(mlir::ModuleOp module, const GpuTarget &target,
                   std::vector<uint8_t> &out, std::string &error);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_GPUTARGET_H
