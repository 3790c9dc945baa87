//===- TensorProto.h - ONNX TensorProto (.pb) files -------------*- C++ -*-===//
//
// Reads serialized onnx.TensorProto messages, the format of the ONNX test
// data sets (test_data_set_N/input_M.pb). Data may be in raw_data or in the
// typed fields: float_data, double_data, int64_data, uint64_data (uint32,
// uint64) and int32_data (int32 and, one per value, the narrow types: bool,
// int8/16, uint8/16, float16 and bfloat16 bit patterns). String tensors,
// external data and types Tessel does not know are errors.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_IO_TENSORPROTO_H
#define TESSEL_RUNTIME_IO_TENSORPROTO_H

#include "io/HostTensor.h"

namespace tessel::io {

/// Parses a serialized TensorProto; `out.name` is its name.
bool parseTensorProto(const uint8_t *data, size_t size, HostTensor &out,
                      std::string &error);

bool readTensorProtoFile(const std::string &path, HostTensor &out,
                         std::string &error);

} // namespace tessel::io

#endif // TESSEL_RUNTIME_IO_TENSORPROTO_H
