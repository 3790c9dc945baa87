//===- ByteIO.h - Little-endian byte writer and bounds-checked reader -*- C++ -*-===//
//
// The primitives of the artifact encoding. ByteWriter appends fixed-width
// little-endian integers and length-prefixed strings to a byte vector;
// ByteReader reads them back from untrusted memory and never reads past the
// end: every read reports failure instead. Both are independent of the host's
// byte order.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FORMAT_BYTEIO_H
#define TESSEL_RUNTIME_FORMAT_BYTEIO_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tessel::format {

/// Appends little-endian values to a byte vector.
class ByteWriter {
public:
  explicit ByteWriter(std::vector<uint8_t> &out) : out(out) {}

  void u8(uint8_t v) { out.push_back(v); }
  void u32(uint32_t v) { putLE(v, 4); }
  void u64(uint64_t v) { putLE(v, 8); }
  void i64(int64_t v) { putLE(static_cast<uint64_t>(v), 8); }
  void bytes(const void *data, size_t size) {
    const auto *p = static_cast<const uint8_t *>(data);
    out.insert(out.end(), p, p + size);
  }
  /// A u32 byte length followed by the bytes.
  void string(const std::string &s) {
    u32(static_cast<uint32_t>(s.size()));
    bytes(s.data(), s.size());
  }
  void zeros(size_t n) { out.resize(out.size() + n, 0); }
  /// Pads with zeros up to the next multiple of `alignment` (a power of 2).
  void alignTo(uint64_t alignment) {
    zeros(
        static_cast<size_t>((alignment - out.size() % alignment) % alignment));
  }
  /// Overwrites a previously written u32/u64 at byte offset `at`.
  void patchU32(size_t at, uint32_t v) { patchLE(at, v, 4); }
  void patchU64(size_t at, uint64_t v) { patchLE(at, v, 8); }
  size_t size() const { return out.size(); }

private:
  void putLE(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void patchLE(size_t at, uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out[at + i] = static_cast<uint8_t>(v >> (8 * i));
  }
  std::vector<uint8_t> &out;
};

/// Reads little-endian values from `size` bytes at `data`. Every read checks
/// the bounds first and returns false (consuming nothing) when the value
/// does not fit in what is left.
class ByteReader {
public:
  ByteReader(const uint8_t *data, uint64_t size) : data(data), size(size) {}

  uint64_t offset() const { return pos; }
  uint64_t remaining() const { return size - pos; }
  bool atEnd() const { return pos == size; }

  bool u8(uint8_t &v) {
    if (remaining() < 1)
      return false;
    v = data[pos++];
    return true;
  }
  bool u32(uint32_t &v) {
    uint64_t w;
    if (!getLE(w, 4))
      return false;
    v = static_cast<uint32_t>(w);
    return true;
  }
  bool u64(uint64_t &v) { return getLE(v, 8); }
  bool i64(int64_t &v) {
    uint64_t w;
    if (!getLE(w, 8))
      return false;
    v = static_cast<int64_t>(w);
    return true;
  }
  /// Reads a u32 length and that many bytes; fails if they are not there.
  bool string(std::string &s) {
    uint32_t n;
    uint64_t start = pos;
    if (!u32(n))
      return false;
    if (remaining() < n) {
      pos = start;
      return false;
    }
    s.assign(reinterpret_cast<const char *>(data + pos), n);
    pos += n;
    return true;
  }
  /// Skips `n` bytes; fails (consuming nothing) if they are not there.
  bool skip(uint64_t n) {
    if (remaining() < n)
      return false;
    pos += n;
    return true;
  }
  /// Reads a u32 element count; fails when `count * minElementBytes` could
  /// not fit in the bytes left, so that garbage never triggers a huge
  /// allocation.
  bool count(uint32_t &n, uint64_t minElementBytes) {
    uint64_t start = pos;
    if (!u32(n))
      return false;
    if (minElementBytes != 0 && n > remaining() / minElementBytes) {
      pos = start;
      return false;
    }
    return true;
  }

private:
  bool getLE(uint64_t &v, int n) {
    if (remaining() < static_cast<uint64_t>(n))
      return false;
    v = 0;
    for (int i = 0; i < n; ++i)
      v |= static_cast<uint64_t>(data[pos + i]) << (8 * i);
    pos += n;
    return true;
  }
  const uint8_t *data;
  uint64_t size;
  uint64_t pos = 0;
};

} // namespace tessel::format

#endif // TESSEL_RUNTIME_FORMAT_BYTEIO_H
