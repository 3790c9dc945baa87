//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "io/Npy.h"
#include "TestArtifacts.h"
#include "io/HostTensor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace tessel;
using namespace tessel::io;
using format::DType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

/// A .npy image with a hand-written header, as numpy would write it.
std::vector<uint8_t> npy(const std::string &dict,
                         const std::vector<uint8_t> &data, int major = 1) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {
      0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  uint32_t len = static_cast<uint32_t>(header.size());
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<uint8_t> floatBytes(std::vector<float> v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::string parseError(const std::vector<uint8_t> &bytes) {
  HostTensor t;
  std::string error;
  EXPECT_FALSE(parseNpy(bytes.data(), bytes.size(), t, error));
  return error;
}

TEST(Npy, ReadsWhatNumpyWrites) {
  auto bytes =
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
          floatBytes({1, 2, 3, 4, 5, 6}));
  HostTensor t;
  std::string error;
  ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), t, error)) << error;
  EXPECT_EQ(t.dtype, DType::F32);
  EXPECT_THAT(t.shape, ElementsAre(2, 3));
  EXPECT_EQ(t.data, floatBytes({1, 2, 3, 4, 5, 6}));
}

TEST(Npy, ReadsVersions2And3AndScalars) {
  for (int major : {2, 3}) {
    auto bytes = npy("{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                     {7, 0, 0, 0, 0, 0, 0, 0}, major);
    HostTensor t;
    std::string error;
    ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), t, error)) << error;
    EXPECT_EQ(t.dtype, DType::I64);
    EXPECT_TRUE(t.shape.empty());
    EXPECT_EQ(t.elementCount(), 1u);
  }
}

TEST(Npy, AcceptsHeaderVariants) {
  // Double quotes, key order, no trailing comma, '|' and '=' byte orders,
  // Python 2 long suffixes, Fortran order for rank 1.
  const char *dicts[] = {
      "{\"descr\": \"|u1\", \"shape\": (3,), \"fortran_order\": False}",
      "{'shape': (3L,), 'fortran_order': True, 'descr': '|b1'}",
      "{'descr': '=i1', 'fortran_order': False, 'shape': (3,)}",
  };
  for (const char *dict : dicts) {
    auto bytes = npy(dict, {1, 0, 1});
    HostTensor t;
    std::string error;
    EXPECT_TRUE(parseNpy(bytes.data(), bytes.size(), t, error))
        << dict << ": " << error;
    EXPECT_THAT(t.shape, ElementsAre(3));
  }
}

TEST(Npy, RoundTripsEveryDType) {
  for (DType d : {DType::F16, DType::F32, DType::F64, DType::I8, DType::I16,
                  DType::I32, DType::I64, DType::U8, DType::U16, DType::U32,
                  DType::U64, DType::Bool}) {
    HostTensor t;
    t.dtype = d;
    t.shape = {2, 1, 3};
    t.data.resize(6 * format::dtypeSize(d));
    for (size_t i = 0; i < t.data.size(); ++i)
      t.data[i] = static_cast<uint8_t>(d == DType::Bool ? i % 2 : i * 7);
    std::vector<uint8_t> bytes;
    std::string error;
    ASSERT_TRUE(encodeNpy(t, bytes, error)) << error;
    EXPECT_EQ((bytes.size() - t.data.size()) % 64, 0u) << "data not aligned";
    HostTensor back;
    ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), back, error)) << error;
    EXPECT_EQ(back.dtype, d);
    EXPECT_EQ(back.shape, t.shape);
    EXPECT_EQ(back.data, t.data);
  }
}

TEST(Npy, WritesTheUsualHeader) {
  HostTensor t;
  t.shape = {3};
  t.data = floatBytes({1, 2, 3});
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(encodeNpy(t, bytes, error));
  ASSERT_EQ(bytes.size(), 128u + 12u); // 10-byte prefix + header, then data
  std::string header(bytes.begin() + 10, bytes.begin() + 128);
  EXPECT_THAT(
      header,
      HasSubstr("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"));
  EXPECT_EQ(header.back(), '\n');
}

TEST(Npy, RefusesWhatItCannotRepresent) {
  HostTensor t;
  t.dtype = DType::BF16;
  t.shape = {1};
  t.data = {0, 0};
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_FALSE(encodeNpy(t, bytes, error));
  EXPECT_EQ(error, "numpy has no dtype for bfloat16");
}

