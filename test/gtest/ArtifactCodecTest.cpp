//===- ArtifactCodecTest.cpp - .tsl layout: round trip and corruption -----===//
//
// The file layout: header fields, section alignment, CRCs, and every check
// deserialize() makes on the header and the section table.
//
//===----------------------------------------------------------------------===//

#include "ArtifactBytes.h"
#include "TestArtifacts.h"
#include "format/Crc32.h"
#include "format/Layout.h"
#include "format/Manifest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

using namespace tessel;
using namespace tessel::format;
using namespace tessel::test::bytes;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {


/// A small artifact with fake binaries (the codec does not look inside).
Artifact small() {
  Artifact a = test::weightModel({false, false, false, false});
  test::addBinary(a, "cpu",
                        TargetBinary::Format::ElfSharedObject,
                        {0x7f, 'E', 'L', 'F', 1, 2, 3});
  test::addBinary(a, "cuda:sm_90a", TargetBinary::Format::Ptx, {'.', 'v', 'e', 'r'});
  return a;
}

void expectSameShape(const Shape &a, const Shape &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].symbol, b[i].symbol);
    EXPECT_EQ(a[i].value, b[i].value);
  }
}

TEST(ArtifactCodec, RoundTripPreservesEverything) {
  Artifact in = test::addModel({false, false, false, false});
  test::addBinary(in, "rocm:gfx90a:xnack-", TargetBinary::Format::Hsaco,
                         std::vector<uint8_t>(5000, 0xCD));
  std::vector<uint8_t> bytes = serialize(in);
  Artifact out;
  std::string error;
  ASSERT_TRUE(deserialize(bytes.data(), bytes.size(), out, error)) << error;

  EXPECT_EQ(out.producer, "tessel-tests");
  EXPECT_EQ(out.modelName, "add");
  ASSERT_EQ(out.inputs.size(), 2u);
  EXPECT_EQ(out.inputs[1].name, "b");
  EXPECT_EQ(out.inputs[1].buffer, 1u);
  expectSameShape(out.inputs[0].shape, in.inputs[0].shape);
  EXPECT_EQ(out.inputs[0].shape[0].value, -1);
  ASSERT_EQ(out.outputs.size(), 2u);
  EXPECT_EQ(out.outputs[1].shape.size(), 0u);
  ASSERT_EQ(out.buffers.size(), in.buffers.size());
  for (size_t i = 0; i < in.buffers.size(); ++i) {
    EXPECT_EQ(out.buffers[i].kind, in.buffers[i].kind);
    EXPECT_EQ(out.buffers[i].dtype, in.buffers[i].dtype);
    expectSameShape(out.buffers[i].shape, in.buffers[i].shape);
  }
  ASSERT_EQ(out.kernels.size(), 2u);
  EXPECT_EQ(out.kernels[1].symbol, "sum_all");
  EXPECT_EQ(out.kernels[1].onnxNode, "ReduceSum_0");
  EXPECT_EQ(out.kernels[1].onnxOp, "ReduceSum");
  ASSERT_EQ(out.plan.size(), 3u);
  EXPECT_EQ(out.plan[2].kernel, 1u);
  ASSERT_EQ(out.plan[2].args.size(), 2u);
  expectSameShape(out.plan[2].args[0].shape, in.plan[2].args[0].shape);
  expectSameShape(out.plan[1].workSize, in.plan[1].workSize);
  ASSERT_EQ(out.binaries.size(), 1u);
  EXPECT_EQ(out.binaries[0].target, "rocm:gfx90a:xnack-");
  EXPECT_EQ(out.binaries[0].format, TargetBinary::Format::Hsaco);
  EXPECT_EQ(out.binaries[0].bytes, in.binaries[0].bytes);
}

