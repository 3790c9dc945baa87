//===- Layout.h - Byte layout of the .tsl file header and sections -*- C++ -*-===//
//
// The fixed-size parts of the file: the 64-byte header and the 64-byte
// section table entries. The manifest encoding lives in Manifest.cpp.
//
//   FileHeader (64 bytes)                SectionEntry (64 bytes)
//     [0,8)   magic "TESSEL\0\x1a"         [0,4)   kind (SectionKind)
//     [8,12)  version major                [4,8)   format (binary sections)
//     [12,16) version minor                [8,16)  offset in the file
//     [16,24) file size                    [16,24) size in bytes
//     [24,32) section table offset         [24,28) CRC-32 of the section
//     [32,36) section count                [28,64) name, NUL-padded
//     [36,40) CRC-32 of the manifest               ("manifest", "weights",
//     [40,44) CRC-32 of the section table          or the binary's target)
//     [44,64) reserved (zero)
//
// Every byte of a file is covered by a check: the header fields, the table
// and the sections by their CRCs, and everything in between (alignment
// padding) must be zero. So any corruption is detected on load.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FORMAT_LAYOUT_H
#define TESSEL_RUNTIME_FORMAT_LAYOUT_H

#include <cstdint>

namespace tessel::format::layout {

constexpr char kMagic[8] = {'T', 'E', 'S', 'S', 'E', 'L', '\0', '\x1a'};
constexpr uint64_t kHeaderSize = 64;
constexpr uint64_t kSectionEntrySize = 64;
constexpr uint64_t kSectionNameSize = 36;
/// More sections than this is certainly garbage (one per target, plus two).
constexpr uint32_t kMaxSections = 1024;

namespace header {
constexpr uint64_t kMagicAt = 0;
constexpr uint64_t kVersionMajorAt = 8;
constexpr uint64_t kVersionMinorAt = 12;
constexpr uint64_t kFileSizeAt = 16;
constexpr uint64_t kTableOffsetAt = 24;
constexpr uint64_t kSectionCountAt = 32;
constexpr uint64_t kManifestCrcAt = 36;
constexpr uint64_t kTableCrcAt = 40;
constexpr uint64_t kReservedAt = 44;
} // namespace header

namespace entry {
constexpr uint64_t kKindAt = 0;
constexpr uint64_t kFormatAt = 4;
constexpr uint64_t kOffsetAt = 8;
constexpr uint64_t kSizeAt = 16;
constexpr uint64_t kCrcAt = 24;
constexpr uint64_t kNameAt = 28;
} // namespace entry

enum class SectionKind : uint32_t {
  Manifest = 1,
  Weights = 2,
  Binary = 3,
};

} // namespace tessel::format::layout

#endif // TESSEL_RUNTIME_FORMAT_LAYOUT_H
