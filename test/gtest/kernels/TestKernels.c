/*===- TestKernels.c - CPU kernels for the runtime tests ------------------===*\
|*                                                                            *|
|* Built as a shared object whose bytes the tests embed in artifacts as the   *|
|* "cpu" binary. Each kernel K is exported as K_packed(void **params), the    *|
|* ABI of docs/design.md: per argument, allocated pointer, aligned pointer,   *|
|* offset, sizes[rank], strides[rank]; params[j] points at scalar j.          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))
#define PTR(j, T) (*(T **)params[j])
#define I64(j) (*(int64_t *)params[j])

/* out[i] = a[i] + b[i] on rank-1 float32 memrefs (5 scalars each). */
EXPORT void add_packed(void **params) {
  float *a = PTR(1, float), *b = PTR(6, float), *out = PTR(11, float);
  int64_t n = I64(3);
  for (int64_t i = 0; i < n; ++i)
    out[I64(12) + i * I64(14)] =
        a[I64(2) + i * I64(4)] + b[I64(7) + i * I64(9)];
}

/* out[] = sum(in[i][j]) for a rank-2 float32 input (7 scalars) and a rank-0
 * output (3 scalars). */
EXPORT void sum_all_packed(void **params) {
  float *in = PTR(1, float), *out = PTR(8, float);
  float acc = 0;
  for (int64_t i = 0; i < I64(3); ++i)
    for (int64_t j = 0; j < I64(4); ++j)
      acc += in[I64(2) + i * I64(5) + j * I64(6)];
  out[I64(9)] = acc;
}

/* Reports the descriptor of its rank-3 input in its int64[8] output:
 * offset, sizes[3], strides[3], and 1 if the two pointers are equal. */
EXPORT void abi_probe_packed(void **params) {
  int64_t *out = PTR(10, int64_t);
  int64_t base = I64(11);
  out[base + 0] = I64(2);
  for (int k = 0; k < 3; ++k) {
    out[base + 1 + k] = I64(3 + k);
    out[base + 4 + k] = I64(6 + k);
  }
  out[base + 7] = PTR(0, float) == PTR(1, float);
}
