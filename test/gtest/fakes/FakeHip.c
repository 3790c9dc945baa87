/*===- FakeHip.c - A libamdhip64.so stand-in for testing the HIP driver ---===*\
|*                                                                            *|
|* The HIP counterpart of FakeCuda.c: host memory as device memory, launches  *|
|* emulated thread by thread, FAKE_DEVICE_COUNT devices reporting the         *|
|* architecture "gfx90a:sramecc+:xnack-" through the ROCm 5 layout of         *|
|* hipDeviceProp_t (gcnArchName at byte 396). Code objects are fake: text     *|
|* starting with "FAKEHSACO <arch>" and listing ".entry <kernel>(" lines;     *|
|* one for another architecture is rejected like a real one would be.         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "FakeKernels.h"

#include <stdlib.h>
#include <string.h>

#ifndef FAKE_DEVICE_COUNT
#define FAKE_DEVICE_COUNT 1
#endif

#define EXPORT __attribute__((visibility("default")))
#define FAKE_ARCH "gfx90a:sramecc+:xnack-"

typedef int hipError_t;

enum {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorNoBinaryForGpu = 209,
  hipErrorNotFound = 500,
};

struct FakeModule {
  char *image;
};

static int initialized;
static int currentDevice;
static long liveAllocations;
static struct FakeLaunch last;
static long launches;
static long deviceCopies;

EXPORT long fake_hip_live_allocations(void) { return liveAllocations; }
EXPORT long fake_hip_device_copies(void) { return deviceCopies; }
EXPORT long fake_hip_launches(void) { return launches; }
/* The geometry of the last launch: gridDim, blockDim, shared memory. */
EXPORT long fake_hip_last_grid_x(void) { return last.grid[0]; }
EXPORT long fake_hip_last_grid_y(void) { return last.grid[1]; }
EXPORT long fake_hip_last_grid_z(void) { return last.grid[2]; }
EXPORT long fake_hip_last_block_x(void) { return last.block[0]; }
EXPORT long fake_hip_last_block_y(void) { return last.block[1]; }
EXPORT long fake_hip_last_block_z(void) { return last.block[2]; }
EXPORT long fake_hip_last_shared(void) { return last.shared; }

EXPORT hipError_t hipInit(unsigned flags) {
  if (flags != 0)
    return hipErrorInvalidValue;
  if (FAKE_DEVICE_COUNT == 0)
    return hipErrorNoDevice;
  initialized = 1;
  return hipSuccess;
}

EXPORT const char *hipGetErrorName(hipError_t e) {
  switch (e) {
  case hipSuccess:
    return "hipSuccess";
  case hipErrorInvalidValue:
    return "hipErrorInvalidValue";
  case hipErrorOutOfMemory:
    return "hipErrorOutOfMemory";
  case hipErrorNoDevice:
    return "hipErrorNoDevice";
  case hipErrorNoBinaryForGpu:
    return "hipErrorNoBinaryForGpu";
  case hipErrorNotFound:
    return "hipErrorNotFound";
  default:
    return "hipErrorUnknown";
  }
}

EXPORT const char *hipGetErrorString(hipError_t e) {
  return e == hipErrorNotFound ? "named symbol not found" : hipGetErrorName(e);
}

EXPORT hipError_t hipGetDeviceCount(int *count) {
  *count = initialized ? FAKE_DEVICE_COUNT : 0;
  return *count ? hipSuccess : hipErrorNoDevice;
}

EXPORT hipError_t hipSetDevice(int device) {
  if (device < 0 || device >= FAKE_DEVICE_COUNT)
    return hipErrorInvalidDevice;
  currentDevice = device;
  return hipSuccess;
}

EXPORT hipError_t hipDeviceGet(int *device, int ordinal) {
  if (ordinal < 0 || ordinal >= FAKE_DEVICE_COUNT)
    return hipErrorInvalidDevice;
  *device = ordinal;
  return hipSuccess;
}