TEST(ArtifactCodec, WeightsRoundTripAndMapInPlace) {
  Artifact in = small();
  std::vector<uint8_t> bytes = serialize(in);
  Artifact copied, mapped;
  std::string error;
  ASSERT_TRUE(deserialize(bytes.data(), bytes.size(), copied, error)) << error;
  EXPECT_EQ(copied.weights, in.weights);
  ASSERT_TRUE(deserialize(bytes.data(), bytes.size(), mapped, error,
                          /*copyWeights=*/false))
      << error;
  EXPECT_TRUE(mapped.weights.empty());
  EXPECT_EQ(mapped.weightsFileSize, in.weights.size());
  EXPECT_EQ(mapped.weightsFileOffset % kSectionAlignment, 0u);
  EXPECT_EQ(0, std::memcmp(&bytes[mapped.weightsFileOffset], in.weights.data(),
                           in.weights.size()));
  EXPECT_EQ(copied.weightsFileOffset, mapped.weightsFileOffset);
}

TEST(ArtifactCodec, HeaderAndSectionLayout) {
  std::vector<uint8_t> f = serialize(small());
  ASSERT_GE(f.size(), 64u);
  EXPECT_EQ(0, std::memcmp(f.data(), "TESSEL\0\x1a", 8));
  EXPECT_EQ(rd32(f, 8), kFormatVersionMajor);
  EXPECT_EQ(rd32(f, 12), kFormatVersionMinor);
  EXPECT_EQ(rd64(f, 16), f.size());
  EXPECT_EQ(rd64(f, 24), 64u);
  ASSERT_EQ(rd32(f, 32), 4u); // manifest, weights, 2 binaries
  const char *names[] = {"manifest", "weights", "cpu", "cuda:sm_90a"};
  for (size_t i = 0; i < 4; ++i) {
    size_t e = entry(f, i);
    EXPECT_EQ(rd64(f, e + 8) % 4096, 0u) << names[i];
    EXPECT_EQ(rd32(f, e + 24), crc32(&f[rd64(f, e + 8)], rd64(f, e + 16)))
        << names[i];
    EXPECT_STREQ(reinterpret_cast<const char *>(&f[e + 28]), names[i]);
  }
  // Padding and reserved bytes are zeros.
  for (size_t i = 44; i < 64; ++i)
    EXPECT_EQ(f[i], 0) << i;
  for (size_t i = 64 + 4 * 64; i < 4096; ++i)
    ASSERT_EQ(f[i], 0) << i;
  size_t manifest = entry(f, 0);
  EXPECT_EQ(rd32(f, 36),
            crc32(&f[rd64(f, manifest + 8)], rd64(f, manifest + 16)));
  EXPECT_EQ(rd32(f, 40), crc32(&f[64], 4 * 64));
}

TEST(ArtifactCodec, EmptyModelRoundTrips) {
  Artifact empty;
  std::vector<uint8_t> f = serialize(empty);
  Artifact out;
  std::string error;
  EXPECT_TRUE(deserialize(f.data(), f.size(), out, error)) << error;
  EXPECT_TRUE(out.plan.empty());
  EXPECT_EQ(out.weightsFileSize, 0u);
}

TEST(ArtifactCodec, RejectsBadMagic) {
  std::vector<uint8_t> f = serialize(small());
  f[0] = 'X';
  EXPECT_THAT(decodeError(f), HasSubstr("bad magic"));
}

TEST(ArtifactCodec, RejectsOtherMajorVersion) {
  std::vector<uint8_t> f = serialize(small());
  wr32(f, 12, 0); // the minor version
  wr32(f, 8, 4);
  EXPECT_EQ(decodeError(f),
            "unsupported format version 4.0 (this runtime reads 3.x)");
  // Version 2 had shape rules and an untagged manifest.
  wr32(f, 8, 2);
  EXPECT_EQ(decodeError(f),
            "unsupported format version 2.0 (this runtime reads 3.x)");
}

