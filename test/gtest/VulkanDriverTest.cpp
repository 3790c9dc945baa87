//===- VulkanDriverTest.cpp - The Vulkan driver and its SPIR-V ABI --------===//
//
// What the conformance suite does not show of the Vulkan driver (the
// pieces that need no device are in VulkanAbiTest.cpp): the absent paths
// (no loader, a library that is not one), device naming and, on a Vulkan
// device (Mesa's lavapipe where nothing else is installed; skipped with
// the reason where there is none), the load-time refusals (capabilities, too many
// arguments, a local size or shared memory the config contradicts, layouts
// that disagree), the grid limit, the address space, many launches in one
// batch, 2-D grids, the staged copies of TESSEL_VULKAN_STAGING=1, and one
// device shared by sessions on two threads.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "LaunchParams.h"
#include "StatusResult.h"
#include "TestArtifacts.h"
#include "drivers/vulkan/VulkanAbi.h"
#include "format/SpirvModules.h"
#include "tessel/tessel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

using namespace tessel;
using namespace tessel::runtime;
using test::Result;
using test::take;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

namespace {

/// Why the built-in Vulkan driver has no device here, or "" when it has.
std::string vulkanUnavailable() {
  size_t count = 0;
  tessel_status_t s = tessel_driver_device_count("vulkan", &count);
  return s ? "vulkan: " + take(s).message : "";
}

#define REQUIRE_VULKAN()                                                       \
  do {                                                                         \
    std::string why_ = vulkanUnavailable();                                    \
    if (!why_.empty()) {                                                       \
      GTEST_SKIP() << why_;                                                    \
    }                                                                          \
  } while (0)

//===----------------------------------------------------------------------===//
// Absent drivers
//===----------------------------------------------------------------------===//

TEST(VulkanAbsent, NoLibrary) {
  auto driver =
      createVulkanDriver("vulkan-missing", {"/nonexistent/libvulkan.so.1"});
  size_t count = 0;
  Status s = driver->deviceCount(count);
  EXPECT_EQ(s.code(), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_THAT(
      s.message(),
      StartsWith("no Vulkan driver found (/nonexistent/libvulkan.so.1: "));
  // The outcome is kept.
  std::shared_ptr<Device> device;
  EXPECT_EQ(driver->createDevice(0, device).message(), s.message());
}

TEST(VulkanAbsent, LibraryThatIsNotALoader) {
  auto driver = createVulkanDriver("vulkan-wrong", {TESSEL_TEST_KERNELS_SO});
  size_t count = 0;
  Status s = driver->deviceCount(count);
  EXPECT_EQ(s.code(), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_EQ(s.message(), std::string("no Vulkan driver found (") +
                             TESSEL_TEST_KERNELS_SO +
                             " lacks vkGetInstanceProcAddr)");
}

TEST(VulkanAbsent, LoaderWithoutDevices) {
  // A loader that finds no driver (ICD) for the instance. The variables are
  // the loader's: VK_DRIVER_FILES, and VK_ICD_FILENAMES before 1.3.207.
  void *loader = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!loader)
    GTEST_SKIP() << "no Vulkan loader here";
  dlclose(loader);
  const char *variables[] = {"VK_DRIVER_FILES", "VK_ICD_FILENAMES"};
  std::string saved[2];
  bool had[2];
  for (int i = 0; i < 2; ++i) {
    const char *v = std::getenv(variables[i]);
    had[i] = v != nullptr;
    saved[i] = v ? v : "";
    setenv(variables[i], "/nonexistent/icd.json", 1);
  }
  auto driver = createVulkanDriver("vulkan-no-icd");
  size_t count = 0;
  Status s = driver->deviceCount(count);
  for (int i = 0; i < 2; ++i) {
    if (had[i])
      setenv(variables[i], saved[i].c_str(), 1);
    else
      unsetenv(variables[i]);
  }
  EXPECT_EQ(s.code(), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_THAT(s.message(), StartsWith("no Vulkan device found"));
}

TEST(VulkanAbsent, FirstLoadableLibraryWins) {
  REQUIRE_VULKAN();
  auto driver = createVulkanDriver(
      "vulkan-second", {"/nonexistent/libvulkan.so.1", "libvulkan.so.1"});
  size_t count = 0;
  Status s = driver->deviceCount(count);
  EXPECT_TRUE(s.isOk()) << s.message();
  EXPECT_GE(count, 1u);
}

//===----------------------------------------------------------------------===//
// On a Vulkan device
//===----------------------------------------------------------------------===//

/// The index of the operand of the first OpCapability `capability` in
/// `words`, or 0.
size_t findCapability(const std::vector<uint32_t> &words, uint32_t capability) {
  for (size_t i = 5; i < words.size(); i += words[i] >> 16) {
    if ((words[i] & 0xffff) == 17 && words[i + 1] == capability)
      return i + 1;
    if ((words[i] >> 16) == 0)
      break;
  }
  return 0;
}

/// An artifact and a session on a Vulkan device.
class VulkanTest : public ::testing::Test {
protected:
  void SetUp() override {
    REQUIRE_VULKAN();
    Result r = take(tessel_device_create("vulkan", &device));
    ASSERT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
    lavapipe =
        std::string(tessel_device_description(device)).rfind("llvmpipe", 0) ==
        0;
  }
  void TearDown() override { close(); }

  void close() {
    tessel_session_release(session);
    tessel_artifact_release(artifact);
    session = nullptr;
    artifact = nullptr;
    tessel_device_release(device);
    device = nullptr;
  }

  /// Loads `model` and opens a session on the device.
  Result open(const format::Artifact &model) {
    tessel_session_release(session);
    tessel_artifact_release(artifact);
    session = nullptr;
    artifact = nullptr;
    std::vector<uint8_t> bytes = format::serialize(model);
    tessel_status_t s =
        tessel_artifact_load_memory(bytes.data(), bytes.size(), &artifact);
    return take(s ? s : tessel_session_create(artifact, device, &session));
  }

  Result setFloats(const char *name, const std::vector<float> &v) {
    int64_t dims[] = {int64_t(v.size())};
    return take(tessel_session_set_input(session, name, TESSEL_DTYPE_FLOAT32, 1,
                                         dims, v.data(), v.size() * 4));
  }

  std::vector<float> floats(const char *name) {
    tessel_tensor_view_t view;
    Result r = take(tessel_session_get_output(session, name, &view));
    EXPECT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
    if (r.code != TESSEL_STATUS_OK)
      return {};
    std::vector<float> values(view.data_bytes / 4);
    if (view.data_bytes)
      std::memcpy(values.data(), view.data, view.data_bytes);
    return values;
  }

  tessel_device_t *device = nullptr;
  tessel_artifact_t *artifact = nullptr;
  tessel_session_t *session = nullptr;
  bool lavapipe = false;
};

TEST_F(VulkanTest, DeviceNamesAndDescriptions) {
  EXPECT_STREQ(tessel_device_name(device), "vulkan:0");
  std::string description = tessel_device_description(device);
  EXPECT_THAT(description,
              MatchesRegex(".+ \\(Vulkan [0-9]+\\.[0-9]+, subgroup [0-9]+\\)"));
  if (lavapipe) {
    EXPECT_THAT(description, StartsWith("llvmpipe ("));
  }
  size_t count = 0;
  ASSERT_EQ(tessel_driver_device_count("vulkan", &count), nullptr);
  tessel_device_t *other = nullptr;
  std::string spec = "vulkan:" + std::to_string(count);
  Result r = take(tessel_device_create(spec.c_str(), &other));
  EXPECT_EQ(r.code, TESSEL_STATUS_NOT_FOUND);
  EXPECT_EQ(r.message, "device '" + spec + "' does not exist (vulkan has " +
                           std::to_string(count) +
                           (count == 1 ? " device)" : " devices)"));
  ASSERT_EQ(tessel_device_create("vulkan:0", &other), nullptr);
  EXPECT_STREQ(tessel_device_description(other), description.c_str());
  tessel_device_release(other);
}

/// `model` with its "vulkan" binary's modules changed by `edit`.
template <typename Edit>
format::Artifact withModules(format::Artifact model, Edit edit) {
  std::vector<format::SpirvModule> modules = test::vulkanModules();
  edit(modules);
  for (format::TargetBinary &bin : model.binaries)
    if (bin.target == "vulkan")
      bin.bytes = format::encodeSpirvModules(modules);
  return model;
}

format::TargetBinary &vulkanBinary(format::Artifact &model) {
  for (format::TargetBinary &bin : model.binaries)
    if (bin.target == "vulkan")
      return bin;
  throw std::runtime_error("no vulkan binary");
}

TEST_F(VulkanTest, RefusesACapabilityItDoesNotSupport) {
  for (uint32_t capability : {4242u, 5347u}) {
    format::Artifact model = withModules(test::addModel(), [&](auto &modules) {
      size_t at = findCapability(modules[0].words, 1); // add's Shader
      ASSERT_NE(at, 0u);
      modules[0].words[at] = capability;
    });
    Result r = open(model);
    EXPECT_EQ(r.code, TESSEL_STATUS_UNAVAILABLE);
    std::string name = capability == 4242 ? "4242"
                                          : "PhysicalStorageBufferAddresses "
                                            "(5347)";
    EXPECT_EQ(r.message, "kernel 'add' (ONNX node 'Add_0', Add) needs SPIR-V "
                         "capability " +
                             name +
                             ", which the Vulkan driver does not support");
  }
}

TEST_F(VulkanTest, RefusesBrokenModules) {
  // A container that does not decode, a module without the entry point, a
  // malformed instruction.
  format::Artifact model = test::addModel();
  vulkanBinary(model).bytes.push_back(0);
  Result r = open(model);
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(r.message, "cannot load the vulkan kernels: SPIR-V container: 1 "
                       "trailing bytes after the last module");
  r = open(withModules(test::addModel(), [](auto &modules) {
    modules[0].entryPoint = "sum_all";
    modules[1].entryPoint = "add";
  }));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(r.message, "kernel 'add' (ONNX node 'Add_0', Add): its SPIR-V "
                       "module has no GLCompute entry point named 'add'");
  r = open(withModules(test::addModel(),
                       [](auto &modules) { modules[0].words.resize(6); }));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(r.message, "kernel 'add' (ONNX node 'Add_0', Add): malformed "
                       "SPIR-V module: instruction at word 5 (opcode 17) runs "
                       "past the end of the module");
}

TEST_F(VulkanTest, RefusesAConfigTheModuleContradicts) {
  format::Artifact model = test::addModel();
  vulkanBinary(model).launchConfigs[0].workgroupSize[0] = 128;
  Result r = open(model);
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(r.message, "kernel 'add' (ONNX node 'Add_0', Add): its SPIR-V "
                       "local size is 256x1x1, but its launch config's "
                       "workgroup size is 128x1x1");
  model = test::addModel();
  vulkanBinary(model).launchConfigs[1].sharedMemoryBytes = 1024;
  r = open(model);
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(r.message,
            "kernel 'sum_all' (ONNX node 'ReduceSum_0', ReduceSum): its "
            "launch config asks for 1024 bytes of dynamic shared memory, but "
            "Vulkan kernels declare their shared memory statically "
            "(sharedMemoryBytes must be 0)");
  model = test::addModel();
  vulkanBinary(model).launchConfigs[0].scratchBytes = 64;
  r = open(model);
  EXPECT_EQ(r.code, TESSEL_STATUS_UNAVAILABLE);
  EXPECT_EQ(r.message, "the vulkan kernel 'add' needs 64 bytes of scratch "
                       "memory per workgroup, which this runtime does not "
                       "provide yet");
}

TEST_F(VulkanTest, RefusesLaunchesThatDisagreeWithTheKernelsSignature) {
  format::Artifact model = test::addModel();
  model.plan[1].args[1].shape = {{1, ""}, {-1, "batch"}};
  Result r = open(model);
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_THAT(r.message, HasSubstr("launch 1 (kernel 'add') argument 1: "
                                   "float32 view of rank 2 (buffer 0) for a "
                                   "param of float32, rank 1"));
}

/// `add` launched once with `n` arguments: n - 1 views of input x, then the
/// output y.
format::Artifact manyArguments(size_t n) {
  format::Artifact a = test::addModel();
  format::Shape four = {{4, ""}};
  a.inputs = {{"x", format::DType::F32, four, 0}};
  a.outputs = {{"y", format::DType::F32, four, 1}};
  a.buffers.resize(2);
  a.buffers[0].kind = format::Buffer::Kind::Input;
  a.buffers[0].shape = four;
  a.buffers[1].kind = format::Buffer::Kind::Output;
  a.buffers[1].shape = four;
  format::Launch launch;
  launch.kernel = 0;
  for (size_t i = 0; i + 1 < n; ++i)
    launch.args.push_back({0, four});
  launch.args.push_back({1, four});
  launch.workSize = four;
  a.plan = {launch};
  a.kernels.resize(1);
  a.binaries.clear();
  test::addBinary(a, "vulkan", format::TargetBinary::Format::Spirv,
                  test::vulkanKernels());
  return a;
}

TEST_F(VulkanTest, RefusesAKernelWithTooManyArguments) {
  if (!lavapipe) {
    GTEST_SKIP() << "the limits of lavapipe (32 storage buffers per stage) "
                    "are known, not those of "
                 << tessel_device_description(device);
  }
  // 31 arguments and the shape buffer fit in 32 storage buffers; 32 do not.
  Result r = open(manyArguments(31));
  EXPECT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
  r = open(manyArguments(32));
  EXPECT_EQ(r.code, TESSEL_STATUS_UNAVAILABLE);
  EXPECT_EQ(r.message, "kernel 'add' (ONNX node 'Add_0', Add) has 32 "
                       "arguments, so it needs 33 storage buffers with the "
                       "shape buffer, but vulkan:0's "
                       "maxPerStageDescriptorStorageBuffers is 32");
}

TEST_F(VulkanTest, AGridPastTheDeviceLimitIsRefused) {
  if (!lavapipe) {
    GTEST_SKIP() << "the grid limits of lavapipe (65535 workgroups per axis) "
                    "are known, not those of "
                 << tessel_device_description(device);
  }
  // One workgroup per item: 70000 workgroups along x, within the GPU
  // grids of gpuGrid() but past lavapipe's maxComputeWorkGroupCount.
  format::Artifact model = test::addModel();
  vulkanBinary(model).launchConfigs[0].workgroupCount[0].tile = 1;
  ASSERT_EQ(open(model).code, TESSEL_STATUS_OK);
  std::vector<float> ones(70000, 1.0f);
  ASSERT_EQ(setFloats("a", ones).code, TESSEL_STATUS_OK);
  ASSERT_EQ(setFloats("b", ones).code, TESSEL_STATUS_OK);
  Result r = take(tessel_session_run(session));
  EXPECT_EQ(r.code, TESSEL_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_THAT(r.message, HasSubstr("the launch needs 70000 workgroups along "
                                   "x, more than vulkan:0 allows (65535)"));
  // The session recovers with a grid that fits.
  ones.resize(1000);
  ASSERT_EQ(setFloats("a", ones).code, TESSEL_STATUS_OK);
  ASSERT_EQ(setFloats("b", ones).code, TESSEL_STATUS_OK);
  r = take(tessel_session_run(session));
  ASSERT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
  EXPECT_EQ(floats("y"), std::vector<float>(1000, 3.0f));
}

/// A chain of `launches` adds in one batch: t1 = a + b, t2 = t1 + b, ...,
/// y = t(launches-1) + b, so y = a + launches * b.
format::Artifact addChain(size_t launches) {
  format::Artifact a = test::addModel();
  format::Shape n = {{-1, "batch"}};
  a.buffers.resize(2); // the inputs
  a.outputs = {{"y", format::DType::F32, n, 0}};
  a.plan.clear();
  a.kernels.resize(1);
  uint32_t previous = 0;
  for (size_t i = 0; i < launches; ++i) {
    format::Buffer b;
    b.kind = i + 1 == launches ? format::Buffer::Kind::Output
                               : format::Buffer::Kind::Transient;
    b.shape = n;
    a.buffers.push_back(b);
    uint32_t next = static_cast<uint32_t>(a.buffers.size() - 1);
    a.plan.push_back({0, {{previous, n}, {1, n}, {next, n}}, n});
    previous = next;
  }
  a.outputs[0].buffer = previous;
  a.binaries.clear();
  test::addBinary(a, "vulkan", format::TargetBinary::Format::Spirv,
                  test::vulkanKernels());
  return a;
}

TEST_F(VulkanTest, ManyLaunchesInOneBatch) {
  // More descriptor sets than one pool holds, each launch reading what the
  // one before it wrote.
  ASSERT_EQ(open(addChain(300)).code, TESSEL_STATUS_OK);
  for (size_t n : {size_t(5), size_t(3000)}) {
    std::vector<float> a(n), b(n, 0.5f);
    for (size_t i = 0; i < n; ++i)
      a[i] = float(i % 7);
    ASSERT_EQ(setFloats("a", a).code, TESSEL_STATUS_OK);
    ASSERT_EQ(setFloats("b", b).code, TESSEL_STATUS_OK);
    Result r = take(tessel_session_run(session));
    ASSERT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
    std::vector<float> y = floats("y");
    ASSERT_EQ(y.size(), n);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(y[i], a[i] + 150.0f) << i;
  }
}

TEST_F(VulkanTest, EveryWorkgroupOfA2DGridRunsOnceWithItsId) {
  ASSERT_EQ(open(test::tileModel(/*vulkan=*/true)).code, TESSEL_STATUS_OK);
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{7, 10},
                            {2, 4},
                            {1, 1},
                            {64, 256},
                            {0, 5}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    std::vector<int64_t> x(static_cast<size_t>(rows * cols), 7);
    int64_t dims[] = {rows, cols};
    ASSERT_EQ(
        take(tessel_session_set_input(session, "x", TESSEL_DTYPE_INT64, 2, dims,
                                      x.data(), x.size() * sizeof(int64_t)))
            .code,
        TESSEL_STATUS_OK);
    Result r = take(tessel_session_run(session));
    ASSERT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
    std::vector<int64_t> ids(x.size());
    if (!ids.empty()) {
      ASSERT_EQ(tessel_session_copy_output(session, "ids", ids.data(),
                                           ids.size() * sizeof(int64_t)),
                nullptr);
    }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        ASSERT_EQ(ids[i * cols + j], test::tileCode(rows, cols, i, j))
            << "element (" << i << ", " << j << ")";
  }
}

TEST_F(VulkanTest, AddressesMapBackToTheirAllocations) {
  std::shared_ptr<Device> dev;
  Status s = findDriver("vulkan")->createDevice(0, dev);
  ASSERT_TRUE(s.isOk()) << s.message();
  void *a = nullptr, *b = nullptr;
  ASSERT_TRUE(dev->allocate(400, &a).isOk());
  ASSERT_TRUE(dev->allocate(1, &b).isOk());
  auto address = [](void *p) { return reinterpret_cast<uintptr_t>(p); };
  EXPECT_EQ(address(a) % 256, 0u);
  EXPECT_EQ(address(b) % 256, 0u);
  EXPECT_GT(address(b), address(a) + 400); // never adjacent
  std::vector<uint8_t> data(400, 7), back(400, 0);
  // Offsets inside an allocation, as the session's arena uses them.
  char *inside = static_cast<char *>(a) + 100;
  EXPECT_TRUE(dev->copyToDevice(inside, data.data(), 300).isOk());
  EXPECT_TRUE(dev->copyToHost(back.data(), inside, 300).isOk());
  EXPECT_TRUE(dev->synchronize().isOk());
  EXPECT_EQ(back[299], 7);
  s = dev->copyToDevice(inside, data.data(), 301);
  EXPECT_EQ(s.code(), TESSEL_STATUS_INTERNAL);
  EXPECT_THAT(s.message(), MatchesRegex("copy to the device: 301 bytes at "
                                        "0x[0-9a-f]+ leave the allocation of "
                                        "400 bytes at 0x[0-9a-f]+ on "
                                        "vulkan:0"));
  s = dev->copyToHost(back.data(), static_cast<char *>(a) - 1, 1);
  EXPECT_EQ(s.code(), TESSEL_STATUS_INTERNAL);
  EXPECT_THAT(s.message(), MatchesRegex("copy to the host: address 0x[0-9a-f]+ "
                                        "is not memory of vulkan:0"));
  s = dev->copyOnDevice(b, static_cast<char *>(b) + 1, 1);
  EXPECT_THAT(s.message(), HasSubstr("1 bytes at"));
  dev->deallocate(b);
  s = dev->copyToDevice(b, data.data(), 1); // freed
  EXPECT_EQ(s.code(), TESSEL_STATUS_INTERNAL);
  dev->deallocate(a);
  EXPECT_TRUE(dev->synchronize().isOk());
}

/// Sets TESSEL_VULKAN_STAGING=1 for its lifetime.
class ForcedStaging {
public:
  ForcedStaging() { setenv("TESSEL_VULKAN_STAGING", "1", 1); }
  ~ForcedStaging() { unsetenv("TESSEL_VULKAN_STAGING"); }
};

/// Runs addModel over `n` items (a[i] = i % 11, b[i] = 1), weightModel and
/// the nested loop model on `device`; their outputs, in order: y, s, z, y,
/// z, scan.
std::vector<std::vector<float>> runPlans(tessel_device_t *device, size_t n) {
  std::vector<std::vector<float>> outputs;
  auto run = [&](const format::Artifact &model, auto setInputs,
                 std::vector<const char *> names) {
    std::vector<uint8_t> bytes = format::serialize(model);
    tessel_artifact_t *artifact = nullptr;
    tessel_session_t *session = nullptr;
    EXPECT_EQ(
        tessel_artifact_load_memory(bytes.data(), bytes.size(), &artifact),
        nullptr);
    Result r = take(tessel_session_create(artifact, device, &session));
    EXPECT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
    if (r.code == TESSEL_STATUS_OK) {
      setInputs(session);
      r = take(tessel_session_run(session));
      EXPECT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
      for (const char *name : names) {
        tessel_tensor_view_t view{};
        r = take(tessel_session_get_output(session, name, &view));
        EXPECT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
        const float *p = static_cast<const float *>(view.data);
        outputs.emplace_back(p, p + view.data_bytes / 4);
      }
    }
    tessel_session_release(session);
    tessel_artifact_release(artifact);
  };
  auto setFloats = [](tessel_session_t *s, const char *name,
                      const std::vector<float> &v) {
    int64_t dims[] = {int64_t(v.size())};
    EXPECT_EQ(tessel_session_set_input(s, name, TESSEL_DTYPE_FLOAT32, 1, dims,
                                       v.data(), v.size() * 4),
              nullptr);
  };
  std::vector<float> a(n), b(n, 1.0f);
  for (size_t i = 0; i < n; ++i)
    a[i] = float(i % 11);
  run(test::addModel(),
      [&](tessel_session_t *s) {
        setFloats(s, "a", a);
        setFloats(s, "b", b);
      },
      {"y", "s"});
  run(test::weightModel(),
      [&](tessel_session_t *s) {
        setFloats(s, "x", {1, 2, 3});
      },
      {"z"});
  run(test::nestedModel(),
      [&](tessel_session_t *s) {
        int64_t trip = 3;
        uint8_t yes = 1;
        EXPECT_EQ(tessel_session_set_input(s, "trip", TESSEL_DTYPE_INT64, 0,
                                           nullptr, &trip, 8),
                  nullptr);
        EXPECT_EQ(tessel_session_set_input(s, "go", TESSEL_DTYPE_BOOL, 0,
                                           nullptr, &yes, 1),
                  nullptr);
        EXPECT_EQ(tessel_session_set_input(s, "flip", TESSEL_DTYPE_BOOL, 0,
                                           nullptr, &yes, 1),
                  nullptr);
        setFloats(s, "y0", {1, 2});
        setFloats(s, "a", {10, 20});
        setFloats(s, "z0", {7, 8, 9});
      },
      {"y", "z", "scan"});
  return outputs;
}

TEST_F(VulkanTest, StagedCopiesGiveTheSameResults) {
  std::vector<std::vector<float>> direct = runPlans(device, 5000);
  ASSERT_EQ(direct.size(), 6u);
  EXPECT_THAT(direct[2], ElementsAre(12, 24, 36));
  EXPECT_THAT(direct[3], ElementsAre(41, 82));
  EXPECT_THAT(direct[4], ElementsAre(14, 16, 18));
  EXPECT_THAT(direct[5], ElementsAre(22, 44, 42, 84, 62, 124));
  tessel_device_t *staged = nullptr;
  {
    ForcedStaging forced;
    ASSERT_EQ(tessel_device_create("vulkan", &staged), nullptr);
  }
  for (size_t n : {size_t(5000), size_t(0), size_t(1)}) {
    SCOPED_TRACE(n);
    std::vector<std::vector<float>> expected =
        n == 5000 ? direct : runPlans(device, n);
    EXPECT_EQ(runPlans(staged, n), expected);
  }

  // The Device interface: every copy staged, a buffer freed while the
  // batch that uses it is still being recorded.
  std::shared_ptr<Device> dev;
  {
    ForcedStaging forced;
    Status s = findDriver("vulkan")->createDevice(0, dev);
    ASSERT_TRUE(s.isOk()) << s.message();
  }
  std::vector<int32_t> in(1000), out(1000, 0), early(1000, 0);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = int32_t(i * 3);
  void *a = nullptr, *b = nullptr;
  ASSERT_TRUE(dev->allocate(4000, &a).isOk());
  ASSERT_TRUE(dev->allocate(4000, &b).isOk());
  ASSERT_TRUE(dev->copyToDevice(a, in.data(), 4000).isOk());
  std::fill(in.begin(), in.end(), -1); // the host may reuse it at once
  ASSERT_TRUE(dev->copyOnDevice(b, a, 4000).isOk());
  ASSERT_TRUE(dev->copyToHost(early.data(), b, 4000).isOk());
  EXPECT_EQ(early[999], 0); // written by synchronize()
  dev->deallocate(a);
  ASSERT_TRUE(dev->copyToHost(out.data(), b, 4000).isOk());
  ASSERT_TRUE(dev->synchronize().isOk());
  EXPECT_EQ(out[999], 2997);
  EXPECT_EQ(early, out);
  dev->deallocate(b);
  tessel_device_release(staged);
}

TEST_F(VulkanTest, SessionsOnTwoThreadsShareADevice) {
  std::vector<uint8_t> bytes = format::serialize(test::addModel());
  auto work = [&](int seed) {
    tessel_artifact_t *art = nullptr;
    tessel_session_t *s = nullptr;
    ASSERT_EQ(tessel_artifact_load_memory(bytes.data(), bytes.size(), &art),
              nullptr);
    ASSERT_EQ(tessel_session_create(art, device, &s), nullptr);
    for (int iteration = 0; iteration < 40; ++iteration) {
      size_t n = size_t(1 + (seed * 37 + iteration * 101) % 3000);
      std::vector<float> a(n), b(n, float(seed));
      for (size_t i = 0; i < n; ++i)
        a[i] = float((i + iteration) % 13);
      int64_t dims[] = {int64_t(n)};
      ASSERT_EQ(tessel_session_set_input(s, "a", TESSEL_DTYPE_FLOAT32, 1, dims,
                                         a.data(), n * 4),
                nullptr);
      ASSERT_EQ(tessel_session_set_input(s, "b", TESSEL_DTYPE_FLOAT32, 1, dims,
                                         b.data(), n * 4),
                nullptr);
      Result r = take(tessel_session_run(s));
      ASSERT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
      std::vector<float> y(n);
      float sum = 0;
      ASSERT_EQ(tessel_session_copy_output(s, "y", y.data(), n * 4), nullptr);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(y[i], 2 * a[i] + float(seed)) << seed << " " << i;
        sum += y[i];
      }
      float total = 0;
      ASSERT_EQ(tessel_session_copy_output(s, "s", &total, 4), nullptr);
      EXPECT_NEAR(total, sum, 1e-3 * std::abs(sum));
    }
    tessel_session_release(s);
    tessel_artifact_release(art);
  };
  std::thread first(work, 1), second(work, 2);
  first.join();
  second.join();
}

} // namespace