EXPORT hipError_t hipDeviceGetName(char *name, int len, int device) {
  (void)device;
  strncpy(name, "Fake HIP Device", (size_t)len);
  return hipSuccess;
}

/* The ROCm 5.x layout: name at 0, gcnArchName at 396, sizeof 792. */
EXPORT hipError_t hipGetDeviceProperties(void *props, int device) {
  if (device < 0 || device >= FAKE_DEVICE_COUNT)
    return hipErrorInvalidDevice;
  memset(props, 0, 792);
  strcpy((char *)props, "Fake HIP Device");
  strcpy((char *)props + 396, FAKE_ARCH);
  return hipSuccess;
}

EXPORT hipError_t hipModuleLoadData(void **module, const void *image) {
  const char *text = (const char *)image;
  const char *prefix = "FAKEHSACO ";
  if (strncmp(text, prefix, strlen(prefix)) != 0)
    return hipErrorInvalidImage;
  /* The arch is the base of FAKE_ARCH, "gfx90a". */
  if (strncmp(text + strlen(prefix), "gfx90a", 6) != 0 ||
      (text[strlen(prefix) + 6] != '\n' && text[strlen(prefix) + 6] != ':'))
    return hipErrorNoBinaryForGpu;
  struct FakeModule *m = malloc(sizeof *m);
  m->image = strdup(text);
  *module = m;
  return hipSuccess;
}

EXPORT hipError_t hipModuleGetFunction(void **function, void *module,
                                       const char *name) {
  FakeKernel fn = fakeFindKernel(((struct FakeModule *)module)->image, name);
  if (!fn)
    return hipErrorNotFound;
  *function = (void *)fn;
  return hipSuccess;
}

EXPORT hipError_t hipModuleUnload(void *module) {
  struct FakeModule *m = module;
  free(m->image);
  free(m);
  return hipSuccess;
}

EXPORT hipError_t hipMalloc(void **ptr, size_t bytes) {
  if (bytes == 0) {
    *ptr = 0;
    return hipSuccess;
  }
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    return hipErrorOutOfMemory;
  memset(p, 0x5A, bytes);
  ++liveAllocations;
  *ptr = p;
  return hipSuccess;
}

EXPORT hipError_t hipFree(void *ptr) {
  if (ptr) {
    free(ptr);
    --liveAllocations;
  }
  return hipSuccess;
}

EXPORT hipError_t hipMemcpyHtoDAsync(void *dst, void *src, size_t bytes,
                                     void *stream) {
  (void)stream;
  memcpy(dst, src, bytes);
  return hipSuccess;
}

EXPORT hipError_t hipMemcpyDtoHAsync(void *dst, void *src, size_t bytes,
                                     void *stream) {
  (void)stream;
  memcpy(dst, src, bytes);
  return hipSuccess;
}

EXPORT hipError_t hipMemcpyDtoDAsync(void *dst, void *src, size_t bytes,
                                     void *stream) {
  (void)stream;
  ++deviceCopies;
  memcpy(dst, src, bytes);
  return hipSuccess;
}

static int streamToken;

EXPORT hipError_t hipStreamCreateWithFlags(void **stream, unsigned flags) {
  (void)flags;
  *stream = &streamToken;
  return hipSuccess;
}
EXPORT hipError_t hipStreamDestroy(void *stream) {
  return stream == &streamToken ? hipSuccess : hipErrorInvalidValue;
}
EXPORT hipError_t hipStreamSynchronize(void *stream) {
  return stream == &streamToken ? hipSuccess : hipErrorInvalidValue;
}

EXPORT hipError_t hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy,
                                        unsigned gz, unsigned bx, unsigned by,
                                        unsigned bz, unsigned shared,
                                        void *stream, void **params,
                                        void **extra) {
  struct FakeLaunch l = {{gx, gy, gz}, {bx, by, bz}, shared};
  if (!fakeValidGeometry(&l) || stream != &streamToken || extra || !params)
    return hipErrorInvalidValue;
  last = l;
  ++launches;
  fakeRunGrid((FakeKernel)f, params, &l);
  return hipSuccess;
}
