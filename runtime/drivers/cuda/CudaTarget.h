//===- CudaTarget.h - Choose the CUDA binary for a device -------*- C++ -*-===//
//
// Artifacts carry PTX per target ("cuda:sm_80", "cuda:sm_90a"). PTX for
// sm_XY runs, through the driver's JIT, on any device of compute capability
// XY or newer; arch-specific PTX (sm_90a) only on exactly that capability.
// The best binary is the arch-specific one of the device, then the one of
// its exact capability, then the newest older one.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_DRIVERS_CUDA_CUDATARGET_H
#define TESSEL_RUNTIME_DRIVERS_CUDA_CUDATARGET_H

#include "format/Artifact.h"

namespace tessel::runtime::cuda {

/// Parses "cuda:sm_90a" into sm = 90, archSpecific = true; false when
/// `target` is not a CUDA target.
bool parseCudaTarget(const std::string &target, int &sm, bool &archSpecific);

/// The index of the binary to load on a device of compute capability `sm`
/// (major * 10 + minor), or -1 with `error` ("artifact has no kernels for
/// CUDA (targets: cpu)").
int selectCudaBinary(const format::Artifact &artifact, int sm,
                     std::string &error);

} // namespace tessel::runtime::cuda

#endif // TESSEL_RUNTIME_DRIVERS_CUDA_CUDATARGET_H
