//===- HipTarget.h - Choose the ROCm binary for a device --------*- C++ -*-===//
//
// Artifacts carry one AMDGPU code object (hsaco) per target, named
// "rocm:<arch>[:<feature>...]" ("rocm:gfx90a", "rocm:gfx90a:xnack-"). Code
// objects are not portable across architectures: a binary fits a device when
// its architecture is the device's and each feature it names is one the
// device reports. One naming the device's exact feature string is preferred.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_DRIVERS_HIP_HIPTARGET_H
#define TESSEL_RUNTIME_DRIVERS_HIP_HIPTARGET_H

#include "format/Artifact.h"

namespace tessel::runtime::hip {

/// Indices of the binaries that fit a device whose gcnArchName is
/// `deviceArch` ("gfx90a:sramecc+:xnack-"), best first. When `deviceArch` is
/// "" (unknown) every ROCm binary is a candidate, in artifact order. An
/// empty result comes with `error` ("artifact has no kernels for HIP
/// (targets: cpu)").
std::vector<size_t> rankRocmBinaries(const format::Artifact &artifact,
                                     const std::string &deviceArch,
                                     std::string &error);

} // namespace tessel::runtime::hip

#endif // TESSEL_RUNTIME_DRIVERS_HIP_HIPTARGET_H
