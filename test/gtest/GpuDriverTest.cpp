//===- GpuDriverTest.cpp - CUDA and HIP drivers without a GPU -------------===//
//
// The "absent" paths (no library, a library without devices or without the
// entry points), binary selection, launch geometry and resource release of
// the CUDA and HIP drivers, using bogus library paths and the fake vendor
// libraries of fakes/.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "TestArtifacts.h"
#include "drivers/cuda/CudaTarget.h"
#include "drivers/hip/HipTarget.h"
#include "tessel/tessel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>

using namespace tessel;
using namespace tessel::runtime;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

Status countDevices(const std::shared_ptr<Driver> &driver) {
  size_t count = 0;
  return driver->deviceCount(count);
}

/// Calls `long name(void)` of an already loaded fake library.
long fakeCounter(const std::string &library, const char *name) {
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(handle, nullptr) << library << " is not loaded";
  if (!handle)
    return -1;
  auto fn = reinterpret_cast<long (*)()>(dlsym(handle, name));
  long value = fn ? fn() : -1;
  dlclose(handle);
  return value;
}

bool libraryLoads(const char *name) {
  void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (handle)
    dlclose(handle);
  return handle != nullptr;
}

std::string takeMessage(tessel_status_t s) {
  std::string m = tessel_status_message(s);
  tessel_status_free(s);
  return m;
}

//===----------------------------------------------------------------------===//
// Absent drivers and devices
//===----------------------------------------------------------------------===//

