//===- Report.h - What a compiled model runs, for people --------*- C++ -*-===//
//
// `tessel-compile --report`: each dispatch with the ONNX nodes it holds and
// the kernel launches (stages) it takes, then the memory plan of the
// transients (format/MemoryPlan.h) where their sizes are static, or the
// symbols they wait for, then each kernel's launch config per target.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_REPORT_H
#define TESSEL_COMPILER_REPORT_H

#include "runtime/format/Artifact.h"

#include <string>

namespace tessel {

/// The whole report: the dispatches, reportMemory, reportLaunchConfigs.
std::string reportArtifact(const format::Artifact &artifact);
/// One line: the memory plan of the transients, or what it waits for.
std::string reportMemory(const format::Artifact &artifact);
/// One line per kernel: its launch config on each target ("tessel_k0_s1
/// cpu: 1x1x1 (w0, ceil(w1 / 4), 1)  cuda:sm_90: 256x1x1 (ceil(w0*w1 /
/// 256), 1, 1)"), after a header line; nothing without binaries.
std::string reportLaunchConfigs(const format::Artifact &artifact);

} // namespace tessel

#endif // TESSEL_COMPILER_REPORT_H
