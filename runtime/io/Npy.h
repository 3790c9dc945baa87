//===- Npy.h - numpy .npy files ---------------------------------*- C++ -*-===//
//
// Reads format versions 1.0, 2.0 and 3.0 (little-endian or byte-order-free
// data, C order, the numeric and bool dtypes of format::DType except
// bfloat16, which numpy lacks) and writes version 1.0 (2.0 for headers over
// 64 KiB). Fortran-order and big-endian arrays are rejected with a clear
// error rather than silently transposed or byte-swapped.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_IO_NPY_H
#define TESSEL_RUNTIME_IO_NPY_H

#include "io/HostTensor.h"

namespace tessel::io {

/// True when `data` starts with the numpy magic "\x93NUMPY".
bool looksLikeNpy(const uint8_t *data, size_t size);

/// Parses a .npy image.
bool parseNpy(const uint8_t *data, size_t size, HostTensor &out,
              std::string &error);

/// Encodes `tensor` as a .npy image; fails for dtypes numpy lacks.
bool encodeNpy(const HostTensor &tensor, std::vector<uint8_t> &out,
               std::string &error);

/// The numpy descr of `dtype` ("<f4", "|b1"), or null if numpy has none.
const char *npyDescr(format::DType dtype);

bool readNpyFile(const std::string &path, HostTensor &out, std::string &error);
bool writeNpyFile(const std::string &path, const HostTensor &tensor,
                  std::string &error);

} // namespace tessel::io

#endif // TESSEL_RUNTIME_IO_NPY_H
