//===- DriverConformanceTest.cpp - One suite for every driver -------------===//
//
// The same plans, through the C API, on every driver that has a device
// here: the CPU; the CUDA and HIP drivers bound to the fake vendor
// libraries of fakes/ (which run the kernels on the host, so the drivers'
// memory handling, binary selection, ABI and launch geometry are checked
// without a GPU); Vulkan devices (the SPIR-V of kernels/vulkan, on Mesa's
// lavapipe CPU driver where nothing else is installed); and real CUDA GPUs
// where present (the PTX of kernels/TestKernels.ptx). Real HIP devices are
// skipped: the tests have no real code object for them. A driver without a
// device here is skipped with its reason.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "TestArtifacts.h"
#include "tessel/tessel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

using namespace tessel;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

std::string takeMessage(tessel_status_t s) {
  std::string m = tessel_status_message(s);
  tessel_status_free(s);
  return m;
}

#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    tessel_status_t s_ = (expr);                                               \
    ASSERT_EQ(s_, nullptr) << takeMessage(s_);                                 \
  } while (0)

class Conformance : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    test::registerFakeDrivers();
    size_t count = 0;
    tessel_status_t s = tessel_driver_device_count(GetParam().c_str(), &count);
    if (s)
      GTEST_SKIP() << GetParam() << ": " << takeMessage(s);
    if (GetParam() == "hip")
      GTEST_SKIP() << "no real AMDGPU code object for the test kernels";
    ASSERT_OK(tessel_device_create(GetParam().c_str(), &device));
  }
  void TearDown() override {
    tessel_session_release(session);
    tessel_artifact_release(artifact);
    tessel_device_release(device);
  }

  /// Loads `model` and opens a session on the driver under test.
  tessel_status_t open(const format::Artifact &model) {
    std::vector<uint8_t> bytes = format::serialize(model);
    tessel_status_t s =
        tessel_artifact_load_memory(bytes.data(), bytes.size(), &artifact);
    return s ? s : tessel_session_create(artifact, device, &session);
  }

  tessel_status_t set(const char *name, tessel_dtype_t dtype,
                      std::vector<int64_t> dims, const void *data,
                      size_t bytes) {
    return tessel_session_set_input(session, name, dtype, dims.size(),
                                    dims.data(), data, bytes);
  }
  tessel_status_t setFloats(const char *name, const std::vector<float> &v) {
    return set(name, TESSEL_DTYPE_FLOAT32, {int64_t(v.size())}, v.data(),
               v.size() * 4);
  }

  template <typename T> std::vector<T> output(const char *name) {
    tessel_tensor_view_t view;
    tessel_status_t s = tessel_session_get_output(session, name, &view);
    EXPECT_EQ(s, nullptr) << takeMessage(s);
    if (s)
      return {};
    std::vector<T> values(view.data_bytes / sizeof(T));
    if (view.data_bytes)
      std::memcpy(values.data(), view.data, view.data_bytes);
    return values;
  }

  tessel_artifact_t *artifact = nullptr;
  tessel_device_t *device = nullptr;
  tessel_session_t *session = nullptr;
};