TEST(Npy, RejectsFortranOrderAndBigEndian) {
  EXPECT_THAT(parseError(npy("{'descr': '<f4', 'fortran_order': True, "
                             "'shape': (2, 2), }",
                             floatBytes({1, 2, 3, 4}))),
              HasSubstr("Fortran-order arrays are not supported"));
  EXPECT_THAT(parseError(npy("{'descr': '>f4', 'fortran_order': False, "
                             "'shape': (1,), }",
                             floatBytes({1}))),
              HasSubstr("big-endian data is not supported (dtype '>f4')"));
}

TEST(Npy, RejectsMalformedFiles) {
  const std::string f4 =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(parseError({'P', 'K', 3, 4}), "not a .npy file (bad magic)");
  EXPECT_EQ(parseError({0x93, 'N', 'U', 'M', 'P', 'Y', 1}),
            "truncated .npy header");
  auto bytes = npy(f4, floatBytes({1, 2}));
  bytes.resize(40);
  EXPECT_EQ(parseError(bytes), "truncated .npy header");
  EXPECT_EQ(parseError(npy(f4, floatBytes({1}))),
            "truncated data: expected 8 bytes, got 4");
  EXPECT_EQ(parseError(npy(f4, floatBytes({1, 2, 3}))),
            "4 unexpected bytes after the data");
  EXPECT_EQ(parseError(npy(f4, {}, 4)).substr(0, 27),
            "unsupported .npy version 4.");
  EXPECT_EQ(parseError(npy("{'descr': '<c8', 'fortran_order': False, "
                           "'shape': (1,), }",
                           {0, 0, 0, 0, 0, 0, 0, 0})),
            "unsupported dtype '<c8'");
  EXPECT_EQ(parseError(npy("{'descr': [('a', '<f4')], 'fortran_order': False, "
                           "'shape': (1,), }",
                           floatBytes({1}))),
            "structured arrays are not supported");
  EXPECT_THAT(
      parseError(npy("{'descr': '<f4', 'shape': (1,), }", floatBytes({1}))),
      HasSubstr("needs 'descr', 'fortran_order', 'shape'"));
  EXPECT_THAT(parseError(npy("{'descr': '<f4' 'shape'", {})),
              HasSubstr("malformed .npy header"));
  EXPECT_THAT(parseError(npy("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (-1,), }",
                             {})),
              HasSubstr("malformed .npy header"));
  EXPECT_EQ(parseError(npy("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (100000000000, 100000000000), }",
                           {})),
            "shape is too large");
}

TEST(Npy, EveryTruncationIsRejected) {
  auto bytes =
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
          floatBytes({1, 2, 3, 4, 5, 6}));
  for (size_t len = 0; len < bytes.size(); ++len) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + len);
    HostTensor t;
    std::string error;
    EXPECT_FALSE(parseNpy(cut.data(), cut.size(), t, error)) << len;
  }
}

TEST(Npy, FilesNameThePathInErrors) {
  test::TempDir dir;
  HostTensor t;
  t.shape = {2};
  t.data = floatBytes({1.5f, -2});
  std::string error;
  ASSERT_TRUE(writeNpyFile(dir.file("x.npy"), t, error)) << error;
  HostTensor back;
  ASSERT_TRUE(readTensorFile(dir.file("x.npy"), back, error)) << error;
  EXPECT_EQ(back.data, t.data);

  test::writeBytes(dir.file("bad.npy"), {1, 2, 3});
  EXPECT_FALSE(readTensorFile(dir.file("bad.npy"), back, error));
  EXPECT_EQ(error, dir.file("bad.npy") + ": not a .npy file (bad magic)");
  EXPECT_FALSE(readTensorFile(dir.file("missing.npy"), back, error));
  EXPECT_EQ(error, dir.file("missing.npy") + ": No such file or directory");
  EXPECT_FALSE(readTensorFile(dir.path(), back, error));
  EXPECT_EQ(error, dir.path() + ": not a regular file");
  EXPECT_FALSE(writeNpyFile(dir.file("no/such/dir.npy"), t, error));
  EXPECT_THAT(error, HasSubstr("No such file or directory"));
}

TEST(HostTensor, HalfAndBfloat16Conversions) {
  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0xC000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24)); // smallest subnormal
  EXPECT_EQ(halfToFloat(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfToFloat(0x8000), -0.0f);
  EXPECT_TRUE(std::isinf(halfToFloat(0x7C00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  EXPECT_EQ(bfloat16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(0xC040), -3.0f);
}

} // namespace
