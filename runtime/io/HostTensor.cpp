//===- HostTensor.cpp - A tensor in host memory, and tensor files ---------===//

#include "io/HostTensor.h"

#include "io/Npy.h"
#include "io/TensorProto.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessel::io {

uint64_t HostTensor::elementCount() const {
  uint64_t count = 1;
  for (int64_t d : shape)
    count *= static_cast<uint64_t>(d);
  return count;
}

bool checkedElementCount(const std::vector<int64_t> &shape,
                         uint64_t elementBytes, uint64_t &count) {
  count = 1;
  for (int64_t d : shape)
    if (d < 0 ||
        __builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
      return false;
  uint64_t bytes;
  return !__builtin_mul_overflow(count, elementBytes, &bytes) &&
         bytes <= (uint64_t(1) << 62);
}

bool readFileBytes(const std::string &path, std::vector<uint8_t> &bytes,
                   std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    error = path + ": not a regular file";
    return false;
  }
  bytes.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = path + ": read error" +
              (n < 0 ? std::string(": ") + std::strerror(errno) : "");
      ::close(fd);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return true;
}

namespace {
bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}
} // namespace

bool readTensorFile(const std::string &path, HostTensor &out,
                    std::string &error) {
  std::vector<uint8_t> bytes;
  if (!readFileBytes(path, bytes, error))
    return false;
  bool npy =
      endsWith(path, ".npy") ||
      (!endsWith(path, ".pb") && looksLikeNpy(bytes.data(), bytes.size()));
  bool ok = npy ? parseNpy(bytes.data(), bytes.size(), out, error)
                : parseTensorProto(bytes.data(), bytes.size(), out, error);
  if (!ok)
    error = path + ": " + error;
  return ok;
}

float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1F;
  uint32_t mantissa = h & 0x3FF;
  uint32_t bits;
  if (exponent == 0x1F) { // inf / nan
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) { // normal
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) { // zero
    bits = sign;
  } else { // subnormal: normalize
    exponent = 113;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

float bfloat16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

bool isNarrowFloat(format::DType t) {
  switch (t) {
  case format::DType::F8E4M3FN:
  case format::DType::F8E4M3FNUZ:
  case format::DType::F8E5M2:
  case format::DType::F8E5M2FNUZ:
  case format::DType::F8E8M0:
  case format::DType::F4E2M1:
    return true;
  default:
    return false;
  }
}

float narrowFloatToFloat(format::DType t, uint8_t bits) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (t == format::DType::F8E8M0) // 2^(bits - 127); no sign, no zero
    return bits == 0xFF ? nan : std::ldexp(1.0f, int(bits) - 127);
  int e, m, bias;
  switch (t) {
  case format::DType::F8E4M3FN:
    e = 4, m = 3, bias = 7;
    if ((bits & 0x7F) == 0x7F)
      return nan;
    break;
  case format::DType::F8E4M3FNUZ:
    e = 4, m = 3, bias = 8;
    if (bits == 0x80)
      return nan;
    break;
  case format::DType::F8E5M2:
    e = 5, m = 2, bias = 15;
    if ((bits & 0x7C) == 0x7C)
      return (bits & 3) ? nan
                        : ((bits & 0x80) ? -1.0f : 1.0f) *
                              std::numeric_limits<float>::infinity();
    break;
  case format::DType::F8E5M2FNUZ:
    e = 5, m = 2, bias = 16;
    if (bits == 0x80)
      return nan;
    break;
  case format::DType::F4E2M1:
    e = 2, m = 1, bias = 1;
    bits &= 0xF;
    break;
  default:
    return nan;
  }
  int exponent = (bits >> m) & ((1 << e) - 1);
  int mantissa = bits & ((1 << m) - 1);
  float magnitude =
      exponent == 0
          ? std::ldexp(float(mantissa), 1 - bias - m)
          : std::ldexp(float(mantissa + (1 << m)), exponent - bias - m);
  return (bits >> (e + m)) & 1 ? -magnitude : magnitude;
}

} // namespace tessel::io