TEST_P(Conformance, RunsAPlanWithASymbolicBatch) {
  ASSERT_OK(open(test::addModel()));
  ASSERT_OK(setFloats("a", {1, 2, 3, 4, 5}));
  ASSERT_OK(setFloats("b", {1, 1, 1, 1, 1}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output<float>("y"), ElementsAre(3, 5, 7, 9, 11));
  EXPECT_THAT(output<float>("s"), ElementsAre(35));

  ASSERT_OK(setFloats("a", {-1, 0, 1}));
  ASSERT_OK(setFloats("b", {2, 2, 2}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output<float>("y"), ElementsAre(0, 2, 4));
  EXPECT_THAT(output<float>("s"), ElementsAre(6));
}

TEST_P(Conformance, LargeBatchSpansManyBlocks) {
  ASSERT_OK(open(test::addModel()));
  const size_t n = 70000;
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = float(i % 100);
    b[i] = 1;
  }
  ASSERT_OK(setFloats("a", a));
  ASSERT_OK(setFloats("b", b));
  ASSERT_OK(tessel_session_run(session));
  std::vector<float> y = output<float>("y");
  ASSERT_EQ(y.size(), n);
  for (size_t i = 0; i < n; i += 997)
    ASSERT_EQ(y[i], 2 * a[i] + 1) << i;
  EXPECT_EQ(y[n - 1], 2 * a[n - 1] + 1);
}

TEST_P(Conformance, EmptyBatch) {
  ASSERT_OK(open(test::addModel()));
  ASSERT_OK(setFloats("a", {}));
  ASSERT_OK(setFloats("b", {}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_TRUE(output<float>("y").empty());
  EXPECT_THAT(output<float>("s"), ElementsAre(0));
}

TEST_P(Conformance, UsesWeights) {
  ASSERT_OK(open(test::weightModel()));
  ASSERT_OK(setFloats("x", {1, 2, 3}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output<float>("z"), ElementsAre(12, 24, 36));
}

TEST_P(Conformance, PassesRowMajorDescriptors) {
  // A Vulkan kernel sees no descriptor: its probe reports the sizes of the
  // shape buffer (and strides computed from them), while the driver checks
  // the offset and strides it receives (VulkanDriverTest.cpp).
  ASSERT_OK(open(test::probeModel()));
  std::vector<float> x(2 * 5 * 4, 0.5f);
  ASSERT_OK(set("x", TESSEL_DTYPE_FLOAT32, {2, 5, 4}, x.data(), x.size() * 4));
  ASSERT_OK(tessel_session_run(session));
  // offset, sizes, strides, allocated == aligned
  EXPECT_THAT(output<int64_t>("p"), ElementsAre(0, 2, 5, 4, 20, 4, 1, 1));
}

TEST_P(Conformance, ViewsAnInputWithARunTimeShape) {
  // The shape rule reads the host copy of `shape`, whatever the device.
  ASSERT_OK(open(test::reshapeModel()));
  std::vector<float> x(4 * 6, 0.5f);
  ASSERT_OK(set("x", TESSEL_DTYPE_FLOAT32, {4, 6}, x.data(), x.size() * 4));
  std::vector<int64_t> shape = {2, 0, -1};
  ASSERT_OK(set("shape", TESSEL_DTYPE_INT64, {3}, shape.data(), 24));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output<int64_t>("p"), ElementsAre(0, 2, 6, 2, 12, 2, 1, 1));
}

TEST_P(Conformance, ReportsAMissingKernel) {
  format::Artifact model = test::addModel();
  model.kernels[1].symbol = "nonexistent";
  tessel_status_t s = open(model);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(tessel_status_code(s), TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_THAT(takeMessage(s),
              HasSubstr("lacks kernel 'nonexistent' (ONNX node 'ReduceSum_0', "
                        "ReduceSum)"));
}

TEST_P(Conformance, ReportsAnArtifactWithoutKernelsForTheDevice) {
  // Keep only the binaries of the *other* drivers.
  const std::string &driver = GetParam();
  test::Targets targets;
  targets.cpu = driver != "cpu";
  targets.cuda = driver.rfind("cuda", 0) != 0;
  targets.rocm = driver.rfind("hip", 0) != 0;
  targets.vulkan = driver.rfind("vulkan", 0) != 0;
  tessel_status_t s = open(test::addModel(targets));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(tessel_status_code(s), TESSEL_STATUS_UNAVAILABLE);
  EXPECT_THAT(takeMessage(s), HasSubstr("artifact has no kernels for"));
}

TEST_P(Conformance, RunsAnIfWhoseBranchesYieldOtherExtents) {
  ASSERT_OK(open(test::ifModel()));
  ASSERT_OK(setFloats("a", {1, 2, 3}));
  ASSERT_OK(setFloats("b", {10, 20, 30}));
  ASSERT_OK(setFloats("d", {5, 6}));
  for (uint8_t c : {1, 0, 1}) {
    ASSERT_OK(set("c", TESSEL_DTYPE_BOOL, {}, &c, 1));
    ASSERT_OK(tessel_session_run(session));
    if (c)
      EXPECT_THAT(output<float>("y"), ElementsAre(22, 44, 66));
    else
      EXPECT_THAT(output<float>("y"), ElementsAre(10, 12));
  }
}

TEST_P(Conformance, RunsALoopWithAnIfInItsBody) {
  ASSERT_OK(open(test::nestedModel()));
  int64_t trip = 3;
  uint8_t yes = 1;
  ASSERT_OK(set("trip", TESSEL_DTYPE_INT64, {}, &trip, 8));
  ASSERT_OK(set("go", TESSEL_DTYPE_BOOL, {}, &yes, 1));
  ASSERT_OK(setFloats("y0", {1, 2}));
  ASSERT_OK(setFloats("a", {10, 20}));
  ASSERT_OK(setFloats("z0", {7, 8, 9}));
  for (uint8_t flip : {1, 0}) {
    ASSERT_OK(set("flip", TESSEL_DTYPE_BOOL, {}, &flip, 1));
    ASSERT_OK(tessel_session_run(session));
    if (flip) {
      EXPECT_THAT(output<float>("y"), ElementsAre(41, 82));
      EXPECT_THAT(output<float>("scan"), ElementsAre(22, 44, 42, 84, 62, 124));
    } else {
      EXPECT_THAT(output<float>("y"), ElementsAre(11, 22));
      EXPECT_THAT(output<float>("scan"), ElementsAre(2, 4, 2, 4, 2, 4));
    }
    EXPECT_THAT(output<float>("z"), ElementsAre(14, 16, 18));
  }
}

TEST_P(Conformance, CopiesBetweenDeviceAllocations) {
  // The Device interface itself: the host -> device -> device -> host
  // round trip the executor's control flow relies on.
  std::shared_ptr<runtime::Device> dev;
  runtime::Status s = runtime::findDriver(GetParam())->createDevice(0, dev);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::vector<int32_t> in(100), out(100, 0);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = int32_t(i * 7);
  void *a = nullptr, *b = nullptr;
  ASSERT_TRUE(dev->allocate(400, &a).isOk());
  ASSERT_TRUE(dev->allocate(400, &b).isOk());
  EXPECT_TRUE(dev->copyToDevice(a, in.data(), 400).isOk());
  EXPECT_TRUE(dev->copyOnDevice(b, a, 400).isOk());
  EXPECT_TRUE(dev->copyOnDevice(b, b, 400).isOk()); // a no-op
  EXPECT_TRUE(dev->copyOnDevice(static_cast<char *>(a) + 4, b, 0).isOk());
  EXPECT_TRUE(dev->copyToHost(out.data(), b, 400).isOk());
  EXPECT_TRUE(dev->synchronize().isOk());
  EXPECT_EQ(out, in);
  dev->deallocate(a);
  dev->deallocate(b);
}

INSTANTIATE_TEST_SUITE_P(Drivers, Conformance,
                         ::testing::Values("cpu", "cuda-fake", "hip-fake",
                                           "cuda", "hip", "vulkan"),
                         [](const auto &info) {
                           std::string name = info.param;
                           for (char &c : name)
                             if (c == '-')
                               c = '_';
                           return name;
                         });

} // namespace
