//===- HostTensor.h - A tensor in host memory, and tensor files -*- C++ -*-===//
//
// The tensor type of the I/O library (tessel_io): what the .npy and ONNX
// TensorProto readers produce and the .npy writer consumes. It is plain data
// in C order, little-endian. This library is for tools and tests; the
// runtime proper never depends on it (it links protobuf).
//
// Errors of the functions that take a path start with the path
// ("x.npy: big-endian data is not supported"); those that parse bytes in
// memory return the bare reason.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_IO_HOSTTENSOR_H
#define TESSEL_RUNTIME_IO_HOSTTENSOR_H

#include "format/Artifact.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::io {

struct HostTensor {
  format::DType dtype = format::DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; ///< prod(shape) * dtypeSize(dtype) bytes
  std::string name;          ///< TensorProto.name; empty for .npy files

  /// prod(shape); 1 for a scalar.
  uint64_t elementCount() const;
};

/// prod(shape) into `count`; false if a dim is negative or it overflows
/// (or exceeds 2^62 bytes of `elementBytes`-sized elements).
bool checkedElementCount(const std::vector<int64_t> &shape,
                         uint64_t elementBytes, uint64_t &count);

/// Reads a whole file; `error` is "<path>: <strerror>".
bool readFileBytes(const std::string &path, std::vector<uint8_t> &bytes,
                   std::string &error);

/// Reads a .npy or a .pb (serialized onnx.TensorProto) file, chosen by
/// extension, else by content (numpy magic).
bool readTensorFile(const std::string &path, HostTensor &out,
                    std::string &error);

/// IEEE half and bfloat16 bit patterns to float.
float halfToFloat(uint16_t bits);
float bfloat16ToFloat(uint16_t bits);
/// Whether `t` is one of the 8- and 4-bit float formats (float8 E4M3FN,
/// E4M3FNUZ, E5M2, E5M2FNUZ, E8M0 and float4 E2M1).
bool isNarrowFloat(format::DType t);
/// The value of a narrow float's bit pattern (exact in float).
float narrowFloatToFloat(format::DType t, uint8_t bits);

} // namespace tessel::io

#endif // TESSEL_RUNTIME_IO_HOSTTENSOR_H
