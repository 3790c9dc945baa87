//===- PackedWrappers.cpp - `<kernel>_packed(void **)` entry points -------===//
//
// The runtime calls every CPU kernel the same way: with an array of pointers
// to the scalars of the expanded memref descriptors. This file generates,
// at LLVM IR level, the wrapper that unpacks that array and calls the
// kernel with its real signature.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/CpuBackend.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

void tessel::addPackedWrappers(llvm::Module &module,
                               llvm::ArrayRef<std::string> kernels) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(ctx);
  auto *wrapperType =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false);
  for (const std::string &name : kernels) {
    llvm::Function *kernel = module.getFunction(name);
    assert(kernel && "kernel missing from the LLVM module");
    auto *wrapper =
        llvm::Function::Create(wrapperType, llvm::GlobalValue::ExternalLinkage,
                               name + "_packed", module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", wrapper));
    llvm::SmallVector<llvm::Value *> args;
    for (auto [i, param] : llvm::enumerate(kernel->args())) {
      llvm::Value *slot = b.CreateConstGEP1_64(ptr, wrapper->getArg(0), i);
      llvm::Value *address = b.CreateLoad(ptr, slot);
      args.push_back(b.CreateLoad(param.getType(), address));
    }
    b.CreateCall(kernel, args);
    b.CreateRetVoid();
    // Only the wrappers are the interface; the kernels may be inlined.
    kernel->setLinkage(llvm::GlobalValue::InternalLinkage);
  }
}
