//===- Registration.cpp - Register Tessel's dialects and passes -----------===//

#include "compiler/Registration.h"

#include "codegen/common/Passes.h"
#include "codegen/cpu/CpuBackend.h"
#include "codegen/vulkan/Passes.h"
#include "compiler/Targets.h"
#include "dialects/Graph/TesselDialect.h"
#include "dialects/Plan/PlanDialect.h"
#include "passes/Passes.h"
#include "passes/tiling/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void tessel::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<tessel::TesselDialect, tessel::plan::PlanDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void tessel::registerAllPasses() {
  mlir::registerAllPasses();
  registerTesselGraphPasses();
  registerTesselTilingPasses();
  registerTesselCodegenCommonPasses();
  registerTesselCodegenVulkanPasses();
  registerCodegenCommonPipelines();
  registerCpuPipelines();
  registerGpuPipelines();
}
