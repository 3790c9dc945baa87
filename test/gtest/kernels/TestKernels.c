/*===- TestKernels.c - CPU kernels for the runtime tests ------------------===*\
|*                                                                            *|
|* Built as a shared object whose bytes the tests embed in artifacts as the   *|
|* "cpu" binary. Each kernel K is exported as                                 *|
|*   K_packed(void **params, const int64_t *workgroup),                       *|
|* the ABI of docs/design.md: per argument, allocated pointer, aligned        *|
|* pointer, offset, sizes[rank], strides[rank]; params[j] points at scalar j; *|
|* workgroup[0..2] is the workgroup's id x, y, z and workgroup[3..5] the      *|
|* count. All but tile_ids run as one workgroup and ignore it.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))
#define PTR(j, T) (*(T **)params[j])
#define I64(j) (*(int64_t *)params[j])

/* out[i] = a[i] + b[i] on rank-1 float32 memrefs (5 scalars each). */
EXPORT void add_packed(void **params, const int64_t *workgroup) {
  (void)workgroup;
  float *a = PTR(1, float), *b = PTR(6, float), *out = PTR(11, float);
  int64_t n = I64(3);
  for (int64_t i = 0; i < n; ++i)
    out[I64(12) + i * I64(14)] =
        a[I64(2) + i * I64(4)] + b[I64(7) + i * I64(9)];
}

/* out[] = sum(in[i][j]) for a rank-2 float32 input (7 scalars) and a rank-0
 * output (3 scalars). */
EXPORT void sum_all_packed(void **params, const int64_t *workgroup) {
  (void)workgroup;
  float *in = PTR(1, float), *out = PTR(8, float);
  float acc = 0;
  for (int64_t i = 0; i < I64(3); ++i)
    for (int64_t j = 0; j < I64(4); ++j)
      acc += in[I64(2) + i * I64(5) + j * I64(6)];
  out[I64(9)] = acc;
}

/* Reports the descriptor of its rank-3 input in its int64[8] output:
 * offset, sizes[3], strides[3], and 1 if the two pointers are equal. */
EXPORT void abi_probe_packed(void **params, const int64_t *workgroup) {
  (void)workgroup;
  int64_t *out = PTR(10, int64_t);
  int64_t base = I64(11);
  out[base + 0] = I64(2);
  for (int k = 0; k < 3; ++k) {
    out[base + 1 + k] = I64(3 + k);
    out[base + 4 + k] = I64(6 + k);
  }
  out[base + 7] = PTR(0, float) == PTR(1, float);
}

/* Zeroes its rank-2 int64 argument (7 scalars). */
EXPORT void zero_i64_packed(void **params, const int64_t *workgroup) {
  (void)workgroup;
  int64_t *out = PTR(1, int64_t);
  for (int64_t r = 0; r < I64(3); ++r)
    for (int64_t c = 0; c < I64(4); ++c)
      out[I64(2) + r * I64(5) + c * I64(6)] = 0;
}

/* The tile of 2 rows x 4 columns of workgroup (x, y) in its rank-2 int64
 * argument (7 scalars): columns [4x, 4x + 4), rows [2y, 2y + 2), cut at the
 * edges. Adds to each element of its tile a code of its workgroup id and
 * count, so that a workgroup that ran twice, or not at all, or with the
 * wrong id or count, shows in the result:
 *   1 + x + 100 y + 10^4 z + 10^6 count_x + 10^8 count_y + 10^10 count_z */
EXPORT void tile_ids_packed(void **params, const int64_t *workgroup) {
  int64_t *out = PTR(1, int64_t);
  int64_t code = 1 + workgroup[0] + 100 * workgroup[1] +
                 10000 * workgroup[2] + 1000000 * workgroup[3] +
                 100000000 * workgroup[4] + 10000000000 * workgroup[5];
  int64_t rowEnd = 2 * workgroup[1] + 2, colEnd = 4 * workgroup[0] + 4;
  if (rowEnd > I64(3))
    rowEnd = I64(3);
  if (colEnd > I64(4))
    colEnd = I64(4);
  for (int64_t r = 2 * workgroup[1]; r < rowEnd; ++r)
    for (int64_t c = 4 * workgroup[0]; c < colEnd; ++c)
      out[I64(2) + r * I64(5) + c * I64(6)] += code;
}
