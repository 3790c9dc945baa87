//===- Driver.h - The interface every compute backend implements -*- C++ -*-===//
//
// A driver ("cpu", "cuda", "hip", "vulkan") enumerates devices; a device
// owns memory, copies and a queue; an executable is the artifact's kernels
// loaded on a device. The session (Session.cpp) runs the plan through these interfaces
// only, so the plan, the shapes and the kernel ABI stay target-independent:
// a driver implements memory, module loading and one launch.
//
// Drivers are registered by name in a process-wide registry. The built-in
// ones are registered on first use; tests may register more (for example a
// CUDA driver bound to a fake libcuda) under other names.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_SRC_DRIVER_H
#define TESSEL_RUNTIME_SRC_DRIVER_H

#include "Status.h"
#include "format/Artifact.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessel::runtime {

/// The kernels of one artifact, loaded on one device.
class Executable {
public:
  virtual ~Executable() = default;

  /// Enqueues kernel `kernel` (an index into Artifact::kernels) with the
  /// argument array of docs/design.md "Kernel ABI" over the grid its
  /// binary's launch config gives for the work sizes `work` (the launch's
  /// Launch::workSize, resolved; see format::workgroupCount). A grid
  /// without workgroups launches nothing.
  virtual Status launch(uint32_t kernel, void **params,
                        const std::vector<int64_t> &work) = 0;

  /// The target of the binary it runs ("cpu:x86-64-v3", "cuda:sm_90").
  const std::string &target() const { return binaryTarget; }

protected:
  std::string binaryTarget; ///< set by the driver that loads it
};

/// How a session wants its executable to run.
struct ExecutableOptions {
  /// The most threads a CPU launch uses (>= 1); GPUs ignore it.
  unsigned threads = 1;
  /// The CPU binary to run ("cpu:x86-64-v3"; the "cpu:" may be left out),
  /// or empty for the one this CPU runs best (selectCpuBinary). GPUs
  /// ignore it.
  std::string cpuVariant;
};

/// One device of a driver. Addresses of device memory are `void *`; they
/// are only dereferenced on the host when hostAddressable().
class Device {
public:
  virtual ~Device() = default;

  /// "cpu", "cuda:0", ...
  virtual const std::string &name() const = 0;
  /// "NVIDIA H200 (sm_90)", ...
  virtual const std::string &description() const = 0;
  /// True when device memory is host memory: the session then binds inputs
  /// and weights in place and reads outputs without copies.
  virtual bool hostAddressable() const = 0;

  /// Picks the artifact's binary for this device and loads every kernel.
  /// UNAVAILABLE when the artifact has no binary for this device,
  /// INVALID_ARTIFACT when the binary is broken or lacks a kernel.
  virtual Status loadExecutable(const format::Artifact &artifact,
                                const ExecutableOptions &options,
                                std::unique_ptr<Executable> &out) = 0;

  /// Allocates `bytes` (> 0) of device memory, 64-byte aligned or better.
  virtual Status allocate(uint64_t bytes, void **out) = 0;
  virtual void deallocate(void *ptr) = 0;
  /// Copies are ordered with launches; the host may reuse `src` once a
  /// copy to the device returns, and reads `dst` only after synchronize().
  virtual Status copyToDevice(void *dst, const void *src, uint64_t bytes) = 0;
  virtual Status copyToHost(void *dst, const void *src, uint64_t bytes) = 0;
  /// Copies between device allocations, ordered like the other copies (the
  /// values of control flow move this way: yields into results, loop-carried
  /// tensors between iterations). The ranges do not overlap, except that
  /// `dst == src` is a no-op.
  virtual Status copyOnDevice(void *dst, const void *src, uint64_t bytes) = 0;
  /// Waits for every enqueued copy and launch; reports kernel failures.
  virtual Status synchronize() = 0;
};

/// A compute backend.
class Driver {
public:
  virtual ~Driver() = default;

