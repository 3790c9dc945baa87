//===- LaunchGrid.cpp - Launch grids of the drivers -----------------------===//
//
// Every driver derives the grid of a launch from its binary's launch config
// through format::workgroupCount, so the CPU and the GPUs agree on it; the
// GPU drivers add their API's limits.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"

namespace tessel::runtime {

Status launchGrid(const format::LaunchConfig &config,
                  const std::vector<int64_t> &work, uint64_t count[3],
                  uint64_t &total) {
  std::string error;
  if (!format::workgroupCount(config, work, count, error))
    return resourceExhausted("cannot compute the launch grid: " + error);
  if (__builtin_mul_overflow(count[0], count[1], &total) ||
      __builtin_mul_overflow(total, count[2], &total))
    return resourceExhausted(
        "a grid of " + std::to_string(count[0]) + " x " +
        std::to_string(count[1]) + " x " + std::to_string(count[2]) +
        " workgroups is too large");
  return Status::ok();
}

Status gpuGrid(const format::LaunchConfig &config,
               const std::vector<int64_t> &work, unsigned grid[3],
               bool &empty) {
  uint64_t count[3], total = 0;
  TESSEL_RETURN_IF_ERROR(launchGrid(config, work, count, total));
  empty = total == 0;
  if (empty)
    return Status::ok();
  static const char *const axes[] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    uint64_t limit = a == 0 ? kMaxGpuGridX : kMaxGpuGridYZ;
    if (count[a] > limit)
      return resourceExhausted(
          "the launch needs " + std::to_string(count[a]) +
          " workgroups along " + axes[a] + ", more than a GPU grid has (" +
          std::to_string(limit) + ")");
    grid[a] = static_cast<unsigned>(count[a]);
  }
  if (config.sharedMemoryBytes > 0xffffffffu)
    return resourceExhausted(
        "the kernel needs " + std::to_string(config.sharedMemoryBytes) +
        " bytes of shared memory per workgroup");
  return Status::ok();
}

Status checkScratch(const format::Artifact &artifact,
                    const format::TargetBinary &binary) {
  for (size_t k = 0; k < binary.launchConfigs.size(); ++k)
    if (uint64_t bytes = binary.launchConfigs[k].scratchBytes)
      return unavailable("the " + binary.target + " kernel '" +
                         artifact.kernels[k].symbol + "' needs " +
                         std::to_string(bytes) +
                         " bytes of scratch memory per workgroup, which "
                         "this runtime does not provide yet");
  return Status::ok();
}

} // namespace tessel::runtime
