//===- AmdTarget.cpp - ROCDL -> AMDGPU code objects (hsaco) ---------------===//
//
// Kernels become ROCDL and an AMDGPU ELF object through LLVM's AMDGPU
// backend, linked by ld.lld into a code object the HIP runtime loads. No
// device library is linked: the shared GPU pipeline expands math into
// arithmetic. There is no AMD GPU in this project's machines: the code
// objects are checked offline (llvm-readobj: kernel metadata, registers).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GpuTarget.h"
#include "codegen/common/LlvmEmission.h"
#include "codegen/common/Passes.h"

#include "llvm/IR/Module.h"

using namespace mlir;

namespace {
class AmdTarget : public tessel::LlvmGpuTarget {
public:
  explicit AmdTarget(std::string chip) : chip(std::move(chip)) {}

  std::string name() const override { return "rocm:" + chip; }

  void addToLlvmPasses(OpPassManager &pm) const override {
    tessel::addBuiltinPipeline(pm, "tessel-gpu-math-to-intrinsics{vendor=amd},"
                                   " convert-gpu-to-rocdl{chipset=" +
                                       chip + " index-bitwidth=64}, canonicalize");
  }

  bool emitLlvmBinary(llvm::Module &module, std::vector<uint8_t> &out,
                      std::string &error) const override {
    std::unique_ptr<llvm::TargetMachine> tm = tessel::createTargetMachine(
        "amdgcn-amd-amdhsa", chip, "", llvm::Reloc::PIC_, error);
    if (!tm)
      return false;
    // Code object v5, which ROCm 5.x and later load.
    module.addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                         500);
    tessel::optimizeModule(module, *tm, 2);
    std::vector<uint8_t> object;
    if (!tessel::emitModule(module, *tm, llvm::CodeGenFileType::ObjectFile,
                            object, error))
      return false;
    return tessel::linkSharedObject(object, {}, out, error);
  }

private:
  std::string chip;
};
} // namespace

std::unique_ptr<tessel::GpuTarget>
tessel::createAmdTarget(const std::string &chip) {
  return std::make_unique<AmdTarget>(chip);
}
