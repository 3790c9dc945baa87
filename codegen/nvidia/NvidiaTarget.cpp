//===- NvidiaTarget.cpp - NVVM -> PTX for the CUDA driver -----------------===//
//
// Kernels become NVVM (64-bit indices, memref descriptors expanded into
// scalar parameters: the Kernel ABI of docs/design.md) and PTX text through
// LLVM's NVPTX backend. The CUDA driver JIT-compiles the PTX on load, so
// sm_80 PTX also runs on newer GPUs.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GpuTarget.h"
#include "codegen/common/LlvmEmission.h"
#include "codegen/common/Passes.h"

#include "llvm/IR/Module.h"

using namespace mlir;

namespace {
class NvidiaTarget : public tessel::LlvmGpuTarget {
public:
  explicit NvidiaTarget(std::string chip) : chip(std::move(chip)) {}

  std::string name() const override { return "cuda:" + chip; }

  void addToLlvmPasses(OpPassManager &pm) const override {
    tessel::addBuiltinPipeline(
        pm, "tessel-gpu-math-to-intrinsics{vendor=nvidia},"
            " convert-gpu-to-nvvm{index-bitwidth=64}, canonicalize");
  }

  bool emitLlvmBinary(llvm::Module &module, std::vector<uint8_t> &out,
                      std::string &error) const override {
    // PTX ISA 7.8 is the newest both sm_80 and sm_90 toolchains accept here.
    std::unique_ptr<llvm::TargetMachine> tm = tessel::createTargetMachine(
        "nvptx64-nvidia-cuda", chip, "+ptx78", llvm::Reloc::Static, error);
    if (!tm)
      return false;
    tessel::optimizeModule(module, *tm, 2);
    return tessel::emitModule(module, *tm, llvm::CodeGenFileType::AssemblyFile,
                              out, error);
  }

private:
  std::string chip;
};
} // namespace

std::unique_ptr<tessel::GpuTarget>
tessel::createNvidiaTarget(const std::string &chip) {
  return std::make_unique<NvidiaTarget>(chip);
}
