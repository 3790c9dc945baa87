//===- ValidateLaunch.cpp - Checks of the launch configs ------------------===//
//
// After these checks a driver can compute the grid of any launch from its
// config (workgroupCount() fails only on values a run binds, never on the
// config itself), and a GPU launch never asks for a block larger than any
// device allows: one config per kernel, workgroup sizes in [1, 1024] with
// at most 1024 threads, nothing but one thread and no shared memory on
// the CPU, tiles > 0, and axes that name distinct work dims, in order,
// that every launch of the kernel has.
//
//===----------------------------------------------------------------------===//

#include "format/ValidateLaunch.h"

#include <algorithm>

namespace tessel::format {

namespace {

/// The most threads of one workgroup (CUDA's and HIP's block limit).
constexpr uint64_t kMaxWorkgroupThreads = 1024;

const char *const kAxisNames[] = {"x", "y", "z"};

std::string sizeText(const uint32_t size[3]) {
  return std::to_string(size[0]) + "x" + std::to_string(size[1]) + "x" +
         std::to_string(size[2]);
}

class LaunchValidator {
public:
  explicit LaunchValidator(const Artifact &a) : a(a) {}

  bool run() {
    for (const TargetBinary &bin : a.binaries) {
      if (bin.launchConfigs.size() != a.kernels.size())
        return fail("target '" + bin.target + "'",
                    std::to_string(bin.launchConfigs.size()) +
                        " launch configs for " +
                        std::to_string(a.kernels.size()) +
                        " kernels (one per kernel)");
      for (size_t k = 0; k < a.kernels.size(); ++k)
        if (!config(bin, static_cast<uint32_t>(k)))
          return false;
    }
    return true;
  }

  std::string error;

private:
  bool fail(const std::string &what, const std::string &message) {
    error = what + ": " + message;
    return false;
  }

  bool config(const TargetBinary &bin, uint32_t kernel) {
    const LaunchConfig &c = bin.launchConfigs[kernel];
    std::string what = "target '" + bin.target + "', kernel '" +
                       a.kernels[kernel].symbol + "'";
    uint64_t threads = 1;
    for (int d = 0; d < 3; ++d) {
      uint32_t size = c.workgroupSize[d];
      if (size == 0 || size > kMaxWorkgroupThreads)
        return fail(what, "workgroup size " + sizeText(c.workgroupSize) +
                              " is " + std::to_string(size) + " along " +
                              kAxisNames[d] + " (each must be 1 to " +
                              std::to_string(kMaxWorkgroupThreads) + ")");
      threads *= size; // at most 1024^3: no overflow
    }
    if (threads > kMaxWorkgroupThreads)
      return fail(what, "workgroup size " + sizeText(c.workgroupSize) +
                            " has " + std::to_string(threads) +
                            " threads (at most " +
                            std::to_string(kMaxWorkgroupThreads) + ")");
    if (bin.format == TargetBinary::Format::ElfSharedObject) {
      if (threads != 1)
        return fail(what, "workgroup size " + sizeText(c.workgroupSize) +
                              " on the CPU, which runs workgroups of one "
                              "thread (1x1x1)");
      if (c.sharedMemoryBytes != 0)
        return fail(what, std::to_string(c.sharedMemoryBytes) +
                              " bytes of shared memory on the CPU, which "
                              "has none");
    }
    // Which axis uses each work dim, to catch one dim in two axes.
    int axisOf[kMaxRank];
    std::fill(axisOf, axisOf + kMaxRank, -1);
    for (int ax = 0; ax < 3; ++ax) {
      const WorkgroupAxis &axis = c.workgroupCount[ax];
      std::string axisWhat = "workgroup axis " + std::to_string(ax);
      if (axis.tile == 0)
        return fail(what, axisWhat + " has tile 0 (must be > 0)");
      for (size_t i = 0; i < axis.dims.size(); ++i) {
        uint32_t d = axis.dims[i];
        if (i > 0 && d <= axis.dims[i - 1])
          return fail(what, axisWhat + " names work dim " +
                                std::to_string(d) + " after work dim " +
                                std::to_string(axis.dims[i - 1]) +
                                " (dims must be strictly increasing)");
        if (d >= kMaxRank)
          return fail(what, axisWhat + " names work dim " +
                                std::to_string(d) + " (a work size has at " +
                                "most " + std::to_string(kMaxRank) + " dims)");
        if (axisOf[d] >= 0)
          return fail(what, "work dim " + std::to_string(d) +
                                " is in workgroup axes " +
                                std::to_string(axisOf[d]) + " and " +
                                std::to_string(ax));
        axisOf[d] = ax;
        for (size_t l = 0; l < a.plan.size(); ++l) {
          const Launch &launch = a.plan[l];
          if (launch.kernel == kernel && d >= launch.workSize.size())
            return fail(what, axisWhat + " names work dim " +
                                  std::to_string(d) + ", but launch " +
                                  std::to_string(l) + " has " +
                                  std::to_string(launch.workSize.size()) +
                                  " work dims");
        }
      }
    }
    return true;
  }

  const Artifact &a;
};

} // namespace

bool validateLaunchConfigs(const Artifact &artifact, std::string &error) {
  LaunchValidator v(artifact);
  if (v.run())
    return true;
  error = v.error;
  return false;
}

} // namespace tessel::format
