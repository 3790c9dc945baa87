//===- CpuVariantsTest.cpp - Which CPU binary of an artifact runs ---------===//
//
// selectCpuBinary on CPUs described by a table instead of cpuid: the best
// variant the CPU supports, a named one, and the errors that name what a
// CPU lacks. The end-to-end half (compiled variants, each run) is in
// test/python/test_tessel.py and test/lit/tools/cpu-variants.test.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"
#include "drivers/cpu/CpuVariants.h"

#include <gtest/gtest.h>

#include <set>

using namespace tessel;
using namespace tessel::runtime;
using format::Artifact;
using format::TargetBinary;

namespace {

/// A CPU with exactly `features`; every name of CpuFeatures.h is known.
HostFeatureQuery cpuWith(std::set<std::string> features) {
  return [features](const std::string &name, bool &known) {
    known = name != "quantum-ops";
    return features.count(name) > 0;
  };
}

Artifact variants() {
  Artifact a = test::addModel({false, false, false, false});
  test::addBinary(a, "cpu:x86-64-v3", TargetBinary::Format::ElfSharedObject,
                  {1});
  test::addBinary(a, "cuda:sm_90", TargetBinary::Format::Ptx, {2});
  test::addBinary(a, "cpu:x86-64-v4+avx512bf16",
                  TargetBinary::Format::ElfSharedObject, {3});
  a.binaries[0].cpuFeatures = {"avx2", "fma"};
  a.binaries[2].cpuFeatures = {"avx2", "fma", "avx512f", "avx512bf16"};
  return a;
}

std::string pick(const Artifact &a, const std::string &requested,
                 const HostFeatureQuery &host, std::string *error = nullptr) {
  const TargetBinary *binary = nullptr;
  Status s = selectCpuBinary(a, requested, host, binary);
  if (error)
    *error = s.message();
  return s.isOk() ? binary->target : "";
}

TEST(CpuVariants, PicksTheVariantWithTheMostExtensionsTheCpuHas) {
  Artifact a = variants();
  EXPECT_EQ(pick(a, "", cpuWith({"avx2", "fma", "avx512f", "avx512bf16"})),
            "cpu:x86-64-v4+avx512bf16");
  // Without AVX512-BF16 (Skylake-X, Zen 3): the AVX2 variant.
  EXPECT_EQ(pick(a, "", cpuWith({"avx2", "fma", "avx512f"})),
            "cpu:x86-64-v3");
  // Artifact order does not decide; the extensions do.
  std::swap(a.binaries[0], a.binaries[2]);
  EXPECT_EQ(pick(a, "", cpuWith({"avx2", "fma", "avx512f", "avx512bf16"})),
            "cpu:x86-64-v4+avx512bf16");
}

TEST(CpuVariants, ANamedVariantRunsOrIsRefused) {
  Artifact a = variants();
  HostFeatureQuery zen5 = cpuWith({"avx2", "fma", "avx512f", "avx512bf16"});
  EXPECT_EQ(pick(a, "cpu:x86-64-v3", zen5), "cpu:x86-64-v3");
  EXPECT_EQ(pick(a, "x86-64-v3", zen5), "cpu:x86-64-v3"); // "cpu:" implied
  std::string error;
  EXPECT_EQ(pick(a, "x86-64-v2", zen5, &error), "");
  EXPECT_EQ(error, "the artifact has no CPU binary 'cpu:x86-64-v2' (it has "
                   "'cpu:x86-64-v3', 'cpu:x86-64-v4+avx512bf16')");
  EXPECT_EQ(pick(a, "cpu:x86-64-v4+avx512bf16", cpuWith({"avx2", "fma"}),
                 &error),
            "");
  EXPECT_EQ(error, "this CPU lacks x86-64 extensions that the artifact's CPU "
                   "code needs (cpu:x86-64-v4+avx512bf16 needs avx512f, "
                   "avx512bf16): compile for it with tessel-compile --mcpu "
                   "native, or for any x86-64 CPU with --mcpu x86-64-v2");
}

TEST(CpuVariants, ACpuThatRunsNoneIsToldWhatEachNeeds) {
  std::string error;
  EXPECT_EQ(pick(variants(), "", cpuWith({"sse4.2"}), &error), "");
  EXPECT_EQ(error, "this CPU lacks x86-64 extensions that the artifact's CPU "
                   "code needs (cpu:x86-64-v3 needs avx2, fma; "
                   "cpu:x86-64-v4+avx512bf16 needs avx2, fma, avx512f, "
                   "avx512bf16): compile for it with tessel-compile --mcpu "
                   "native, or for any x86-64 CPU with --mcpu x86-64-v2");
  Artifact gpuOnly = variants();
  gpuOnly.binaries = {gpuOnly.binaries[1]};
  EXPECT_EQ(pick(gpuOnly, "", cpuWith({}), &error), "");
  EXPECT_EQ(error, "artifact has no kernels for the CPU (targets: "
                   "cuda:sm_90)");
  Artifact unknown = variants();
  unknown.binaries[0].cpuFeatures.push_back("quantum-ops");
  EXPECT_EQ(pick(unknown, "", cpuWith({"avx2", "fma"}), &error), "");
  EXPECT_EQ(error, "the CPU binary 'cpu:x86-64-v3' needs the CPU feature "
                   "'quantum-ops', which this runtime does not know");
}

TEST(CpuVariants, TheHostQueryKnowsEveryRecordedFeature) {
  HostFeatureQuery host = hostCpuFeatures();
  bool known = false;
  host("avx512bf16", known);
  EXPECT_TRUE(known);
  host("quantum-ops", known);
  EXPECT_FALSE(known);
}

} // namespace
