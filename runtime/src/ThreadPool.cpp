//===- ThreadPool.cpp - The CPU driver's worker threads -------------------===//
//
// A call publishes a Job: its chunks are claimed through an atomic counter,
// by the caller and by the workers that pick the job from the queue, so
// that each chunk runs exactly once however many threads turn up. The
// caller then waits until every chunk has finished; the job lives in a
// shared_ptr, so a worker that picked it late (after its last chunk was
// claimed) still holds valid memory while it finds nothing to do. `body`
// lives on the caller's stack: a worker only calls it for a chunk it
// claimed, and the caller does not return before that chunk is done.
//
//===----------------------------------------------------------------------===//

#include "ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <system_error>

namespace tessel::runtime {

struct ThreadPool::Job {
  Job(const Body &body, uint64_t n, uint64_t chunks)
      : body(body), n(n), chunks(chunks) {}

  /// Runs chunks until none is left to claim; returns how many it ran.
  uint64_t runChunks() {
    uint64_t ran = 0;
    const uint64_t base = n / chunks, rest = n % chunks;
    for (;;) {
      uint64_t c = next.fetch_add(1);
      if (c >= chunks)
        return ran;
      // The first `rest` chunks have one item more.
      uint64_t begin = c * base + std::min(c, rest);
      body(begin, begin + base + (c < rest));
      ++ran;
    }
  }

  /// Records that `ran` chunks finished; wakes the caller after the last.
  /// The count is atomic so that the caller can poll it; the mutex, taken
  /// after the count reaches `chunks`, orders the notification after a
  /// caller's check of the predicate (no lost wake-up).
  void finish(uint64_t ran) {
    if (ran == 0)
      return;
    if (finished.fetch_add(ran, std::memory_order_acq_rel) + ran != chunks)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    done.notify_all();
  }

  bool allFinished() const {
    return finished.load(std::memory_order_acquire) == chunks;
  }

  const Body &body;
  const uint64_t n, chunks;
  std::atomic<uint64_t> next{0}; ///< the next chunk to claim
  /// Workers that may still pick the job from the queue (pool mutex).
  uint64_t helpersWanted = 0;
  std::mutex mutex;
  std::condition_variable done;
  std::atomic<uint64_t> finished{0}; ///< chunks done
};

ThreadPool &ThreadPool::shared() {
  static ThreadPool pool;
  return pool;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wake.notify_all();
  for (std::thread &t : workers)
    t.join();
}

size_t ThreadPool::workerCount() {
  std::lock_guard<std::mutex> lock(mutex);
  return workers.size();
}

void ThreadPool::startWorkers(size_t count) {
  while (workers.size() < count) {
    try {
      workers.emplace_back([this] { workerMain(); });
    } catch (const std::system_error &) {
      return; // no more threads: the callers do the work themselves
    }
  }
}

void ThreadPool::workerMain() {
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    if (queue.empty() && !stopping) {
      // Launches come back to back: poll for the next job for a while
      // before sleeping, since waking a sleeping thread takes tens of
      // microseconds, a large part of a small launch.
      lock.unlock();
      auto until = std::chrono::steady_clock::now() + kSpin;
      while (queued.load(std::memory_order_acquire) == 0 &&
             std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      lock.lock();
    }
    wake.wait(lock, [this] { return stopping || !queue.empty(); });
    if (stopping)
      return;
    std::shared_ptr<Job> job = queue.front();
    if (--job->helpersWanted == 0) {
      queue.pop_front();
      queued.fetch_sub(1, std::memory_order_release);
    }
    lock.unlock();
    job->finish(job->runChunks());
    job.reset();
    lock.lock();
  }
}

void ThreadPool::parallelFor(uint64_t n, unsigned maxThreads,
                             const Body &body) {
  if (n == 0)
    return;
  if (n == 1 || maxThreads <= 1) {
    body(0, n);
    return;
  }
  uint64_t threads = std::min<uint64_t>({n, maxThreads, kMaxThreads});
  // Several chunks per thread, claimed one at a time: a worker that wakes
  // late finds work left, and uneven chunks even out.
  uint64_t chunks = std::min<uint64_t>(n, threads * kChunksPerThread);
  auto job = std::make_shared<Job>(body, n, chunks);
  job->helpersWanted = threads - 1;
  {
    std::lock_guard<std::mutex> lock(mutex);
    startWorkers(threads - 1);
    queue.push_back(job);
    queued.fetch_add(1, std::memory_order_release);
  }
  // Wake as many workers as the job wants; spare ones go back to sleep.
  if (threads - 1 == 1)
    wake.notify_one();
  else
    wake.notify_all();
  uint64_t ran = job->runChunks();
  // Every chunk is claimed now: no worker needs to pick the job up.
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = std::find(queue.begin(), queue.end(), job);
    if (it != queue.end()) {
      queue.erase(it);
      queued.fetch_sub(1, std::memory_order_release);
    }
  }
  job->finish(ran);
  // The workers' last chunks usually end within microseconds: poll before
  // sleeping, since a thread put to sleep (a halted vCPU on a virtual
  // machine) can take far longer than that to wake.
  auto until = std::chrono::steady_clock::now() + kSpin;
  while (!job->allFinished() && std::chrono::steady_clock::now() < until)
    std::this_thread::yield();
  std::unique_lock<std::mutex> lock(job->mutex);
  job->done.wait(lock, [&] { return job->allFinished(); });
}

unsigned resolveThreadCount(uint32_t requested) {
  unsigned threads = requested;
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  return std::min(threads, ThreadPool::kMaxThreads);
}

} // namespace tessel::runtime