  virtual const std::string &name() const = 0;
  /// The number of devices (> 0); UNAVAILABLE with the reason otherwise
  /// ("no CUDA driver found (libcuda.so.1: ...)", "no CUDA device found").
  virtual Status deviceCount(size_t &count) = 0;
  /// Opens device `ordinal` (< deviceCount()).
  virtual Status createDevice(size_t ordinal, std::shared_ptr<Device> &out) = 0;
};

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

/// Adds `driver` under driver->name(), replacing one of the same name.
void registerDriver(std::shared_ptr<Driver> driver);
/// The driver called `name`, or null.
std::shared_ptr<Driver> findDriver(const std::string &name);
/// Names of the registered drivers, in registration order.
std::vector<std::string> driverNames();
size_t driverCount();
/// The name of driver `index`, valid for the life of the process; null when
/// out of range.
const char *driverNameAt(size_t index);

//===----------------------------------------------------------------------===//
// Built-in drivers
//===----------------------------------------------------------------------===//

std::shared_ptr<Driver> createCpuDriver();
/// A CUDA driver that opens the first loadable of `libraries`.
std::shared_ptr<Driver> createCudaDriver(std::string name = "cuda",
                                         std::vector<std::string> libraries = {
                                             "libcuda.so.1"});
/// A HIP driver that opens the first loadable of `libraries`.
std::shared_ptr<Driver>
createHipDriver(std::string name = "hip",
                std::vector<std::string> libraries = {
                    "libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"});
/// A Vulkan driver (drivers/vulkan/VulkanDriver.cpp) that opens the first
/// loadable of `libraries` (the Vulkan loader).
std::shared_ptr<Driver>
createVulkanDriver(std::string name = "vulkan",
                   std::vector<std::string> libraries = {"libvulkan.so.1"});

//===----------------------------------------------------------------------===//
// Helpers of the GPU drivers
//===----------------------------------------------------------------------===//

/// Runs an initialization once and keeps its outcome: every call returns
/// the first one's status (a GPU driver opens its vendor library and
/// counts devices on first use, and a failure stays the answer).
class InitializeOnce {
public:
  template <typename Init> Status operator()(Init &&init) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!done) {
      done = true;
      Status s = init();
      code = s.code();
      message = s.message();
    }
    return code == TESSEL_STATUS_OK ? Status::ok() : Status(code, message);
  }

private:
  std::mutex mutex;
  bool done = false;
  tessel_status_code_t code = TESSEL_STATUS_OK;
  std::string message;
};

//===----------------------------------------------------------------------===//
// Launch grids
//===----------------------------------------------------------------------===//

/// The workgroup count of a launch of `config` over `work`
/// (format::workgroupCount), and `total`, their product.
/// RESOURCE_EXHAUSTED when the count cannot be represented.
Status launchGrid(const format::LaunchConfig &config,
                  const std::vector<int64_t> &work, uint64_t count[3],
                  uint64_t &total);

/// The most workgroups of a GPU grid along x, and along y and z (CUDA's
/// gridDim limits; HIP's are no larger).
constexpr uint64_t kMaxGpuGridX = 0x7fffffff;
constexpr uint64_t kMaxGpuGridYZ = 65535;

/// The grid of a GPU launch: `count` as launchGrid() gives it, `empty`
/// when it has no workgroup (then nothing is launched).
/// RESOURCE_EXHAUSTED, naming the axis, when an axis exceeds the GPU's
/// limit or the shared memory does not fit the launch API's 32 bits.
Status gpuGrid(const format::LaunchConfig &config,
               const std::vector<int64_t> &work, unsigned grid[3],
               bool &empty);

/// UNAVAILABLE when a kernel of `binary` needs scratch memory per
/// workgroup, which this runtime does not provide yet.
Status checkScratch(const format::Artifact &artifact,
                    const format::TargetBinary &binary);

/// "artifact has no kernels for CUDA (targets: cpu, rocm:gfx90a)" -- the
/// shared wording of the drivers' "no binary" errors.
std::string targetListSuffix(const format::Artifact &artifact);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_SRC_DRIVER_H