TEST(ArtifactCodec, ShapeProgramRoundTrips) {
  Artifact in = test::reshapeModel({false, false, false, false});
  in.shapeProgram[1].allowZero = true;
  in.shapeProgram[1].message = "x viewed by the values of shape";
  using K = ShapeOp::Kind;
  for (K kind : {K::Add, K::Sub, K::Mul, K::FloorDiv, K::CeilDiv, K::Mod,
                 K::Min, K::Max}) {
    ShapeOp op;
    op.kind = kind;
    op.operands = {{-1, "n"}, {-7, ""}};
    op.results = {{-1, "k" + std::to_string(static_cast<uint32_t>(kind))}};
    op.onnxNode = "node_" + std::to_string(static_cast<uint32_t>(kind));
    op.onnxOp = "Op";
    in.shapeProgram.push_back(op);
  }
  ShapeOp check;
  check.kind = K::CheckEq;
  check.operands = {{-1, "k0"}, {-1, "r.d0"}};
  check.onnxNode = "add_1";
  check.onnxOp = "Add";
  check.message = "dim 1 of A and B";
  in.shapeProgram.push_back(check);
  std::vector<uint8_t> bytes = serialize(in);
  Artifact out;
  std::string error;
  ASSERT_TRUE(deserialize(bytes.data(), bytes.size(), out, error)) << error;
  ASSERT_EQ(out.shapeProgram.size(), in.shapeProgram.size());
  for (size_t i = 0; i < in.shapeProgram.size(); ++i) {
    const ShapeOp &a = in.shapeProgram[i], &b = out.shapeProgram[i];
    EXPECT_EQ(b.kind, a.kind) << i;
    expectSameShape(b.operands, a.operands);
    expectSameShape(b.results, a.results);
    EXPECT_EQ(b.input, a.input) << i;
    EXPECT_EQ(b.allowZero, a.allowZero) << i;
    EXPECT_EQ(b.onnxNode, a.onnxNode) << i;
    EXPECT_EQ(b.onnxOp, a.onnxOp) << i;
    EXPECT_EQ(b.message, a.message) << i;
  }
  EXPECT_EQ(out.shapeProgram[0].input, 1u);
  EXPECT_TRUE(out.shapeProgram[1].allowZero);
}

TEST(ArtifactCodec, BufferValuesKeepTheirBuffer) {
  Artifact in = test::readbackModel({false, false, false, false});
  std::vector<uint8_t> bytes = serialize(in);
  Artifact out;
  std::string error;
  ASSERT_TRUE(deserialize(bytes.data(), bytes.size(), out, error)) << error;
  ASSERT_EQ(out.shapeProgram.size(), 1u);
  EXPECT_EQ(out.shapeProgram[0].kind, ShapeOp::Kind::BufferValues);
  EXPECT_EQ(out.shapeProgram[0].buffer, 1u);
  EXPECT_EQ(out.shapeProgram[0].input, 0u);
  expectSameShape(out.shapeProgram[0].results, in.shapeProgram[0].results);
  ASSERT_EQ(out.regions.size(), 1u);
  EXPECT_EQ(out.regions[0].steps.size(), 3u);
}

TEST(ArtifactCodec, HostValuesRoundTripAndAreWrittenOnlyWhenUsed) {
  Artifact in = test::reshapeModel({false, false, false, false});
  std::vector<uint8_t> without = serialize(in);
  in.buffers.push_back({Buffer::Kind::Transient, DType::I64, {{3, ""}}});
  in.hostValues.push_back({uint32_t(in.buffers.size() - 1),
                           {{-1, "r.d0"}, {-1, ""}, {7, ""}}});
  std::vector<uint8_t> bytes = serialize(in);
  Artifact out;
  std::string error;
  ASSERT_TRUE(deserialize(bytes.data(), bytes.size(), out, error)) << error;
  ASSERT_EQ(out.hostValues.size(), 1u);
  EXPECT_EQ(out.hostValues[0].buffer, in.hostValues[0].buffer);
  expectSameShape(out.hostValues[0].values, in.hostValues[0].values);
  Artifact plain;
  ASSERT_TRUE(deserialize(without.data(), without.size(), plain, error))
      << error;
  EXPECT_TRUE(plain.hostValues.empty());
}

void expectSameViews(const std::vector<LaunchArg> &a,
                     const std::vector<LaunchArg> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].buffer, b[i].buffer) << i;
    expectSameShape(a[i].shape, b[i].shape);
  }
}

