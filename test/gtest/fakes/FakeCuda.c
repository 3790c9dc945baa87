/*===- FakeCuda.c - A libcuda.so stand-in for testing the CUDA driver -----===*\
|*                                                                            *|
|* Implements the CUDA driver API entry points the runtime resolves, over     *|
|* host memory: "device" pointers are host pointers, copies are memcpy, and   *|
|* a launch runs the kernel's host emulation (FakeKernels.h) for every thread *|
|* of the grid. It reports FAKE_DEVICE_COUNT devices (cuInit fails with       *|
|* CUDA_ERROR_NO_DEVICE when 0) of compute capability 8.6, so the runtime's   *|
|* library loading, binary selection, memory handling, kernel ABI and launch  *|
|* geometry are all exercised without a GPU. fake_cuda_* functions let tests  *|
|* inspect what happened.                                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "FakeKernels.h"

#include <stdlib.h>
#include <string.h>

#ifndef FAKE_DEVICE_COUNT
#define FAKE_DEVICE_COUNT 1
#endif

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_LAUNCH_FAILED = 719,
};

struct FakeModule {
  char *image;
};

static int initialized;
static long liveAllocations;
static struct FakeLaunch last;
static long launches;
static long deviceCopies;

EXPORT long fake_cuda_live_allocations(void) { return liveAllocations; }
/* The geometry of the last launch: gridDim, blockDim, shared memory. */
EXPORT long fake_cuda_last_grid_x(void) { return last.grid[0]; }
EXPORT long fake_cuda_last_grid_y(void) { return last.grid[1]; }
EXPORT long fake_cuda_last_grid_z(void) { return last.grid[2]; }
EXPORT long fake_cuda_last_block_x(void) { return last.block[0]; }
EXPORT long fake_cuda_last_block_y(void) { return last.block[1]; }
EXPORT long fake_cuda_last_block_z(void) { return last.block[2]; }
EXPORT long fake_cuda_last_shared(void) { return last.shared; }
EXPORT long fake_cuda_launches(void) { return launches; }
EXPORT long fake_cuda_device_copies(void) { return deviceCopies; }

EXPORT CUresult cuInit(unsigned flags) {
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (FAKE_DEVICE_COUNT == 0)
    return CUDA_ERROR_NO_DEVICE;
  initialized = 1;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char **str) {
  switch (error) {
  case CUDA_SUCCESS:
    *str = "CUDA_SUCCESS";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_VALUE:
    *str = "CUDA_ERROR_INVALID_VALUE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_OUT_OF_MEMORY:
    *str = "CUDA_ERROR_OUT_OF_MEMORY";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NO_DEVICE:
    *str = "CUDA_ERROR_NO_DEVICE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_IMAGE:
    *str = "CUDA_ERROR_INVALID_IMAGE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_FOUND:
    *str = "CUDA_ERROR_NOT_FOUND";
    return CUDA_SUCCESS;
  default:
    *str = 0;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

EXPORT CUresult cuGetErrorString(CUresult error, const char **str) {
  switch (error) {
  case CUDA_ERROR_NOT_FOUND:
    *str = "named symbol not found";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_IMAGE:
    *str = "device kernel image is invalid";
    return CUDA_SUCCESS;
  case CUDA_ERROR_OUT_OF_MEMORY:
    *str = "out of memory";
    return CUDA_SUCCESS;
  default:
    *str = "fake error";
    return CUDA_SUCCESS;
  }
}

EXPORT CUresult cuDeviceGetCount(int *count) {
  if (!initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  *count = FAKE_DEVICE_COUNT;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(int *device, int ordinal) {
  if (ordinal < 0 || ordinal >= FAKE_DEVICE_COUNT)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, int device) {
  (void)device;
  strncpy(name, "Fake CUDA Device", (size_t)len);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  (void)device;
  if (attribute == 75) {
    *value = 8;
    return CUDA_SUCCESS;
  } /* CC major */
  if (attribute == 76) {
    *value = 6;
    return CUDA_SUCCESS;
  } /* CC minor */
  return CUDA_ERROR_INVALID_VALUE;
}

static int contextToken;

EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, int device) {
  (void)device;
  *ctx = &contextToken;
  return CUDA_SUCCESS;
}
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  (void)device;
  return CUDA_SUCCESS;
}
EXPORT CUresult cuCtxSetCurrent(void *ctx) {
  return ctx == &contextToken ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n,
                                   int *options, void **values) {
  (void)n;
  (void)options;
  (void)values;
  const char *text = (const char *)image;
  if (!strstr(text, ".version") || !strstr(text, ".entry"))
    return CUDA_ERROR_INVALID_IMAGE;
  struct FakeModule *m = malloc(sizeof *m);
  m->image = strdup(text);
  *module = m;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleGetFunction(void **function, void *module,
                                    const char *name) {
  FakeKernel fn = fakeFindKernel(((struct FakeModule *)module)->image, name);
  if (!fn)
    return CUDA_ERROR_NOT_FOUND;
  *function = (void *)fn;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleUnload(void *module) {
  struct FakeModule *m = module;
  free(m->image);
  free(m);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  memset(p, 0xA5, bytes); /* device memory is not zeroed */
  ++liveAllocations;
  *ptr = (CUdeviceptr)(uintptr_t)p;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr) {
  free((void *)(uintptr_t)ptr);
  --liveAllocations;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src,
                                     size_t bytes, void *stream) {
  (void)stream;
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes,
                                     void *stream) {
  (void)stream;
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src,
                                     size_t bytes, void *stream) {
  (void)stream;
  ++deviceCopies;
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

static int streamToken;

EXPORT CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = &streamToken;
  return CUDA_SUCCESS;
}
EXPORT CUresult cuStreamDestroy_v2(void *stream) {
  return stream == &streamToken ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
EXPORT CUresult cuStreamSynchronize(void *stream) {
  return stream == &streamToken ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                               unsigned bx, unsigned by, unsigned bz,
                               unsigned shared, void *stream, void **params,
                               void **extra) {
  struct FakeLaunch l = {{gx, gy, gz}, {bx, by, bz}, shared};
  if (!fakeValidGeometry(&l) || stream != &streamToken || extra || !params)
    return CUDA_ERROR_INVALID_VALUE;
  last = l;
  ++launches;
  fakeRunGrid((FakeKernel)f, params, &l);
  return CUDA_SUCCESS;
}
