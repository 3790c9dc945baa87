//===- MemoryPlan.h - Where the transient buffers live -----------*- C++ -*-===//
//
// The memory plan of an artifact without control flow: each transient
// buffer is live from the first launch that names it to the last (launch 0
// for a host values buffer, written before any launch), and buffers whose
// lifetimes do not meet may share bytes of one arena. A plan whose only
// region is the top level (it reads values back from kernels) is planned
// the same way over its steps, for the buffers whose extents are known
// from the inputs and the shape steps before the first other step; a
// buffer sized by a value read back gets its own allocation. The runtime
// plans once the shapes are bound (sizes are symbolic in most exports);
// the compiler's report plans the same way where they are static.
// Standard library only, like the rest of format/.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FORMAT_MEMORYPLAN_H
#define TESSEL_RUNTIME_FORMAT_MEMORYPLAN_H

#include "format/Artifact.h"

#include <cstdint>
#include <vector>

namespace tessel::format {

/// The transient buffers of `artifact` and their lifetimes, in launches
/// (or in steps of region 0). Empty when the artifact has control ops: a
/// branch or an iteration binds sizes that a run does not know when it
/// starts.
struct BufferLifetimes {
  std::vector<uint32_t> buffers;     ///< the planned buffers
  std::vector<uint32_t> first, last; ///< per planned buffer
  std::vector<int32_t> slotOf;       ///< per artifact buffer: index, or -1
  uint32_t times = 0; ///< launches, or steps of region 0: first/last < times
};
BufferLifetimes bufferLifetimes(const Artifact &artifact);

/// Offsets of buffers of `bytes` (multiples of 64) with `lifetimes` in one
/// arena: largest first, each at the lowest offset clear of the buffers
/// placed so far whose lifetimes meet its own. `launches` is the number of
/// time points (BufferLifetimes::times). False when the sizes add up past 2^64.
struct ArenaPlan {
  std::vector<uint64_t> offsets; ///< per planned buffer
  uint64_t arena = 0;            ///< bytes of the arena
  uint64_t sum = 0;              ///< bytes of one allocation per buffer
  uint64_t peakLive = 0; ///< the most bytes live during one launch: the
                         ///< least any plan of these lifetimes needs
};
bool planArena(const BufferLifetimes &lifetimes,
               const std::vector<uint64_t> &bytes, size_t launches,
               ArenaPlan &plan);

/// `bytes` rounded up to the arena's alignment (64).
inline uint64_t arenaSize(uint64_t bytes) { return (bytes + 63) / 64 * 64; }

} // namespace tessel::format

#endif // TESSEL_RUNTIME_FORMAT_MEMORYPLAN_H
