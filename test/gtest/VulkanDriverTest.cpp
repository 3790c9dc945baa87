//===- VulkanDriverTest.cpp - The Vulkan driver and its SPIR-V ABI --------===//
//
// What the conformance suite does not show of the Vulkan driver: the
// absent paths (no loader, a library that is not one), device naming, the
// SPIR-V container codec, the ABI pieces that need no device (argument
// layouts from the plan, reading a launch's descriptors, the SPIR-V scan,
// capabilities against device features) and, on a Vulkan device (Mesa's
// lavapipe where nothing else is installed; skipped with the reason where
// there is none), the load-time refusals (capabilities, too many
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
// The SPIR-V container
//===----------------------------------------------------------------------===//

/// A module of `words` words (at least the header) named `name`.
format::SpirvModule fakeModule(const std::string &name, size_t words = 5) {
  format::SpirvModule m;
  m.entryPoint = name;
  m.words.assign(words, 0);
  m.words[0] = format::kSpirvMagic;
  m.words[1] = 0x00010300;
  for (size_t i = 5; i < words; ++i)
    m.words[i] = static_cast<uint32_t>(i * 7919);
  return m;
}

std::string decodeError(const std::vector<uint8_t> &bytes) {
  std::vector<format::SpirvModule> out;
  std::string error;
  if (format::decodeSpirvModules(bytes, out, error))
    return "decoded";
  return error;
}

void putU32(std::vector<uint8_t> &bytes, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    bytes[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

TEST(SpirvModules, RoundTrip) {
  // Names of every length modulo 4 (so every padding), and real modules.
  std::vector<format::SpirvModule> in = {fakeModule("a", 9), fakeModule("ab"),
                                         fakeModule("abc", 6),
                                         fakeModule("abcd")};
  for (format::SpirvModule &m : test::vulkanModules())
    in.push_back(std::move(m));
  std::vector<uint8_t> bytes = format::encodeSpirvModules(in);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "TSPV");
  std::vector<format::SpirvModule> out;
  std::string error;
  ASSERT_TRUE(format::decodeSpirvModules(bytes, out, error)) << error;
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].entryPoint, in[i].entryPoint);
    EXPECT_EQ(out[i].words, in[i].words);
  }
  // The exact layout of one module: header, name "ab" padded to 4, count.
  std::vector<uint8_t> one = format::encodeSpirvModules({fakeModule("ab")});
  ASSERT_EQ(one.size(), 12u + 4 + 4 + 4 + 5 * 4);
  EXPECT_THAT(std::vector<uint8_t>(one.begin() + 4, one.begin() + 28),
              ElementsAre(1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 'a', 'b', 0, 0, 5,
                          0, 0, 0, 0x03, 0x02, 0x23, 0x07));
  // No modules at all.
  ASSERT_TRUE(
      format::decodeSpirvModules(format::encodeSpirvModules({}), out, error))
      << error;
  EXPECT_TRUE(out.empty());
}

TEST(SpirvModules, EveryTruncationFails) {
  std::vector<uint8_t> bytes =
      format::encodeSpirvModules({fakeModule("add", 7), fakeModule("sum")});
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + size);
    EXPECT_THAT(decodeError(cut), StartsWith("SPIR-V container: ")) << size;
  }
}

