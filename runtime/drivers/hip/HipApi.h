//===- HipApi.h - The HIP runtime API, loaded at run time -------*- C++ -*-===//
//
// The HIP entry points the runtime uses, declared with the signatures of
// hip_runtime_api.h (so the build needs no ROCm) and resolved with dlsym
// from libamdhip64.so.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_DRIVERS_HIP_HIPAPI_H
#define TESSEL_RUNTIME_DRIVERS_HIP_HIPAPI_H

#include "DynamicLibrary.h"

#include <cstddef>
#include <string>

namespace tessel::runtime::hip {

// Types from hip_runtime_api.h.
using hipError_t = int;
using hipDevice_t = int;
using hipModule_t = struct ihipModule_t *;
using hipFunction_t = struct ihipModuleSymbol_t *;
using hipStream_t = struct ihipStream_t *;
using hipDeviceptr_t = void *;

// Values from hip_runtime_api.h.
constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorOutOfMemory = 2;
constexpr unsigned hipStreamNonBlocking = 0x1;

/// The resolved entry points. A loaded Api has every member non-null except
/// the two property getters, of which at least one is present.
struct Api {
  DynamicLibrary library;

  hipError_t (*hipInit)(unsigned int flags);
  const char *(*hipGetErrorName)(hipError_t error);
  const char *(*hipGetErrorString)(hipError_t error);
  hipError_t (*hipGetDeviceCount)(int *count);
  hipError_t (*hipSetDevice)(int deviceId);
  hipError_t (*hipDeviceGet)(hipDevice_t *device, int ordinal);
  hipError_t (*hipDeviceGetName)(char *name, int len, hipDevice_t device);
  /// hipGetDeviceProperties of ROCm 6 (hipDeviceProp_tR0600), or null.
  hipError_t (*hipGetDevicePropertiesR0600)(void *prop, int deviceId);
  /// hipGetDeviceProperties of ROCm 5 (and ROCm 6's compatibility symbol).
  hipError_t (*hipGetDeviceProperties)(void *prop, int deviceId);
  hipError_t (*hipModuleLoadData)(hipModule_t *module, const void *image);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *function,
                                     hipModule_t module, const char *name);
  hipError_t (*hipModuleUnload)(hipModule_t module);
  hipError_t (*hipMalloc)(void **ptr, size_t size);
  hipError_t (*hipFree)(void *ptr);
  hipError_t (*hipMemcpyHtoDAsync)(hipDeviceptr_t dst, void *src,
                                   size_t sizeBytes, hipStream_t stream);
  hipError_t (*hipMemcpyDtoHAsync)(void *dst, hipDeviceptr_t src,
                                   size_t sizeBytes, hipStream_t stream);
  hipError_t (*hipMemcpyDtoDAsync)(hipDeviceptr_t dst, hipDeviceptr_t src,
                                   size_t sizeBytes, hipStream_t stream);
  hipError_t (*hipStreamCreateWithFlags)(hipStream_t *stream,
                                         unsigned int flags);
  hipError_t (*hipStreamDestroy)(hipStream_t stream);
  hipError_t (*hipStreamSynchronize)(hipStream_t stream);
  hipError_t (*hipModuleLaunchKernel)(
      hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
      unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
      unsigned int blockDimZ, unsigned int sharedMemBytes, hipStream_t stream,
      void **kernelParams, void **extra);

  /// Opens the first loadable of `libraries` and resolves the entry points;
  /// `error` says which library or symbol is missing.
  bool load(const std::vector<std::string> &libraries, std::string &error);

  /// "hipErrorOutOfMemory (out of memory)".
  std::string describe(hipError_t result) const;

  /// The device's architecture ("gfx90a:sramecc+:xnack-"), or "" when it
  /// cannot be read; see HipApi.cpp for how.
  std::string deviceArch(int ordinal) const;
};

} // namespace tessel::runtime::hip

#endif // TESSEL_RUNTIME_DRIVERS_HIP_HIPAPI_H
