//===- LlvmEmission.cpp - LLVM IR -> target code, for every backend -------===//

#include "codegen/common/LlvmEmission.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

std::unique_ptr<llvm::TargetMachine>
tessel::createTargetMachine(const std::string &tripleName,
                            const std::string &cpu, const std::string &features,
                            llvm::Reloc::Model reloc, std::string &error) {
  static const bool initialized = [] {
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    return true;
  }();
  (void)initialized;
  llvm::Triple triple(tripleName);
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, cpu, features, llvm::TargetOptions(), reloc, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
}

void tessel::optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                            unsigned level) {
  module.setDataLayout(tm.createDataLayout());
  module.setTargetTriple(tm.getTargetTriple());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel opt = level >= 3   ? llvm::OptimizationLevel::O3
                                : level == 2 ? llvm::OptimizationLevel::O2
                                : level == 1 ? llvm::OptimizationLevel::O1
                                             : llvm::OptimizationLevel::O0;
  llvm::ModulePassManager mpm = level == 0
                                    ? pb.buildO0DefaultPipeline(opt)
                                    : pb.buildPerModuleDefaultPipeline(opt);
  mpm.run(module, mam);
}

bool tessel::emitModule(llvm::Module &module, llvm::TargetMachine &tm,
                        llvm::CodeGenFileType type, std::vector<uint8_t> &out,
                        std::string &error) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type)) {
    error = "LLVM cannot emit code for " + tm.getTargetTriple().str();
    return false;
  }
  pm.run(module);
  out.assign(buffer.begin(), buffer.end());
  return true;
}

namespace {
/// A temporary file removed when this goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};

std::string findLinker() {
  if (const char *env = std::getenv("TESSEL_LD"))
    return env;
  if (llvm::sys::fs::can_execute("/usr/lib/llvm-22/bin/ld.lld"))
    return "/usr/lib/llvm-22/bin/ld.lld";
  for (const char *name : {"ld.lld-22", "ld.lld"})
    if (auto path = llvm::sys::findProgramByName(name))
      return *path;
  return {};
}
} // namespace

bool tessel::linkSharedObject(const std::vector<uint8_t> &object,
                              llvm::ArrayRef<std::string> flags,
                              std::vector<uint8_t> &out, std::string &error) {
  std::string linker = findLinker();
  if (linker.empty()) {
    error = "ld.lld not found (install lld-22 or set TESSEL_LD)";
    return false;
  }
  TempFile in, shared;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tessel", "o", fd, in.path) ||
      llvm::sys::fs::createTemporaryFile("tessel", "so", shared.path)) {
    error = "cannot create a temporary file";
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(object.data()), object.size());
  }
  llvm::SmallVector<llvm::StringRef> args = {linker, "-shared"};
  for (const std::string &f : flags)
    args.push_back(f);
  args.append({"-o", shared.path, in.path});
  std::string message;
  int rc =
      llvm::sys::ExecuteAndWait(linker, args, std::nullopt, {}, 0, 0, &message);
  if (rc != 0) {
    error = "ld.lld failed (" + std::to_string(rc) + ")" +
            (message.empty() ? "" : ": " + message);
    return false;
  }
  auto buffer = llvm::MemoryBuffer::getFile(shared.path);
  if (!buffer) {
    error = "cannot read the linked shared object";
    return false;
  }
  out.assign((*buffer)->getBufferStart(), (*buffer)->getBufferEnd());
  return true;
}

std::unique_ptr<llvm::Module>
tessel::translateGpuModule(ModuleOp module, llvm::LLVMContext &context,
                           std::string &error) {
  auto gpuModules = module.getOps<gpu::GPUModuleOp>();
  if (gpuModules.empty()) {
    error = "no gpu.module to translate";
    return nullptr;
  }
  gpu::GPUModuleOp gpuModule = *gpuModules.begin();
  OwningOpRef<ModuleOp> device = ModuleOp::create(gpuModule.getLoc());
  OpBuilder b = OpBuilder::atBlockEnd(device->getBody());
  for (Operation &op : gpuModule.getBody()->without_terminator())
    b.clone(op);
  auto llvmModule = translateModuleToLLVMIR(*device, context, "tessel_gpu");
  if (!llvmModule)
    error = "cannot translate the GPU kernels to LLVM IR";
  return llvmModule;
}
