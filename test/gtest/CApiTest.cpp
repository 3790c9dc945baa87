//===- CApiTest.cpp - C API: statuses, artifacts, drivers, devices --------===//

#include "StatusResult.h"
#include "TestArtifacts.h"
#include "tessel/tessel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

using namespace tessel;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

using test::Result;
using test::take;

TEST(CApiStatus, NullIsOk) {
  EXPECT_EQ(tessel_status_code(nullptr), TESSEL_STATUS_OK);
  EXPECT_STREQ(tessel_status_message(nullptr), "");
  tessel_status_free(nullptr);
  EXPECT_STREQ(tessel_status_code_name(TESSEL_STATUS_INVALID_ARTIFACT),
               "INVALID_ARTIFACT");
  EXPECT_STREQ(tessel_status_code_name(TESSEL_STATUS_OK), "OK");
}

TEST(CApiStatus, DTypes) {
  EXPECT_EQ(tessel_dtype_size(TESSEL_DTYPE_FLOAT16), 2u);
  EXPECT_EQ(tessel_dtype_size(static_cast<tessel_dtype_t>(8)), 0u);
  EXPECT_STREQ(tessel_dtype_name(TESSEL_DTYPE_BOOL), "bool");
}

TEST(CApiArtifact, MissingFileIsNotFoundNamingThePath) {
  tessel_artifact_t *a = nullptr;
  Result r = take(tessel_artifact_load_file("/nonexistent/m.tsl", &a));
  EXPECT_EQ(r.code, TESSEL_STATUS_NOT_FOUND);
  EXPECT_EQ(r.message, "/nonexistent/m.tsl: No such file or directory");
  EXPECT_EQ(a, nullptr);
}

TEST(CApiArtifact, CorruptFileIsInvalidArtifactNamingThePath) {
  test::TempDir dir;
  std::vector<uint8_t> bytes = format::serialize(test::addModel());
  bytes[4096] ^= 1; // inside the manifest
  test::writeBytes(dir.file("bad.tsl"), bytes);
  tessel_artifact_t *a = nullptr;
  Result r = take(tessel_artifact_load_file(dir.file("bad.tsl").c_str(), &a));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(r.message, dir.file("bad.tsl") +
                           ": corrupt section 0 ('manifest') (CRC mismatch)");

  test::writeBytes(dir.file("empty.tsl"), {});
  r = take(tessel_artifact_load_file(dir.file("empty.tsl").c_str(), &a));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_THAT(r.message, HasSubstr("truncated file"));

  r = take(tessel_artifact_load_file(dir.path().c_str(), &a));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(r.message, HasSubstr("not a regular file"));
}

TEST(CApiArtifact, NullArgumentsAreInvalidArguments) {
  tessel_artifact_t *a = nullptr;
  Result r = take(tessel_artifact_load_file(nullptr, &a));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "path is null");
  r = take(tessel_artifact_load_memory(nullptr, 10, &a));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  r = take(tessel_artifact_load_memory("x", 1, nullptr));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(tessel_artifact_input_count(nullptr), 0u);
  tessel_artifact_release(nullptr);
}

