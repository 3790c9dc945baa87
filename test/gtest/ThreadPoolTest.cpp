//===- ThreadPoolTest.cpp - The CPU driver's thread pool ------------------===//
//
// Chunking, the inline cases, lazily started workers, and callers on
// several threads at once. Each test uses a pool of its own, so that the
// worker counts it sees are its own.
//
//===----------------------------------------------------------------------===//

#include "ThreadPool.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

using namespace tessel::runtime;
using ::testing::ElementsAre;
using Chunk = std::pair<uint64_t, uint64_t>;

namespace {

/// The chunks `pool` gives parallelFor(n, maxThreads), sorted.
std::vector<Chunk> chunks(ThreadPool &pool, uint64_t n, unsigned maxThreads) {
  std::mutex mutex;
  std::vector<Chunk> out;
  pool.parallelFor(n, maxThreads, [&](uint64_t begin, uint64_t end) {
    std::lock_guard<std::mutex> lock(mutex);
    out.push_back({begin, end});
  });
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ThreadPool, SplitsIntoContiguousChunksOfNearlyEqualSize) {
  ThreadPool pool;
  // kChunksPerThread (4) chunks per thread, at most one per item.
  EXPECT_THAT(chunks(pool, 10, 2),
              ElementsAre(Chunk{0, 2}, Chunk{2, 4}, Chunk{4, 5}, Chunk{5, 6},
                          Chunk{6, 7}, Chunk{7, 8}, Chunk{8, 9}, Chunk{9, 10}));
  EXPECT_THAT(chunks(pool, 16, 2),
              ElementsAre(Chunk{0, 2}, Chunk{2, 4}, Chunk{4, 6}, Chunk{6, 8},
                          Chunk{8, 10}, Chunk{10, 12}, Chunk{12, 14},
                          Chunk{14, 16}));
  EXPECT_EQ(chunks(pool, 10, 4).size(), 10u);
  // Every item exactly once, for many shapes.
  for (uint64_t n : {2u, 7u, 100u, 1001u})
    for (unsigned threads : {2u, 3u, 8u, 64u}) {
      std::vector<std::atomic<int>> seen(n);
      pool.parallelFor(n, threads, [&](uint64_t begin, uint64_t end) {
        for (uint64_t i = begin; i < end; ++i)
          ++seen[i];
      });
      for (uint64_t i = 0; i < n; ++i)
        ASSERT_EQ(seen[i].load(), 1) << n << " items, " << threads
                                     << " threads, item " << i;
    }
}

TEST(ThreadPool, NoWorkCallsNothing) {
  ThreadPool pool;
  bool called = false;
  pool.parallelFor(0, 8, [&](uint64_t, uint64_t) { called = true; });
  EXPECT_FALSE(called);
  EXPECT_EQ(pool.workerCount(), 0u);
}

TEST(ThreadPool, OneItemOrOneThreadRunsInlineWithoutWorkers) {
  ThreadPool pool;
  std::thread::id caller = std::this_thread::get_id();
  std::vector<Chunk> seen;
  std::vector<std::thread::id> on;
  auto body = [&](uint64_t begin, uint64_t end) {
    seen.push_back({begin, end}); // no lock: the calls must be inline
    on.push_back(std::this_thread::get_id());
  };
  pool.parallelFor(1, 8, body);
  pool.parallelFor(100, 1, body);
  pool.parallelFor(100, 0, body);
  EXPECT_THAT(seen, ElementsAre(Chunk{0, 1}, Chunk{0, 100}, Chunk{0, 100}));
  EXPECT_THAT(on, ElementsAre(caller, caller, caller));
  EXPECT_EQ(pool.workerCount(), 0u);
}

TEST(ThreadPool, MoreThreadsThanWorkMakesOneChunkPerItem) {
  ThreadPool pool;
  EXPECT_THAT(chunks(pool, 3, 16),
              ElementsAre(Chunk{0, 1}, Chunk{1, 2}, Chunk{2, 3}));
  // The caller takes part: two workers are enough for three chunks.
  EXPECT_EQ(pool.workerCount(), 2u);
}

TEST(ThreadPool, StartsWorkersLazilyUpToTheMostAskedFor) {
  ThreadPool pool;
  chunks(pool, 100, 4);
  EXPECT_EQ(pool.workerCount(), 3u);
  chunks(pool, 100, 2);
  EXPECT_EQ(pool.workerCount(), 3u); // kept, not stopped
  chunks(pool, 100, 6);
  EXPECT_EQ(pool.workerCount(), 5u);
  EXPECT_EQ(chunks(pool, 1000, 100000).size(), 1000u);
  EXPECT_EQ(pool.workerCount(), ThreadPool::kMaxThreads - 1);
}

TEST(ThreadPool, TwoCallersAtOnceEachGetAllTheirWork) {
  ThreadPool pool;
  auto caller = [&pool](uint64_t n, unsigned threads, int calls,
                        uint64_t *sum) {
    for (int c = 0; c < calls; ++c) {
      std::atomic<uint64_t> total{0};
      pool.parallelFor(n, threads, [&](uint64_t begin, uint64_t end) {
        uint64_t s = 0;
        for (uint64_t i = begin; i < end; ++i)
          s += i;
        total += s;
      });
      *sum += total;
    }
  };
  uint64_t a = 0, b = 0;
  std::thread first(caller, 1000, 4, 300, &a);
  std::thread second(caller, 777, 3, 300, &b);
  first.join();
  second.join();
  EXPECT_EQ(a, 300 * (999u * 1000 / 2));
  EXPECT_EQ(b, 300 * (776u * 777 / 2));
}

TEST(ThreadPool, TheSharedPoolIsOne) {
  EXPECT_EQ(&ThreadPool::shared(), &ThreadPool::shared());
}

TEST(ThreadPool, ResolvesThreadCounts) {
  EXPECT_EQ(resolveThreadCount(1), 1u);
  EXPECT_EQ(resolveThreadCount(7), 7u);
  EXPECT_EQ(resolveThreadCount(100000), ThreadPool::kMaxThreads);
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(resolveThreadCount(0), std::min(cores, ThreadPool::kMaxThreads));
}

} // namespace
