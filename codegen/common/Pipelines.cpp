//===- Pipelines.cpp - The shared lowering pipeline ------------------------===//
//
// The part of codegen every target runs. It ends with stages: one linalg
// op on memrefs each, operating in place on the kernel's arguments and
// workspaces. Targets tile and vectorize them (CPU) or map their parallel
// loops to threads (GPU).
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
  // A contraction and its epilogue (bias, activation, residual) share the
  // output buffer and one stage.
  pm.addNestedPass<func::FuncOp>(createFuseEpiloguesPass());
  // Each linalg op (on memrefs) becomes a stage; targets choose how to
  // tile, vectorize and map it (CPU loops or GPU threads).
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
