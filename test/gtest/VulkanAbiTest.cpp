//===- VulkanAbiTest.cpp - The Vulkan ABI without a device ----------------===//
//
// The pieces of the Vulkan driver that need no device: the SPIR-V
// container codec (round trip, every truncation, each decode error),
// reading a launch's descriptors (by the kernel's signature) into bound
// ranges and shape values, the SPIR-V scan, and capabilities against device
// features. VulkanDriverTest.cpp covers what needs a driver or a device.
//
//===----------------------------------------------------------------------===//

#include "LaunchParams.h"
#include "TestArtifacts.h"
#include "drivers/vulkan/VulkanAbi.h"
#include "format/SpirvModules.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace tessel;
using namespace tessel::runtime;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

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

/// Reads `params` as a launch of a kernel with `layout`; the status and
/// what was read.
struct ReadArgs {
  Status status;
  std::vector<vulkan::BoundArgument> args;
  std::vector<int32_t> shape;
};
ReadArgs readArgs(const std::vector<format::KernelParam> &layout,
                  void **params) {
  ReadArgs r;
  format::Kernel kernel{"k", "K_0", "Probe", layout};
  r.status = vulkan::readLaunchArguments(kernel, params, r.args, r.shape);
  return r;
}

std::vector<format::KernelParam>
layoutOf(std::initializer_list<std::pair<uint32_t, format::DType>> args) {
  std::vector<format::KernelParam> layout;
  for (auto [rank, dtype] : args)
    layout.push_back({dtype, rank});
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

} // namespace