TEST(SpirvModules, DecodeErrors) {
  const std::vector<uint8_t> good =
      format::encodeSpirvModules({fakeModule("add", 6)});
  // Header: 12 bytes; name length at 12, "add" + 1 padding byte at 16,
  // word count at 20, words at 24 (6 words: 48 bytes in all).
  ASSERT_EQ(good.size(), 48u);
  auto with = [&](size_t at, uint32_t v) {
    std::vector<uint8_t> b = good;
    putU32(b, at, v);
    return decodeError(b);
  };
  auto cut = [&](size_t size) {
    return decodeError(std::vector<uint8_t>(good.begin(), good.begin() + size));
  };
  const std::string c = "SPIR-V container: ";
  EXPECT_EQ(decodeError(good), "decoded");
  EXPECT_EQ(cut(11), c + "truncated header (11 bytes, the header has 12)");
  EXPECT_EQ(with(0, 0x56505355),
            c + "bad magic 0x56505355 (expected 0x56505354, \"TSPV\")");
  EXPECT_EQ(with(4, 2), c + "unsupported version 2 (this runtime reads 1)");
  EXPECT_EQ(with(8, 5), c + "5 modules cannot fit in the 36 bytes after the "
                            "header");
  EXPECT_EQ(cut(14),
            c + "1 modules cannot fit in the 2 bytes after the header");
  EXPECT_EQ(with(12, 100),
            c + "module 0: name of 100 bytes but only 32 bytes left");
  EXPECT_EQ(with(12, 0), c + "module 0 has an empty name");
  {
    std::vector<uint8_t> b = good;
    b[19] = 'x';
    EXPECT_EQ(decodeError(b), c + "module 0 ('add'): nonzero padding after "
                                  "the name");
  }
  EXPECT_EQ(cut(22), c + "module 0 ('add'): truncated word count");
  EXPECT_EQ(with(20, 7), c + "module 0 ('add'): 7 words (28 bytes) but only "
                             "24 bytes left");
  EXPECT_EQ(cut(44), c + "module 0 ('add'): 6 words (24 bytes) but only 20 "
                         "bytes left");
  EXPECT_EQ(with(20, 4), c + "module 0 ('add') has 4 words, fewer than the "
                             "5 of a SPIR-V header");
  EXPECT_EQ(with(24, 0x03022307),
            c + "module 0 ('add') does not start with the SPIR-V magic "
                "0x07230203 (found 0x03022307)");
  {
    std::vector<uint8_t> b = good;
    b.insert(b.end(), {0, 0, 0, 0});
    EXPECT_EQ(decodeError(b), c + "4 trailing bytes after the last module");
    std::vector<uint8_t> none = format::encodeSpirvModules({});
    none.push_back(1);
    EXPECT_EQ(decodeError(none),
              c + "1 trailing bytes after the header (no modules)");
  }
  EXPECT_EQ(decodeError(format::encodeSpirvModules(
                {fakeModule("add"), fakeModule("sum"), fakeModule("add")})),
            c + "module 2 ('add') has the name of module 0");
}

//===----------------------------------------------------------------------===//
// The ABI without a device
//===----------------------------------------------------------------------===//

