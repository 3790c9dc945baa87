//===- Targets.h - The target registry --------------------------*- C++ -*-===//
//
// Every target name the compiler accepts and the code generator behind it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_TARGETS_H
#define TESSEL_COMPILER_TARGETS_H

#include "codegen/common/GpuTarget.h"

#include <memory>
#include <string>
#include <vector>

namespace tessel {

/// "cpu", "cuda:sm_80", "cuda:sm_90", "rocm:gfx90a", "rocm:gfx942", "vulkan".
const std::vector<std::string> &knownTargets();

/// The GPU code generator for a GPU target name; null for "cpu" or unknown.
std::unique_ptr<GpuTarget> createGpuTarget(const std::string &name);

/// Registers `tessel-gpu-lowering{target=...}` for tessel-opt.
void registerGpuPipelines();

} // namespace tessel

#endif // TESSEL_COMPILER_TARGETS_H
