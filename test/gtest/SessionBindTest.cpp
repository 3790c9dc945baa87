//===- SessionBindTest.cpp - Inputs and outputs in the caller's memory ----===//
//
// tessel_session_bind_input and tessel_session_bind_output over addModel
// (inputs a, b: f32[batch]; y = (a + b) + a; s = sum(y)): bound inputs are
// read in place on every run, bound outputs are written into the caller's
// buffer (directly on the CPU, copied at the end on the fake CUDA device or
// when the buffer meets another bound tensor), with their bytes checked.
//
//===----------------------------------------------------------------------===//

#include "SessionFixture.h"
#include "TestArtifacts.h"

#include <gmock/gmock.h>

namespace tessel::test {
namespace {

using ::testing::ElementsAre;

class SessionBindTest : public SessionTest {
protected:
  tessel_status_t bindFloats(const char *name, std::vector<int64_t> dims,
                             const std::vector<float> &values) {
    return tessel_session_bind_input(session, name, TESSEL_DTYPE_FLOAT32,
                                     dims.size(), dims.data(), values.data(),
                                     values.size() * sizeof(float));
  }
  tessel_status_t bindOutput(const char *name, std::vector<float> &buffer) {
    return tessel_session_bind_output(session, name, buffer.data(),
                                      buffer.size() * sizeof(float));
  }
  const void *outputData(const char *name) {
    tessel_tensor_view_t view;
    Result r = take(tessel_session_get_output(session, name, &view));
    EXPECT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
    return r.code == TESSEL_STATUS_OK ? view.data : nullptr;
  }
};

TEST_F(SessionBindTest, BoundInputsAreReadInPlaceOnEveryRun) {
  open(addModel());
  std::vector<float> a = {1, 2, 3}, b = {10, 20, 30};
  ASSERT_OK(bindFloats("a", {3}, a));
  ASSERT_OK(bindFloats("b", {3}, b));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(12, 24, 36));
  // New values in the same memory, no new bind: the next run reads them.
  a = {5, 6, 7};
  b[2] = 100;
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(20, 32, 114));
  EXPECT_THAT(output("s", nullptr), ElementsAre(166));
  // The runs never wrote the caller's inputs.
  EXPECT_THAT(a, ElementsAre(5, 6, 7));
  EXPECT_THAT(b, ElementsAre(10, 20, 100));
}

TEST_F(SessionBindTest, SetInputAfterBindCopiesAgain) {
  open(addModel());
  std::vector<float> a = {1, 2}, b = {10, 20};
  ASSERT_OK(bindFloats("a", {2}, a));
  ASSERT_OK(bindFloats("b", {2}, b));
  ASSERT_OK(setFloats("a", {2}, a)); // a copy from now on
  a = {100, 100};
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(12, 24));
}

TEST_F(SessionBindTest, BindInputChecksLikeSetInput) {
  open(addModel());
  std::vector<float> a = {1, 2, 3}, b = {10, 20, 30};
  ASSERT_OK(bindFloats("a", {3}, a));
  ASSERT_OK(bindFloats("b", {3}, b));
  int64_t dims[] = {3};
  std::vector<double> wide = {1, 2, 3};
  Result r = take(tessel_session_bind_input(session, "a", TESSEL_DTYPE_FLOAT64,
                                            1, dims, wide.data(), 24));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "input 'a': expected dtype float32, got float64");
  r = take(tessel_session_bind_input(session, "a", TESSEL_DTYPE_FLOAT32, 1,
                                     dims, a.data(), 8));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "input 'a': got 8 bytes of data, expected 12 for "
                       "float32 [3]");
  r = take(tessel_session_bind_input(session, "a", TESSEL_DTYPE_FLOAT32, 1,
                                     dims, nullptr, 12));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "input 'a': data is null");
  r = take(tessel_session_bind_input(session, "x", TESSEL_DTYPE_FLOAT32, 1,
                                     dims, a.data(), 12));
  EXPECT_EQ(r.code, TESSEL_STATUS_NOT_FOUND);
  EXPECT_EQ(r.message, "unknown input 'x' (inputs: 'a', 'b')");
  // The same symbol binding as set_input.
  std::vector<float> four = {1, 2, 3, 4};
  r = take(bindFloats("b", {4}, four));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(r.message, ::testing::HasSubstr("symbol 'batch'"));
  // Failed binds kept the earlier bindings.
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(12, 24, 36));
}