TEST(CudaAbsent, NoLibrary) {
  auto driver = createCudaDriver("cuda-missing", {"/nonexistent/libcuda.so.1"});
  Status s = countDevices(driver);
  EXPECT_EQ(s.code(), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_THAT(s.message(),
              StartsWith("no CUDA driver found (/nonexistent/libcuda.so.1: "));
  // The outcome is kept.
  std::shared_ptr<Device> device;
  EXPECT_EQ(driver->createDevice(0, device).message(), s.message());
}

TEST(CudaAbsent, NoDevice) {
  auto driver =
      createCudaDriver("cuda-none", {test::fakeCudaNoDeviceLibrary()});
  Status s = countDevices(driver);
  EXPECT_EQ(s.code(), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_EQ(s.message(), "no CUDA device found");
}

TEST(CudaAbsent, LibraryWithoutTheDriverApi) {
  auto driver = createCudaDriver("cuda-wrong", {TESSEL_TEST_KERNELS_SO});
  Status s = countDevices(driver);
  EXPECT_EQ(s.code(), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_EQ(s.message(), std::string("no CUDA driver found (") +
                             TESSEL_TEST_KERNELS_SO + " lacks cuInit)");
}

TEST(CudaAbsent, BuiltInDriverSaysSoThroughTheCApi) {
  if (libraryLoads("libcuda.so.1"))
    GTEST_SKIP() << "libcuda.so.1 is present here";
  for (const char *spec : {"cuda", "cuda:1"}) {
    tessel_device_t *device = nullptr;
    tessel_status_t s = tessel_device_create(spec, &device);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(tessel_status_code(s), TESSEL_STATUS_UNAVAILABLE);
    EXPECT_THAT(takeMessage(s),
                StartsWith("no CUDA driver found (libcuda.so.1: "));
    EXPECT_EQ(device, nullptr);
  }
}

TEST(HipAbsent, NoLibrary) {
  auto driver = createHipDriver("hip-missing", {"/nonexistent/libamdhip64.so"});
  Status s = countDevices(driver);
  EXPECT_EQ(s.code(), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_THAT(s.message(),
              StartsWith("no HIP device found (/nonexistent/libamdhip64.so: "));
}

TEST(HipAbsent, FirstLoadableLibraryWins) {
  auto driver = createHipDriver(
      "hip-second", {"/nonexistent/libamdhip64.so", test::fakeHipLibrary()});
  size_t count = 0;
  Status s = driver->deviceCount(count);
  EXPECT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(count, 1u);
}

TEST(HipAbsent, NoDevice) {
  auto driver = createHipDriver("hip-none", {test::fakeHipNoDeviceLibrary()});
  Status s = countDevices(driver);
  EXPECT_EQ(s.code(), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_EQ(s.message(), "no HIP device found (hipInit: hipErrorNoDevice)");
}

TEST(HipAbsent, BuiltInDriverSaysSoThroughTheCApi) {
  size_t count = 0;
  tessel_status_t s = tessel_driver_device_count("hip", &count);
  if (!s)
    GTEST_SKIP() << "a HIP device is present here";
  EXPECT_EQ(tessel_status_code(s), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_THAT(takeMessage(s), StartsWith("no HIP device found"));
}

//===----------------------------------------------------------------------===//
// Fake devices
//===----------------------------------------------------------------------===//

TEST(FakeGpu, DeviceNamesAndDescriptions) {
  test::registerFakeDrivers();
  tessel_device_t *device = nullptr;
  ASSERT_EQ(tessel_device_create("cuda-fake", &device), nullptr);
  EXPECT_STREQ(tessel_device_name(device), "cuda-fake:0");
  EXPECT_STREQ(tessel_device_description(device), "Fake CUDA Device (sm_86)");
  tessel_device_release(device);
  ASSERT_EQ(tessel_device_create("hip-fake:0", &device), nullptr);
  EXPECT_STREQ(tessel_device_description(device),
               "Fake HIP Device (gfx90a:sramecc+:xnack-)");
  tessel_device_release(device);
  tessel_status_t s = tessel_device_create("cuda-fake:1", &device);
  EXPECT_EQ(tessel_status_code(s), TESSEL_STATUS_NOT_FOUND);
  EXPECT_EQ(takeMessage(s),
            "device 'cuda-fake:1' does not exist (cuda-fake has 1 device)");
}

/// Runs a one-launch `add` over `n` items on `spec`; returns the session.
void runAdd(const std::string &spec, size_t n, tessel_session_t **session,
            tessel_artifact_t **artifact, tessel_device_t **device) {
  format::Artifact model = test::addModel();
  model.plan.pop_back(); // just the two adds
  model.outputs.pop_back();
  model.buffers.pop_back();
  std::vector<uint8_t> bytes = format::serialize(model);
  ASSERT_EQ(tessel_artifact_load_memory(bytes.data(), bytes.size(), artifact),
            nullptr);
  ASSERT_EQ(tessel_device_create(spec.c_str(), device), nullptr);
  ASSERT_EQ(tessel_session_create(*artifact, *device, session), nullptr);
  std::vector<float> ones(n, 1.0f);
  int64_t dims[] = {int64_t(n)};
  for (const char *name : {"a", "b"})
    ASSERT_EQ(tessel_session_set_input(*session, name, TESSEL_DTYPE_FLOAT32, 1,
                                       dims, ones.data(), n * 4),
              nullptr);
  ASSERT_EQ(tessel_session_run(*session), nullptr);
}

TEST(FakeGpu, CudaLaunchGeometryAndRelease) {
  test::registerFakeDrivers();
  const std::string lib = test::fakeCudaLibrary();
  tessel_session_t *session = nullptr;
  tessel_artifact_t *artifact = nullptr;
  tessel_device_t *device = nullptr;
  long launchesBefore = fakeCounter(lib, "fake_cuda_launches");
  runAdd("cuda-fake", 1000, &session, &artifact, &device);
  EXPECT_EQ(fakeCounter(lib, "fake_cuda_launches") - launchesBefore, 2);
  EXPECT_EQ(fakeCounter(lib, "fake_cuda_last_grid_x"), 4); // ceil(1000 / 256)
  EXPECT_EQ(fakeCounter(lib, "fake_cuda_last_block_x"), 256);
  EXPECT_GT(fakeCounter(lib, "fake_cuda_live_allocations"), 0);
  tessel_session_release(session);
  tessel_artifact_release(artifact);
  tessel_device_release(device);
  EXPECT_EQ(fakeCounter(lib, "fake_cuda_live_allocations"), 0);
}

TEST(FakeGpu, HipLaunchGeometryAndRelease) {
  test::registerFakeDrivers();
  const std::string lib = test::fakeHipLibrary();
  tessel_session_t *session = nullptr;
  tessel_artifact_t *artifact = nullptr;
  tessel_device_t *device = nullptr;
  runAdd("hip-fake", 513, &session, &artifact, &device);
  EXPECT_EQ(fakeCounter(lib, "fake_hip_last_grid_x"), 3);
  EXPECT_GT(fakeCounter(lib, "fake_hip_live_allocations"), 0);
  tessel_session_release(session);
  tessel_artifact_release(artifact);
  tessel_device_release(device);
  EXPECT_EQ(fakeCounter(lib, "fake_hip_live_allocations"), 0);
}

TEST(FakeGpu, NoBinaryForTheDeviceArchitecture) {
  test::registerFakeDrivers();
  format::Artifact model = test::addModel({true, false, false, false});
  test::addBinary(model, "cuda:sm_90", format::TargetBinary::Format::Ptx, test::cudaKernels());
  test::addBinary(model, "rocm:gfx942", format::TargetBinary::Format::Hsaco,
                            test::rocmKernels());
  std::vector<uint8_t> bytes = format::serialize(model);
  tessel_artifact_t *artifact = nullptr;
  ASSERT_EQ(tessel_artifact_load_memory(bytes.data(), bytes.size(), &artifact),
            nullptr);
  struct {
    const char *device;
    const char *message;
  } cases[] = {
      {"cuda-fake", "artifact has no kernels for this CUDA device (sm_86) "
                    "(targets: cpu, cuda:sm_90, rocm:gfx942)"},
      {"hip-fake", "artifact has no kernels for this HIP device "
                   "(gfx90a:sramecc+:xnack-) (targets: cpu, cuda:sm_90, "
                   "rocm:gfx942)"},
  };
  for (const auto &c : cases) {
    tessel_device_t *device = nullptr;
    tessel_session_t *session = nullptr;
    ASSERT_EQ(tessel_device_create(c.device, &device), nullptr);
    tessel_status_t s = tessel_session_create(artifact, device, &session);
    EXPECT_EQ(tessel_status_code(s), TESSEL_STATUS_UNAVAILABLE);
    EXPECT_EQ(takeMessage(s), c.message);
    tessel_device_release(device);
  }
  tessel_artifact_release(artifact);
}

//===----------------------------------------------------------------------===//
// Binary selection and launch geometry
//===----------------------------------------------------------------------===//

format::Artifact withTargets(std::initializer_list<const char *> targets) {
  format::Artifact a;
  for (const char *t : targets) {
    std::string s = t;
    auto fmt = s.rfind("cuda:", 0) == 0 ? format::TargetBinary::Format::Ptx
               : s.rfind("rocm:", 0) == 0
                   ? format::TargetBinary::Format::Hsaco
                   : format::TargetBinary::Format::ElfSharedObject;
    a.binaries.push_back({s, fmt, {}, {}});
  }
  return a;
}

std::string cudaPick(const format::Artifact &a, int sm) {
  std::string error;
  int i = cuda::selectCudaBinary(a, sm, error);
  return i < 0 ? "error: " + error : a.binaries[i].target;
}

TEST(CudaTarget, PrefersTheDevicesOwnArchitecture) {
  auto a = withTargets({"cpu", "cuda:sm_80", "cuda:sm_90", "cuda:sm_90a"});
  EXPECT_EQ(cudaPick(a, 90), "cuda:sm_90a");
  EXPECT_EQ(cudaPick(withTargets({"cuda:sm_80", "cuda:sm_90"}), 90),
            "cuda:sm_90");
  EXPECT_EQ(cudaPick(a, 80), "cuda:sm_80");
  // Older PTX is JIT-compiled forward; the newest older one wins.
  EXPECT_EQ(cudaPick(a, 89), "cuda:sm_80");
  EXPECT_EQ(cudaPick(withTargets({"cuda:sm_70", "cuda:sm_80"}), 100),
            "cuda:sm_80");
  // Arch-specific PTX never runs elsewhere.
  EXPECT_EQ(cudaPick(withTargets({"cuda:sm_90a"}), 100),
            "error: artifact has no kernels for this CUDA device (sm_100) "
            "(targets: cuda:sm_90a)");
  EXPECT_EQ(cudaPick(withTargets({"cpu", "rocm:gfx90a"}), 90),
            "error: artifact has no kernels for CUDA (targets: cpu, "
            "rocm:gfx90a)");
  EXPECT_EQ(cudaPick(withTargets({}), 90),
            "error: artifact has no kernels for CUDA (targets: none)");
}

TEST(CudaTarget, ParsesTargetNames) {
  int sm = 0;
  bool archSpecific = false;
  EXPECT_TRUE(cuda::parseCudaTarget("cuda:sm_90a", sm, archSpecific));
  EXPECT_EQ(sm, 90);
  EXPECT_TRUE(archSpecific);
  EXPECT_TRUE(cuda::parseCudaTarget("cuda:sm_120", sm, archSpecific));
  EXPECT_EQ(sm, 120);
  EXPECT_FALSE(archSpecific);
  for (const char *bad : {"cuda:sm_", "cuda:sm_x0", "cuda:compute_90", "cpu",
                          "cuda:sm_9a0", "cuda:sm_99999"})
    EXPECT_FALSE(cuda::parseCudaTarget(bad, sm, archSpecific)) << bad;
}

std::vector<std::string> rocmRank(const format::Artifact &a,
                                  const std::string &arch) {
  std::string error;
  std::vector<std::string> out;
  for (size_t i : hip::rankRocmBinaries(a, arch, error))
    out.push_back(a.binaries[i].target);
  if (out.empty())
    out.push_back("error: " + error);
  return out;
}

TEST(RocmTarget, MatchesArchitectureAndFeatures) {
  const std::string mi250 = "gfx90a:sramecc+:xnack-";
  EXPECT_THAT(rocmRank(withTargets({"rocm:gfx942", "rocm:gfx90a"}), mi250),
              ElementsAre("rocm:gfx90a"));
  EXPECT_THAT(
      rocmRank(withTargets({"rocm:gfx90a", "rocm:gfx90a:sramecc+:xnack-",
                            "rocm:gfx90a:xnack+"}),
               mi250),
      ElementsAre("rocm:gfx90a:sramecc+:xnack-", "rocm:gfx90a"));
  EXPECT_THAT(rocmRank(withTargets({"rocm:gfx90a:xnack-"}), mi250),
              ElementsAre("rocm:gfx90a:xnack-"));
  // An unknown device architecture makes every ROCm binary a candidate.
  EXPECT_THAT(rocmRank(withTargets({"cpu", "rocm:gfx942", "rocm:gfx90a"}), ""),
              ElementsAre("rocm:gfx942", "rocm:gfx90a"));
  EXPECT_THAT(
      rocmRank(withTargets({"cpu"}), mi250),
      ElementsAre("error: artifact has no kernels for HIP (targets: cpu)"));
  EXPECT_THAT(rocmRank(withTargets({"rocm:gfx1100"}), "gfx1101"),
              ElementsAre("error: artifact has no kernels for this HIP device "
                          "(gfx1101) (targets: rocm:gfx1100)"));
}

/// A grid of `work` under `config` as the GPU drivers compute it, or the
/// error.
std::string gridOf(const format::LaunchConfig &config,
                   const std::vector<int64_t> &work) {
  unsigned grid[3] = {0, 0, 0};
  bool empty = false;
  Status s = gpuGrid(config, work, grid, empty);
  if (!s)
    return std::string(tessel_status_code_name(s.code())) + ": " + s.message();
  if (empty)
    return "empty";
  return std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" +
         std::to_string(grid[2]);
}

TEST(GpuLaunch, GridFromTheConfigWithinTheGpuLimits) {
  format::LaunchConfig c;
  c.workgroupCount[0] = {{0}, 256};
  c.workgroupCount[1] = {{1, 2}, 1};
  EXPECT_EQ(gridOf(c, {1, 1, 1}), "1x1x1");
  EXPECT_EQ(gridOf(c, {257, 3, 5}), "2x15x1");
  EXPECT_EQ(gridOf(c, {0, 3, 5}), "empty");
  EXPECT_EQ(gridOf(c, {5, 0, 5}), "empty");
  EXPECT_EQ(gridOf(c, {int64_t(kMaxGpuGridX) * 256, 1, 65535}),
            "2147483647x65535x1");
  EXPECT_EQ(gridOf(c, {int64_t(kMaxGpuGridX) * 256 + 1, 1, 1}),
            "RESOURCE_EXHAUSTED: the launch needs 2147483648 workgroups along "
            "x, more than a GPU grid has (2147483647)");
  EXPECT_EQ(gridOf(c, {1, 256, 256}),
            "RESOURCE_EXHAUSTED: the launch needs 65536 workgroups along y, "
            "more than a GPU grid has (65535)");
  EXPECT_EQ(gridOf(c, {int64_t(1) << 40, int64_t(1) << 40, int64_t(1) << 40}),
            "RESOURCE_EXHAUSTED: cannot compute the launch grid: workgroup "
            "axis y: the product of its work sizes overflows");
  c.workgroupCount[2] = {{3}, 2};
  EXPECT_EQ(gridOf(c, {1, 1, 1, 131072}),
            "RESOURCE_EXHAUSTED: the launch needs 65536 workgroups along z, "
            "more than a GPU grid has (65535)");
  c.sharedMemoryBytes = uint64_t(1) << 32;
  EXPECT_EQ(gridOf(c, {1, 1, 1, 1}),
            "RESOURCE_EXHAUSTED: the kernel needs 4294967296 bytes of shared "
            "memory per workgroup");
}

/// The geometry of the last launch of a fake library ("fake_cuda", ...):
/// grid x, y, z, block x, y, z, shared memory bytes.
std::vector<long> lastLaunch(const std::string &library,
                             const std::string &prefix) {
  std::vector<long> g;
  for (const char *field : {"grid_x", "grid_y", "grid_z", "block_x",
                            "block_y", "block_z", "shared"})
    g.push_back(fakeCounter(library, (prefix + "_last_" + field).c_str()));
  return g;
}

/// Runs addModel's two adds, y = (a + b) + a over work sizes [n, 3], with
/// `config` for `add` in both GPU binaries, on `spec`; a[i] = i, b[i] = 1.
/// Returns y.
std::vector<float> runAddWith(const std::string &spec,
                              const format::LaunchConfig &config, size_t n) {
  format::Artifact model = test::addModel({false, true, true, false});
  model.plan.pop_back();
  model.outputs.pop_back();
  model.buffers.pop_back();
  for (format::Launch &l : model.plan)
    l.workSize = {{-1, "batch"}, {3, ""}};
  for (format::TargetBinary &bin : model.binaries)
    bin.launchConfigs[0] = config;
  std::vector<uint8_t> bytes = format::serialize(model);
  tessel_artifact_t *artifact = nullptr;
  tessel_device_t *device = nullptr;
  tessel_session_t *session = nullptr;
  EXPECT_EQ(tessel_artifact_load_memory(bytes.data(), bytes.size(), &artifact),
            nullptr);
  EXPECT_EQ(tessel_device_create(spec.c_str(), &device), nullptr);
  EXPECT_EQ(tessel_session_create(artifact, device, &session), nullptr);
  std::vector<float> a(n), b(n, 1.0f), y(n);
  for (size_t i = 0; i < n; ++i)
    a[i] = static_cast<float>(i);
  int64_t dims[] = {int64_t(n)};
  EXPECT_EQ(tessel_session_set_input(session, "a", TESSEL_DTYPE_FLOAT32, 1,
                                     dims, a.data(), n * 4),
            nullptr);
  EXPECT_EQ(tessel_session_set_input(session, "b", TESSEL_DTYPE_FLOAT32, 1,
                                     dims, b.data(), n * 4),
            nullptr);
  tessel_status_t s = tessel_session_run(session);
  EXPECT_EQ(s, nullptr) << tessel_status_message(s);
  tessel_status_free(s);
  EXPECT_EQ(tessel_session_copy_output(session, "y", y.data(), n * 4),
            nullptr);
  tessel_session_release(session);
  tessel_device_release(device);
  tessel_artifact_release(artifact);
  return y;
}

struct FakeGpu {
  const char *device;
  std::string library;
  const char *prefix;
};

std::vector<FakeGpu> fakeGpus() {
  return {{"cuda-fake", test::fakeCudaLibrary(), "fake_cuda"},
          {"hip-fake", test::fakeHipLibrary(), "fake_hip"}};
}

TEST(FakeGpu, LaunchesExactlyTheGridAndBlockOfTheConfig) {
  test::registerFakeDrivers();
  // Blocks of 128 x 2 threads with 1 KiB of shared memory; x over the
  // batch in tiles of 128, z over work dim 1 (3), y unused.
  format::LaunchConfig c;
  c.workgroupSize[0] = 128;
  c.workgroupSize[1] = 2;
  c.workgroupCount[0] = {{0}, 128};
  c.workgroupCount[2] = {{1}, 1};
  c.sharedMemoryBytes = 1024;
  for (const FakeGpu &gpu : fakeGpus()) {
    SCOPED_TRACE(gpu.device);
    std::vector<float> y = runAddWith(gpu.device, c, 1000);
    EXPECT_THAT(lastLaunch(gpu.library, gpu.prefix),
                ElementsAre(8, 1, 3, 128, 2, 1, 1024));
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_EQ(y[i], 2.0f * i + 1) << i;
  }
}

TEST(FakeGpu, AGridTooSmallForTheWorkShows) {
  test::registerFakeDrivers();
  // Tiles of 512 items for blocks of 128 threads: the kernels compute one
  // item per thread, so only the first 128 items of each tile are done.
  format::LaunchConfig c;
  c.workgroupSize[0] = 128;
  c.workgroupCount[0] = {{0}, 512};
  for (const FakeGpu &gpu : fakeGpus()) {
    SCOPED_TRACE(gpu.device);
    std::vector<float> y = runAddWith(gpu.device, c, 1000);
    EXPECT_THAT(lastLaunch(gpu.library, gpu.prefix),
                ElementsAre(2, 1, 1, 128, 1, 1, 0));
    EXPECT_EQ(y[255], 511.0f);
    EXPECT_NE(y[256], 513.0f);
    EXPECT_NE(y[999], 1999.0f);
  }
}

TEST(FakeGpu, AnEmptyGridLaunchesNothing) {
  test::registerFakeDrivers();
  const std::string lib = test::fakeCudaLibrary();
  long before = fakeCounter(lib, "fake_cuda_launches");
  format::LaunchConfig c;
  c.workgroupSize[0] = 256;
  c.workgroupCount[0] = {{0}, 256};
  runAddWith("cuda-fake", c, 0);
  EXPECT_EQ(fakeCounter(lib, "fake_cuda_launches"), before);
}

TEST(FakeGpu, ScratchMemoryIsNotProvidedYet) {
  test::registerFakeDrivers();
  format::Artifact model = test::addModel({false, true, false, false});
  model.binaries[0].launchConfigs[1].scratchBytes = 4096;
  std::vector<uint8_t> bytes = format::serialize(model);
  tessel_artifact_t *artifact = nullptr;
  tessel_device_t *device = nullptr;
  tessel_session_t *session = nullptr;
  ASSERT_EQ(tessel_artifact_load_memory(bytes.data(), bytes.size(), &artifact),
            nullptr);
  ASSERT_EQ(tessel_device_create("cuda-fake", &device), nullptr);
  tessel_status_t s = tessel_session_create(artifact, device, &session);
  EXPECT_EQ(tessel_status_code(s), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_EQ(takeMessage(s), "the cuda:sm_80 kernel 'sum_all' needs 4096 bytes "
                            "of scratch memory per workgroup, which this "
                            "runtime does not provide yet");
  tessel_device_release(device);
  tessel_artifact_release(artifact);
}

} // namespace
