//===- MemoryPlan.cpp - Lifetimes and first-fit arena offsets -------------===//

#include "format/MemoryPlan.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

namespace tessel::format {

BufferLifetimes bufferLifetimes(const Artifact &artifact) {
  BufferLifetimes out;
  out.slotOf.assign(artifact.buffers.size(), -1);
  if (!artifact.controlOps.empty())
    return out;
  // Symbols known before the first buffer is placed: the inputs', and
  // those the leading shape steps bind (with regions; without, the whole
  // shape program runs before any launch).
  std::set<std::string> known;
  for (const TensorSignature &input : artifact.inputs)
    for (const Dim &d : input.shape)
      if (d.isSymbolic())
        known.insert(d.symbol);
  auto bindsOf = [&](const ShapeOp &op) {
    for (const Dim &d : op.results)
      if (d.isSymbolic())
        known.insert(d.symbol);
  };
  auto plannable = [&](uint32_t buffer) {
    if (buffer >= artifact.buffers.size() ||
        artifact.buffers[buffer].kind != Buffer::Kind::Transient)
      return false;
    for (const Dim &d : artifact.buffers[buffer].shape)
      if (d.isSymbolic() && !known.count(d.symbol))
        return false;
    return true;
  };
  std::vector<bool> excluded(artifact.buffers.size());
  auto use = [&](uint32_t buffer, uint32_t time) {
    if (buffer >= artifact.buffers.size() || excluded[buffer])
      return;
    int32_t &slot = out.slotOf[buffer];
    if (slot < 0) {
      if (!plannable(buffer)) {
        excluded[buffer] = true; // its own allocation
        return;
      }
      slot = static_cast<int32_t>(out.buffers.size());
      out.buffers.push_back(buffer);
      out.first.push_back(time);
      out.last.push_back(time);
    }
    out.first[slot] = std::min(out.first[slot], time);
    out.last[slot] = std::max(out.last[slot], time);
  };
  if (artifact.regions.empty()) {
    for (const ShapeOp &op : artifact.shapeProgram)
      bindsOf(op);
    for (const HostValues &h : artifact.hostValues)
      use(h.buffer, 0); // written before any launch
    for (uint32_t l = 0; l < artifact.plan.size(); ++l)
      for (const LaunchArg &arg : artifact.plan[l].args)
        use(arg.buffer, l);
    out.times = static_cast<uint32_t>(artifact.plan.size());
    return out;
  }
  // Region 0 alone: its steps in order are the time.
  const std::vector<Step> &steps = artifact.regions[0].steps;
  size_t lead = 0;
  for (; lead < steps.size() && steps[lead].kind == Step::Kind::Shape &&
         steps[lead].index < artifact.shapeProgram.size() &&
         artifact.shapeProgram[steps[lead].index].kind !=
             ShapeOp::Kind::BufferValues;
       ++lead)
    bindsOf(artifact.shapeProgram[steps[lead].index]);
  for (uint32_t t = 0; t < steps.size(); ++t) {
    const Step &step = steps[t];
    if (step.kind == Step::Kind::Launch && step.index < artifact.plan.size()) {
      for (const LaunchArg &arg : artifact.plan[step.index].args)
        use(arg.buffer, t);
    } else if (step.kind == Step::Kind::HostValues &&
               step.index < artifact.hostValues.size()) {
      use(artifact.hostValues[step.index].buffer, t);
    } else if (step.kind == Step::Kind::Shape &&
               step.index < artifact.shapeProgram.size() &&
               artifact.shapeProgram[step.index].kind ==
                   ShapeOp::Kind::BufferValues) {
      use(artifact.shapeProgram[step.index].buffer, t);
    }
  }
  out.times = static_cast<uint32_t>(steps.size());
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