TEST(ArtifactCodec, RegionsAndControlOpsRoundTrip) {
  Artifact loopWithoutTripCount = test::loopModel({false, false, false, false});
  loopWithoutTripCount.controlOps[0].operands[0] = {kNoBuffer, {}};
  for (const Artifact &in :
       {test::ifModel({false, false, false, false}),
        test::nestedModel({false, false, false, false}), loopWithoutTripCount}) {
    SCOPED_TRACE(in.modelName);
    std::vector<uint8_t> m;
    encodeManifest(in, m);
    Artifact out;
    std::string error;
    ASSERT_TRUE(decodeManifest(m.data(), m.size(), out, error)) << error;
    ASSERT_EQ(out.regions.size(), in.regions.size());
    for (size_t i = 0; i < in.regions.size(); ++i) {
      const Region &a = in.regions[i], &b = out.regions[i];
      ASSERT_EQ(b.steps.size(), a.steps.size()) << i;
      for (size_t j = 0; j < a.steps.size(); ++j) {
        EXPECT_EQ(b.steps[j].kind, a.steps[j].kind) << i << " " << j;
        EXPECT_EQ(b.steps[j].index, a.steps[j].index) << i << " " << j;
      }
      expectSameViews(b.yields, a.yields);
    }
    ASSERT_EQ(out.controlOps.size(), in.controlOps.size());
    for (size_t i = 0; i < in.controlOps.size(); ++i) {
      const ControlOp &a = in.controlOps[i], &b = out.controlOps[i];
      EXPECT_EQ(b.kind, a.kind) << i;
      expectSameViews(b.operands, a.operands);
      EXPECT_EQ(b.regions, a.regions) << i;
      EXPECT_EQ(b.bodyArgs, a.bodyArgs) << i;
      EXPECT_EQ(b.results, a.results) << i;
      EXPECT_EQ(b.onnxNode, a.onnxNode) << i;
      EXPECT_EQ(b.onnxOp, a.onnxOp) << i;
    }
  }
}

TEST(ArtifactCodec, RejectsAnInvalidAllowZeroFlag) {
  // The flag is the only byte in which the manifests of an instruction with
  // and without allowZero differ.
  Artifact a = test::reshapeModel({false, false, false, false});
  std::vector<uint8_t> off, on;
  encodeManifest(a, off);
  a.shapeProgram[1].allowZero = true;
  encodeManifest(a, on);
  ASSERT_EQ(off.size(), on.size());
  size_t at = 0;
  while (at < off.size() && off[at] == on[at])
    ++at;
  ASSERT_LT(at, off.size());
  EXPECT_EQ(on[at], 1);
  on[at] = 2;
  Artifact out;
  std::string error;
  EXPECT_FALSE(decodeManifest(on.data(), on.size(), out, error));
  EXPECT_EQ(error, "manifest: invalid allowZero flag 2 in shape op 1");
}


std::vector<Field> sampleFields() {
  std::vector<uint8_t> m;
  encodeManifest(test::reshapeModel({false, false, false, false}), m);
  return splitFields(m);
}


TEST(ManifestFields, AreWrittenInTagOrderWithTheRequiredBit) {
  std::vector<uint32_t> tags;
  for (const Field &f : sampleFields())
    tags.push_back(f.tag);
  EXPECT_EQ(tags, (std::vector<uint32_t>{1, 2, 0x80000003, 0x80000004,
                                         0x80000005, 0x80000006, 0x80000007,
                                         0x80000008, 0x80000009, 0x8000000e}));
}

TEST(ManifestFields, HostValuesAreARequiredFieldWrittenOnlyWhenUsed) {
  // Without host values the manifest has fields 1-9 (and 14, the kernel
  // params); with them, field 10 is required, since ignoring it would run
  // kernels on unwritten buffers.
  std::vector<Field> plain = sampleFields();
  ASSERT_EQ(plain.size(), 10u);
  EXPECT_EQ(plain[8].tag, 9u | 0x80000000u);
  Artifact a = test::reshapeModel({false, false, false, false});
  a.buffers.push_back({Buffer::Kind::Transient, DType::I64, {{1, ""}}});
  a.hostValues.push_back({uint32_t(a.buffers.size() - 1), {{-1, "r.d2"}}});
  std::vector<uint8_t> m;
  encodeManifest(a, m);
  std::vector<Field> fields = splitFields(m);
  ASSERT_EQ(fields.size(), 11u);
  EXPECT_EQ(fields[9].tag, 10u | 0x80000000u);
}

