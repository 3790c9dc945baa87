//===- Crc32.h - CRC-32 (IEEE 802.3) checksum -------------------*- C++ -*-===//
//
// The checksum of the artifact's manifest and section table: the CRC-32 of
// zlib, PNG and Ethernet (reflected polynomial 0xEDB88320), so that any
// tool can recompute it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FORMAT_CRC32_H
#define TESSEL_RUNTIME_FORMAT_CRC32_H

#include <cstddef>
#include <cstdint>

namespace tessel::format {

/// Returns the CRC-32 of `size` bytes at `data`, continuing from `crc` (the
/// value returned for the previous chunk; 0 to start).
uint32_t crc32(const void *data, size_t size, uint32_t crc = 0);

} // namespace tessel::format

#endif // TESSEL_RUNTIME_FORMAT_CRC32_H
