//===- ArtifactFuzzTest.cpp - deserialize() on truncated and corrupt input -===//
//
// deserialize() must reject, never crash on, and never read outside of what
// it is given: every truncation of a valid file, every prefix of a valid
// manifest (with consistent CRCs, so the decoder itself is exercised),
// every single-byte flip, random multi-byte flips, random manifests with
// valid CRCs, and random files.
// Run under AddressSanitizer, over-reads would fail these tests too.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"
#include "format/Crc32.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace tessel;
using namespace tessel::format;

namespace {

uint64_t rd64(const std::vector<uint8_t> &f, size_t at) {
  uint64_t v;
  std::memcpy(&v, &f[at], 8);
  return v;
}

/// The byte ranges of a serialized artifact.
struct Layout {
  size_t tableBegin, tableEnd, manifestBegin, manifestEnd;
  explicit Layout(const std::vector<uint8_t> &f) {
    tableBegin = static_cast<size_t>(rd64(f, 24));
    uint32_t count;
    std::memcpy(&count, &f[32], 4);
    tableEnd = tableBegin + count * 64;
    manifestBegin = static_cast<size_t>(rd64(f, tableBegin + 8));
    manifestEnd = manifestBegin + static_cast<size_t>(rd64(f, tableBegin + 16));
  }
};

/// `file` with its manifest replaced by `manifest` (no longer than the
/// original) and both CRCs recomputed, so only the decoder can object.
std::vector<uint8_t> withManifest(std::vector<uint8_t> file,
                                  const std::vector<uint8_t> &manifest) {
  Layout l(file);
  if (!manifest.empty())
    std::memcpy(&file[l.manifestBegin], manifest.data(), manifest.size());
  // The bytes after a shorter manifest become padding: zeros.
  std::memset(&file[l.manifestBegin + manifest.size()], 0,
              l.manifestEnd - l.manifestBegin - manifest.size());
  uint64_t size = manifest.size();
  std::memcpy(&file[l.tableBegin + 16], &size, 8);
  uint32_t crc = crc32(manifest.data(), manifest.size());
  std::memcpy(&file[36], &crc, 4);
  std::memcpy(&file[l.tableBegin + 24], &crc, 4);
  uint32_t tableCrc = crc32(&file[l.tableBegin], l.tableEnd - l.tableBegin);
  std::memcpy(&file[40], &tableCrc, 4);
  return file;
}

bool decodes(const uint8_t *data, uint64_t size, std::string &error) {
  Artifact a;
  error.clear();
  bool ok = deserialize(data, size, a, error);
  if (ok) {
    std::string again;
    EXPECT_TRUE(validate(a, again)) << again;
  }
  return ok;
}

/// A model with every kind of element and small fake binaries.
std::vector<uint8_t> sample() {
  Artifact a = test::addModel({false, false, false, false});
  Artifact w = test::weightModel({false, false, false, false});
  a.weights = w.weights;
  for (uint32_t i : {1u, 2u}) {
    a.buffers.push_back(w.buffers[i]);
  }
  // The reshape model's inputs, output, kernel, launch and shape program,
  // and one instruction of every other kind.
  Artifact r = test::reshapeModel({false, false, false, false});
  uint32_t buffers = a.buffers.size(), inputs = a.inputs.size(),
           kernels = a.kernels.size();
  a.buffers.insert(a.buffers.end(), r.buffers.begin(), r.buffers.end());
  for (TensorSignature sig : r.inputs) {
    sig.buffer += buffers;
    a.inputs.push_back(sig);
  }
  for (TensorSignature sig : r.outputs) {
    sig.buffer += buffers;
    a.outputs.push_back(sig);
  }
  a.kernels.insert(a.kernels.end(), r.kernels.begin(), r.kernels.end());
  for (Launch l : r.plan) {
    l.kernel += kernels;
    for (LaunchArg &arg : l.args)
      arg.buffer += buffers;
    a.plan.push_back(l);
  }
  for (ShapeOp op : r.shapeProgram) {
    if (op.kind == ShapeOp::Kind::InputValues)
      op.input += inputs;
    a.shapeProgram.push_back(op);
  }
  using K = ShapeOp::Kind;
  for (K kind : {K::Add, K::Sub, K::Mul, K::FloorDiv, K::CeilDiv, K::Mod,
                 K::Min, K::Max}) {
    ShapeOp op;
    op.kind = kind;
    op.operands = {{-1, "batch"}, {-1, "r.d1"}};
    op.results = {{-1, "k" + std::to_string(static_cast<uint32_t>(kind))}};
    op.onnxNode = "n";
    op.onnxOp = "Op";
    a.shapeProgram.push_back(op);
  }
  ShapeOp check;
  check.kind = K::CheckEq;
  check.operands = {{-1, "k0"}, {3, ""}};
  check.message = "dims must agree";
  a.shapeProgram.push_back(check);
  test::addBinary(a, "cpu", TargetBinary::Format::ElfSharedObject,
                        std::vector<uint8_t>(100, 0x7f));
  test::addBinary(a, "cuda:sm_80", TargetBinary::Format::Ptx, std::vector<uint8_t>(50, '.'));
  return serialize(a);
}

/// The nested If-in-Loop model: regions, steps and control ops.
std::vector<uint8_t> controlFlowSample() {
  Artifact a = test::nestedModel({false, false, false, false});
  test::addBinary(a, "cpu", TargetBinary::Format::ElfSharedObject,
                        std::vector<uint8_t>(100, 0x7f));
  return serialize(a);
}

TEST(ArtifactFuzz, SampleIsValid) {
  for (const std::vector<uint8_t> &f : {sample(), controlFlowSample()}) {
    std::string error;
    ASSERT_TRUE(decodes(f.data(), f.size(), error)) << error;
  }
}

TEST(ArtifactFuzz, EveryTruncationIsRejected) {
  std::vector<uint8_t> f = serialize(test::addModel());
  for (size_t len = 0; len < f.size(); ++len) {
    // A copy of exactly `len` bytes, so that an over-read would be caught
    // by a sanitizer.
    std::vector<uint8_t> cut(f.begin(), f.begin() + len);
    std::string error;
    ASSERT_FALSE(decodes(cut.data(), cut.size(), error)) << len;
    ASSERT_FALSE(error.empty()) << len;
  }
}

void expectEveryManifestPrefixRejected(const std::vector<uint8_t> &f) {
  Layout l(f);
  std::vector<uint8_t> manifest(f.begin() + l.manifestBegin,
                                f.begin() + l.manifestEnd);
  ASSERT_GT(manifest.size(), 100u);
  for (size_t len = 0; len < manifest.size(); ++len) {
    std::vector<uint8_t> prefix(manifest.begin(), manifest.begin() + len);
    std::vector<uint8_t> g = withManifest(f, prefix);
    std::string error;
    ASSERT_FALSE(decodes(g.data(), g.size(), error)) << len;
    ASSERT_FALSE(error.empty()) << len;
  }
}

TEST(ArtifactFuzz, EveryManifestPrefixIsRejected) {
  for (const std::vector<uint8_t> &f : {sample(), controlFlowSample()})
    expectEveryManifestPrefixRejected(f);
}

TEST(ArtifactFuzz, EverySingleByteFlipIsRejected) {
  // Every byte is checked: header fields, CRCs of the table and of every
  // section, zero padding. Only the minor version may change freely.
  std::vector<uint8_t> f = sample();
  std::mt19937 rng(1234);
  for (size_t at = 0; at < f.size(); ++at) {
    if (at >= 12 && at < 16)
      continue;
    std::vector<uint8_t> g = f;
    g[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    std::string error;
    ASSERT_FALSE(decodes(g.data(), g.size(), error)) << "byte " << at;
    ASSERT_FALSE(error.empty());
  }
}

TEST(ArtifactFuzz, RandomFlipsNeverCrash) {
  std::vector<uint8_t> f = sample();
  Layout l(f);
  std::mt19937 rng(42);
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<uint8_t> g = f;
    int flips = 1 + rng() % 8;
    for (int k = 0; k < flips; ++k) {
      // Mostly where the structure is, sometimes anywhere.
      size_t at = rng() % 3 ? rng() % l.manifestEnd : rng() % g.size();
      g[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    }
    std::string error;
    decodes(g.data(), g.size(), error);
  }
}

/// Decodes random corruptions of the manifest of `f` with valid CRCs.
void fuzzManifest(const std::vector<uint8_t> &f, unsigned seed) {
  Layout l(f);
  std::vector<uint8_t> manifest(f.begin() + l.manifestBegin,
                                f.begin() + l.manifestEnd);
  std::mt19937 rng(seed);
  int accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<uint8_t> m = manifest;
    int flips = 1 + rng() % 4;
    for (int k = 0; k < flips; ++k) {
      size_t at = rng() % m.size();
      // Favour values that make lengths and indices interesting.
      static const uint8_t interesting[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
      m[at] = rng() % 2 ? interesting[rng() % 5] : static_cast<uint8_t>(rng());
    }
    m.resize(m.size() - rng() % 4);
    std::vector<uint8_t> g = withManifest(f, m);
    std::string error;
    if (decodes(g.data(), g.size(), error))
      ++accepted;
    else
      ASSERT_FALSE(error.empty());
  }
  // Most corruptions break something; a few (a changed name) do not.
  EXPECT_LT(accepted, 20000);
}

TEST(ArtifactFuzz, GarbageManifestsWithValidCrcNeverCrash) {
  fuzzManifest(sample(), 7);
  fuzzManifest(controlFlowSample(), 8);
}

TEST(ArtifactFuzz, RandomFilesAreRejected) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<uint8_t> g(rng() % 9000);
    for (uint8_t &b : g)
      b = static_cast<uint8_t>(rng());
    if (g.size() >= 16 && rng() % 2) {
      std::memcpy(g.data(), "TESSEL\0\x1a", 8);
      uint32_t version[2] = {kFormatVersionMajor, kFormatVersionMinor};
      std::memcpy(&g[8], version, 8);
      uint64_t size = g.size();
      if (g.size() >= 24)
        std::memcpy(&g[16], &size, 8);
    }
    std::string error;
    EXPECT_FALSE(decodes(g.data(), g.size(), error));
  }
}

} // namespace