TEST(ManifestFields, ControlFlowFieldsAreRequiredAndWrittenOnlyWhenUsed) {
  // A runtime that ignored the regions would run only part of the plan, so
  // fields 11 and 12 are required; a plan without them stays a 3.0 one.
  std::vector<uint8_t> m;
  encodeManifest(test::loopModel({false, false, false, false}), m);
  std::vector<uint32_t> tags;
  for (const Field &f : splitFields(m))
    tags.push_back(f.tag);
  EXPECT_EQ(tags,
            (std::vector<uint32_t>{1, 2, 0x80000003, 0x80000004, 0x80000005,
                                   0x80000006, 0x80000007, 0x80000008,
                                   0x80000009, 0x8000000b, 0x8000000c,
                                   0x8000000e}));
  // Control ops are written on their own, so that validation sees them.
  Artifact a = test::reshapeModel({false, false, false, false});
  a.controlOps = test::ifModel().controlOps;
  m.clear();
  encodeManifest(a, m);
  std::vector<Field> fields = splitFields(m);
  EXPECT_EQ(fields[fields.size() - 2].tag, 0x8000000cu);
}

TEST(ManifestFields, TruncatedControlFlowFieldsNameTheElement) {
  std::vector<uint8_t> m;
  encodeManifest(test::nestedModel({false, false, false, false}), m);
  std::vector<Field> fields = splitFields(m);
  ASSERT_EQ(fields.size(), 12u);
  std::vector<Field> cut = fields;
  cut[9].payload.pop_back(); // the yields of the last region
  EXPECT_EQ(manifestError(joinFields(cut)),
            "manifest is truncated or corrupt (reading region 3)");
  cut = fields;
  cut[10].payload.resize(cut[10].payload.size() - 3); // the last onnxOp
  EXPECT_EQ(manifestError(joinFields(cut)),
            "manifest is truncated or corrupt (reading control op 1)");
  // A count larger than the bytes left is caught before any allocation.
  cut = fields;
  wr32(cut[10].payload, 0, 0x7fffffff);
  EXPECT_EQ(manifestError(joinFields(cut)),
            "manifest is truncated or corrupt (reading the control ops)");
}

TEST(ManifestFields, UnknownOptionalFieldsAreSkipped) {
  std::vector<Field> fields = sampleFields();
  fields.insert(fields.begin() + 3, Field{0x10, {1, 2, 3, 4, 5}});
  fields.insert(fields.begin(), Field{0x7fffffff, {}});
  fields.push_back(Field{0x11, std::vector<uint8_t>(100, 0xff)});
  std::vector<uint8_t> m = joinFields(fields);
  Artifact a;
  std::string error;
  ASSERT_TRUE(decodeManifest(m.data(), m.size(), a, error)) << error;
  EXPECT_EQ(a.modelName, "reshape");
  EXPECT_EQ(a.inputs.size(), 2u);
  EXPECT_EQ(a.shapeProgram.size(), 2u);
  EXPECT_TRUE(validate(a, error)) << error;
}

TEST(ManifestFields, UnknownRequiredFieldIsRejected) {
  std::vector<Field> fields = sampleFields();
  fields.push_back(Field{0x80000010, {1, 2, 3}});
  EXPECT_EQ(manifestError(joinFields(fields)),
            "manifest field 0x80000010 is required but unknown to this "
            "runtime (format 3." + std::to_string(kFormatVersionMinor) +
                "): the artifact needs a newer runtime");
  fields = sampleFields();
  fields.insert(fields.begin(), Field{0x80000000, {}}); // id 0 is unknown
  EXPECT_THAT(manifestError(joinFields(fields)),
              StartsWith("manifest field 0x80000000 is required but unknown"));
}

TEST(ManifestFields, KnownFieldsAreReadWhateverTheirRequiredBit) {
  // Bit 31 only tells a reader that does not know the field what to do.
  std::vector<Field> fields = sampleFields();
  fields[2].tag = 3;          // inputs, unmarked
  fields[0].tag = 0x80000001; // producer, marked
  std::vector<uint8_t> m = joinFields(fields);
  Artifact a;
  std::string error;
  ASSERT_TRUE(decodeManifest(m.data(), m.size(), a, error)) << error;
  EXPECT_EQ(a.inputs.size(), 2u);
  EXPECT_EQ(a.producer, "tessel-tests");
}

