//===- ManifestFieldsTest.cpp - Launch configs, signatures, CPU variants -===//
//
// The manifest fields of format 3.3 (launchConfigs, field 13), 3.5
// (kernelParams, field 14) and 3.6 (cpuVariants, field 15, with field 9):
// round trips, the legacy values an older artifact gets, one entry per
// binary or kernel, and truncation.
//
//===----------------------------------------------------------------------===//

#include "ArtifactBytes.h"
#include "TestArtifacts.h"
#include "format/Manifest.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace tessel;
using namespace tessel::format;
using namespace tessel::test::bytes;

namespace {

/// addModel with a CPU, a CUDA and a ROCm binary (fake bytes) whose
/// configs use every field.
Artifact withLaunchConfigs() {
  Artifact a = test::addModel({false, false, false, false});
  a.plan[0].workSize = {{-1, "batch"}, {3, ""}, {1, ""}};
  a.plan[1].workSize = a.plan[0].workSize;
  test::addBinary(a, "cpu", TargetBinary::Format::ElfSharedObject, {1, 2});
  test::addBinary(a, "cuda:sm_90", TargetBinary::Format::Ptx, {3});
  test::addBinary(a, "rocm:gfx90a", TargetBinary::Format::Hsaco, {4});
  LaunchConfig &cpu = a.binaries[0].launchConfigs[0];
  cpu.workgroupCount[0] = {{0}, 16};
  cpu.workgroupCount[1] = {{1, 2}, 1};
  cpu.scratchBytes = 1 << 20;
  LaunchConfig &cuda = a.binaries[1].launchConfigs[0];
  cuda.workgroupSize[0] = 64;
  cuda.workgroupSize[1] = 4;
  cuda.workgroupSize[2] = 2;
  cuda.workgroupCount[0] = {{0, 2}, 64};
  cuda.workgroupCount[2] = {{1}, 3};
  cuda.sharedMemoryBytes = 49152;
  a.binaries[2].launchConfigs[1].workgroupSize[0] = 1024;
  return a;
}

void expectSameConfigs(const std::vector<LaunchConfig> &a,
                       const std::vector<LaunchConfig> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    SCOPED_TRACE("kernel " + std::to_string(k));
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(a[k].workgroupSize[d], b[k].workgroupSize[d]) << d;
      EXPECT_EQ(a[k].workgroupCount[d].dims, b[k].workgroupCount[d].dims) << d;
      EXPECT_EQ(a[k].workgroupCount[d].tile, b[k].workgroupCount[d].tile) << d;
    }
    EXPECT_EQ(a[k].sharedMemoryBytes, b[k].sharedMemoryBytes);
    EXPECT_EQ(a[k].scratchBytes, b[k].scratchBytes);
  }
}

TEST(LaunchConfigs, RoundTrip) {
  Artifact in = withLaunchConfigs();
  std::string error;
  ASSERT_TRUE(validate(in, error)) << error;
  std::vector<uint8_t> bytes = serialize(in);
  Artifact out;
  ASSERT_TRUE(deserialize(bytes.data(), bytes.size(), out, error)) << error;
  ASSERT_EQ(out.binaries.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(in.binaries[i].target);
    EXPECT_EQ(out.binaries[i].target, in.binaries[i].target);
    expectSameConfigs(out.binaries[i].launchConfigs,
                      in.binaries[i].launchConfigs);
  }
}

TEST(LaunchConfigs, AreARequiredFieldWrittenWheneverThereAreBinaries) {
  std::vector<uint8_t> m;
  encodeManifest(withLaunchConfigs(), m);
  std::vector<Field> fields = splitFields(m);
  ASSERT_EQ(fields.size(), 11u);
  EXPECT_EQ(fields[9].tag, 13u | 0x80000000u);
  // Without binaries there is nothing to launch: no field 13.
  m.clear();
  encodeManifest(test::addModel({false, false, false, false}), m);
  fields = splitFields(m);
  EXPECT_EQ(fields.size(), 10u);
  EXPECT_EQ(fields.back().tag, 14u | 0x80000000u);
}


