//===- ArtifactBytes.h - Reading and patching serialized artifacts -*- C++ -*-===//
//
// Helpers of the codec tests (ArtifactCodecTest.cpp, ManifestFieldsTest.cpp)
// that read and rewrite the bytes of a .tsl: little-endian fields, section
// table entries and their CRCs, and the tagged fields of a manifest.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TEST_GTEST_ARTIFACTBYTES_H
#define TESSEL_TEST_GTEST_ARTIFACTBYTES_H

#include "format/Artifact.h"
#include "format/Crc32.h"
#include "format/Manifest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tessel::test::bytes {

inline uint32_t rd32(const std::vector<uint8_t> &f, size_t at) {
  uint32_t v;
  std::memcpy(&v, &f[at], 4);
  return v;
}
inline uint64_t rd64(const std::vector<uint8_t> &f, size_t at) {
  uint64_t v;
  std::memcpy(&v, &f[at], 8);
  return v;
}
inline void wr32(std::vector<uint8_t> &f, size_t at, uint32_t v) {
  std::memcpy(&f[at], &v, 4);
}
inline void wr64(std::vector<uint8_t> &f, size_t at, uint64_t v) {
  std::memcpy(&f[at], &v, 8);
}

/// Byte offset of section table entry `i`.
inline size_t entry(const std::vector<uint8_t> &f, size_t i) {
  return static_cast<size_t>(rd64(f, 24)) + i * 64;
}

/// Recomputes the CRC of section `i` (after moving or resizing it).
inline void fixSectionCrc(std::vector<uint8_t> &f, size_t i) {
  size_t e = entry(f, i);
  wr32(f, e + 24, format::crc32(&f[rd64(f, e + 8)], rd64(f, e + 16)));
}

inline void fixTableCrc(std::vector<uint8_t> &f) {
  size_t table = static_cast<size_t>(rd64(f, 24));
  wr32(f, 40, format::crc32(&f[table], rd32(f, 32) * 64));
}

inline std::string decodeError(const std::vector<uint8_t> &f) {
  format::Artifact a;
  std::string error;
  EXPECT_FALSE(format::deserialize(f.data(), f.size(), a, error));
  return error;
}

/// One field of a manifest: its tag and payload.
struct Field {
  uint32_t tag;
  std::vector<uint8_t> payload;
};

inline std::vector<Field> splitFields(const std::vector<uint8_t> &m) {
  std::vector<Field> fields;
  for (size_t at = 0; at < m.size();) {
    Field f;
    f.tag = rd32(m, at);
    uint64_t length = rd64(m, at + 4);
    f.payload.assign(m.begin() + at + 12, m.begin() + at + 12 + length);
    fields.push_back(f);
    at += 12 + length;
  }
  return fields;
}

inline std::vector<uint8_t> joinFields(const std::vector<Field> &fields) {
  std::vector<uint8_t> m;
  for (const Field &f : fields) {
    size_t at = m.size();
    m.resize(at + 12);
    wr32(m, at, f.tag);
    wr64(m, at + 4, f.payload.size());
    m.insert(m.end(), f.payload.begin(), f.payload.end());
  }
  return m;
}

inline std::string manifestError(const std::vector<uint8_t> &m) {
  format::Artifact a;
  std::string error;
  EXPECT_FALSE(format::decodeManifest(m.data(), m.size(), a, error));
  return error;
}

/// `f` with its manifest replaced by `m`, which must fit before the next
/// section, and every CRC fixed.
inline std::vector<uint8_t> withManifest(std::vector<uint8_t> f,
                                  const std::vector<uint8_t> &m) {
  size_t e = entry(f, 0);
  size_t begin = rd64(f, e + 8), end = begin + rd64(f, e + 16);
  size_t limit = (end + 4095) / 4096 * 4096;
  EXPECT_LE(begin + m.size(), limit);
  std::memset(&f[begin], 0, limit - begin);
  std::memcpy(&f[begin], m.data(), m.size());
  wr64(f, e + 16, m.size());
  wr32(f, 36, format::crc32(m.data(), m.size()));
  fixSectionCrc(f, 0);
  fixTableCrc(f);
  return f;
}

/// The serialized artifact `f` without the manifest field of `tag` (which
/// it must have) and with the header's minor version set to `minor`.
inline std::vector<uint8_t> withoutField(const std::vector<uint8_t> &f, uint32_t tag,
                                  uint32_t minor) {
  size_t e = entry(f, 0);
  std::vector<uint8_t> m(f.begin() + rd64(f, e + 8),
                         f.begin() + rd64(f, e + 8) + rd64(f, e + 16));
  std::vector<Field> fields = splitFields(m);
  auto it = std::find_if(fields.begin(), fields.end(),
                         [&](const Field &field) { return field.tag == tag; });
  EXPECT_NE(it, fields.end());
  if (it != fields.end())
    fields.erase(it);
  std::vector<uint8_t> g = withManifest(f, joinFields(fields));
  wr32(g, 12, minor);
  return g;
}

} // namespace tessel::test::bytes

#endif // TESSEL_TEST_GTEST_ARTIFACTBYTES_H