TEST(ManifestFields, DuplicateFieldsAreRejected) {
  std::vector<Field> fields = sampleFields();
  fields.push_back(fields[4]);
  EXPECT_EQ(manifestError(joinFields(fields)),
            "manifest field 5 (buffers) appears more than once");
  fields = sampleFields();
  fields.push_back(fields[0]);
  EXPECT_EQ(manifestError(joinFields(fields)),
            "manifest field 1 (producer) appears more than once");
}

TEST(ManifestFields, MissingFields) {
  std::vector<Field> fields = sampleFields();
  fields.erase(fields.begin() + 7);
  EXPECT_EQ(manifestError(joinFields(fields)),
            "manifest lacks the required field 8 (shapeProgram)");
  EXPECT_EQ(manifestError({}), "manifest lacks the required field 3 (inputs)");
  // The optional ones may be left out.
  fields = sampleFields();
  fields.erase(fields.begin(), fields.begin() + 2);
  std::vector<uint8_t> m = joinFields(fields);
  Artifact a;
  std::string error;
  ASSERT_TRUE(decodeManifest(m.data(), m.size(), a, error)) << error;
  EXPECT_EQ(a.producer, "");
  EXPECT_EQ(a.modelName, "");
}

TEST(ManifestFields, PayloadsAreConsumedExactly) {
  std::vector<Field> fields = sampleFields();
  fields[7].payload.push_back(0);
  EXPECT_EQ(manifestError(joinFields(fields)),
            "manifest field 8 (shapeProgram) has 1 unexpected trailing bytes");
  // A payload too short for what it holds: its reader stops at its end
  // rather than reading the next field.
  fields = sampleFields();
  fields[7].payload.pop_back();
  EXPECT_EQ(manifestError(joinFields(fields)),
            "manifest is truncated or corrupt (reading shape op 1)");
}

TEST(ManifestFields, TruncatedFieldsAreRejected) {
  std::vector<Field> sample = sampleFields();
  std::vector<uint8_t> m = joinFields(sample);
  size_t lastLength = sample.back().payload.size();
  char lastTag[16];
  std::snprintf(lastTag, sizeof lastTag, "0x%08x", sample.back().tag);
  std::vector<uint8_t> cut(m.begin(), m.end() - 1);
  EXPECT_EQ(manifestError(cut),
            "manifest is truncated or corrupt (field " + std::string(lastTag) +
                " has " + std::to_string(lastLength) + " bytes, but only " +
                std::to_string(lastLength - 1) + " are left)");
  // Cut inside the header of the last field (fields count from 0).
  cut.assign(m.begin(), m.end() - lastLength - 5);
  EXPECT_EQ(manifestError(cut),
            "manifest is truncated or corrupt (reading the header of field " +
                std::to_string(sample.size() - 1) + ")");
  // A length that overflows any bound.
  std::vector<Field> fields = sampleFields();
  std::vector<uint8_t> huge = joinFields(fields);
  size_t lastAt = huge.size() - lastLength - 12;
  wr64(huge, lastAt + 4, ~uint64_t(0));
  EXPECT_THAT(manifestError(huge),
              StartsWith("manifest is truncated or corrupt (field " +
                         std::string(lastTag) +
                         " has 18446744073709551615 bytes"));
}


TEST(ArtifactCodec, AcceptsNewerMinorVersionWithAddedFields) {
  Artifact in = small();
  std::vector<uint8_t> f = serialize(in);
  wr32(f, 12, kFormatVersionMinor + 1);
  Artifact out;
  std::string error;
  EXPECT_TRUE(deserialize(f.data(), f.size(), out, error)) << error;
  // A field this reader does not know, marked optional: skipped.
  std::vector<uint8_t> m;
  encodeManifest(in, m);
  std::vector<uint8_t> field(12 + 3, 0);
  wr32(field, 0, 0x10);
  wr64(field, 4, 3);
  std::vector<uint8_t> optional = m;
  optional.insert(optional.end(), field.begin(), field.end());
  std::vector<uint8_t> g = withManifest(f, optional);
  ASSERT_TRUE(deserialize(g.data(), g.size(), out, error)) << error;
  EXPECT_EQ(out.weights, in.weights);
  EXPECT_EQ(out.binaries.size(), 2u);
  // The same field marked required: this runtime is too old for the file.
  wr32(field, 0, 0x80000010);
  std::vector<uint8_t> required = m;
  required.insert(required.end(), field.begin(), field.end());
  EXPECT_EQ(decodeError(withManifest(f, required)),
            "manifest field 0x80000010 is required but unknown to this "
            "runtime (format 3." + std::to_string(kFormatVersionMinor) +
                "): the artifact needs a newer runtime");
}