/// `f` (a serialized withLaunchConfigs()) without manifest field 13 and
/// with the header's minor version set to `minor`.
std::vector<uint8_t> withoutLaunchConfigs(const std::vector<uint8_t> &f,
                                          uint32_t minor) {
  return withoutField(f, 0x8000000du, minor);
}

TEST(LaunchConfigs, AnOlderArtifactGetsTheLegacyConfigs) {
  std::vector<uint8_t> f = serialize(withLaunchConfigs());
  std::vector<uint8_t> legacy = withoutLaunchConfigs(f, 2);
  Artifact out;
  std::string error;
  ASSERT_TRUE(deserialize(legacy.data(), legacy.size(), out, error)) << error;
  ASSERT_EQ(out.binaries.size(), 3u);
  // CPU: one workgroup per launch, whatever the work.
  for (const LaunchConfig &c : out.binaries[0].launchConfigs) {
    EXPECT_EQ(c.workgroupSize[0] * c.workgroupSize[1] * c.workgroupSize[2],
              1u);
    for (const WorkgroupAxis &axis : c.workgroupCount)
      EXPECT_TRUE(axis.dims.empty());
    EXPECT_EQ(c.sharedMemoryBytes, 0u);
  }
  // GPUs: 256 threads, axis x over every work dim of the kernel's launches
  // (add: 3 dims; sum_all: none), tile 256.
  for (size_t i : {1, 2}) {
    SCOPED_TRACE(out.binaries[i].target);
    const std::vector<LaunchConfig> &c = out.binaries[i].launchConfigs;
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].workgroupSize[0], 256u);
    EXPECT_EQ(c[0].workgroupSize[1], 1u);
    EXPECT_EQ(c[0].workgroupSize[2], 1u);
    EXPECT_EQ(c[0].workgroupCount[0].dims, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(c[0].workgroupCount[0].tile, 256u);
    EXPECT_TRUE(c[0].workgroupCount[1].dims.empty());
    EXPECT_TRUE(c[0].workgroupCount[2].dims.empty());
    EXPECT_EQ(c[1].workgroupSize[0], 256u);
    EXPECT_TRUE(c[1].workgroupCount[0].dims.empty());
  }
  // A 3.3 file always has the field: one without it was cut short.
  std::vector<uint8_t> cut = withoutLaunchConfigs(f, 3);
  EXPECT_EQ(decodeError(cut), "manifest lacks field 13 (launchConfigs), "
                              "which format 3.3 has whenever there are "
                              "binaries");
}

TEST(LaunchConfigs, EachBinaryHasExactlyOneEntry) {
  Artifact a = withLaunchConfigs();
  // The manifest of an artifact with one more binary, in a file without it.
  Artifact more = a;
  test::addBinary(more, "cuda:sm_80", TargetBinary::Format::Ptx, {5});
  std::vector<uint8_t> m;
  encodeManifest(more, m);
  std::vector<uint8_t> f = serialize(a);
  // withManifest needs room before the next section: the manifest is small.
  EXPECT_EQ(decodeError(withManifest(f, m)),
            "manifest field 13 (launchConfigs) names target 'cuda:sm_80', "
            "which has no binary section");
  // The other way round: a binary section without an entry.
  Artifact fewer = a;
  fewer.binaries.pop_back();
  m.clear();
  encodeManifest(fewer, m);
  EXPECT_EQ(decodeError(withManifest(f, m)),
            "binary 'rocm:gfx90a' has no entry in manifest field 13 "
            "(launchConfigs)");
  // Two entries for one binary.
  Artifact twice = a;
  twice.binaries.push_back(a.binaries[2]);
  m.clear();
  encodeManifest(twice, m);
  EXPECT_EQ(decodeError(withManifest(f, m)),
            "manifest field 13 (launchConfigs) names target 'rocm:gfx90a' "
            "more often than there are binaries of it");
}

