//===- TensorProtoTest.cpp - ONNX TensorProto (.pb) reading ---------------===//

#include "io/TensorProto.h"
#include "TestArtifacts.h"
#include "io/HostTensor.h"

#include <onnx/onnx_pb.h>

#include <gmock/gmock.h>

#include <limits>

#include <cmath>
#include <gtest/gtest.h>

#include <cstring>

using namespace tessel;
using namespace tessel::io;
using format::DType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

std::vector<uint8_t> bytesOf(const onnx::TensorProto &p) {
  std::string s = p.SerializeAsString();
  return std::vector<uint8_t>(s.begin(), s.end());
}

bool parse(const onnx::TensorProto &p, HostTensor &t, std::string &error) {
  std::vector<uint8_t> b = bytesOf(p);
  return parseTensorProto(b.data(), b.size(), t, error);
}

std::string parseError(const onnx::TensorProto &p) {
  HostTensor t;
  std::string error;
  EXPECT_FALSE(parse(p, t, error));
  return error;
}

template <typename T> std::vector<T> values(const HostTensor &t) {
  std::vector<T> v(t.data.size() / sizeof(T));
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

onnx::TensorProto tensor(onnx::TensorProto::DataType type,
                         std::vector<int64_t> dims) {
  onnx::TensorProto p;
  p.set_name("x");
  p.set_data_type(type);
  for (int64_t d : dims)
    p.add_dims(d);
  return p;
}

TEST(TensorProto, RawData) {
  auto p = tensor(onnx::TensorProto::FLOAT, {2, 2});
  float v[] = {1, 2, 3, 4};
  p.set_raw_data(std::string(reinterpret_cast<char *>(v), sizeof(v)));
  HostTensor t;
  std::string error;
  ASSERT_TRUE(parse(p, t, error)) << error;
  EXPECT_EQ(t.name, "x");
  EXPECT_EQ(t.dtype, DType::F32);
  EXPECT_THAT(t.shape, ElementsAre(2, 2));
  EXPECT_THAT(values<float>(t), ElementsAre(1, 2, 3, 4));
}

TEST(TensorProto, TypedFields) {
  HostTensor t;
  std::string error;

  auto f = tensor(onnx::TensorProto::FLOAT, {3});
  for (float x : {1.5f, -2.f, 0.f})
    f.add_float_data(x);
  ASSERT_TRUE(parse(f, t, error)) << error;
  EXPECT_THAT(values<float>(t), ElementsAre(1.5f, -2.f, 0.f));

  auto d = tensor(onnx::TensorProto::DOUBLE, {2});
  d.add_double_data(0.25);
  d.add_double_data(1e300);
  ASSERT_TRUE(parse(d, t, error)) << error;
  EXPECT_THAT(values<double>(t), ElementsAre(0.25, 1e300));

  auto l = tensor(onnx::TensorProto::INT64, {2});
  l.add_int64_data(-5);
  l.add_int64_data(int64_t(1) << 40);
  ASSERT_TRUE(parse(l, t, error)) << error;
  EXPECT_THAT(values<int64_t>(t), ElementsAre(-5, int64_t(1) << 40));

  auto u = tensor(onnx::TensorProto::UINT32, {1});
  u.add_uint64_data(4000000000u);
  ASSERT_TRUE(parse(u, t, error)) << error;
  EXPECT_THAT(values<uint32_t>(t), ElementsAre(4000000000u));

  auto u64 = tensor(onnx::TensorProto::UINT64, {1});
  u64.add_uint64_data(~uint64_t(0));
  ASSERT_TRUE(parse(u64, t, error)) << error;
  EXPECT_THAT(values<uint64_t>(t), ElementsAre(~uint64_t(0)));
}

TEST(TensorProto, NarrowTypesInInt32Data) {
  HostTensor t;
  std::string error;
  auto i8 = tensor(onnx::TensorProto::INT8, {3});
  for (int v : {-128, 0, 127})
    i8.add_int32_data(v);
  ASSERT_TRUE(parse(i8, t, error)) << error;
  EXPECT_THAT(values<int8_t>(t), ElementsAre(-128, 0, 127));

  auto u8 = tensor(onnx::TensorProto::UINT8, {2});
  u8.add_int32_data(255);
  u8.add_int32_data(1);
  ASSERT_TRUE(parse(u8, t, error)) << error;
  EXPECT_THAT(values<uint8_t>(t), ElementsAre(255, 1));

  auto b = tensor(onnx::TensorProto::BOOL, {3});
  for (int v : {1, 0, 1})
    b.add_int32_data(v);
  ASSERT_TRUE(parse(b, t, error)) << error;
  EXPECT_THAT(values<uint8_t>(t), ElementsAre(1, 0, 1));

  auto i16 = tensor(onnx::TensorProto::INT16, {1});
  i16.add_int32_data(-300);
  ASSERT_TRUE(parse(i16, t, error)) << error;
  EXPECT_THAT(values<int16_t>(t), ElementsAre(-300));

  auto u16 = tensor(onnx::TensorProto::UINT16, {1});
  u16.add_int32_data(65535);
  ASSERT_TRUE(parse(u16, t, error)) << error;
  EXPECT_THAT(values<uint16_t>(t), ElementsAre(65535));

  auto h = tensor(onnx::TensorProto::FLOAT16, {2});
  h.add_int32_data(0x3C00);
  h.add_int32_data(0xC000);
  ASSERT_TRUE(parse(h, t, error)) << error;
  EXPECT_EQ(t.dtype, DType::F16);
  EXPECT_THAT(values<uint16_t>(t), ElementsAre(0x3C00, 0xC000));

  auto bf = tensor(onnx::TensorProto::BFLOAT16, {1});
  bf.add_int32_data(0x3F80);
  ASSERT_TRUE(parse(bf, t, error)) << error;
  EXPECT_EQ(t.dtype, DType::BF16);
  EXPECT_THAT(values<uint16_t>(t), ElementsAre(0x3F80));
}

// ONNX packs 4-bit types two to a byte and 2-bit types four to a byte,
// first element in the low bits, in raw_data and in int32_data (one packed
// byte per int32); the host tensor holds one element per byte, int4/int2
// sign-extended. float8 is one byte per element in either field.
TEST(TensorProto, NarrowFormatsUnpackToOneBytePerElement) {
  HostTensor t;
  std::string error;
  auto typed = [](int32_t dataType, std::vector<int64_t> dims) {
    auto p = tensor(static_cast<onnx::TensorProto::DataType>(0), dims);
    p.set_data_type(dataType);
    return p;
  };
  auto i4 = typed(22, {3}); // -8, 7, -1 (the last high nibble is padding)
  i4.set_raw_data(std::string("\x78\x0F", 2));
  ASSERT_TRUE(parse(i4, t, error)) << error;
  EXPECT_EQ(t.dtype, DType::I4);
  EXPECT_THAT(values<int8_t>(t), ElementsAre(-8, 7, -1));

  auto u4 = typed(21, {2});
  u4.add_int32_data(0xF3);
  ASSERT_TRUE(parse(u4, t, error)) << error;
  EXPECT_THAT(values<uint8_t>(t), ElementsAre(3, 15));

  auto i2 = typed(26, {5}); // 0, 1, -2, -1 | 1
  i2.set_raw_data(std::string("\xE4\x01", 2));
  ASSERT_TRUE(parse(i2, t, error)) << error;
  EXPECT_EQ(t.dtype, DType::I2);
  EXPECT_THAT(values<int8_t>(t), ElementsAre(0, 1, -2, -1, 1));

  auto f4 = typed(23, {2}); // codes stay codes: 0x9 is -0.5
  f4.set_raw_data(std::string("\x79", 1));
  ASSERT_TRUE(parse(f4, t, error)) << error;
  EXPECT_THAT(values<uint8_t>(t), ElementsAre(9, 7));
  EXPECT_EQ(narrowFloatToFloat(DType::F4E2M1, 9), -0.5f);
  EXPECT_EQ(narrowFloatToFloat(DType::F4E2M1, 7), 6.0f);

  auto f8 = typed(17, {3});
  f8.add_int32_data(0x38); // 1.0 in E4M3FN
  f8.add_int32_data(0x7E); // 448, its largest
  f8.add_int32_data(0xFF); // NaN
  ASSERT_TRUE(parse(f8, t, error)) << error;
  EXPECT_EQ(t.dtype, DType::F8E4M3FN);
  EXPECT_EQ(narrowFloatToFloat(t.dtype, t.data[0]), 1.0f);
  EXPECT_EQ(narrowFloatToFloat(t.dtype, t.data[1]), 448.0f);
  EXPECT_TRUE(std::isnan(narrowFloatToFloat(t.dtype, t.data[2])));
  EXPECT_EQ(narrowFloatToFloat(DType::F8E5M2, 0x7C),
            std::numeric_limits<float>::infinity());
  EXPECT_EQ(narrowFloatToFloat(DType::F8E4M3FNUZ, 0x7F), 240.0f);
  EXPECT_TRUE(std::isnan(narrowFloatToFloat(DType::F8E5M2FNUZ, 0x80)));
  EXPECT_EQ(narrowFloatToFloat(DType::F8E8M0, 0), std::ldexp(1.0f, -127));
  EXPECT_EQ(format::dtypeName(DType::F8E8M0), std::string("float8_e8m0fnu"));
  EXPECT_EQ(format::dtypeSize(DType::I2), 1u);
}

TEST(TensorProto, ScalarsAndEmptyTensors) {
  HostTensor t;
  std::string error;
  auto s = tensor(onnx::TensorProto::INT32, {});
  s.add_int32_data(42);
  ASSERT_TRUE(parse(s, t, error)) << error;
  EXPECT_TRUE(t.shape.empty());
  EXPECT_THAT(values<int32_t>(t), ElementsAre(42));
  auto e = tensor(onnx::TensorProto::FLOAT, {0, 3});
  ASSERT_TRUE(parse(e, t, error)) << error;
  EXPECT_TRUE(t.data.empty());
  // Empty raw data (an empty axes input): no copy from a null buffer
  // (UBSan's report in the sanitizer build's node tests).
  auto r = tensor(onnx::TensorProto::INT64, {0});
  r.set_raw_data("");
  ASSERT_TRUE(parse(r, t, error)) << error;
  EXPECT_TRUE(t.data.empty());
  format::unpackElements(DType::F32, nullptr, 0, nullptr);
}

TEST(TensorProto, Errors) {
  auto str = tensor(onnx::TensorProto::STRING, {1});
  str.add_string_data("hello");
  EXPECT_EQ(parseError(str), "tensor 'x': string tensors are not supported");

  auto complex = tensor(onnx::TensorProto::COMPLEX64, {1});
  EXPECT_EQ(parseError(complex),
            "tensor 'x': unsupported data type 14 (COMPLEX64)");
  auto future = tensor(static_cast<onnx::TensorProto::DataType>(0), {1});
  future.set_data_type(40);
  EXPECT_EQ(parseError(future), "tensor 'x': unsupported data type 40");

  // Packed 4-bit data: 3 elements take 2 bytes.
  auto shortInt4 = tensor(static_cast<onnx::TensorProto::DataType>(0), {3});
  shortInt4.set_data_type(22);
  shortInt4.set_raw_data(std::string(1, '\x12'));
  EXPECT_EQ(parseError(shortInt4),
            "tensor 'x': raw_data has 1 bytes, expected 2");

  auto undefined = tensor(onnx::TensorProto::UNDEFINED, {1});
  EXPECT_EQ(parseError(undefined),
            "tensor 'x': no data type (not an ONNX TensorProto?)");

  auto raw = tensor(onnx::TensorProto::FLOAT, {3});
  raw.set_raw_data(std::string(8, '\0'));
  EXPECT_EQ(parseError(raw), "tensor 'x': raw_data has 8 bytes, expected 12");

  auto typed = tensor(onnx::TensorProto::INT64, {3});
  typed.add_int64_data(1);
  EXPECT_EQ(parseError(typed),
            "tensor 'x': expected 3 values, got 1 in int64_data");

  auto negative = tensor(onnx::TensorProto::FLOAT, {-1});
  EXPECT_EQ(parseError(negative), "tensor 'x': invalid or too large shape");

  auto external = tensor(onnx::TensorProto::FLOAT, {1});
  external.set_data_location(onnx::TensorProto::EXTERNAL);
  EXPECT_EQ(parseError(external), "tensor 'x': external data is not supported");

  std::vector<uint8_t> garbage = {0xff, 0xff, 0xff, 0xff, 0x0f};
  HostTensor t;
  std::string error;
  EXPECT_FALSE(parseTensorProto(garbage.data(), garbage.size(), t, error));
  EXPECT_EQ(error, "not a valid ONNX TensorProto");
}

TEST(TensorProto, FilesNameThePath) {
  test::TempDir dir;
  auto str = tensor(onnx::TensorProto::STRING, {1});
  str.add_string_data("hello");
  test::writeBytes(dir.file("input_0.pb"), bytesOf(str));
  HostTensor t;
  std::string error;
  EXPECT_FALSE(readTensorFile(dir.file("input_0.pb"), t, error));
  EXPECT_EQ(error, dir.file("input_0.pb") +
                       ": tensor 'x': string tensors are not supported");

  auto ok = tensor(onnx::TensorProto::INT64, {1});
  ok.add_int64_data(3);
  test::writeBytes(dir.file("input_1.pb"), bytesOf(ok));
  ASSERT_TRUE(readTensorProtoFile(dir.file("input_1.pb"), t, error)) << error;
  EXPECT_THAT(values<int64_t>(t), ElementsAre(3));
  // Without a known extension the content decides.
  test::writeBytes(dir.file("tensor.bin"), bytesOf(ok));
  ASSERT_TRUE(readTensorFile(dir.file("tensor.bin"), t, error)) << error;
  EXPECT_EQ(t.dtype, DType::I64);
}

} // namespace
