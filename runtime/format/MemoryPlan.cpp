//===- MemoryPlan.cpp - Lifetimes and first-fit arena offsets -------------===//

#include "format/MemoryPlan.h"

#include <algorithm>
#include <utility>

namespace tessel::format {

BufferLifetimes bufferLifetimes(const Artifact &artifact) {
  BufferLifetimes out;
  out.slotOf.assign(artifact.buffers.size(), -1);
  if (!artifact.regions.empty())
    return out;
  auto use = [&](uint32_t buffer, uint32_t launch) {
    if (buffer >= artifact.buffers.size() ||
        artifact.buffers[buffer].kind != Buffer::Kind::Transient)
      return;
    int32_t &slot = out.slotOf[buffer];
    if (slot < 0) {
      slot = static_cast<int32_t>(out.buffers.size());
      out.buffers.push_back(buffer);
      out.first.push_back(launch);
      out.last.push_back(launch);
    }
    out.first[slot] = std::min(out.first[slot], launch);
    out.last[slot] = std::max(out.last[slot], launch);
  };
  for (const HostValues &h : artifact.hostValues)
    use(h.buffer, 0); // written before any launch
  for (uint32_t l = 0; l < artifact.plan.size(); ++l)
    for (const LaunchArg &arg : artifact.plan[l].args)
      use(arg.buffer, l);
  return out;
}

bool planArena(const BufferLifetimes &lifetimes,
               const std::vector<uint64_t> &bytes, size_t launches,
               ArenaPlan &plan) {
  size_t n = lifetimes.buffers.size();
  plan = ArenaPlan();
  plan.offsets.assign(n, 0);
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return bytes[a] > bytes[b]; });
  std::vector<size_t> placed;
  std::vector<std::pair<uint64_t, uint64_t>> taken; // [offset, end)
  for (size_t i : order) {
    taken.clear();
    for (size_t j : placed)
      if (lifetimes.first[j] <= lifetimes.last[i] &&
          lifetimes.first[i] <= lifetimes.last[j])
        taken.push_back({plan.offsets[j], plan.offsets[j] + bytes[j]});
    std::sort(taken.begin(), taken.end());
    uint64_t offset = 0;
    for (const auto &[begin, end] : taken) {
      if (offset + bytes[i] <= begin)
        break;
      offset = std::max(offset, end);
    }
    uint64_t end;
    if (__builtin_add_overflow(offset, bytes[i], &end) ||
        __builtin_add_overflow(plan.sum, bytes[i], &plan.sum))
      return false;
    plan.offsets[i] = offset;
    placed.push_back(i);
    plan.arena = std::max(plan.arena, end);
  }
  // Bytes live per launch, by differences at the lifetimes' ends.
  std::vector<uint64_t> delta(std::max<size_t>(launches, 1) + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    delta[lifetimes.first[i]] += bytes[i];
    delta[lifetimes.last[i] + 1] -= bytes[i];
  }
  uint64_t live = 0;
  for (uint64_t d : delta)
    plan.peakLive = std::max(plan.peakLive, live += d);
  return true;
}

} // namespace tessel::format
