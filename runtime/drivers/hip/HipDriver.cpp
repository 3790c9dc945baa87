//===- HipDriver.cpp - AMD GPUs through the HIP runtime -------------------===//
//
// Opens libamdhip64.so on first use, gives each device one non-blocking
// stream, loads the artifact's code object for the device's architecture
// (see HipTarget.h; when the architecture cannot be read, each candidate is
// tried) and launches kernels exactly like the CUDA driver: the grid and
// block of the binary's launch config, the ABI array as kernelParams.
//
// HIP selects the device per thread, so every call first makes this
// device current (hipSetDevice).
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "drivers/hip/HipApi.h"
#include "drivers/hip/HipTarget.h"

#include <algorithm>
#include <cstdint>
#include <mutex>

namespace tessel::runtime {

namespace {

using namespace hip;

/// A device and its stream, shared by the device and its executables.
struct Context {
  std::shared_ptr<Api> api;
  int ordinal = 0;
  hipStream_t stream = nullptr;
  std::string arch; ///< "" when unknown

  ~Context() {
    if (stream && api->hipSetDevice(ordinal) == hipSuccess)
      api->hipStreamDestroy(stream);
  }

  Status fail(hipError_t r, const std::string &what) const {
    std::string message = what + ": " + api->describe(r);
    return r == hipErrorOutOfMemory ? resourceExhausted(message)
                                    : internalError(message);
  }
  Status check(hipError_t r, const char *what) const {
    return r == hipSuccess ? Status::ok() : fail(r, what);
  }
  Status makeCurrent() const {
    return check(api->hipSetDevice(ordinal), "hipSetDevice");
  }
};

class HipExecutable final : public Executable {
public:
  explicit HipExecutable(std::shared_ptr<Context> ctx) : ctx(std::move(ctx)) {}
  ~HipExecutable() override {
    if (module && ctx->makeCurrent().isOk())
      ctx->api->hipModuleUnload(module);
  }

  Status load(const format::Artifact &artifact) {
    std::string error;
    std::vector<size_t> candidates =
        rankRocmBinaries(artifact, ctx->arch, error);
    if (candidates.empty())
      return unavailable(error);
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    std::string failures;
    const format::TargetBinary *binary = nullptr;
    for (size_t index : candidates) {
      const format::TargetBinary &b = artifact.binaries[index];
      hipError_t r = ctx->api->hipModuleLoadData(&module, b.bytes.data());
      if (r == hipSuccess) {
        binary = &b;
        break;
      }
      module = nullptr;
      failures += (failures.empty() ? "" : "; ") + b.target + ": " +
                  ctx->api->describe(r);
    }
    if (!binary)
      return invalidArtifact("cannot load the ROCm kernels (" + failures + ")");
    TESSEL_RETURN_IF_ERROR(checkScratch(artifact, *binary));
    configs = binary->launchConfigs;
    binaryTarget = binary->target;
    for (const format::Kernel &k : artifact.kernels) {
      hipFunction_t fn = nullptr;
      hipError_t r =
          ctx->api->hipModuleGetFunction(&fn, module, k.symbol.c_str());
      if (r != hipSuccess)
        return invalidArtifact("the " + binary->target +
                               " binary lacks kernel '" + k.symbol +
                               "' (ONNX node '" + k.onnxNode + "', " +
                               k.onnxOp + "): " + ctx->api->describe(r));
      functions.push_back(fn);
    }
    return Status::ok();
  }

  Status launch(uint32_t kernel, void **params,
                const std::vector<int64_t> &work) override {
    const format::LaunchConfig &c = configs[kernel];
    unsigned grid[3];
    bool empty = false;
    TESSEL_RETURN_IF_ERROR(gpuGrid(c, work, grid, empty));
    if (empty)
      return Status::ok();
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    return ctx->check(
        ctx->api->hipModuleLaunchKernel(
            functions[kernel], grid[0], grid[1], grid[2], c.workgroupSize[0],
            c.workgroupSize[1], c.workgroupSize[2],
            static_cast<unsigned>(c.sharedMemoryBytes), ctx->stream, params,
            nullptr),
        "hipModuleLaunchKernel");
  }


private:
  std::shared_ptr<Context> ctx;
  hipModule_t module = nullptr;
  std::vector<hipFunction_t> functions;
  std::vector<format::LaunchConfig> configs; ///< of the loaded binary
};

class HipDevice final : public Device {
public:
  HipDevice(std::shared_ptr<Context> ctx, std::string name,
            std::string description)
      : ctx(std::move(ctx)), deviceName(std::move(name)),
        deviceDescription(std::move(description)) {}

  const std::string &name() const override { return deviceName; }
  const std::string &description() const override { return deviceDescription; }
  bool hostAddressable() const override { return false; }

  Status loadExecutable(const format::Artifact &artifact,
                        const ExecutableOptions &,
                        std::unique_ptr<Executable> &out) override {
    auto exe = std::make_unique<HipExecutable>(ctx);
    TESSEL_RETURN_IF_ERROR(exe->load(artifact));
    out = std::move(exe);
    return Status::ok();
  }

