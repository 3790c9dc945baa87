//===- GpuLowering.cpp - The shared GPU pipeline --------------------------===//
//
// Stages -> scf.parallel loop nests -> gpu.func kernels mapped onto
// workgroups and threads -> the target's dialect and binary. For the
// LLVM-based targets: the vendor's LLVM dialect, LLVM IR, PTX or hsaco.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GpuTarget.h"
#include "codegen/common/LlvmEmission.h"
#include "codegen/common/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;

void tessel::buildGpuStagePipeline(OpPassManager &pm,
                                   const GpuMapping &mapping) {
  addBuiltinPipeline(pm, "func.func(tessel-gpu-workgroup-tiles{threads=" +
                      std::to_string(mapping.threads) +
                      " max-temp-bytes=" +
                      std::to_string(mapping.maxSharedBytes) +
                      "}, tessel-tile-and-fuse-workgroups,"
                      " tessel-gpu-split-reductions)");
  buildStagePipeline(pm);
}

void tessel::buildGpuLoweringPipeline(OpPassManager &pm,
                                      const GpuTarget &target) {
  // Parallel loops around sequential reductions: one work item per thread.
  // Math on bf16 and f16 computes in f32 (no device library has it, and
  // the f32 expansions are the ones the targets check).
  addBuiltinPipeline(pm, "func.func(convert-linalg-to-parallel-loops),"
                  " math-extend-to-supported-types{target-type=f32},"
                  " tessel-map-stages-to-gpu{threads=" +
                      std::to_string(target.mapping().threads) + "}");
  target.addLoweringPasses(pm);
}

void tessel::LlvmGpuTarget::addLoweringPasses(OpPassManager &pm) const {
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  addBuiltinPipeline(device, "expand-strided-metadata, lower-affine,"
                      " convert-scf-to-cf, convert-math-to-llvm,"
                      " canonicalize, cse");
  addToLlvmPasses(device);
  addBuiltinPipeline(pm, "reconcile-unrealized-casts");
}

bool tessel::LlvmGpuTarget::emitBinary(ModuleOp lowered,
                                       std::vector<uint8_t> &out,
                                       std::string &error) const {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateGpuModule(lowered, context, error);
  return llvmModule && emitLlvmBinary(*llvmModule, out, error);
}