TEST(LaunchConfigs, TruncatedEntriesNameTheElement) {
  std::vector<uint8_t> m;
  encodeManifest(withLaunchConfigs(), m);
  std::vector<Field> fields = splitFields(m);
  auto configs = std::find_if(fields.begin(), fields.end(), [](const Field &f) {
    return f.tag == 0x8000000du;
  });
  ASSERT_NE(configs, fields.end());
  size_t at = configs - fields.begin();
  std::vector<Field> cut = fields;
  cut[at].payload.pop_back(); // the scratch bytes of the last config
  EXPECT_EQ(manifestError(joinFields(cut)),
            "manifest is truncated or corrupt (reading launch config 1 of "
            "target 2)");
  cut = fields;
  wr32(cut[at].payload, 0, 0x7fffffff);
  EXPECT_EQ(manifestError(joinFields(cut)),
            "manifest is truncated or corrupt (reading the launch configs)");
}

TEST(LaunchConfigs, WorkgroupCount) {
  LaunchConfig c;
  c.workgroupCount[0] = {{0, 2}, 64};
  c.workgroupCount[2] = {{1}, 3};
  uint64_t count[3];
  std::string error;
  ASSERT_TRUE(workgroupCount(c, {10, 7, 13}, count, error)) << error;
  EXPECT_EQ(count[0], 3u); // ceil(130 / 64)
  EXPECT_EQ(count[1], 1u); // no dims
  EXPECT_EQ(count[2], 3u); // ceil(7 / 3)
  ASSERT_TRUE(workgroupCount(c, {10, 6, 0}, count, error)) << error;
  EXPECT_EQ(count[0], 0u); // nothing to do
  EXPECT_EQ(count[2], 2u);
  ASSERT_TRUE(workgroupCount(LaunchConfig(), {}, count, error)) << error;
  EXPECT_EQ(count[0] * count[1] * count[2], 1u);
  // Errors, never undefined behaviour.
  EXPECT_FALSE(workgroupCount(c, {10, 7}, count, error));
  EXPECT_EQ(error,
            "workgroup axis x names work dim 2, but the launch has 2 work dims");
  int64_t big = int64_t(1) << 40;
  EXPECT_FALSE(workgroupCount(c, {big, 1, big}, count, error));
  EXPECT_EQ(error, "workgroup axis x: the product of its work sizes overflows");
  EXPECT_FALSE(workgroupCount(c, {-1, 1, 1}, count, error));
  EXPECT_EQ(error, "work dim 0 is -1");
  c.workgroupCount[1].tile = 0;
  EXPECT_FALSE(workgroupCount(c, {1, 1, 1}, count, error));
  EXPECT_EQ(error, "workgroup axis y has tile 0");
  // The largest product still rounds up without overflow.
  LaunchConfig one;
  one.workgroupCount[0] = {{0, 1}, 256};
  ASSERT_TRUE(workgroupCount(one, {INT64_MAX, 2}, count, error)) << error;
  EXPECT_EQ(count[0], (uint64_t(INT64_MAX) * 2) / 256 + 1);
}

//===----------------------------------------------------------------------===//
// Kernel signatures (format 3.5, manifest field 14)
//===----------------------------------------------------------------------===//

std::vector<std::pair<DType, uint32_t>> paramsOf(const Kernel &k) {
  std::vector<std::pair<DType, uint32_t>> out;
  for (const KernelParam &p : k.params)
    out.push_back({p.dtype, p.rank});
  return out;
}

TEST(KernelParams, RoundTrip) {
  Artifact in = withLaunchConfigs();
  in.buffers[4].dtype = DType::I64; // so that a dtype differs
  in.outputs[1].dtype = DType::I64;
  in.kernels[1].params[1].dtype = DType::I64;
  std::vector<uint8_t> f = serialize(in);
  Artifact out;
  std::string error;
  ASSERT_TRUE(deserialize(f.data(), f.size(), out, error)) << error;
  using P = std::vector<std::pair<DType, uint32_t>>;
  ASSERT_EQ(out.kernels.size(), 2u);
  EXPECT_EQ(paramsOf(out.kernels[0]),
            (P{{DType::F32, 1}, {DType::F32, 1}, {DType::F32, 1}}));
  EXPECT_EQ(paramsOf(out.kernels[1]), (P{{DType::F32, 2}, {DType::I64, 0}}));
}

