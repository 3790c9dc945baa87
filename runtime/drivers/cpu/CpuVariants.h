//===- CpuVariants.h - Which CPU binary of an artifact runs here -*- C++ -*-===//
//
// An artifact may carry its CPU kernels compiled for several CPUs
// ("cpu:x86-64-v4+avx512bf16+avx512vnni", "cpu:x86-64-v3"; format 3.6).
// The CPU driver runs the one this CPU can run that uses the most x86-64
// extensions, or the one a session names.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_DRIVERS_CPU_CPUVARIANTS_H
#define TESSEL_RUNTIME_DRIVERS_CPU_CPUVARIANTS_H

#include "Status.h"
#include "format/Artifact.h"

#include <functional>
#include <string>

namespace tessel::runtime {

/// Whether this CPU has x86-64 feature `name` (a name of CpuFeatures.h);
/// `known` is false for a name not in that list.
using HostFeatureQuery = std::function<bool(const std::string &name,
                                            bool &known)>;

/// This process's CPU, through cpuid (__builtin_cpu_supports).
HostFeatureQuery hostCpuFeatures();

/// Sets `out` to the CPU binary of `artifact` to run on a CPU that `host`
/// describes: the one named `requested` ("cpu:x86-64-v3"; the "cpu:" may
/// be left out), or when `requested` is empty the binary the CPU can run
/// whose code uses the most extensions (the first of those in artifact
/// order on a tie). UNAVAILABLE when there is no CPU binary, when the
/// named one is not in the artifact, or when this CPU lacks an extension
/// the binary needs (naming each binary and what it lacks);
/// INVALID_ARTIFACT for a feature name this runtime does not know.
Status selectCpuBinary(const format::Artifact &artifact,
                       const std::string &requested,
                       const HostFeatureQuery &host,
                       const format::TargetBinary *&out);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_DRIVERS_CPU_CPUVARIANTS_H
