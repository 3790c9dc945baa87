//===- Pipelines.cpp - The shared lowering pipeline ------------------------===//
//
// The part of codegen every target runs. It ends with stages: one linalg
// op on memrefs each, operating in place on the kernel's arguments and
// workspaces. Targets tile and vectorize them (CPU) or map their parallel
// loops to threads (GPU).
//
//===----------------------------------------------------------------------===//

#include "codegen/common/Passes.h"
#include "passes/tiling/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tessel::buildSharedLoweringPipeline(OpPassManager &pm) {
  pm.addPass(createConvertGraphToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCSEPass());
  // Which ops one workgroup computes together: the same on every target,
  // since the groups decide the stages and workspaces the artifact shares.
  pm.addNestedPass<func::FuncOp>(createFormWorkgroupGroupsPass());
}

void tessel::buildStagePipeline(OpPassManager &pm) {
  // A producer fused for two readers of one tile (softmax's exponentials,
  // read by the sum and the division) is computed once.
  pm.addPass(createCSEPass());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = false;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // A tile written in place is "inserted" into itself: CSE makes the copy's
  // two views one, and canonicalization drops a copy onto itself.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  // Extents read through a view (memref.dim of a grouped Conv's
  // expand_shape) become the dims they are views of, so that every
  // workspace and work size is a dim of a kernel argument.
  pm.addPass(memref::createResolveRankedShapeTypeResultDimsPass());
  pm.addPass(createMemRefCopyToLinalgPass());
  // Each top-level op on memrefs (a workgroup forall, a linalg op left
  // whole, a copy) becomes a stage. Temporaries between stages become
  // runtime-owned workspaces: no deallocation needed.
  pm.addPass(createOutlineStagesPass());
  pm.addPass(createCanonicalizerPass());
}

void tessel::addBuiltinPipeline(OpPassManager &pm, llvm::StringRef text) {
  if (failed(parsePassPipeline(text, pm)))
    llvm::report_fatal_error("tessel: invalid built-in pipeline: " +
                             llvm::Twine(text));
}

void tessel::registerCodegenCommonPipelines() {
  PassPipelineRegistration<>(
      "tessel-shared-lowering",
      "graph -> linalg on tensors -> elementwise fusion -> workgroup groups",
      buildSharedLoweringPipeline);
  PassPipelineRegistration<>(
      "tessel-stages",
      "tiled linalg on tensors -> bufferized stages on the kernel arguments",
      buildStagePipeline);
}