TEST(CApiArtifact, IntrospectsSignaturesWithSymbols) {
  std::vector<uint8_t> bytes = format::serialize(test::addModel());
  tessel_artifact_t *a = nullptr;
  ASSERT_EQ(
      take(tessel_artifact_load_memory(bytes.data(), bytes.size(), &a)).code,
      TESSEL_STATUS_OK);
  bytes.assign(bytes.size(), 0); // the artifact keeps its own copy

  EXPECT_STREQ(tessel_artifact_model_name(a), "add");
  EXPECT_STREQ(tessel_artifact_producer(a), "tessel-tests");
  ASSERT_EQ(tessel_artifact_target_count(a), 4u);
  EXPECT_STREQ(tessel_artifact_target(a, 0), "cpu");
  EXPECT_STREQ(tessel_artifact_target(a, 2), "rocm:gfx90a");
  EXPECT_STREQ(tessel_artifact_target(a, 3), "vulkan");
  EXPECT_EQ(tessel_artifact_target(a, 4), nullptr);

  ASSERT_EQ(tessel_artifact_input_count(a), 2u);
  ASSERT_EQ(tessel_artifact_output_count(a), 2u);
  tessel_tensor_info_t info;
  ASSERT_EQ(take(tessel_artifact_input_info(a, 1, &info)).code,
            TESSEL_STATUS_OK);
  EXPECT_STREQ(info.name, "b");
  EXPECT_EQ(info.dtype, TESSEL_DTYPE_FLOAT32);
  ASSERT_EQ(info.rank, 1u);
  EXPECT_EQ(info.dims[0], -1);
  EXPECT_STREQ(info.dim_symbols[0], "batch");
  ASSERT_EQ(take(tessel_artifact_output_info(a, 1, &info)).code,
            TESSEL_STATUS_OK);
  EXPECT_STREQ(info.name, "s");
  EXPECT_EQ(info.rank, 0u);

  Result r = take(tessel_artifact_input_info(a, 2, &info));
  EXPECT_EQ(r.code, TESSEL_STATUS_NOT_FOUND);
  EXPECT_THAT(r.message, HasSubstr("input index 2 is out of range"));

  size_t index = 99;
  ASSERT_EQ(take(tessel_artifact_find_output(a, "s", &index)).code,
            TESSEL_STATUS_OK);
  EXPECT_EQ(index, 1u);
  r = take(tessel_artifact_find_input(a, "c", &index));
  EXPECT_EQ(r.code, TESSEL_STATUS_NOT_FOUND);
  EXPECT_EQ(r.message, "unknown input 'c' (inputs: 'a', 'b')");
  tessel_artifact_release(a);
}

TEST(CApiArtifact, StaticDimsHaveNoSymbol) {
  std::vector<uint8_t> bytes = format::serialize(test::probeModel());
  tessel_artifact_t *a = nullptr;
  ASSERT_EQ(tessel_artifact_load_memory(bytes.data(), bytes.size(), &a),
            nullptr);
  tessel_tensor_info_t info;
  ASSERT_EQ(tessel_artifact_input_info(a, 0, &info), nullptr);
  ASSERT_EQ(info.rank, 3u);
  EXPECT_EQ(info.dims[0], 2);
  EXPECT_EQ(info.dim_symbols[0], nullptr);
  EXPECT_EQ(info.dims[1], -1);
  EXPECT_STREQ(info.dim_symbols[1], "n");
  tessel_artifact_release(a);
}

TEST(CApiDevice, ListsTheBuiltInDrivers) {
  std::vector<std::string> names;
  for (size_t i = 0; i < tessel_driver_count(); ++i)
    names.push_back(tessel_driver_name(i));
  EXPECT_THAT(names,
              ::testing::IsSupersetOf({"cpu", "cuda", "hip", "vulkan"}));
  EXPECT_EQ(tessel_driver_name(tessel_driver_count()), nullptr);
  size_t count = 0;
  ASSERT_EQ(tessel_driver_device_count("cpu", &count), nullptr);
  EXPECT_EQ(count, 1u);
}

TEST(CApiDevice, CreatesTheCpu) {
  tessel_device_t *d = nullptr;
  ASSERT_EQ(tessel_device_create("cpu", &d), nullptr);
  EXPECT_STREQ(tessel_device_name(d), "cpu");
  EXPECT_STREQ(tessel_device_description(d), "host CPU");
  tessel_device_release(d);
  ASSERT_EQ(tessel_device_create("cpu:0", &d), nullptr);
  tessel_device_release(d);
}

TEST(CApiDevice, RejectsUnknownDevices) {
  tessel_device_t *d = nullptr;
  Result r = take(tessel_device_create("tpu", &d));
  EXPECT_EQ(r.code, TESSEL_STATUS_NOT_FOUND);
  EXPECT_THAT(r.message,
              StartsWith("unknown device 'tpu' (drivers: cpu, cuda, hip"));
  r = take(tessel_device_create("cpu:1", &d));
  EXPECT_EQ(r.code, TESSEL_STATUS_NOT_FOUND);
  EXPECT_EQ(r.message, "device 'cpu:1' does not exist (cpu has 1 device)");
  r = take(tessel_device_create("cpu:x", &d));
  EXPECT_EQ(r.code, TESSEL_STATUS_NOT_FOUND);
  EXPECT_THAT(r.message, HasSubstr("expected <driver> or <driver>:<index>"));
  r = take(tessel_driver_device_count("tpu", nullptr));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(d, nullptr);
}

} // namespace
