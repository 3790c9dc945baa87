//===- Report.cpp - tessel-compile --report --------------------------------===//

#include "compiler/Report.h"

#include "runtime/format/MemoryPlan.h"

#include <cstdio>
#include <set>

using namespace tessel;
using namespace tessel::format;

/// The dispatch a kernel symbol belongs to: a stage "tessel_k3_s1" is one
/// of the kernel "tessel_k3".
static std::string dispatchOf(const std::string &symbol) {
  size_t stage = symbol.rfind("_s");
  return stage == std::string::npos ? symbol : symbol.substr(0, stage);
}

/// "768 bytes", or "7.00 MiB" from 1 MiB on.
static std::string mib(uint64_t bytes) {
  char text[32];
  if (bytes < (uint64_t(1) << 20))
    std::snprintf(text, sizeof(text), "%llu bytes",
                  static_cast<unsigned long long>(bytes));
  else
    std::snprintf(text, sizeof(text), "%.2f MiB", bytes / (1024.0 * 1024.0));
  return text;
}

std::string tessel::reportArtifact(const Artifact &artifact) {
  std::string out;
  // Launches of one dispatch are consecutive: its stages in order.
  struct Dispatch {
    std::string node, op;
    size_t launches = 0;
  };
  std::vector<Dispatch> dispatches;
  std::string current;
  for (const Launch &launch : artifact.plan) {
    const Kernel &kernel = artifact.kernels[launch.kernel];
    std::string dispatch = dispatchOf(kernel.symbol);
    if (dispatches.empty() || dispatch != current) {
      current = dispatch;
      dispatches.push_back({kernel.onnxNode, kernel.onnxOp, 0});
    }
    ++dispatches.back().launches;
  }
  out += std::to_string(dispatches.size()) +
         (dispatches.size() == 1 ? " dispatch, " : " dispatches, ") +
         std::to_string(artifact.plan.size()) + " kernel launches" +
         (artifact.controlOps.empty()
              ? std::string()
              : ", " + std::to_string(artifact.controlOps.size()) +
                    " control ops (launches in their regions run per entry)") +
         "\n";
  for (size_t i = 0; i < dispatches.size(); ++i) {
    const Dispatch &dispatch = dispatches[i];
    char head[48];
    std::snprintf(head, sizeof(head), "  dispatch %zu (%zu launch%s): ", i,
                  dispatch.launches, dispatch.launches == 1 ? "" : "es");
    out += head + dispatch.node + " (" + dispatch.op + ")\n";
  }

  return out + reportMemory(artifact) + reportLaunchConfigs(artifact);
}

/// "ceil(w1*w2 / 4)" for an axis over work dims 1 and 2 in tiles of 4, "1"
/// for an unused axis.
static std::string axisText(const WorkgroupAxis &axis) {
  if (axis.dims.empty())
    return "1";
  std::string product;
  for (uint32_t d : axis.dims)
    product += (product.empty() ? "w" : "*w") + std::to_string(d);
  if (axis.tile == 1)
    return product;
  return "ceil(" + product + " / " + std::to_string(axis.tile) + ")";
}

std::string tessel::reportLaunchConfigs(const Artifact &artifact) {
  std::string out;
  if (artifact.binaries.empty())
    return out;
  out += "launch configs (workgroup size; workgroups along x, y, z of the "
         "work sizes w0, w1, ...):\n";
  for (size_t k = 0; k < artifact.kernels.size(); ++k) {
    out += "  " + artifact.kernels[k].symbol;
    for (const TargetBinary &binary : artifact.binaries) {
      if (k >= binary.launchConfigs.size())
        continue;
      const LaunchConfig &c = binary.launchConfigs[k];
      out += "  " + binary.target + ": " + std::to_string(c.workgroupSize[0]) +
             "x" + std::to_string(c.workgroupSize[1]) + "x" +
             std::to_string(c.workgroupSize[2]) + " (" +
             axisText(c.workgroupCount[0]) + ", " +
             axisText(c.workgroupCount[1]) + ", " +
             axisText(c.workgroupCount[2]) + ")";
      if (c.sharedMemoryBytes)
        out += " shared " + std::to_string(c.sharedMemoryBytes);
      if (c.scratchBytes)
        out += " scratch " + std::to_string(c.scratchBytes);
    }
    out += "\n";
  }
  return out;
}

std::string tessel::reportMemory(const Artifact &artifact) {
  std::string out;
  // The memory plan, where the sizes are known now.
  BufferLifetimes lifetimes = bufferLifetimes(artifact);
  if (!artifact.controlOps.empty())
    return "memory: the plan has control flow: one allocation per buffer\n";
  // Buffers sized by values read back from kernels are not planned.
  size_t unplanned = 0;
  for (size_t b = 0; !artifact.regions.empty() && b < artifact.buffers.size();
       ++b)
    unplanned += artifact.buffers[b].kind == Buffer::Kind::Transient &&
                 lifetimes.slotOf[b] < 0;
  std::string own = unplanned ? " (and " + std::to_string(unplanned) +
                                    " sized by values read back, one "
                                    "allocation each)"
                              : std::string();
  std::set<std::string> symbols;
  std::vector<uint64_t> bytes;
  for (uint32_t b : lifetimes.buffers) {
    const Buffer &buffer = artifact.buffers[b];
    uint64_t count = 1;
    for (const Dim &dim : buffer.shape) {
      if (dim.isSymbolic())
        symbols.insert(dim.symbol);
      else
        count *= static_cast<uint64_t>(dim.value);
    }
    bytes.push_back(arenaSize(count * dtypeSize(buffer.dtype)));
  }
  out += "memory: " + std::to_string(lifetimes.buffers.size()) +
         " transient buffers" + own;
  if (!symbols.empty()) {
    std::string names;
    for (const std::string &s : symbols)
      names += (names.empty() ? "" : ", ") + s;
    return out + " whose sizes depend on " + names +
           ": the runtime plans the arena once they are bound (tessel-run "
           "--profile reports it)\n";
  }
  ArenaPlan plan;
  if (!planArena(lifetimes, bytes, lifetimes.times, plan))
    return out + " of more than 2^64 bytes\n";
  return out + " in an arena of " + mib(plan.arena) + " (one allocation each: " +
         mib(plan.sum) + "; most live at one launch: " + mib(plan.peakLive) +
         ")\n";
}
