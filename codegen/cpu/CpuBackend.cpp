//===- CpuBackend.cpp - x86-64 shared objects from bufferized kernels -----===//
//
// Lowers bufferized kernels to loops and the LLVM dialect, translates them to
// LLVM IR, adds the packed entry points, optimizes, emits an x86-64 object
// and links it with ld.lld into a position-independent shared object that
// the runtime loads from memory.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/CpuBackend.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "codegen/common/LlvmEmission.h"

#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

void tessel::buildCpuLoweringPipeline(OpPassManager &pm) {
  // Spelled as text: the same names a pass author types into tessel-opt.
  const char *pipeline =
      "func.func(lower-affine, convert-scf-to-cf,"
      " math-expand-ops{ops=tanh}),"
      "expand-strided-metadata, finalize-memref-to-llvm,"
      "func.func(convert-math-to-llvm), convert-math-to-libm,"
      "convert-arith-to-llvm, convert-index-to-llvm, convert-func-to-llvm,"
      "convert-cf-to-llvm, reconcile-unrealized-casts";
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("tessel: invalid built-in CPU pipeline");
}

void tessel::registerCpuPipelines() {
  PassPipelineRegistration<>("tessel-cpu-lowering",
                             "bufferized linalg -> LLVM dialect for the CPU",
                             buildCpuLoweringPipeline);
}

bool tessel::emitCpuSharedObject(ModuleOp module,
                                 llvm::ArrayRef<std::string> kernels,
                                 const CpuCodegenOptions &options,
                                 std::vector<uint8_t> &out,
                                 std::string &error) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "tessel_cpu_kernels");
  if (!llvmModule) {
    error = "cannot translate the CPU kernels to LLVM IR";
    return false;
  }
  addPackedWrappers(*llvmModule, kernels);
  std::string cpu =
      options.cpu == "native" ? llvm::sys::getHostCPUName().str() : options.cpu;
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(
      "x86_64-unknown-linux-gnu", cpu, "", llvm::Reloc::PIC_, error);
  if (!tm)
    return false;
  optimizeModule(*llvmModule, *tm, options.optLevel);
  std::vector<uint8_t> object;
  if (!emitModule(*llvmModule, *tm, llvm::CodeGenFileType::ObjectFile, object,
                  error))
    return false;
  // Kernels call libm (expf, ...) and libc (memset): name them as needed
  // libraries so the object resolves on its own wherever it is loaded.
  return linkSharedObject(object,
                          {"-O2", "--as-needed", "-L/lib/x86_64-linux-gnu",
                           "-L/usr/lib/x86_64-linux-gnu", "-l:libm.so.6",
                           "-l:libc.so.6"},
                          out, error);
}
