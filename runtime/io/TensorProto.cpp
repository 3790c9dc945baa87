//===- TensorProto.cpp - ONNX TensorProto (.pb) files ---------------------===//

#include "io/TensorProto.h"

#include <onnx/onnx_pb.h>

#include <cstring>

namespace tessel::io {

using format::DType;

namespace {

/// Copies `values` converted to T into `out`; false when the count differs.
template <typename T, typename Field, typename Convert>
bool copyTyped(const Field &values, uint64_t count, std::vector<uint8_t> &out,
               const char *field, std::string &error, Convert convert) {
  if (static_cast<uint64_t>(values.size()) != count) {
    error = "expected " + std::to_string(count) + " values, got " +
            std::to_string(values.size()) + " in " + field;
    return false;
  }
  out.resize(count * sizeof(T));
  for (uint64_t i = 0; i < count; ++i) {
    T v = convert(values.Get(static_cast<int>(i)));
    std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
  }
  return true;
}

template <typename T, typename Field>
bool copyTyped(const Field &values, uint64_t count, std::vector<uint8_t> &out,
               const char *field, std::string &error) {
  return copyTyped<T>(values, count, out, field, error,
                      [](auto v) { return static_cast<T>(v); });
}

bool knownDType(int32_t type) {
  DType t = static_cast<DType>(type);
  return type > 0 && format::dtypeSize(t) != 0;
}

/// Fills t.data from the typed field that holds values of t.dtype.
bool readTypedData(const onnx::TensorProto &p, uint64_t count, HostTensor &t,
                   std::string &error) {
  std::vector<uint8_t> &d = t.data;
  switch (t.dtype) {
  case DType::F32:
    return copyTyped<float>(p.float_data(), count, d, "float_data", error);
  case DType::F64:
    return copyTyped<double>(p.double_data(), count, d, "double_data", error);
  case DType::I64:
    return copyTyped<int64_t>(p.int64_data(), count, d, "int64_data", error);
  case DType::U32:
    return copyTyped<uint32_t>(p.uint64_data(), count, d, "uint64_data", error);
  case DType::U64:
    return copyTyped<uint64_t>(p.uint64_data(), count, d, "uint64_data", error);
  case DType::I32:
    return copyTyped<int32_t>(p.int32_data(), count, d, "int32_data", error);
  case DType::I16:
    return copyTyped<int16_t>(p.int32_data(), count, d, "int32_data", error);
  case DType::I8:
    return copyTyped<int8_t>(p.int32_data(), count, d, "int32_data", error);
  case DType::U16:
  case DType::F16:
  case DType::BF16: // bit patterns
    return copyTyped<uint16_t>(p.int32_data(), count, d, "int32_data", error);
  case DType::U8:
  case DType::F8E4M3FN: // bit patterns
  case DType::F8E4M3FNUZ:
  case DType::F8E5M2:
  case DType::F8E5M2FNUZ:
  case DType::F8E8M0:
    return copyTyped<uint8_t>(p.int32_data(), count, d, "int32_data", error);
  case DType::U4: // packed: one int32 per byte of the packed storage
  case DType::I4:
  case DType::F4E2M1:
  case DType::U2:
  case DType::I2: {
    std::vector<uint8_t> packed;
    if (!copyTyped<uint8_t>(p.int32_data(),
                            format::packedByteSize(t.dtype, count), packed,
                            "int32_data", error))
      return false;
    d.resize(count);
    format::unpackElements(t.dtype, packed.data(), count, d.data());
    return true;
  }
  case DType::Bool:
    return copyTyped<uint8_t>(p.int32_data(), count, d, "int32_data", error,
                              [](int32_t v) { return uint8_t(v != 0); });
  }
  error = "unsupported data type";
  return false;
}

} // namespace

bool parseTensorProto(const uint8_t *data, size_t size, HostTensor &out,
                      std::string &error) {
  onnx::TensorProto p;
  if (size > static_cast<size_t>(INT32_MAX) ||
      !p.ParseFromArray(data, static_cast<int>(size))) {
    error = "not a valid ONNX TensorProto";
    return false;
  }
  std::string what = p.name().empty() ? "tensor" : "tensor '" + p.name() + "'";
  if (p.data_type() == onnx::TensorProto::UNDEFINED) {
    error = what + ": no data type (not an ONNX TensorProto?)";
    return false;
  }
  if (p.data_type() == onnx::TensorProto::STRING) {
    error = what + ": string tensors are not supported";
    return false;
  }
  if (!knownDType(p.data_type())) {
    std::string name =
        onnx::TensorProto_DataType_IsValid(p.data_type())
            ? " (" +
                  onnx::TensorProto_DataType_Name(
                      static_cast<onnx::TensorProto_DataType>(p.data_type())) +
                  ")"
            : "";
    error = what + ": unsupported data type " + std::to_string(p.data_type()) +
            name;
    return false;
  }
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    error = what + ": external data is not supported";
    return false;
  }
  if (p.has_segment()) {
    error = what + ": segmented tensors are not supported";
    return false;
  }
  HostTensor t;
  t.name = p.name();
  t.dtype = static_cast<DType>(p.data_type());
  t.shape.assign(p.dims().begin(), p.dims().end());
  uint64_t count;
  uint64_t itemSize = format::dtypeSize(t.dtype);
  if (!checkedElementCount(t.shape, itemSize, count)) {
    error = what + ": invalid or too large shape";
    return false;
  }
  if (p.has_raw_data()) {
    // 4- and 2-bit types are packed there (several elements per byte).
    uint64_t bytes = format::packedByteSize(t.dtype, count);
    if (p.raw_data().size() != bytes) {
      error = what + ": raw_data has " + std::to_string(p.raw_data().size()) +
              " bytes, expected " + std::to_string(bytes);
      return false;
    }
    t.data.resize(count * itemSize);
    format::unpackElements(
        t.dtype, reinterpret_cast<const uint8_t *>(p.raw_data().data()), count,
        t.data.data());
  } else if (!readTypedData(p, count, t, error)) {
    error = what + ": " + error;
    return false;
  }
  out = std::move(t);
  return true;
}

bool readTensorProtoFile(const std::string &path, HostTensor &out,
                         std::string &error) {
  std::vector<uint8_t> bytes;
  if (!readFileBytes(path, bytes, error))
    return false;
  if (!parseTensorProto(bytes.data(), bytes.size(), out, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

} // namespace tessel::io
