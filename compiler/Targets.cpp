//===- Targets.cpp - The target registry ----------------------------------===//

#include "compiler/Targets.h"

#include "mlir/Pass/PassRegistry.h"

#include <algorithm>

using namespace mlir;

const std::vector<std::string> &tessel::knownTargets() {
  static const std::vector<std::string> targets = {
      "cpu",         "cuda:sm_80",  "cuda:sm_90",
      "rocm:gfx90a", "rocm:gfx942", "vulkan"};
  return targets;
}

std::unique_ptr<tessel::GpuTarget>
tessel::createGpuTarget(const std::string &name) {
  const auto &known = knownTargets();
  if (name == "cpu" ||
      std::find(known.begin(), known.end(), name) == known.end())
    return nullptr;
  if (name == "vulkan")
    return createVulkanTarget(GpuMapping());
  if (name.rfind("cuda:", 0) == 0)
    return createNvidiaTarget(name.substr(5));
  return createAmdTarget(name.substr(5));
}

namespace {
struct GpuPipelineOptions : PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("cuda:sm_80, rocm:gfx90a, vulkan, ..."),
                             llvm::cl::init("cuda:sm_80")};
};
} // namespace

void tessel::registerGpuPipelines() {
  // Registered through the low-level hook so that an unknown target is a
  // pipeline-parse error, not a crash.
  registerPassPipeline(
      "tessel-gpu-lowering",
      "grouped linalg on tensors -> block tiles -> stages -> GPU kernels in "
      "the vendor's LLVM dialect",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        GpuPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        std::unique_ptr<GpuTarget> target = createGpuTarget(options.target);
        if (!target)
          return errorHandler("tessel-gpu-lowering: unknown GPU target '" +
                              options.target + "'");
        buildGpuStagePipeline(pm, target->mapping());
        buildGpuLoweringPipeline(pm, *target);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> print) {
        print(GpuPipelineOptions());
      });
}