TEST_F(SessionBindTest, BoundOutputsAreWrittenInPlace) {
  open(addModel());
  std::vector<float> a = {1, 2, 3}, b = {10, 20, 30};
  ASSERT_OK(bindFloats("a", {3}, a));
  ASSERT_OK(bindFloats("b", {3}, b));
  std::vector<float> y(3, -1), s(1, -1);
  ASSERT_OK(bindOutput("y", y));
  ASSERT_OK(bindOutput("s", s));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(y, ElementsAre(12, 24, 36));
  EXPECT_THAT(s, ElementsAre(72));
  // The views are the caller's buffers.
  EXPECT_EQ(outputData("y"), y.data());
  EXPECT_EQ(outputData("s"), s.data());
  a[0] = 2;
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(y, ElementsAre(14, 24, 36));
  EXPECT_THAT(s, ElementsAre(74));
  // A larger buffer is fine; the view has the output's size.
  std::vector<float> big(8, -1);
  ASSERT_OK(bindOutput("y", big));
  ASSERT_OK(tessel_session_run(session));
  tessel_tensor_view_t view;
  ASSERT_OK(tessel_session_get_output(session, "y", &view));
  EXPECT_EQ(view.data, big.data());
  EXPECT_EQ(view.data_bytes, 12u);
  EXPECT_THAT(big, ElementsAre(14, 24, 36, -1, -1, -1, -1, -1));
}

TEST_F(SessionBindTest, TooSmallOutputBufferFailsTheRun) {
  open(addModel());
  std::vector<float> a = {1, 2, 3, 4}, b = {1, 1, 1, 1};
  ASSERT_OK(bindFloats("a", {4}, a));
  ASSERT_OK(bindFloats("b", {4}, b));
  std::vector<float> y(3, -1);
  ASSERT_OK(bindOutput("y", y));
  Result r = take(tessel_session_run(session));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message,
            "output 'y' needs 16 bytes, but its bound buffer has 12");
  tessel_tensor_view_t view;
  EXPECT_EQ(take(tessel_session_get_output(session, "y", &view)).code,
            TESSEL_STATUS_FAILED_PRECONDITION);
  // A large enough buffer makes it run.
  std::vector<float> y4(4, -1);
  ASSERT_OK(bindOutput("y", y4));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(y4, ElementsAre(3, 5, 7, 9));
  EXPECT_EQ(outputData("y"), y4.data());
}

TEST_F(SessionBindTest, NewBatchAfterARunThatFailedOnItsOutput) {
  open(addModel());
  std::vector<float> a = {1, 2}, b = {10, 20};
  ASSERT_OK(bindFloats("a", {2}, a));
  ASSERT_OK(bindFloats("b", {2}, b));
  std::vector<float> y(1, -1);
  ASSERT_OK(bindOutput("y", y));
  EXPECT_EQ(take(tessel_session_run(session)).code,
            TESSEL_STATUS_INVALID_ARGUMENT);
  ASSERT_OK(tessel_session_bind_output(session, "y", nullptr, 0));
  // The failed run checked a and b: a new batch is a new set of inputs,
  // not a conflict with them.
  std::vector<float> a3 = {1, 2, 3}, b3 = {1, 1, 1};
  ASSERT_OK(bindFloats("a", {3}, a3));
  ASSERT_OK(bindFloats("b", {3}, b3));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(3, 5, 7));
}

TEST_F(SessionBindTest, UnboundOutputsGoBackToSessionMemory) {
  open(addModel());
  std::vector<float> a = {1, 2}, b = {10, 20};
  ASSERT_OK(bindFloats("a", {2}, a));
  ASSERT_OK(bindFloats("b", {2}, b));
  std::vector<float> y(2, -1);
  ASSERT_OK(bindOutput("y", y));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(y, ElementsAre(12, 24));
  ASSERT_OK(tessel_session_bind_output(session, "y", nullptr, 0));
  a = {3, 4};
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(y, ElementsAre(12, 24)); // left alone
  EXPECT_NE(outputData("y"), y.data());
  EXPECT_THAT(output("y", nullptr), ElementsAre(16, 28));
  Result r = take(tessel_session_bind_output(session, "z", y.data(), 8));
  EXPECT_EQ(r.code, TESSEL_STATUS_NOT_FOUND);
  EXPECT_EQ(r.message, "unknown output 'z' (outputs: 'y', 's')");
}

