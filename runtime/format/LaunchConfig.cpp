//===- LaunchConfig.cpp - Launch grids of the artifact's kernels ----------===//
//
// What a launch config means (format 3.3): the workgroup count of a launch
// as a function of its work sizes, shared by every driver so that the CPU
// and the GPUs agree on the grid, and the configs a reader gives artifacts
// written before 3.3, which describe exactly how those were launched.
//
//===----------------------------------------------------------------------===//

#include "format/Artifact.h"

namespace tessel::format {

namespace {

/// The GPU block of format 3.0-3.2: 256 threads along x, one per work item.
constexpr uint32_t kLegacyGpuBlockSize = 256;

} // namespace

std::vector<LaunchConfig> legacyLaunchConfigs(const Artifact &artifact,
                                              TargetBinary::Format format) {
  std::vector<LaunchConfig> configs(artifact.kernels.size());
  if (format == TargetBinary::Format::ElfSharedObject)
    return configs; // one workgroup: the kernel loops over all its work
  std::vector<bool> seen(configs.size());
  for (const Launch &launch : artifact.plan) {
    if (launch.kernel >= configs.size() || seen[launch.kernel])
      continue; // an invalid index is validate()'s to report
    seen[launch.kernel] = true;
    LaunchConfig &c = configs[launch.kernel];
    c.workgroupSize[0] = kLegacyGpuBlockSize;
    c.workgroupCount[0].tile = kLegacyGpuBlockSize;
    for (uint32_t d = 0; d < launch.workSize.size(); ++d)
      c.workgroupCount[0].dims.push_back(d);
  }
  // A kernel never launched keeps the CPU's 1, 1, 1, but the block size
  // the code was compiled for, like every other legacy GPU kernel.
  for (size_t k = 0; k < configs.size(); ++k)
    if (!seen[k])
      configs[k].workgroupSize[0] = kLegacyGpuBlockSize;
  return configs;
}

bool workgroupCount(const LaunchConfig &config,
                    const std::vector<int64_t> &work, uint64_t count[3],
                    std::string &error) {
  static const char *const axisNames[] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    const WorkgroupAxis &axis = config.workgroupCount[a];
    std::string what = std::string("workgroup axis ") + axisNames[a];
    if (axis.tile == 0) {
      error = what + " has tile 0";
      return false;
    }
    if (axis.dims.empty()) {
      count[a] = 1;
      continue;
    }
    uint64_t items = 1;
    for (uint32_t d : axis.dims) {
      if (d >= work.size()) {
        error = what + " names work dim " + std::to_string(d) +
                ", but the launch has " + std::to_string(work.size()) +
                " work dims";
        return false;
      }
      if (work[d] < 0) {
        error = "work dim " + std::to_string(d) + " is " +
                std::to_string(work[d]);
        return false;
      }
      if (__builtin_mul_overflow(items, static_cast<uint64_t>(work[d]),
                                 &items)) {
        error = what + ": the product of its work sizes overflows";
        return false;
      }
    }
    count[a] = items / axis.tile + (items % axis.tile != 0);
  }
  return true;
}

} // namespace tessel::format
