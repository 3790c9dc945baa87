//===- CudaApi.cpp - The CUDA driver API, loaded at run time --------------===//

#include "drivers/cuda/CudaApi.h"

namespace tessel::runtime::cuda {

namespace {

/// Resolves `name` into `fn`; false (with `error`) when it is missing.
template <typename Fn>
bool resolve(const DynamicLibrary &lib, Fn &fn, const char *name,
             std::string &error) {
  fn = reinterpret_cast<Fn>(lib.symbol(name));
  if (!fn)
    error = lib.name() + " lacks " + name;
  return fn != nullptr;
}

} // namespace

bool Api::load(const std::vector<std::string> &libraries, std::string &error) {
  if (!library.open(libraries, error))
    return false;
#define TESSEL_CUDA_RESOLVE(member, symbol)                                    \
  if (!resolve(library, member, symbol, error))                                \
    return false;
  TESSEL_CUDA_RESOLVE(cuInit, "cuInit")
  TESSEL_CUDA_RESOLVE(cuGetErrorName, "cuGetErrorName")
  TESSEL_CUDA_RESOLVE(cuGetErrorString, "cuGetErrorString")
  TESSEL_CUDA_RESOLVE(cuDeviceGetCount, "cuDeviceGetCount")
  TESSEL_CUDA_RESOLVE(cuDeviceGet, "cuDeviceGet")
  TESSEL_CUDA_RESOLVE(cuDeviceGetName, "cuDeviceGetName")
  TESSEL_CUDA_RESOLVE(cuDeviceGetAttribute, "cuDeviceGetAttribute")
  TESSEL_CUDA_RESOLVE(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
  TESSEL_CUDA_RESOLVE(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")
  TESSEL_CUDA_RESOLVE(cuCtxSetCurrent, "cuCtxSetCurrent")
  TESSEL_CUDA_RESOLVE(cuModuleLoadDataEx, "cuModuleLoadDataEx")
  TESSEL_CUDA_RESOLVE(cuModuleGetFunction, "cuModuleGetFunction")
  TESSEL_CUDA_RESOLVE(cuModuleUnload, "cuModuleUnload")
  TESSEL_CUDA_RESOLVE(cuMemAlloc, "cuMemAlloc_v2")
  TESSEL_CUDA_RESOLVE(cuMemFree, "cuMemFree_v2")
  TESSEL_CUDA_RESOLVE(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")
  TESSEL_CUDA_RESOLVE(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")
  TESSEL_CUDA_RESOLVE(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2")
  TESSEL_CUDA_RESOLVE(cuStreamCreate, "cuStreamCreate")
  TESSEL_CUDA_RESOLVE(cuStreamDestroy, "cuStreamDestroy_v2")
  TESSEL_CUDA_RESOLVE(cuStreamSynchronize, "cuStreamSynchronize")
  TESSEL_CUDA_RESOLVE(cuLaunchKernel, "cuLaunchKernel")
#undef TESSEL_CUDA_RESOLVE
  return true;
}

std::string Api::describe(CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = nullptr;
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS || !text)
    text = nullptr;
  std::string s = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    s += std::string(" (") + text + ")";
  return s;
}

} // namespace tessel::runtime::cuda
