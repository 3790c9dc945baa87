/* A minimal reader of .npy files (numpy's format, version 1 and 2): a
 * little-endian, C-ordered array of one of the dtypes Tessel knows. */
#ifndef EMBED_NPY_H
#define EMBED_NPY_H

#include <tessel/tessel.h>

typedef struct npy_array {
  tessel_dtype_t dtype;
  size_t rank;
  int64_t dims[16];
  void *data;
  size_t bytes;
} npy_array;

/* 0 on success; otherwise writes a message to `error` (of `error_size`). */
int npy_load(const char *path, npy_array *out, char *error, size_t error_size);
void npy_free(npy_array *array);

#endif