TEST(ArtifactCodec, RejectsTruncationAndTrailingData) {
  std::vector<uint8_t> f = serialize(small());
  std::vector<uint8_t> cut(f.begin(), f.end() - 1);
  EXPECT_THAT(decodeError(cut), StartsWith("truncated file: the header says"));
  std::vector<uint8_t> tiny(f.begin(), f.begin() + 10);
  EXPECT_THAT(decodeError(tiny), HasSubstr("smaller than the 64-byte header"));
  std::vector<uint8_t> longer = f;
  longer.push_back(0);
  EXPECT_THAT(decodeError(longer), HasSubstr("trailing data"));
  EXPECT_THAT(decodeError({}), StartsWith("truncated file: 0 bytes"));
}

TEST(ArtifactCodec, RejectsCorruptSectionTable) {
  std::vector<uint8_t> f = serialize(small());
  f[entry(f, 1) + 16] ^= 1; // weights size, without fixing the CRC
  EXPECT_EQ(decodeError(f), "corrupt section table (CRC mismatch)");
}

TEST(ArtifactCodec, RejectsCorruptionAnywhere) {
  std::vector<uint8_t> f = serialize(small());
  f[rd64(f, entry(f, 0) + 8) + 3] ^= 0x40;
  EXPECT_EQ(decodeError(f), "corrupt section 0 ('manifest') (CRC mismatch)");
  f = serialize(small());
  f[rd64(f, entry(f, 1) + 8) + 5] ^= 0x01; // a weight
  EXPECT_EQ(decodeError(f), "corrupt section 1 ('weights') (CRC mismatch)");
  f = serialize(small());
  f[rd64(f, entry(f, 2) + 8)] ^= 0x10; // the CPU binary
  EXPECT_EQ(decodeError(f), "corrupt section 2 ('cpu') (CRC mismatch)");
  f = serialize(small());
  f[1000] = 7; // padding after the section table
  EXPECT_EQ(decodeError(f), "corrupt padding at offset 1000 (expected zeros)");
  f = serialize(small());
  f[rd64(f, entry(f, 0) + 8) + rd64(f, entry(f, 0) + 16) + 1] = 1;
  EXPECT_THAT(decodeError(f), HasSubstr("corrupt padding at offset"));
  f = serialize(small());
  f[50] = 1;
  EXPECT_EQ(decodeError(f), "corrupt header (reserved bytes are not zero)");
  f = serialize(small());
  f[36] ^= 1; // the header's copy of the manifest CRC
  EXPECT_EQ(decodeError(f), "corrupt manifest (CRC mismatch)");
}

TEST(ArtifactCodec, RejectsTableOutsideFile) {
  std::vector<uint8_t> f = serialize(small());
  wr32(f, 32, 100000);
  EXPECT_THAT(decodeError(f), HasSubstr("section table"));
  f = serialize(small());
  wr64(f, 24, f.size() - 10);
  EXPECT_THAT(decodeError(f), HasSubstr("is outside the file"));
  f = serialize(small());
  wr64(f, 24, 8); // overlaps the header
  EXPECT_THAT(decodeError(f), HasSubstr("is outside the file"));
}

TEST(ArtifactCodec, RejectsMisalignedSection) {
  std::vector<uint8_t> f = serialize(small());
  wr64(f, entry(f, 1) + 8, rd64(f, entry(f, 1) + 8) + 64);
  fixTableCrc(f);
  EXPECT_THAT(decodeError(f), HasSubstr("is not 4096-byte aligned"));
}