TEST_F(SessionBindTest, OutputBufferThatIsAnInputIsCopiedAtTheEnd) {
  open(addModel());
  // y goes into the memory of input a: the kernels read a after the first
  // launch, so the run writes y into it only at its end.
  std::vector<float> a = {1, 2, 3}, b = {10, 20, 30};
  ASSERT_OK(bindFloats("a", {3}, a));
  ASSERT_OK(bindFloats("b", {3}, b));
  ASSERT_OK(bindOutput("y", a));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(a, ElementsAre(12, 24, 36));
  EXPECT_EQ(outputData("y"), a.data());
  EXPECT_THAT(output("s", nullptr), ElementsAre(72));
  // The next run reads a's new values: y = (a + b) + a again.
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(a, ElementsAre(34, 68, 102));
  // Two outputs in one buffer are both delivered, one after the other.
  std::vector<float> shared(3, -1);
  ASSERT_OK(bindOutput("y", shared));
  ASSERT_OK(tessel_session_bind_output(session, "s", shared.data(), 4));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_FLOAT_EQ(shared[0], 34 + 10 + 34 + 68 + 20 + 68 + 102 + 30 + 102);
}

/// addModel whose first launch writes a + b in place over input a (the
/// launch names a's buffer as argument and as result), so y = a + 2b.
format::Artifact tiedInputModel() {
  format::Artifact m = addModel();
  format::Shape batch = m.buffers[0].shape;
  m.plan[0].args = {{0, batch}, {1, batch}, {0, batch}};
  m.plan[1].args = {{0, batch}, {1, batch}, {3, batch}};
  return m;
}

TEST_F(SessionBindTest, InputsAPlanWritesInPlaceAreCopied) {
  open(tiedInputModel());
  std::vector<float> a = {1, 2}, b = {10, 20};
  ASSERT_OK(bindFloats("a", {2}, a));
  ASSERT_OK(bindFloats("b", {2}, b));
  for (int run = 0; run < 2; ++run) {
    ASSERT_OK(tessel_session_run(session));
    EXPECT_THAT(output("y", nullptr), ElementsAre(21, 42)) << "run " << run;
    EXPECT_THAT(a, ElementsAre(1, 2));
  }
  // The same holds for a set input: every run starts from its value.
  ASSERT_OK(setFloats("a", {2}, a));
  for (int run = 0; run < 2; ++run) {
    ASSERT_OK(tessel_session_run(session));
    EXPECT_THAT(output("y", nullptr), ElementsAre(21, 42)) << "run " << run;
  }
}

/// The fake CUDA device is not host-addressable: bound inputs are copied
/// to it at each run, bound outputs copied back at the end.
TEST(SessionBindFakeGpu, BindsOnADeviceThatIsNotHostAddressable) {
  registerFakeDrivers();
  std::vector<uint8_t> bytes = format::serialize(addModel());
  tessel_artifact_t *artifact = nullptr;
  tessel_device_t *device = nullptr;
  tessel_session_t *session = nullptr;
  ASSERT_OK(tessel_artifact_load_memory(bytes.data(), bytes.size(), &artifact));
  ASSERT_OK(tessel_device_create("cuda-fake", &device));
  ASSERT_OK(tessel_session_create(artifact, device, &session));
  std::vector<float> a = {1, 2, 3}, b = {10, 20, 30}, y(3, -1), s(1, -1);
  int64_t dims[] = {3};
  ASSERT_OK(tessel_session_bind_input(session, "a", TESSEL_DTYPE_FLOAT32, 1,
                                      dims, a.data(), 12));
  ASSERT_OK(tessel_session_bind_input(session, "b", TESSEL_DTYPE_FLOAT32, 1,
                                      dims, b.data(), 12));
  ASSERT_OK(tessel_session_bind_output(session, "y", y.data(), 12));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(y, ElementsAre(12, 24, 36));
  a[1] = 0;
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(y, ElementsAre(12, 20, 36));
  tessel_tensor_view_t view;
  ASSERT_OK(tessel_session_get_output(session, "y", &view));
  EXPECT_EQ(view.data, y.data());
  ASSERT_OK(tessel_session_get_output(session, "s", &view));
  EXPECT_EQ(*static_cast<const float *>(view.data), 68);
  ASSERT_OK(tessel_session_bind_output(session, "s", s.data(), 2));
  Result r = take(tessel_session_run(session));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "output 's' needs 4 bytes, but its bound buffer has 2");
  tessel_session_release(session);
  tessel_device_release(device);
  tessel_artifact_release(artifact);
}

} // namespace
} // namespace tessel::test