TEST(KernelParams, AnOlderArtifactGetsTheSignatureOfEachKernelsFirstLaunch) {
  Artifact in = withLaunchConfigs();
  std::vector<uint8_t> f = serialize(in);
  std::vector<uint8_t> legacy = withoutField(f, 0x8000000eu, 4);
  Artifact out;
  std::string error;
  ASSERT_TRUE(deserialize(legacy.data(), legacy.size(), out, error)) << error;
  for (size_t k = 0; k < in.kernels.size(); ++k)
    EXPECT_EQ(paramsOf(out.kernels[k]), paramsOf(in.kernels[k]));
  // Its other launches are held to that signature: launch 1 passes y
  // viewed as [1, batch] where launch 0 passed a rank-1 view.
  Artifact other = in;
  other.plan[1].args[1].shape = {{1, ""}, {-1, "batch"}};
  std::vector<uint8_t> m;
  encodeManifest(other, m);
  std::vector<uint8_t> g = withoutField(withManifest(f, m), 0x8000000eu, 4);
  EXPECT_EQ(decodeError(g),
            "invalid artifact: launch 1 (kernel 'add') argument 1: float32 "
            "view of rank 2 (buffer 0) for a param of float32, rank 1");
  // A 3.5 file always has the field: one without it was cut short.
  EXPECT_EQ(decodeError(withoutField(f, 0x8000000eu, 5)),
            "manifest lacks field 14 (kernelParams), which format 3.5 has "
            "whenever there are kernels");
}

TEST(KernelParams, EachKernelHasExactlyOneEntry) {
  std::vector<uint8_t> m;
  encodeManifest(test::addModel({false, false, false, false}), m);
  std::vector<Field> fields = splitFields(m);
  ASSERT_EQ(fields.back().tag, 0x8000000eu);
  fields.back().payload = {1, 0, 0, 0, 0, 0, 0, 0}; // one kernel, no params
  EXPECT_EQ(manifestError(joinFields(fields)),
            "manifest field 14 (kernelParams) has 1 entries for 2 kernels "
            "(one per kernel)");
}

TEST(KernelParams, TruncatedEntriesNameTheKernel) {
  std::vector<uint8_t> m;
  encodeManifest(test::addModel({false, false, false, false}), m);
  std::vector<Field> fields = splitFields(m);
  std::vector<Field> cut = fields;
  cut.back().payload.pop_back(); // the rank of kernel 1's last param
  EXPECT_EQ(manifestError(joinFields(cut)),
            "manifest is truncated or corrupt (reading the params of kernel "
            "1)");
  // Counts larger than the bytes left are caught before any allocation.
  cut = fields;
  wr32(cut.back().payload, 0, 0x7fffffff);
  EXPECT_EQ(manifestError(joinFields(cut)),
            "manifest is truncated or corrupt (reading the kernel params)");
  cut = fields;
  wr32(cut.back().payload, 4, 0x7fffffff);
  EXPECT_EQ(manifestError(joinFields(cut)),
            "manifest is truncated or corrupt (reading the params of kernel "
            "0)");
}

// The CPU binaries' features (field 9 for "cpu", format 3.6 field 15 for
// "cpu:<variant>")
//===----------------------------------------------------------------------===//

Artifact withCpuVariants() {
  Artifact a = test::addModel({false, false, false, false});
  test::addBinary(a, "cpu:x86-64-v4+avx512bf16",
                  TargetBinary::Format::ElfSharedObject, {1});
  test::addBinary(a, "cuda:sm_90", TargetBinary::Format::Ptx, {2});
  test::addBinary(a, "cpu:x86-64-v3", TargetBinary::Format::ElfSharedObject,
                  {3});
  a.binaries[0].cpuFeatures = {"avx2", "avx512f", "avx512bf16"};
  a.binaries[2].cpuFeatures = {"avx2", "fma"};
  return a;
}

TEST(CpuVariants, RoundTrip) {
  std::vector<uint8_t> f = serialize(withCpuVariants());
  Artifact out;
  std::string error;
  ASSERT_TRUE(deserialize(f.data(), f.size(), out, error)) << error;
  ASSERT_EQ(out.binaries.size(), 3u);
  EXPECT_EQ(out.binaries[0].cpuFeatures,
            (std::vector<std::string>{"avx2", "avx512f", "avx512bf16"}));
  EXPECT_TRUE(out.binaries[1].cpuFeatures.empty());
  EXPECT_EQ(out.binaries[2].cpuFeatures,
            (std::vector<std::string>{"avx2", "fma"}));
}

