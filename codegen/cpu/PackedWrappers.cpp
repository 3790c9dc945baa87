//===- PackedWrappers.cpp - `<kernel>_packed` entry points ----------------===//
//
// The runtime calls every CPU kernel the same way: with an array of pointers
// to the scalars of the expanded memref descriptors, and the workgroup's id
// and count. This file generates, at LLVM IR level, the wrapper that
// unpacks both and calls the kernel with its real signature.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/CpuBackend.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

/// The trailing kernel parameters that come from the workgroup array.
static constexpr unsigned kWorkgroupParams = 6;

bool tessel::addPackedWrappers(
    llvm::Module &module, llvm::ArrayRef<std::string> kernels,
    const llvm::StringMap<llvm::SmallVector<int64_t>> &aliased,
    std::string &error) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(ctx);
  llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
  auto *wrapperType =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false);
  for (const std::string &name : kernels) {
    llvm::Function *kernel = module.getFunction(name);
    if (!kernel || kernel->arg_size() < kWorkgroupParams) {
      error = "internal error: kernel '" + name +
              (kernel ? "' has no workgroup parameters"
                      : "' is missing from the LLVM module");
      return false;
    }
    unsigned memrefParams = kernel->arg_size() - kWorkgroupParams;
    auto *wrapper =
        llvm::Function::Create(wrapperType, llvm::GlobalValue::ExternalLinkage,
                               name + "_packed", module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", wrapper));
    llvm::SmallVector<llvm::Value *> args;
    for (auto [i, param] : llvm::enumerate(kernel->args())) {
      if (i >= memrefParams) {
        if (param.getType() != i64) {
          error = "internal error: workgroup parameter " + std::to_string(i) +
                  " of kernel '" + name + "' is not i64";
          wrapper->eraseFromParent();
          return false;
        }
        llvm::Value *slot =
            b.CreateConstGEP1_64(i64, wrapper->getArg(1), i - memrefParams);
        args.push_back(b.CreateLoad(i64, slot));
        continue;
      }
      llvm::Value *slot = b.CreateConstGEP1_64(ptr, wrapper->getArg(0), i);
      llvm::Value *address = b.CreateLoad(ptr, slot);
      args.push_back(b.CreateLoad(param.getType(), address));
    }
    // The aligned pointer of each memref (the second of a descriptor's two
    // pointers) is the only one a kernel accesses memory through, and the
    // buffers of one launch never overlap where one is written (a result is
    // a fresh buffer, and the arena never shares bytes between buffers
    // live at the same launch; docs/design.md "Memory plan"), except a
    // result written in place over an argument: the launch passes that
    // buffer twice, and declaring the two pointers distinct would be
    // undefined behaviour. Saying so elsewhere lets LLVM hoist loads of
    // scalar operands (Clip's bounds) out of loops and vectorize them.
    llvm::SmallVector<int64_t> shared;
    if (auto it = aliased.find(name); it != aliased.end())
      shared = it->second;
    int64_t memref = 0; // the memref parameter a pointer pair belongs to
    for (unsigned i = 0; i + 1 < memrefParams; ++i)
      if (kernel->getArg(i)->getType() == ptr &&
          kernel->getArg(i + 1)->getType() == ptr) {
        if (!llvm::is_contained(shared, memref))
          kernel->addParamAttr(i + 1, llvm::Attribute::NoAlias);
        ++memref;
        ++i;
      }
    b.CreateCall(kernel, args);
    b.CreateRetVoid();
    // Only the wrappers are the interface; the kernels may be inlined.
    kernel->setLinkage(llvm::GlobalValue::InternalLinkage);
  }  return true;
}
