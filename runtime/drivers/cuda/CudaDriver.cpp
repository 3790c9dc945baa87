//===- CudaDriver.cpp - NVIDIA GPUs through the CUDA driver API -----------===//
//
// Opens libcuda.so.1 on first use (so one build runs on machines without
// CUDA), uses each device's primary context and one non-blocking stream, JIT
// compiles the artifact's PTX best suited to the device, and launches each
// kernel over the grid of its launch config: gridDim the workgroup count,
// blockDim the workgroup size, the config's shared memory (docs/design.md,
// "Kernel ABI").
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "drivers/cuda/CudaApi.h"
#include "drivers/cuda/CudaTarget.h"

#include <algorithm>
#include <cstdint>
#include <mutex>

namespace tessel::runtime {

namespace {

using namespace cuda;

/// A device's primary context and stream, shared by the device and the
/// executables loaded on it.
struct Context {
  std::shared_ptr<Api> api;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;

  ~Context() {
    if (context) {
      api->cuCtxSetCurrent(context);
      if (stream)
        api->cuStreamDestroy(stream);
      api->cuDevicePrimaryCtxRelease(device);
    }
  }

  /// An error for a failed call `what`.
  Status fail(CUresult r, const std::string &what) const {
    std::string message = what + ": " + api->describe(r);
    return r == 2 /*CUDA_ERROR_OUT_OF_MEMORY*/ ? resourceExhausted(message)
                                               : internalError(message);
  }
  Status check(CUresult r, const char *what) const {
    return r == CUDA_SUCCESS ? Status::ok() : fail(r, what);
  }
  Status makeCurrent() const {
    return check(api->cuCtxSetCurrent(context), "cuCtxSetCurrent");
  }
};

class CudaExecutable final : public Executable {
public:
  explicit CudaExecutable(std::shared_ptr<Context> ctx) : ctx(std::move(ctx)) {}
  ~CudaExecutable() override {
    if (module && ctx->makeCurrent().isOk())
      ctx->api->cuModuleUnload(module);
  }

  Status load(const format::Artifact &artifact, int sm) {
    std::string error;
    int index = selectCudaBinary(artifact, sm, error);
    if (index < 0)
      return unavailable(error);
    const format::TargetBinary &binary = artifact.binaries[index];
    TESSEL_RETURN_IF_ERROR(checkScratch(artifact, binary));
    configs = binary.launchConfigs;
    binaryTarget = binary.target;
    // The JIT reads PTX as a NUL-terminated string.
    std::string ptx(binary.bytes.begin(), binary.bytes.end());
    char log[8192] = {0};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof(log)))};
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    CUresult r =
        ctx->api->cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
    if (r != CUDA_SUCCESS) {
      module = nullptr;
      log[sizeof(log) - 1] = '\0';
      return invalidArtifact("cannot load the " + binary.target +
                             " kernels: " + ctx->api->describe(r) +
                             (log[0] ? std::string(": ") + log : ""));
    }
    for (const format::Kernel &k : artifact.kernels) {
      CUfunction fn = nullptr;
      r = ctx->api->cuModuleGetFunction(&fn, module, k.symbol.c_str());
      if (r != CUDA_SUCCESS)
        return invalidArtifact("the " + binary.target +
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
        ctx->api->cuLaunchKernel(
            functions[kernel], grid[0], grid[1], grid[2], c.workgroupSize[0],
            c.workgroupSize[1], c.workgroupSize[2],
            static_cast<unsigned>(c.sharedMemoryBytes), ctx->stream, params,
            nullptr),
        "cuLaunchKernel");
  }


private:
  std::shared_ptr<Context> ctx;
  CUmodule module = nullptr;
  std::vector<CUfunction> functions;
  std::vector<format::LaunchConfig> configs; ///< of the loaded binary
};

