//===- Pipelines.cpp - The shared lowering pipeline ------------------------===//
//
// The part of codegen every target runs. It ends with linalg on memrefs
// operating in place on the kernel's arguments; targets map that to loops
// (CPU) or to GPU threads.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tessel::buildSharedLoweringPipeline(OpPassManager &pm) {
  pm.addPass(createConvertGraphToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCSEPass());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = false;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createMemRefCopyToLinalgPass());
  // Loop nests: parallel loops (threads on a GPU) around sequential
  // reductions; every target starts from these.
  if (failed(
          parsePassPipeline("func.func(convert-linalg-to-parallel-loops)", pm)))
    llvm::report_fatal_error("tessel: invalid built-in shared pipeline");
  // Temporaries become runtime-owned workspaces: no deallocation needed.
  pm.addPass(createOutlineStagesPass());
  pm.addPass(createCanonicalizerPass());
}

void tessel::registerCodegenCommonPipelines() {
  PassPipelineRegistration<>(
      "tessel-shared-lowering",
      "graph -> linalg -> fusion -> bufferization into kernel arguments",
      buildSharedLoweringPipeline);
}