TEST(ArtifactCodec, RejectsSectionOutOfBounds) {
  std::vector<uint8_t> f = serialize(small());
  wr64(f, entry(f, 2) + 16, f.size());
  fixTableCrc(f);
  EXPECT_THAT(decodeError(f), HasSubstr("is outside the file"));
  f = serialize(small());
  wr64(f, entry(f, 2) + 16, ~uint64_t(0)); // offset + size overflows
  fixTableCrc(f);
  EXPECT_THAT(decodeError(f), HasSubstr("is outside the file"));
}

TEST(ArtifactCodec, RejectsOverlappingSections) {
  std::vector<uint8_t> f = serialize(small());
  // Point the cpu binary at the manifest.
  wr64(f, entry(f, 2) + 8, rd64(f, entry(f, 0) + 8));
  fixSectionCrc(f, 2);
  fixTableCrc(f);
  EXPECT_THAT(decodeError(f), HasSubstr("overlap"));
}

TEST(ArtifactCodec, RejectsMissingOrDuplicateSections) {
  std::vector<uint8_t> f = serialize(small());
  wr32(f, entry(f, 0), 3); // the manifest becomes a binary
  fixTableCrc(f);
  EXPECT_EQ(decodeError(f), "no manifest section");
  f = serialize(small());
  wr32(f, entry(f, 2), 2); // a binary becomes a second weights section
  fixTableCrc(f);
  EXPECT_EQ(decodeError(f), "more than one weights section");
}

TEST(ArtifactCodec, UnknownSectionKindOnlyFromNewerMinor) {
  std::vector<uint8_t> f = serialize(small());
  wr32(f, entry(f, 3), 77);
  fixTableCrc(f);
  EXPECT_THAT(decodeError(f), HasSubstr("unknown section kind 77"));
  wr32(f, 12, kFormatVersionMinor + 1);
  Artifact out;
  std::string error;
  ASSERT_TRUE(deserialize(f.data(), f.size(), out, error)) << error;
  EXPECT_EQ(out.binaries.size(), 1u); // the unknown section is skipped
}

TEST(ArtifactCodec, RejectsUnterminatedSectionName) {
  std::vector<uint8_t> f = serialize(small());
  std::memset(&f[entry(f, 2) + 28], 'x', 36);
  fixTableCrc(f);
  EXPECT_THAT(decodeError(f), HasSubstr("name is not NUL-terminated"));
}

TEST(ArtifactCodec, FailedDecodeLeavesEmptyArtifact) {
  std::vector<uint8_t> f = serialize(small());
  f[rd64(f, entry(f, 0) + 8)] ^= 1;
  Artifact out = small();
  std::string error;
  EXPECT_FALSE(deserialize(f.data(), f.size(), out, error));
  EXPECT_TRUE(out.buffers.empty());
  EXPECT_TRUE(out.binaries.empty());
}

TEST(ArtifactCodec, Crc32MatchesTheStandardCheckValue) {
  EXPECT_EQ(crc32("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(crc32("", 0), 0u);
  // Chunked computation equals one pass.
  EXPECT_EQ(crc32("6789", 4, crc32("12345", 5)), 0xCBF43926u);
  // The 8-bytes-at-a-time path agrees with byte-at-a-time at every length.
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 131 + 7);
  uint32_t bytewise = 0;
  for (size_t n = 0; n < data.size(); ++n) {
    ASSERT_EQ(crc32(data.data(), n), bytewise) << n;
    bytewise = crc32(&data[n], 1, bytewise);
  }
}

TEST(ArtifactCodec, DTypesAndShapes) {
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::Bool), 1u);
  EXPECT_EQ(dtypeSize(static_cast<DType>(8)), 0u); // ONNX STRING
  EXPECT_STREQ(dtypeName(DType::I64), "int64");
  EXPECT_STREQ(dtypeName(static_cast<DType>(99)), "unknown");
  EXPECT_EQ(formatShape({{-1, "batch"}, {3, ""}}), "[batch, 3]");
  EXPECT_EQ(formatShape({}), "[]");
}

//===----------------------------------------------------------------------===//
// Launch configs (format 3.3, manifest field 13)
//===----------------------------------------------------------------------===//

} // namespace