CUdeviceptr toDevice(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

class CudaDevice final : public Device {
public:
  CudaDevice(std::shared_ptr<Context> ctx, std::string name,
             std::string description, int sm)
      : ctx(std::move(ctx)), deviceName(std::move(name)),
        deviceDescription(std::move(description)), sm(sm) {}

  const std::string &name() const override { return deviceName; }
  const std::string &description() const override { return deviceDescription; }
  bool hostAddressable() const override { return false; }

  Status loadExecutable(const format::Artifact &artifact,
                        const ExecutableOptions &,
                        std::unique_ptr<Executable> &out) override {
    auto exe = std::make_unique<CudaExecutable>(ctx);
    TESSEL_RETURN_IF_ERROR(exe->load(artifact, sm));
    out = std::move(exe);
    return Status::ok();
  }

  Status allocate(uint64_t bytes, void **out) override {
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    CUdeviceptr p = 0;
    CUresult r = ctx->api->cuMemAlloc(&p, bytes);
    if (r != CUDA_SUCCESS)
      return ctx->fail(r, "cannot allocate " + std::to_string(bytes) +
                              " bytes on " + deviceName);
    *out = reinterpret_cast<void *>(static_cast<uintptr_t>(p));
    return Status::ok();
  }
  void deallocate(void *ptr) override {
    if (ptr && ctx->makeCurrent().isOk())
      ctx->api->cuMemFree(toDevice(ptr));
  }
  Status copyToDevice(void *dst, const void *src, uint64_t bytes) override {
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    return ctx->check(
        ctx->api->cuMemcpyHtoDAsync(toDevice(dst), src, bytes, ctx->stream),
        "cuMemcpyHtoDAsync");
  }
  Status copyToHost(void *dst, const void *src, uint64_t bytes) override {
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    return ctx->check(
        ctx->api->cuMemcpyDtoHAsync(dst, toDevice(src), bytes, ctx->stream),
        "cuMemcpyDtoHAsync");
  }
  Status copyOnDevice(void *dst, const void *src, uint64_t bytes) override {
    if (dst == src || bytes == 0)
      return Status::ok();
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    // On the session's stream: the synchronous cuMemcpyDtoD would run on
    // the legacy default stream, which a non-blocking stream does not wait
    // for.
    return ctx->check(ctx->api->cuMemcpyDtoDAsync(toDevice(dst), toDevice(src),
                                                  bytes, ctx->stream),
                      "cuMemcpyDtoDAsync");
  }
  Status synchronize() override {
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    return ctx->check(ctx->api->cuStreamSynchronize(ctx->stream),
                      "CUDA error while running the plan");
  }

private:
  std::shared_ptr<Context> ctx;
  std::string deviceName, deviceDescription;
  int sm;
};

class CudaDriver final : public Driver {
public:
  CudaDriver(std::string name, std::vector<std::string> libraries)
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
      return notFound("CUDA device " + std::to_string(ordinal) +
                      " does not exist");
    auto ctx = std::make_shared<Context>();
    ctx->api = api;
    TESSEL_RETURN_IF_ERROR(
        ctx->check(api->cuDeviceGet(&ctx->device, static_cast<int>(ordinal)),
                   "cuDeviceGet"));
    char deviceName[256] = {0};
    int major = 0, minor = 0;
    TESSEL_RETURN_IF_ERROR(ctx->check(
        api->cuDeviceGetName(deviceName, sizeof(deviceName) - 1, ctx->device),
        "cuDeviceGetName"));
    TESSEL_RETURN_IF_ERROR(ctx->check(
        api->cuDeviceGetAttribute(
            &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ctx->device),
        "cuDeviceGetAttribute"));
    TESSEL_RETURN_IF_ERROR(ctx->check(
        api->cuDeviceGetAttribute(
            &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ctx->device),
        "cuDeviceGetAttribute"));
    CUcontext context = nullptr;
    TESSEL_RETURN_IF_ERROR(
        ctx->check(api->cuDevicePrimaryCtxRetain(&context, ctx->device),
                   "cuDevicePrimaryCtxRetain"));
    ctx->context = context; // released by ~Context from here on
    TESSEL_RETURN_IF_ERROR(ctx->makeCurrent());
    TESSEL_RETURN_IF_ERROR(
        ctx->check(api->cuStreamCreate(&ctx->stream, CU_STREAM_NON_BLOCKING),
                   "cuStreamCreate"));
    int sm = major * 10 + minor;
    out = std::make_shared<CudaDevice>(
        std::move(ctx), driverName + ":" + std::to_string(ordinal),
        std::string(deviceName) + " (sm_" + std::to_string(sm) + ")", sm);
    return Status::ok();
  }

private:
  /// Loads the library and counts devices, once; the outcome is kept.
  Status initialize() {
    return initializeOnce([this] { return tryInitialize(); });
  }

  Status tryInitialize() {
    auto loaded = std::make_shared<Api>();
    std::string error;
    if (!loaded->load(libraries, error))
      return unavailable("no CUDA driver found (" + error + ")");
    // Kept loaded even if there is no device: unloading a GPU runtime after
    // its initialization is not safe.
    api = loaded;
    CUresult r = loaded->cuInit(0);
    if (r == CUDA_ERROR_NO_DEVICE)
      return unavailable("no CUDA device found");
    if (r != CUDA_SUCCESS)
      return unavailable("the CUDA driver failed to initialize: " +
                         loaded->describe(r));
    int count = 0;
    r = loaded->cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count <= 0)
      return unavailable("no CUDA device found");
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

std::shared_ptr<Driver> createCudaDriver(std::string name,
                                         std::vector<std::string> libraries) {
  return std::make_shared<CudaDriver>(std::move(name), std::move(libraries));
}

} // namespace tessel::runtime