  Status allocate(uint64_t bytes, void **out) override {
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    void *p = nullptr;
    hipError_t r = ctx->api->hipMalloc(&p, bytes);
    if (r != hipSuccess)
      return ctx->fail(r, "cannot allocate " + std::to_string(bytes) +
                              " bytes on " + deviceName);
    *out = p;
    return Status::ok();
  }
  void deallocate(void *ptr) override {
    if (ptr && ctx->makeCurrent().isOk())
      ctx->api->hipFree(ptr);
  }
  Status copyToDevice(void *dst, const void *src, uint64_t bytes) override {
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    return ctx->check(ctx->api->hipMemcpyHtoDAsync(dst, const_cast<void *>(src),
                                                   bytes, ctx->stream),
                      "hipMemcpyHtoDAsync");
  }
  Status copyToHost(void *dst, const void *src, uint64_t bytes) override {
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    return ctx->check(ctx->api->hipMemcpyDtoHAsync(dst, const_cast<void *>(src),
                                                   bytes, ctx->stream),
                      "hipMemcpyDtoHAsync");
  }
  Status copyOnDevice(void *dst, const void *src, uint64_t bytes) override {
    if (dst == src || bytes == 0)
      return Status::ok();
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    // On the session's stream, ordered with its launches and copies.
    return ctx->check(ctx->api->hipMemcpyDtoDAsync(dst, const_cast<void *>(src),
                                                   bytes, ctx->stream),
                      "hipMemcpyDtoDAsync");
  }
  Status synchronize() override {
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    return ctx->check(ctx->api->hipStreamSynchronize(ctx->stream),
                      "HIP error while running the plan");
  }

private:
  std::shared_ptr<Context> ctx;
  std::string deviceName, deviceDescription;
};

class HipDriver final : public Driver {
public:
  HipDriver(std::string name, std::vector<std::string> libraries)
      : driverName(std::move(name)), libraries(std::move(libraries)) {}

  const std::string &name() const override { return driverName; }

  Status deviceCount(size_t &count) override {
    TESSEL_RETURN_IF_ERROR(initialize());
    count = static_cast<size_t>(numDevices);
    return Status::ok();
  }

  Status createDevice(size_t ordinal, std::shared_ptr<Device> &out) override {
    TESSEL_RETURN_IF_ERROR(initialize());
    if (ordinal >= static_cast<size_t>(numDevices))
      return notFound("HIP device " + std::to_string(ordinal) +
                      " does not exist");
    auto ctx = std::make_shared<Context>();
    ctx->api = api;
    ctx->ordinal = static_cast<int>(ordinal);
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    hipDevice_t device = 0;
    TESSEL_RETURN_IF_ERROR(
        ctx->check(api->hipDeviceGet(&device, ctx->ordinal), "hipDeviceGet"));
    char deviceName[256] = {0};
    TESSEL_RETURN_IF_ERROR(ctx->check(
        api->hipDeviceGetName(deviceName, sizeof(deviceName) - 1, device),
        "hipDeviceGetName"));
    ctx->arch = api->deviceArch(ctx->ordinal);
    TESSEL_RETURN_IF_ERROR(ctx->check(
        api->hipStreamCreateWithFlags(&ctx->stream, hipStreamNonBlocking),
        "hipStreamCreateWithFlags"));
    std::string description = deviceName;
    description +=
        " (" + (ctx->arch.empty() ? "unknown arch" : ctx->arch) + ")";
    out = std::make_shared<HipDevice>(
        std::move(ctx), driverName + ":" + std::to_string(ordinal),
        std::move(description));
    return Status::ok();
  }

private:
  Status initialize() {
    return initializeOnce([this] { return tryInitialize(); });
  }

  Status tryInitialize() {
    auto loaded = std::make_shared<Api>();
    std::string error;
    if (!loaded->load(libraries, error))
      return unavailable("no HIP device found (" + error + ")");
    // Kept loaded even if there is no device: unloading a GPU runtime after
    // its initialization is not safe.
    api = loaded;
    hipError_t r = loaded->hipInit(0);
    if (r != hipSuccess)
      return unavailable(
          "no HIP device found (hipInit: " + loaded->describe(r) + ")");
    int count = 0;
    r = loaded->hipGetDeviceCount(&count);
    if (r != hipSuccess)
      return unavailable("no HIP device found (hipGetDeviceCount: " +
                         loaded->describe(r) + ")");
    if (count <= 0)
      return unavailable("no HIP device found");
    numDevices = count;
    return Status::ok();
  }

  std::string driverName;
  std::vector<std::string> libraries;
  InitializeOnce initializeOnce;
  std::shared_ptr<Api> api;
  int numDevices = 0;
};

} // namespace

std::shared_ptr<Driver> createHipDriver(std::string name,
                                        std::vector<std::string> libraries) {
  return std::make_shared<HipDriver>(std::move(name), std::move(libraries));
}

} // namespace tessel::runtime
