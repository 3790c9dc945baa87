//===- Crc32.cpp - CRC-32 (IEEE 802.3) checksum ---------------------------===//
//
// Slicing-by-8: eight 256-entry tables let the loop consume 8 bytes per step
// (several GB/s), which matters because every section of an artifact,
// weights included, is checksummed on load. Bytes are combined in
// little-endian order explicitly, so the result does not depend on the host.
//
//===----------------------------------------------------------------------===//

#include "format/Crc32.h"

#include <array>

namespace tessel::format {

namespace {

using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables makeTables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k)
      c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i)
    for (int k = 1; k < 8; ++k)
      t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  return t;
}

constexpr Tables kTables = makeTables();

} // namespace

uint32_t crc32(const void *data, size_t size, uint32_t crc) {
  const auto *p = static_cast<const uint8_t *>(data);
  crc = ~crc;
  for (; size >= 8; size -= 8, p += 8) {
    uint32_t lo = crc ^ (uint32_t(p[0]) | uint32_t(p[1]) << 8 |
                         uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
    crc = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^
          kTables[5][(lo >> 16) & 0xFF] ^ kTables[4][lo >> 24] ^
          kTables[3][p[4]] ^ kTables[2][p[5]] ^ kTables[1][p[6]] ^
          kTables[0][p[7]];
  }
  for (; size; --size, ++p)
    crc = kTables[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

} // namespace tessel::format
