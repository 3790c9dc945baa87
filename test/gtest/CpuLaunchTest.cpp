//===- CpuLaunchTest.cpp - CPU workgroups, threads and session options ----===//
//
// The CPU driver runs every workgroup of a launch's grid exactly once, with
// its id and the count (format 3.3, kernels/TestKernels.c tile_ids), on one
// thread or several, from one session or two at once; the thread count
// comes from tessel_session_options_t.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"
#include "tessel/tessel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <thread>

using namespace tessel;
using ::testing::HasSubstr;

namespace {

std::string takeMessage(tessel_status_t s) {
  std::string m = tessel_status_message(s);
  tessel_status_free(s);
  return m;
}

/// tileModel loaded, on the CPU.
class TileSession {
public:
  explicit TileSession(const tessel_session_options_t *options) {
    std::vector<uint8_t> bytes = format::serialize(test::tileModel());
    EXPECT_EQ(
        tessel_artifact_load_memory(bytes.data(), bytes.size(), &artifact),
        nullptr);
    EXPECT_EQ(tessel_device_create("cpu", &device), nullptr);
    tessel_status_t s = tessel_session_create_with_options(artifact, device,
                                                           options, &session);
    EXPECT_EQ(s, nullptr) << tessel_status_message(s);
    tessel_status_free(s);
  }
  ~TileSession() {
    tessel_session_release(session);
    tessel_device_release(device);
    tessel_artifact_release(artifact);
  }

  /// Runs over `rows` x `cols`; the output, or empty on failure.
  std::vector<int64_t> run(int64_t rows, int64_t cols) {
    std::vector<int64_t> x(static_cast<size_t>(rows * cols));
    int64_t dims[] = {rows, cols};
    tessel_status_t s =
        tessel_session_set_input(session, "x", TESSEL_DTYPE_INT64, 2, dims,
                                 x.data(), x.size() * sizeof(int64_t));
    if (!s)
      s = tessel_session_run(session);
    std::vector<int64_t> ids(x.size());
    if (!s)
      s = tessel_session_copy_output(session, "ids", ids.data(),
                                     ids.size() * sizeof(int64_t));
    if (s) {
      ADD_FAILURE() << takeMessage(s);
      return {};
    }
    return ids;
  }

  tessel_session_t *get() { return session; }

private:
  tessel_artifact_t *artifact = nullptr;
  tessel_device_t *device = nullptr;
  tessel_session_t *session = nullptr;
};

tessel_session_options_t withThreads(uint32_t threads) {
  tessel_session_options_t options;
  tessel_session_options_init(&options);
  options.threads = threads;
  return options;
}

/// Checks that each element holds the code of the one workgroup covering
/// it: every workgroup ran exactly once, with its id and the count.
void expectEveryWorkgroupOnce(const std::vector<int64_t> &ids, int64_t rows,
                              int64_t cols) {
  ASSERT_EQ(ids.size(), static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      ASSERT_EQ(ids[r * cols + c], test::tileCode(rows, cols, r, c))
          << "element (" << r << ", " << c << ") of " << rows << " x "
          << cols;
}

TEST(CpuLaunch, EveryWorkgroupOfA2DGridRunsOnceWithItsId) {
  for (uint32_t threads : {1u, 4u}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    tessel_session_options_t options = withThreads(threads);
    TileSession session(&options);
    // 3 x 4 workgroups with partial tiles at both edges; one workgroup;
    // a grid of 2048 (more than any chunking could hide).
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{7, 10},
                              {2, 4},
                              {1, 1},
                              {64, 256}})
      expectEveryWorkgroupOnce(session.run(rows, cols), rows, cols);
  }
}

TEST(CpuLaunch, AnEmptyGridRunsNothing) {
  // A work size of 0 along a dim of the grid: no workgroup, no call.
  TileSession session(nullptr);
  EXPECT_TRUE(session.run(0, 5).empty());
  EXPECT_TRUE(session.run(3, 0).empty());
  expectEveryWorkgroupOnce(session.run(3, 5), 3, 5);
}

TEST(CpuLaunch, OneAndFourThreadsGiveIdenticalResults) {
  tessel_session_options_t one = withThreads(1), four = withThreads(4);
  TileSession a(&one), b(&four);
  for (int64_t rows : {1, 5, 33})
    EXPECT_EQ(a.run(rows, 100), b.run(rows, 100)) << rows;
}

TEST(CpuLaunch, TwoSessionsLaunchConcurrentlyFromTwoThreads) {
  tessel_session_options_t options = withThreads(4);
  TileSession a(&options), b(&options);
  auto work = [](TileSession &s, int64_t rows) {
    for (int i = 0; i < 50; ++i)
      expectEveryWorkgroupOnce(s.run(rows, 48 + i), rows, 48 + i);
  };
  std::thread first(work, std::ref(a), 13);
  std::thread second(work, std::ref(b), 20);
  first.join();
  second.join();
}

TEST(SessionOptions, DefaultsAndStructSize) {
  tessel_session_options_t options;
  std::memset(&options, 0xff, sizeof(options));
  tessel_session_options_init(&options);
  EXPECT_EQ(options.struct_size, sizeof(tessel_session_options_t));
  EXPECT_EQ(options.threads, 0u); // one per core
  EXPECT_EQ(options.max_loop_iterations, 0u); // the default limit
  tessel_session_options_init(nullptr); // a no-op

  std::vector<uint8_t> bytes = format::serialize(test::tileModel());
  tessel_artifact_t *artifact = nullptr;
  tessel_device_t *device = nullptr;
  ASSERT_EQ(tessel_artifact_load_memory(bytes.data(), bytes.size(), &artifact),
            nullptr);
  ASSERT_EQ(tessel_device_create("cpu", &device), nullptr);
  tessel_session_t *session = nullptr;
  // A struct from before its fields existed (or never initialized).
  options.struct_size = sizeof(size_t);
  tessel_status_t s =
      tessel_session_create_with_options(artifact, device, &options, &session);
  EXPECT_EQ(tessel_status_code(s), TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(takeMessage(s),
            "options->struct_size is 8, less than the " +
                std::to_string(offsetof(tessel_session_options_t,
                                        max_loop_iterations)) +
                " bytes of the first tessel_session_options_t (call "
                "tessel_session_options_init first)");
  EXPECT_EQ(session, nullptr);
  // The first version ended after `threads`: its callers get the default
  // Loop iteration limit.
  EXPECT_EQ(options.max_loop_iterations, 0u);
  options.struct_size = offsetof(tessel_session_options_t, max_loop_iterations);
  ASSERT_EQ(
      tessel_session_create_with_options(artifact, device, &options, &session),
      nullptr);
  tessel_session_release(session);
  // A newer caller's larger struct is fine; so are NULL options.
  options.struct_size = sizeof(options) + 16;
  ASSERT_EQ(
      tessel_session_create_with_options(artifact, device, &options, &session),
      nullptr);
  tessel_session_release(session);
  ASSERT_EQ(
      tessel_session_create_with_options(artifact, device, nullptr, &session),
      nullptr);
  tessel_session_release(session);
  s = tessel_session_create_with_options(nullptr, device, nullptr, &session);
  EXPECT_EQ(takeMessage(s), "artifact is null");
  tessel_device_release(device);
  tessel_artifact_release(artifact);
}

} // namespace
