//===- LlvmEmission.h - LLVM IR -> target code, for every backend -*- C++ -*-===//
//
// The steps every target shares once its kernels are LLVM IR: optimize with
// the target's TargetMachine, emit an object or assembly, link with ld.lld.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_LLVMEMISSION_H
#define TESSEL_CODEGEN_COMMON_LLVMEMISSION_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>
#include <vector>

namespace tessel {

/// A TargetMachine for `triple`/`cpu`/`features`, or null with `error` set.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const std::string &triple, const std::string &cpu,
                    const std::string &features, llvm::Reloc::Model reloc,
                    std::string &error);

/// Runs LLVM's default O`level` pipeline for `tm` over `module`.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &tm,
                    unsigned level);

/// Emits `module` as an object file or assembly (PTX for NVPTX) into `out`.
bool emitModule(llvm::Module &module, llvm::TargetMachine &tm,
                llvm::CodeGenFileType type, std::vector<uint8_t> &out,
                std::string &error);

/// Links `object` with ld.lld (`$TESSEL_LD`, LLVM 22's, or PATH) and the
/// extra `flags` into a shared object, returned in `out`.
bool linkSharedObject(const std::vector<uint8_t> &object,
                      llvm::ArrayRef<std::string> flags,
                      std::vector<uint8_t> &out, std::string &error);

/// Moves the body of the module's `gpu.module` (already in the LLVM dialect)
/// into a fresh builtin module and translates it to LLVM IR.
std::unique_ptr<llvm::Module> translateGpuModule(mlir::ModuleOp module,
                                                 llvm::LLVMContext &context,
                                                 std::string &error);

} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_LLVMEMISSION_H