TEST(CpuVariants, TheBinaryNamedCpuKeepsField9) {
  // One binary "cpu", as every artifact before 3.6 had: its features are
  // field 9's, and no field 15 is written, so a 3.5 reader still reads it.
  Artifact in = test::addModel({false, false, false, false});
  test::addBinary(in, "cpu", TargetBinary::Format::ElfSharedObject, {1});
  in.binaries[0].cpuFeatures = {"avx2", "fma"};
  std::vector<uint8_t> m;
  encodeManifest(in, m);
  for (const Field &field : splitFields(m))
    EXPECT_NE(field.tag, 0x8000000fu);
  std::vector<uint8_t> f = serialize(in);
  wr32(f, 12, 5); // format 3.5
  Artifact out;
  std::string error;
  ASSERT_TRUE(deserialize(f.data(), f.size(), out, error)) << error;
  EXPECT_EQ(out.binaries[0].cpuFeatures, in.binaries[0].cpuFeatures);
}

/// `f` with the payload of its manifest field `tag` replaced by that field
/// of `other`'s manifest.
std::vector<uint8_t> withFieldOf(const std::vector<uint8_t> &f,
                                 const Artifact &other, uint32_t tag) {
  size_t e = entry(f, 0);
  std::vector<Field> fields = splitFields(std::vector<uint8_t>(
      f.begin() + rd64(f, e + 8), f.begin() + rd64(f, e + 8) + rd64(f, e + 16)));
  std::vector<uint8_t> m;
  encodeManifest(other, m);
  for (const Field &source : splitFields(m))
    for (Field &field : fields)
      if (field.tag == tag && source.tag == tag)
        field.payload = source.payload;
  return withManifest(f, joinFields(fields));
}

TEST(CpuVariants, EachVariantHasExactlyOneEntry) {
  std::vector<uint8_t> f = serialize(withCpuVariants());
  EXPECT_EQ(decodeError(withoutField(f, 0x8000000fu, 6)),
            "binary 'cpu:x86-64-v4+avx512bf16' has no entry in manifest "
            "field 15 (cpuVariants)");
  // An entry for a binary that is not there.
  Artifact other = withCpuVariants();
  other.binaries[2].target = "cpu:x86-64-v2";
  EXPECT_EQ(decodeError(withFieldOf(f, other, 0x8000000fu)),
            "manifest field 15 (cpuVariants) names 'cpu:x86-64-v2', which is "
            "not a binary of a CPU variant");
  // Two entries for one.
  other = withCpuVariants();
  other.binaries[2].target = other.binaries[0].target;
  EXPECT_EQ(decodeError(withFieldOf(f, other, 0x8000000fu)),
            "manifest field 15 (cpuVariants) names "
            "'cpu:x86-64-v4+avx512bf16' twice");
  // Field 9's features belong to a binary named "cpu".
  other = withCpuVariants();
  test::addBinary(other, "cpu", TargetBinary::Format::ElfSharedObject, {4});
  other.binaries.back().cpuFeatures = {"avx2"};
  EXPECT_EQ(decodeError(withFieldOf(f, other, 0x80000009u)),
            "manifest field 9 (cpuFeatures) lists CPU features, but there is "
            "no binary 'cpu'");
}

TEST(CpuVariants, TruncatedEntriesNameTheVariant) {
  std::vector<uint8_t> m;
  encodeManifest(withCpuVariants(), m);
  std::vector<Field> fields = splitFields(m);
  ASSERT_EQ(fields.back().tag, 0x8000000fu);
  std::vector<Field> cut = fields;
  cut.back().payload.pop_back();
  EXPECT_EQ(manifestError(joinFields(cut)),
            "manifest is truncated or corrupt (reading CPU variant 1)");
  cut = fields;
  wr32(cut.back().payload, 0, 0x7fffffff);
  EXPECT_EQ(manifestError(joinFields(cut)),
            "manifest is truncated or corrupt (reading the CPU variants)");
}

} // namespace
