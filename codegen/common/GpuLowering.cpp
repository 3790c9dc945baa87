//===- GpuLowering.cpp - The shared GPU pipeline --------------------------===//
//
// Stages -> scf.parallel loop nests -> grid-stride gpu.func kernels -> the
// vendor's LLVM dialect; then LLVM IR and the vendor's binary.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GpuTarget.h"
#include "codegen/common/LlvmEmission.h"
#include "codegen/common/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void tessel::buildGpuStagePipeline(OpPassManager &pm) {
  if (failed(parsePassPipeline("func.func(tessel-gpu-workgroup-tiles,"
                               " tessel-tile-and-fuse-workgroups,"
                               " tessel-gpu-split-reductions)",
                               pm)))
    llvm::report_fatal_error("tessel: invalid built-in GPU pipeline");
  buildStagePipeline(pm);
}

void tessel::buildGpuLoweringPipeline(OpPassManager &pm,
                                      const GpuTarget &target) {
  // Parallel loops around sequential reductions: one work item per thread.
  if (failed(
          parsePassPipeline("func.func(convert-linalg-to-parallel-loops)", pm)))
    llvm::report_fatal_error("tessel: invalid built-in GPU pipeline");
  pm.addPass(createMapStagesToGpuPass());
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  if (failed(parsePassPipeline(
          "expand-strided-metadata, lower-affine, convert-scf-to-cf,"
          " convert-math-to-llvm, canonicalize, cse",
          device)))
    llvm::report_fatal_error("tessel: invalid built-in GPU pipeline");
  target.addToLlvmPasses(device);
  if (failed(parsePassPipeline("reconcile-unrealized-casts", pm)))
    llvm::report_fatal_error("tessel: invalid built-in GPU pipeline");
}

bool tessel::emitGpuBinary(ModuleOp module, const GpuTarget &target,
                           std::vector<uint8_t> &out, std::string &error) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateGpuModule(module, context, error);
  return llvmModule && target.emitBinary(*llvmModule, out, error);
}
