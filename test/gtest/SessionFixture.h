//===- SessionFixture.h - A CPU session for the session tests ---*- C++ -*-===//
//
// The fixture SessionTest.cpp and ControlFlowSessionTest.cpp share: an
// artifact loaded from a model, the CPU device and a session over them,
// with setters for inputs and readers for outputs.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TEST_GTEST_SESSIONFIXTURE_H
#define TESSEL_TEST_GTEST_SESSIONFIXTURE_H

#include "StatusResult.h"
#include "format/Artifact.h"
#include "tessel/tessel.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

/// Asserts that a call returning tessel_status_t succeeded, printing the
/// message otherwise.
#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    ::tessel::test::Result r_ = ::tessel::test::take(expr);                    \
    ASSERT_EQ(r_.code, TESSEL_STATUS_OK) << r_.message;                        \
  } while (0)

namespace tessel::test {

/// An artifact, the CPU device and a session over them.
class SessionTest : public ::testing::Test {
protected:
  void open(const format::Artifact &model) {
    std::vector<uint8_t> bytes = format::serialize(model);
    ASSERT_OK(
        tessel_artifact_load_memory(bytes.data(), bytes.size(), &artifact));
    ASSERT_OK(tessel_device_create("cpu", &device));
    ASSERT_OK(tessel_session_create(artifact, device, &session));
  }
  void TearDown() override {
    tessel_session_release(session);
    tessel_device_release(device);
    tessel_artifact_release(artifact);
  }

  tessel_status_t setFloats(const char *name, std::vector<int64_t> dims,
                            const std::vector<float> &values) {
    return tessel_session_set_input(session, name, TESSEL_DTYPE_FLOAT32,
                                    dims.size(), dims.data(), values.data(),
                                    values.size() * sizeof(float));
  }

  tessel_status_t setInts(const char *name,
                          const std::vector<int64_t> &values) {
    int64_t dims[] = {int64_t(values.size())};
    return tessel_session_set_input(session, name, TESSEL_DTYPE_INT64, 1, dims,
                                    values.data(),
                                    values.size() * sizeof(int64_t));
  }

  /// Runs with `shape` set to `values`: the run fails with INVALID_ARGUMENT
  /// and `message`, and leaves no output.
  void expectRunFails(const std::vector<int64_t> &values,
                      const std::string &message) {
    ASSERT_OK(setInts("shape", values));
    Result r = take(tessel_session_run(session));
    EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(r.message, message);
    tessel_tensor_view_t view;
    EXPECT_EQ(take(tessel_session_get_output(session, "p", &view)).code,
              TESSEL_STATUS_FAILED_PRECONDITION);
  }

  /// The sizes of the view the probe kernel received (reshapeModel's p).
  std::vector<int64_t> probedSizes() {
    tessel_tensor_view_t view;
    Result r = take(tessel_session_get_output(session, "p", &view));
    EXPECT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
    if (r.code != TESSEL_STATUS_OK || view.data_bytes != 8 * sizeof(int64_t))
      return {};
    const int64_t *p = static_cast<const int64_t *>(view.data);
    return std::vector<int64_t>(p + 1, p + 4);
  }

  std::vector<float> output(const char *name, std::vector<int64_t> *dims) {
    tessel_tensor_view_t view;
    Result r = take(tessel_session_get_output(session, name, &view));
    EXPECT_EQ(r.code, TESSEL_STATUS_OK) << r.message;
    if (r.code != TESSEL_STATUS_OK)
      return {};
    EXPECT_EQ(view.dtype, TESSEL_DTYPE_FLOAT32);
    if (dims)
      dims->assign(view.dims, view.dims + view.rank);
    std::vector<float> values(view.data_bytes / sizeof(float));
    if (view.data_bytes)
      std::memcpy(values.data(), view.data, view.data_bytes);
    return values;
  }

  tessel_artifact_t *artifact = nullptr;
  tessel_device_t *device = nullptr;
  tessel_session_t *session = nullptr;
};

} // namespace tessel::test

#endif // TESSEL_TEST_GTEST_SESSIONFIXTURE_H
