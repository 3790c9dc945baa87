//===- ThreadPool.h - The CPU driver's worker threads -----------*- C++ -*-===//
//
// One pool per process, shared by every session: a CPU launch splits its
// workgroups over the pool's workers and the calling thread. Workers are
// started lazily, up to the most threads any call has asked for (at most
// kMaxThreads), and wait on a condition variable between calls. Calls from
// several threads at once (two sessions) share the workers; each call's
// own thread always takes part, so a call never waits for a worker to be
// free and finishes even when all of them are busy elsewhere.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_SRC_THREADPOOL_H
#define TESSEL_RUNTIME_SRC_THREADPOOL_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tessel::runtime {

class ThreadPool {
public:
  /// The most threads one call uses: the caller and kMaxThreads - 1 workers.
  static constexpr unsigned kMaxThreads = 256;
  /// Chunks per thread of a call, at most one per item.
  static constexpr unsigned kChunksPerThread = 4;
  /// How long an idle worker polls for the next call, and a caller for
  /// the workers to finish its call, before sleeping.
  static constexpr std::chrono::microseconds kSpin{200};

  /// Runs `body` over the contiguous chunks of [0, n).
  using Body = std::function<void(uint64_t begin, uint64_t end)>;

  /// The process's pool, created on first use.
  static ThreadPool &shared();

  ThreadPool() = default;
  /// Stops and joins the workers; no call may be in progress.
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// Splits [0, n) into min(n, kChunksPerThread * t) contiguous chunks of
  /// sizes differing by at most one, where t = min(n, maxThreads,
  /// kMaxThreads), runs `body` once per chunk (claimed one at a time), on
  /// the calling thread and up to t - 1 workers, and returns when
  /// every chunk is done (what `body` wrote is then visible to the caller).
  /// n == 0 does nothing; n == 1 or maxThreads <= 1 calls body(0, n) on the
  /// calling thread, without any synchronization. `body` must not throw.
  void parallelFor(uint64_t n, unsigned maxThreads, const Body &body);

  /// How many workers are started (for tests).
  size_t workerCount();

private:
  struct Job;
  /// Starts workers until there are `count` (fewer if the system refuses
  /// threads: the callers do the work then). Needs `mutex`.
  void startWorkers(size_t count);
  void workerMain();

  std::mutex mutex;
  std::condition_variable wake;
  /// Calls in progress that want more workers, oldest first.
  std::deque<std::shared_ptr<Job>> queue;
  /// queue.size(), readable without the mutex (the workers' polling).
  std::atomic<size_t> queued{0};
  std::vector<std::thread> workers;
  bool stopping = false;
};

/// The thread count a session gets for `requested`: itself, or for 0 the
/// number of cores (at least 1); at most ThreadPool::kMaxThreads.
unsigned resolveThreadCount(uint32_t requested);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_SRC_THREADPOOL_H
