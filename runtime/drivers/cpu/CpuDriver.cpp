//===- CpuDriver.cpp - The host CPU driver --------------------------------===//
//
// Runs kernels compiled to an x86-64 shared object (the artifact's CPU
// binary this CPU runs best, CpuVariants.h): each kernel K is called
// through its `K_packed(void **params, const int64_t *workgroup)` wrapper
// once per workgroup of the launch's grid (its launch config), the
// workgroups split over the process's thread pool (ThreadPool.h) and the
// calling thread, up to the session's thread count. A launch returns when
// all its workgroups are done, so launches run in order. Device memory is
// host memory, so inputs, weights and outputs are used in place and copies
// are plain memcpy.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "ThreadPool.h"
#include "drivers/cpu/CpuVariants.h"
#include "drivers/cpu/MemoryLibrary.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace tessel::runtime {

namespace {

/// `workgroup` holds the workgroup's id x, y, z, then the count x, y, z.
/// (Kernels of artifacts before 3.3 take only `params`: the extra argument
/// is harmless under the x86-64 SysV ABI, and they run one workgroup.)
using PackedKernel = void (*)(void **params, const int64_t *workgroup);

class CpuExecutable final : public Executable {
public:
  Status load(const format::Artifact &artifact,
              const ExecutableOptions &options) {
    threads = std::max(1u, options.threads);
    const format::TargetBinary *binary = nullptr;
    TESSEL_RETURN_IF_ERROR(selectCpuBinary(artifact, options.cpuVariant,
                                           hostCpuFeatures(), binary));
    if (binary->format != format::TargetBinary::Format::ElfSharedObject)
      return invalidArtifact("the CPU binary is not an ELF shared object");
    TESSEL_RETURN_IF_ERROR(checkScratch(artifact, *binary));
    binaryTarget = binary->target;
    configs = binary->launchConfigs;
    std::string error;
    if (!library.load(binary->bytes, error))
      return invalidArtifact("cannot load the CPU binary: " + error);
    for (const format::Kernel &k : artifact.kernels) {
      std::string symbol = k.symbol + "_packed";
      auto fn = reinterpret_cast<PackedKernel>(library.symbol(symbol));
      if (!fn)
        return invalidArtifact("the CPU binary lacks kernel '" + k.symbol +
                               "' (ONNX node '" + k.onnxNode + "', " +
                               k.onnxOp + "): no symbol " + symbol);
      kernels.push_back(fn);
    }
    return Status::ok();
  }

  Status launch(uint32_t kernel, void **params,
                const std::vector<int64_t> &work) override {
    uint64_t count[3], total = 0;
    TESSEL_RETURN_IF_ERROR(launchGrid(configs[kernel], work, count, total));
    if (total > uint64_t(INT64_MAX))
      return resourceExhausted("a grid of " + std::to_string(total) +
                               " workgroups is too large");
    PackedKernel fn = kernels[kernel];
    // Workgroup i of the contiguous chunks is (i mod cx, (i / cx) mod cy,
    // i / (cx * cy)): x varies fastest. `params` is only read, by every
    // thread.
    const uint64_t cx = count[0], cy = count[1];
    ThreadPool::shared().parallelFor(
        total, threads, [&](uint64_t begin, uint64_t end) {
          int64_t workgroup[6] = {0,
                                  0,
                                  0,
                                  static_cast<int64_t>(count[0]),
                                  static_cast<int64_t>(count[1]),
                                  static_cast<int64_t>(count[2])};
          for (uint64_t i = begin; i < end; ++i) {
            workgroup[0] = static_cast<int64_t>(i % cx);
            workgroup[1] = static_cast<int64_t>(i / cx % cy);
            workgroup[2] = static_cast<int64_t>(i / (cx * cy));
            fn(params, workgroup);
          }
        });
    return Status::ok();
  }

private:
  MemoryLibrary library;
  std::vector<PackedKernel> kernels;
  std::vector<format::LaunchConfig> configs;
  unsigned threads = 1;
};

class CpuDevice final : public Device {
public:
  const std::string &name() const override { return deviceName; }
  const std::string &description() const override { return desc; }
  bool hostAddressable() const override { return true; }

  Status loadExecutable(const format::Artifact &artifact,
                        const ExecutableOptions &options,
                        std::unique_ptr<Executable> &out) override {
    auto exe = std::make_unique<CpuExecutable>();
    TESSEL_RETURN_IF_ERROR(exe->load(artifact, options));
    out = std::move(exe);
    return Status::ok();
  }

  Status allocate(uint64_t bytes, void **out) override {
    uint64_t rounded = (bytes + 63) / 64 * 64;
    *out = rounded ? std::aligned_alloc(64, rounded) : nullptr;
    if (!*out)
      return resourceExhausted("cannot allocate " + std::to_string(bytes) +
                               " bytes of host memory");
    return Status::ok();
  }
  void deallocate(void *ptr) override { std::free(ptr); }
  Status copyToDevice(void *dst, const void *src, uint64_t bytes) override {
    std::memcpy(dst, src, bytes);
    return Status::ok();
  }
  Status copyToHost(void *dst, const void *src, uint64_t bytes) override {
    std::memcpy(dst, src, bytes);
    return Status::ok();
  }
  Status copyOnDevice(void *dst, const void *src, uint64_t bytes) override {
    if (dst != src)
      std::memcpy(dst, src, bytes);
    return Status::ok();
  }
  Status synchronize() override { return Status::ok(); }

private:
  std::string deviceName = "cpu";
  std::string desc = "host CPU";
};

class CpuDriver final : public Driver {
public:
  const std::string &name() const override { return driverName; }
  Status deviceCount(size_t &count) override {
    count = 1;
    return Status::ok();
  }
  Status createDevice(size_t ordinal, std::shared_ptr<Device> &out) override {
    if (ordinal != 0)
      return notFound("the CPU driver has one device, cpu:0");
    out = std::make_shared<CpuDevice>();
    return Status::ok();
  }

private:
  std::string driverName = "cpu";
};

} // namespace

std::shared_ptr<Driver> createCpuDriver() {
  return std::make_shared<CpuDriver>();
}

} // namespace tessel::runtime
