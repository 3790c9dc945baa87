//===- Report.h - What a compiled model runs, for people --------*- C++ -*-===//
//
// `tessel-compile --report`: each dispatch with the ONNX nodes it holds and
// the kernel launches (stages) it takes, then the
// memory plan of the transients (format/MemoryPlan.h) where their sizes are
// static, or the symbols they wait for.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_REPORT_H
#define TESSEL_COMPILER_REPORT_H

#include "runtime/format/Artifact.h"

#include <string>

namespace tessel {

std::string reportArtifact(const format::Artifact &artifact);

} // namespace tessel

#endif // TESSEL_COMPILER_REPORT_H
