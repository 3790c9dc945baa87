/*===- FakeKernels.h - Host emulation of the test GPU kernels -------------===*\
|*                                                                            *|
|* What the kernels of TestKernels.ptx compute, as one "thread" of a 1-D      *|
|* grid: global x id `tid` of `nthreads`, each thread computing exactly the   *|
|* element of its id (no grid-stride loop: a grid too small for the work      *|
|* leaves elements unwritten, so a wrong grid shows in the results). The fake *|
|* CUDA and HIP libraries run these for every thread of a launch, reading     *|
|* the arguments through kernelParams exactly like a GPU would.               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSEL_TEST_FAKES_FAKEKERNELS_H
#define TESSEL_TEST_FAKES_FAKEKERNELS_H

#include <stdint.h>
#include <string.h>

#define FAKE_PTR(j, T) (*(T **)params[j])
#define FAKE_I64(j) (*(int64_t *)params[j])

typedef void (*FakeKernel)(void **params, uint64_t tid, uint64_t nthreads);

static void fakeAdd(void **params, uint64_t tid, uint64_t nthreads) {
  (void)nthreads;
  float *a = FAKE_PTR(1, float), *b = FAKE_PTR(6, float),
        *out = FAKE_PTR(11, float);
  int64_t i = (int64_t)tid;
  if (i < FAKE_I64(3))
    out[FAKE_I64(12) + i * FAKE_I64(14)] =
        a[FAKE_I64(2) + i * FAKE_I64(4)] + b[FAKE_I64(7) + i * FAKE_I64(9)];
}

static void fakeSumAll(void **params, uint64_t tid, uint64_t nthreads) {
  (void)nthreads;
  if (tid != 0)
    return;
  float *in = FAKE_PTR(1, float), *out = FAKE_PTR(8, float);
  float acc = 0;
  for (int64_t i = 0; i < FAKE_I64(3); ++i)
    for (int64_t j = 0; j < FAKE_I64(4); ++j)
      acc += in[FAKE_I64(2) + i * FAKE_I64(5) + j * FAKE_I64(6)];
  out[FAKE_I64(9)] = acc;
}

static void fakeAbiProbe(void **params, uint64_t tid, uint64_t nthreads) {
  (void)nthreads;
  if (tid != 0)
    return;
  int64_t *out = FAKE_PTR(10, int64_t) + FAKE_I64(11);
  out[0] = FAKE_I64(2);
  for (int k = 0; k < 3; ++k) {
    out[1 + k] = FAKE_I64(3 + k);
    out[4 + k] = FAKE_I64(6 + k);
  }
  out[7] = FAKE_PTR(0, float) == FAKE_PTR(1, float);
}

/* The kernel called `name`, if `image` (NUL-terminated text) declares it as
 * ".entry <name>(". */
static FakeKernel fakeFindKernel(const char *image, const char *name) {
  static const struct {
    const char *name;
    FakeKernel fn;
  } kernels[] = {
      {"add", fakeAdd}, {"sum_all", fakeSumAll}, {"abi_probe", fakeAbiProbe}};
  char pattern[256];
  if (strlen(name) > 200)
    return 0;
  strcpy(pattern, ".entry ");
  strcat(pattern, name);
  strcat(pattern, "(");
  if (!strstr(image, pattern))
    return 0;
  for (unsigned i = 0; i < sizeof(kernels) / sizeof(kernels[0]); ++i)
    if (strcmp(kernels[i].name, name) == 0)
      return kernels[i].fn;
  return 0;
}

/* The geometry of a launch, as the fakes record it. */
struct FakeLaunch {
  unsigned grid[3], block[3], shared;
};

/* Whether a grid and block are within CUDA's limits (HIP's are the same for
 * what the tests use). */
static int fakeValidGeometry(const struct FakeLaunch *l) {
  uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
  return l->grid[0] >= 1 && l->grid[0] <= 0x7fffffffu && l->grid[1] >= 1 &&
         l->grid[1] <= 65535 && l->grid[2] >= 1 && l->grid[2] <= 65535 &&
         l->block[0] >= 1 && l->block[1] >= 1 && l->block[2] >= 1 &&
         threads <= 1024 && l->block[2] <= 64 && l->shared <= 228 * 1024;
}

/* Runs `fn` for every thread of a launch: the kernels are 1-D, so each
 * thread gets its global x id, and the threads of other y and z compute
 * the same elements again, like on a GPU. */
static void fakeRunGrid(FakeKernel fn, void **params,
                        const struct FakeLaunch *l) {
  uint64_t nx = (uint64_t)l->grid[0] * l->block[0];
  uint64_t nyz = (uint64_t)l->grid[1] * l->block[1] * l->grid[2] * l->block[2];
  for (uint64_t yz = 0; yz < nyz; ++yz)
    for (uint64_t tid = 0; tid < nx; ++tid)
      fn(params, tid, nx);
}

#endif /* TESSEL_TEST_FAKES_FAKEKERNELS_H */
