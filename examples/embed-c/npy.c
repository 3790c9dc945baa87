#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *descr;
  tessel_dtype_t dtype;
} kDtypes[] = {
    {"<f4", TESSEL_DTYPE_FLOAT32}, {"<f8", TESSEL_DTYPE_FLOAT64},
    {"<f2", TESSEL_DTYPE_FLOAT16}, {"<i8", TESSEL_DTYPE_INT64},
    {"<i4", TESSEL_DTYPE_INT32},   {"<i2", TESSEL_DTYPE_INT16},
    {"|i1", TESSEL_DTYPE_INT8},    {"|u1", TESSEL_DTYPE_UINT8},
    {"<u2", TESSEL_DTYPE_UINT16},  {"<u4", TESSEL_DTYPE_UINT32},
    {"<u8", TESSEL_DTYPE_UINT64},  {"|b1", TESSEL_DTYPE_BOOL},
};

static int fail(char *error, size_t size, const char *path, const char *what) {
  snprintf(error, size, "%s: %s", path, what);
  return 1;
}

int npy_load(const char *path, npy_array *out, char *error, size_t size) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail(error, size, path, "cannot open");
  unsigned char magic[10];
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0) {
    fclose(f);
    return fail(error, size, path, "not a .npy file");
  }
  size_t header_len = 0;
  if (magic[6] == 1) {
    unsigned char n[2];
    if (fread(n, 1, 2, f) != 2) {
      fclose(f);
      return fail(error, size, path, "truncated header");
    }
    header_len = n[0] | (size_t)n[1] << 8;
  } else {
    unsigned char n[4];
    if (fread(n, 1, 4, f) != 4) {
      fclose(f);
      return fail(error, size, path, "truncated header");
    }
    header_len = n[0] | (size_t)n[1] << 8 | (size_t)n[2] << 16 |
                 (size_t)n[3] << 24;
  }
  char *header = malloc(header_len + 1);
  if (!header || fread(header, 1, header_len, f) != header_len) {
    free(header);
    fclose(f);
    return fail(error, size, path, "truncated header");
  }
  header[header_len] = '\0';
  /* {'descr': '<f4', 'fortran_order': False, 'shape': (2, 64), } */
  const char *descr = strstr(header, "'descr'");
  const char *fortran = strstr(header, "'fortran_order'");
  const char *shape = strstr(header, "'shape'");
  int ok = descr && fortran && shape && strstr(fortran, "False");
  if (ok) {
    descr = strchr(descr + 7, '\'');
    ok = descr != NULL;
  }
  if (ok) {
    ok = 0;
    for (size_t i = 0; i < sizeof kDtypes / sizeof kDtypes[0]; ++i)
      if (strncmp(descr + 1, kDtypes[i].descr, 3) == 0 && descr[4] == '\'') {
        out->dtype = kDtypes[i].dtype;
        ok = 1;
      }
  }
  size_t elements = 1;
  if (ok) {
    const char *p = strchr(shape, '(');
    ok = p != NULL;
    for (++p; ok && *p != ')';) {
      char *end;
      long long d = strtoll(p, &end, 10);
      if (end == p) { /* a separator */
        ++p;
        continue;
      }
      if (d < 0 || out->rank == 16) {
        ok = 0;
        break;
      }
      out->dims[out->rank++] = d;
      elements *= (size_t)d;
      p = end;
    }
  }
  free(header);
  if (!ok) {
    fclose(f);
    return fail(error, size, path,
                "unsupported header (need a little-endian C-ordered array "
                "of a numeric or bool dtype)");
  }
  out->bytes = elements * tessel_dtype_size(out->dtype);
  out->data = malloc(out->bytes ? out->bytes : 1);
  if (!out->data || fread(out->data, 1, out->bytes, f) != out->bytes) {
    fclose(f);
    npy_free(out);
    return fail(error, size, path, "truncated data");
  }
  fclose(f);
  return 0;
}

void npy_free(npy_array *array) {
  free(array->data);
  array->data = NULL;
}
