//===- Compare.cpp - Compare outputs with reference tensors ---------------===//

#include "Compare.h"

#include <cmath>
#include <cstring>

namespace tessel::run {

namespace {

/// Element `i` of `t` as a double (integers exactly up to 2^53).
double elementAt(const io::HostTensor &t, uint64_t i) {
  const uint8_t *p = t.data.data() + i * format::dtypeSize(t.dtype);
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return static_cast<double>(v);
  };
  switch (t.dtype) {
  case format::DType::F32:
    return load(float());
  case format::DType::F64:
    return load(double());
  case format::DType::F16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return io::halfToFloat(bits);
  }
  case format::DType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return io::bfloat16ToFloat(bits);
  }
  case format::DType::I8:
  case format::DType::I4: // one sign-extended byte each
  case format::DType::I2:
    return load(int8_t());
  case format::DType::U4:
  case format::DType::U2:
    return load(uint8_t());
  case format::DType::F8E4M3FN:
  case format::DType::F8E4M3FNUZ:
  case format::DType::F8E5M2:
  case format::DType::F8E5M2FNUZ:
  case format::DType::F8E8M0:
  case format::DType::F4E2M1:
    return io::narrowFloatToFloat(t.dtype, static_cast<uint8_t>(*p));
  case format::DType::U8:
    return load(uint8_t());
  case format::DType::Bool:
    return load(uint8_t());
  case format::DType::I16:
    return load(int16_t());
  case format::DType::U16:
    return load(uint16_t());
  case format::DType::I32:
    return load(int32_t());
  case format::DType::U32:
    return load(uint32_t());
  case format::DType::I64:
    return load(int64_t());
  case format::DType::U64:
    return load(uint64_t());
  }
  return 0;
}

bool isFloat(format::DType t) {
  return t == format::DType::F32 || t == format::DType::F64 ||
         t == format::DType::F16 || t == format::DType::BF16 ||
         io::isNarrowFloat(t);
}

} // namespace

Comparison compareTensors(const io::HostTensor &expected,
                          const io::HostTensor &actual, double rtol,
                          double atol) {
  Comparison c;
  if (expected.dtype != actual.dtype) {
    c.problem = std::string("dtype ") + format::dtypeName(actual.dtype) +
                ", reference " + format::dtypeName(expected.dtype);
    return c;
  }
  if (expected.shape != actual.shape) {
    c.problem = "shape differs from the reference";
    return c;
  }
  bool floats = isFloat(expected.dtype);
  for (uint64_t i = 0, n = expected.elementCount(); i < n; ++i) {
    double e = elementAt(expected, i), a = elementAt(actual, i);
    if (std::isnan(e) || std::isnan(a)) {
      c.mismatches += std::isnan(e) != std::isnan(a);
      continue;
    }
    double diff = std::fabs(a - e);
    c.maxAbsError = std::max(c.maxAbsError, diff);
    if (e != 0)
      c.maxRelError = std::max(c.maxRelError, diff / std::fabs(e));
    bool close = floats ? diff <= atol + rtol * std::fabs(e) : a == e;
    c.mismatches += !close;
  }
  c.ok = c.mismatches == 0;
  return c;
}

} // namespace tessel::run
