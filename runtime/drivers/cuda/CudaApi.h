//===- CudaApi.h - The CUDA driver API, loaded at run time ------*- C++ -*-===//
//
// The few CUDA driver API entry points the runtime uses, declared here with
// their cuda.h signatures (so the build needs no CUDA toolkit) and resolved
// with dlsym from libcuda.so.1. Versioned entry points are resolved by their
// exported names (cuMemAlloc_v2, ...), which is what cuda.h's macros map
// the plain names to.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_DRIVERS_CUDA_CUDAAPI_H
#define TESSEL_RUNTIME_DRIVERS_CUDA_CUDAAPI_H

#include "DynamicLibrary.h"

#include <cstddef>
#include <string>

namespace tessel::runtime::cuda {

// Types from cuda.h.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUjit_option = int;
using CUdevice_attribute = int;

// Values from cuda.h.
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;

/// The resolved entry points. A loaded Api has every member non-null.
struct Api {
  DynamicLibrary library;

  CUresult (*cuInit)(unsigned int flags);
  CUresult (*cuGetErrorName)(CUresult error, const char **str);
  CUresult (*cuGetErrorString)(CUresult error, const char **str);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev);
  CUresult (*cuDeviceGetAttribute)(int *pi, CUdevice_attribute attrib,
                                   CUdevice dev);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *pctx, CUdevice dev);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev); // _v2
  CUresult (*cuCtxSetCurrent)(CUcontext ctx);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned int numOptions, CUjit_option *options,
                                 void **optionValues);
  CUresult (*cuModuleGetFunction)(CUfunction *hfunc, CUmodule hmod,
                                  const char *name);
  CUresult (*cuModuleUnload)(CUmodule hmod);
  CUresult (*cuMemAlloc)(CUdeviceptr *dptr, size_t bytesize); // _v2
  CUresult (*cuMemFree)(CUdeviceptr dptr);                    // _v2
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes,
                                CUstream stream); // _v2
  CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes,
                                CUstream stream); // _v2
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                CUstream stream); // _v2
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned int flags);
  CUresult (*cuStreamDestroy)(CUstream stream); // _v2
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned int gridDimX,
                             unsigned int gridDimY, unsigned int gridDimZ,
                             unsigned int blockDimX, unsigned int blockDimY,
                             unsigned int blockDimZ,
                             unsigned int sharedMemBytes, CUstream stream,
                             void **kernelParams, void **extra);

  /// Opens the first loadable of `libraries` and resolves every entry
  /// point; `error` says which library or symbol is missing.
  bool load(const std::vector<std::string> &libraries, std::string &error);

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(CUresult result) const;
};

} // namespace tessel::runtime::cuda

#endif // TESSEL_RUNTIME_DRIVERS_CUDA_CUDAAPI_H