TEST(VulkanAbi, LayoutsComeFromThePlan) {
  format::Artifact model = test::addModel();
  std::vector<vulkan::KernelLayout> layouts;
  Status s = vulkan::kernelLayouts(model, layouts);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(layouts.size(), 2u);
  ASSERT_TRUE(layouts[0].launched);
  ASSERT_EQ(layouts[0].args.size(), 3u);
  EXPECT_EQ(layouts[0].args[2].rank, 1u);
  ASSERT_EQ(layouts[1].args.size(), 2u);
  EXPECT_EQ(layouts[1].args[0].rank, 2u); // y viewed as [1, batch]
  EXPECT_EQ(layouts[1].args[1].rank, 0u);
  EXPECT_EQ(layouts[1].args[1].dtype, format::DType::F32);

  // A kernel never launched has no layout.
  model.kernels.push_back({"tile_ids", "Tiles_0", "Tiles"});
  ASSERT_TRUE(vulkan::kernelLayouts(model, layouts).isOk());
  EXPECT_FALSE(layouts[2].launched);

  // Every launch of a kernel must agree.
  format::Artifact ranks = test::addModel();
  ranks.plan[1].args[1].shape = {{1, ""}, {-1, "batch"}};
  s = vulkan::kernelLayouts(ranks, layouts);
  EXPECT_EQ(s.code(), TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(s.message(),
            "launch 1 of kernel 'add' (ONNX node 'Add_0', Add): argument 1 "
            "has rank 2 (float32), but launch 0 passes rank 1 (float32) (a "
            "Vulkan kernel has one layout)");
  format::Artifact count = test::addModel();
  count.plan[1].args.pop_back();
  s = vulkan::kernelLayouts(count, layouts);
  EXPECT_EQ(s.message(),
            "launch 1 of kernel 'add' (ONNX node 'Add_0', Add) passes 2 "
            "arguments, but launch 0 passes 3 (a Vulkan kernel has one "
            "layout)");
  format::Artifact dtypes = test::addModel();
  dtypes.buffers[2].dtype = format::DType::I32;
  s = vulkan::kernelLayouts(dtypes, layouts);
  EXPECT_THAT(s.message(), HasSubstr("argument 0 has rank 1 (int32), but "
                                     "launch 0 passes rank 1 (float32)"));
}

/// Reads `params` as a launch of a kernel with `layout`; the status and
/// what was read.
struct ReadArgs {
  Status status;
  std::vector<vulkan::BoundArgument> args;
  std::vector<int32_t> shape;
};
ReadArgs readArgs(const vulkan::KernelLayout &layout, void **params) {
  ReadArgs r;
  format::Kernel kernel{"k", "K_0", "Probe"};
  r.status =
      vulkan::readLaunchArguments(kernel, layout, params, r.args, r.shape);
  return r;
}

vulkan::KernelLayout
layoutOf(std::initializer_list<std::pair<uint32_t, format::DType>> args) {
  vulkan::KernelLayout layout;
  layout.launched = true;
  for (auto [rank, dtype] : args)
    layout.args.push_back({rank, dtype});
  return layout;
}

TEST(VulkanAbi, ReadsSizesAndBytesOfEachArgument) {
  LaunchParams p;
  p.addMemref(reinterpret_cast<void *>(uintptr_t(0x1000)), {2, 5, 4});
  p.addMemref(reinterpret_cast<void *>(uintptr_t(0x2000)), {});
  p.addMemref(reinterpret_cast<void *>(uintptr_t(0x3000)), {7, 0});
  auto layout = layoutOf({{3, format::DType::F32},
                          {0, format::DType::I64},
                          {2, format::DType::U8}});
  ReadArgs r = readArgs(layout, p.params());
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  // The shape buffer: every size in order; the rank-0 argument adds none.
  EXPECT_THAT(r.shape, ElementsAre(2, 5, 4, 7, 0));
  ASSERT_EQ(r.args.size(), 3u);
  EXPECT_EQ(r.args[0].address, 0x1000u);
  EXPECT_EQ(r.args[0].bytes, 160u);
  EXPECT_EQ(r.args[1].address, 0x2000u);
  EXPECT_EQ(r.args[1].bytes, 8u);
  EXPECT_EQ(r.args[2].bytes, 0u);
}

TEST(VulkanAbi, RefusesOffsetsStridesAndSizesItCannotBind) {
  auto layout = layoutOf({{1, format::DType::F32}, {2, format::DType::F32}});
  auto fresh = [](LaunchParams &p, std::vector<int64_t> second) {
    p.clear();
    p.addMemref(reinterpret_cast<void *>(uintptr_t(0x1000)), {6});
    p.addMemref(reinterpret_cast<void *>(uintptr_t(0x2000)), second);
    return p.params();
  };
  LaunchParams p;
  // The scalars: argument 0 is 0..4 (its offset is scalar 2, its size 3,
  // its stride 4), argument 1 is 5..11 (offset 7, sizes 8 and 9, strides
  // 10 and 11).
  void **params = fresh(p, {3, 4});
  *static_cast<int64_t *>(params[7]) = 4;
  ReadArgs r = readArgs(layout, params);
  EXPECT_EQ(r.status.code(), TESSEL_STATUS_INTERNAL);
  EXPECT_EQ(r.status.message(),
            "kernel 'k' (ONNX node 'K_0', Probe): argument 1 has offset 4, "
            "but the Vulkan ABI binds every argument at its first element "
            "(offset 0)");
  params = fresh(p, {3, 4});
  *static_cast<int64_t *>(params[10]) = 8;
  r = readArgs(layout, params);
  EXPECT_EQ(r.status.code(), TESSEL_STATUS_INTERNAL);
  EXPECT_EQ(r.status.message(),
            "kernel 'k' (ONNX node 'K_0', Probe): argument 1 has strides [8, "
            "1] for sizes [3, 4], which are not contiguous row-major");
  params = fresh(p, {3, 4});
  *static_cast<int64_t *>(params[4]) = 2;
  EXPECT_THAT(readArgs(layout, params).status.message(),
              HasSubstr("argument 0 has strides [2] for sizes [6]"));

  // 32-bit indexing: every size and every element count below 2^31.
  params = fresh(p, {int64_t(1) << 31, 1});
  r = readArgs(layout, params);
  EXPECT_EQ(r.status.code(), TESSEL_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_EQ(r.status.message(),
            "kernel 'k' (ONNX node 'K_0', Probe): argument 1 has 2147483648 "
            "elements along dim 0, but Vulkan kernels index with 32 bits (at "
            "most 2147483647)");
  params = fresh(p, {65536, 32768});
  r = readArgs(layout, params);
  EXPECT_EQ(r.status.code(), TESSEL_STATUS_RESOURCE_EXHAUSTED);
  EXPECT_EQ(r.status.message(),
            "kernel 'k' (ONNX node 'K_0', Probe): argument 1 of shape "
            "[65536, 32768] has 2^31 elements or more, but Vulkan kernels "
            "index with 32 bits");
  params = fresh(p, {65536, 32767});
  EXPECT_TRUE(readArgs(layout, params).status.isOk());
  // Huge sizes with a 0 among them are an empty tensor.
  params = fresh(p, {0, 2147483647});
  r = readArgs(layout, params);
  EXPECT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_EQ(r.args[1].bytes, 0u);
}

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

format::SpirvModule vulkanModule(const std::string &name) {
  for (format::SpirvModule &m : test::vulkanModules())
    if (m.entryPoint == name)
      return m;
  ADD_FAILURE() << "no test module " << name;
  return {};
}

TEST(VulkanAbi, ScansEntryPointLocalSizeAndCapabilities) {
  vulkan::SpirvFacts facts;
  std::string error;
  format::SpirvModule add = vulkanModule("add");
  ASSERT_TRUE(vulkan::scanSpirv(add.words, "add", facts, error)) << error;
  EXPECT_TRUE(facts.hasEntryPoint);
  ASSERT_TRUE(facts.hasLocalSize);
  EXPECT_THAT(facts.localSize, ElementsAre(256, 1, 1));
  EXPECT_THAT(facts.capabilities, ElementsAre(1)); // Shader

  // tile_ids uses gl_WorkGroupSize: the WorkgroupSize built-in.
  format::SpirvModule tiles = vulkanModule("tile_ids");
  ASSERT_TRUE(vulkan::scanSpirv(tiles.words, "tile_ids", facts, error));
  ASSERT_TRUE(facts.hasLocalSize);
  EXPECT_THAT(facts.localSize, ElementsAre(256, 1, 1));
  EXPECT_THAT(facts.capabilities, ElementsAre(1, 11)); // Shader, Int64

  ASSERT_TRUE(vulkan::scanSpirv(add.words, "sum_all", facts, error));
  EXPECT_FALSE(facts.hasEntryPoint);

  std::vector<uint32_t> cut(add.words.begin(), add.words.begin() + 6);
  EXPECT_FALSE(vulkan::scanSpirv(cut, "add", facts, error));
  EXPECT_EQ(error, "instruction at word 5 (opcode 17) runs past the end of "
                   "the module");
  cut[5] = 17; // a word count of 0
  EXPECT_FALSE(vulkan::scanSpirv(cut, "add", facts, error));
  EXPECT_EQ(error, "instruction at word 5 (opcode 17) has a word count of 0");
}

TEST(VulkanAbi, CapabilitiesNeedTheirFeatures) {
  vulkan::DeviceFeatures none, all;
  all.shaderInt64 = all.shaderFloat64 = all.shaderInt16 = all.shaderInt8 =
      all.shaderFloat16 = true;
  all.storageBuffer8BitAccess = all.uniformAndStorageBuffer8BitAccess = true;
  all.storageBuffer16BitAccess = all.uniformAndStorageBuffer16BitAccess = true;
  all.subgroupOperations = 0xff;
  const std::string k = "kernel 'k' (ONNX node 'K_0', K)";
  // Shader, Float16, Float64, Int64, Int16, Int8, the subgroup and the
  // 8/16-bit storage capabilities.
  for (uint32_t cap : {1u, 9u, 10u, 11u, 22u, 39u, 61u, 62u, 63u, 64u, 65u, 66u,
                       67u, 68u, 4433u, 4434u, 4448u, 4449u}) {
    Status s = vulkan::checkCapability(cap, all, k, "vulkan:0");
    EXPECT_TRUE(s.isOk()) << cap << ": " << s.message();
  }
  EXPECT_TRUE(vulkan::checkCapability(1, none, k, "vulkan:0").isOk());
  Status s = vulkan::checkCapability(11, none, k, "vulkan:0");
  EXPECT_EQ(s.code(), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_EQ(s.message(), k + " needs SPIR-V capability Int64 (11), but "
                             "device vulkan:0 lacks shaderInt64");
  EXPECT_EQ(vulkan::checkCapability(4448, none, k, "vulkan:0").message(),
            k + " needs SPIR-V capability StorageBuffer8BitAccess (4448), but "
                "device vulkan:0 lacks storageBuffer8BitAccess");
  vulkan::DeviceFeatures basic;
  basic.subgroupOperations = 0x1;
  EXPECT_TRUE(vulkan::checkCapability(61, basic, k, "vulkan:0").isOk());
  EXPECT_EQ(vulkan::checkCapability(63, basic, k, "vulkan:0").message(),
            k + " needs SPIR-V capability GroupNonUniformArithmetic (63), but "
                "device vulkan:0 lacks subgroup arithmetic operations in "
                "compute shaders");
  s = vulkan::checkCapability(5347, all, k, "vulkan:0");
  EXPECT_EQ(s.code(), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_EQ(s.message(), k + " needs SPIR-V capability "
                             "PhysicalStorageBufferAddresses (5347), which "
                             "the Vulkan driver does not support");
  EXPECT_EQ(vulkan::checkCapability(4242, all, k, "vulkan:0").message(),
            k + " needs SPIR-V capability 4242, which the Vulkan driver does "
                "not support");
}

//===----------------------------------------------------------------------===//
// On a Vulkan device
//===----------------------------------------------------------------------===//

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

TEST_F(VulkanTest, RefusesLaunchesThatDisagreeOnALayout) {
  format::Artifact model = test::addModel();
  model.plan[1].args[1].shape = {{1, ""}, {-1, "batch"}};
  Result r = open(model);
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_THAT(r.message, HasSubstr("argument 1 has rank 2 (float32), but "
                                   "launch 0 passes rank 1 (float32)"));
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
