//===- Artifact.cpp - Encode and decode the .tsl file ---------------------===//
//
// serialize() lays out the header, the section table and the 4096-aligned
// sections; deserialize() checks that layout against untrusted bytes (magic,
// version, sizes, table and section bounds, alignment, overlap, the CRCs of
// the table and of every section, zero padding), decodes the manifest and
// finally runs validate() on the model. No read ever happens outside
// [data, data + size), and no corrupted byte goes unnoticed.
//
//===----------------------------------------------------------------------===//

#include "format/Artifact.h"

#include "format/ByteIO.h"
#include "format/Crc32.h"
#include "format/Layout.h"
#include "format/Manifest.h"

#include <algorithm>
#include <cstring>

namespace tessel::format {

using layout::SectionKind;
namespace header = layout::header;
namespace entry = layout::entry;

namespace {

/// One row of the section table, as written or as read.
struct Section {
  SectionKind kind;
  uint32_t format = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t crc = 0;
  std::string name;
  const uint8_t *data = nullptr; ///< serialize only
};

uint32_t readU32(const uint8_t *p) {
  uint32_t v;
  ByteReader(p, 4).u32(v);
  return v;
}
uint64_t readU64(const uint8_t *p) {
  uint64_t v;
  ByteReader(p, 8).u64(v);
  return v;
}

std::string str(uint64_t v) { return std::to_string(v); }

/// Checks that [begin, end) of `data` is all zeros (padding).
bool isZero(const uint8_t *data, uint64_t begin, uint64_t end,
            std::string &error) {
  for (uint64_t i = begin; i < end; ++i)
    if (data[i] != 0) {
      error = "corrupt padding at offset " + str(i) + " (expected zeros)";
      return false;
    }
  return true;
}

/// Reads and checks the section table and the sections' bounds, CRCs and
/// padding; `error` says what is wrong. The table must precede the sections.
bool readSections(const uint8_t *data, uint64_t size, uint64_t tableOffset,
                  uint32_t count, uint32_t fileMinor,
                  std::vector<Section> &sections, std::string &error) {
  uint64_t tableEnd = tableOffset + count * layout::kSectionEntrySize;
  std::vector<Section> skipped;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t *e = data + tableOffset + i * layout::kSectionEntrySize;
    Section s;
    s.kind = static_cast<SectionKind>(readU32(e + entry::kKindAt));
    s.format = readU32(e + entry::kFormatAt);
    s.offset = readU64(e + entry::kOffsetAt);
    s.size = readU64(e + entry::kSizeAt);
    s.crc = readU32(e + entry::kCrcAt);
    const char *name = reinterpret_cast<const char *>(e + entry::kNameAt);
    size_t nameLength = strnlen(name, layout::kSectionNameSize);
    std::string what = "section " + str(i);
    if (nameLength == layout::kSectionNameSize) {
      error = what + ": name is not NUL-terminated";
      return false;
    }
    s.name.assign(name, nameLength);
    what += " ('" + s.name + "')";
    if (s.offset % kSectionAlignment != 0) {
      error = what + ": offset " + str(s.offset) + " is not " +
              str(kSectionAlignment) + "-byte aligned";
      return false;
    }
    if (s.offset < tableEnd || s.offset > size || s.size > size - s.offset) {
      error = what + ": range [" + str(s.offset) + ", +" + str(s.size) +
              ") is outside the file (" + str(size) + " bytes)";
      return false;
    }
    if (crc32(data + s.offset, s.size) != s.crc) {
      error = "corrupt " + what + " (CRC mismatch)";
      return false;
    }
    switch (s.kind) {
    case SectionKind::Manifest:
    case SectionKind::Weights:
    case SectionKind::Binary:
      sections.push_back(std::move(s));
      break;
    default:
      // A newer minor version may add section kinds this reader can skip.
      if (fileMinor <= kFormatVersionMinor) {
        error = what + ": unknown section kind " +
                str(static_cast<uint32_t>(s.kind));
        return false;
      }
      skipped.push_back(std::move(s));
    }
  }
  std::vector<const Section *> byOffset;
  for (const Section &s : sections)
    byOffset.push_back(&s);
  for (const Section &s : skipped)
    byOffset.push_back(&s);
  std::sort(byOffset.begin(), byOffset.end(),
            [](const Section *a, const Section *b) {
              return a->offset < b->offset ||
                     (a->offset == b->offset && a->size < b->size);
            });
  for (size_t i = 1; i < byOffset.size(); ++i)
    if (byOffset[i - 1]->offset + byOffset[i - 1]->size > byOffset[i]->offset) {
      error = "sections '" + byOffset[i - 1]->name + "' and '" +
              byOffset[i]->name + "' overlap";
      return false;
    }
  // What lies between the table and the sections is alignment padding:
  // zeros, so that no byte of the file escapes a check.
  uint64_t pos = tableEnd;
  for (const Section *s : byOffset) {
    if (!isZero(data, pos, s->offset, error))
      return false;
    pos = s->offset + s->size;
  }
  return isZero(data, pos, size, error);
}

/// Finds the single section of `kind` (named `name`).
const Section *findUnique(const std::vector<Section> &sections,
                          SectionKind kind, const char *name,
                          std::string &error) {
  const Section *found = nullptr;
  for (const Section &s : sections) {
    if (s.kind != kind)
      continue;
    if (found) {
      error = std::string("more than one ") + name + " section";
      return nullptr;
    }
    found = &s;
  }
  if (!found)
    error = std::string("no ") + name + " section";
  else if (found->name != name) {
    error =
        std::string("the ") + name + " section is named '" + found->name + "'";
    found = nullptr;
  }
  return found;
}

/// Gives each binary its launch configs: those of manifest field 13, or,
/// in an artifact written before format 3.3 (`fileMinor` < 3),
/// legacyLaunchConfigs().
bool attachLaunchConfigs(Artifact &a, LaunchConfigTable &table,
                         uint32_t fileMinor, std::string &error) {
  if (!table.present) {
    // A 3.3 writer always writes the field when there are binaries: its
    // absence means a manifest cut short, not an old artifact.
    if (fileMinor >= 3 && !a.binaries.empty()) {
      error = "manifest lacks field 13 (launchConfigs), which format 3." +
              str(fileMinor) + " has whenever there are binaries";
      return false;
    }
    for (TargetBinary &bin : a.binaries)
      bin.launchConfigs = legacyLaunchConfigs(a, bin.format);
    return true;
  }
  std::vector<bool> attached(a.binaries.size());
  for (TargetLaunchConfigs &entry : table.targets) {
    // The first binary of that target not given its configs yet (two of
    // one target are validate()'s to report, as a duplicate target).
    size_t i = 0, named = 0;
    for (; i < a.binaries.size(); ++i) {
      if (a.binaries[i].target != entry.target)
        continue;
      ++named;
      if (!attached[i])
        break;
    }
    if (i == a.binaries.size()) {
      // A newer minor version may hold that target in a section kind this
      // reader skipped.
      if (fileMinor > kFormatVersionMinor)
        continue;
      error = "manifest field 13 (launchConfigs) names target '" +
              entry.target + "'" +
              (named ? " more often than there are binaries of it"
                     : ", which has no binary section");
      return false;
    }
    attached[i] = true;
    a.binaries[i].launchConfigs = std::move(entry.configs);
  }
  for (size_t i = 0; i < a.binaries.size(); ++i)
    if (!attached[i]) {
      error = "binary '" + a.binaries[i].target +
              "' has no entry in manifest field 13 (launchConfigs)";
      return false;
    }
  return true;
}

/// Gives the CPU binaries their features: field 9's to the binary named
/// "cpu", each entry of field 15 to the "cpu:<variant>" binary it names.
bool attachCpuFeatures(Artifact &a, ManifestExtras &extras,
                       std::string &error) {
  TargetBinary *legacy = nullptr;
  for (TargetBinary &bin : a.binaries)
    if (bin.target == "cpu")
      legacy = &bin;
  if (legacy)
    legacy->cpuFeatures = std::move(extras.cpuFeatures);
  else if (!extras.cpuFeatures.empty())
    return error = "manifest field 9 (cpuFeatures) lists CPU features, but "
                   "there is no binary 'cpu'",
           false;
  std::vector<bool> attached(a.binaries.size());
  for (auto &[target, features] : extras.cpuVariants) {
    size_t i = 0;
    while (i < a.binaries.size() && a.binaries[i].target != target)
      ++i;
    if (target == "cpu" || !isCpuTarget(target) || i == a.binaries.size())
      return error = "manifest field 15 (cpuVariants) names '" + target +
                     "', which is not a binary of a CPU variant",
             false;
    if (attached[i])
      return error = "manifest field 15 (cpuVariants) names '" + target +
                     "' twice",
             false;
    attached[i] = true;
    a.binaries[i].cpuFeatures = std::move(features);
  }
  for (size_t i = 0; i < a.binaries.size(); ++i)
    if (a.binaries[i].target != "cpu" && isCpuTarget(a.binaries[i].target) &&
        !attached[i])
      return error = "binary '" + a.binaries[i].target +
                     "' has no entry in manifest field 15 (cpuVariants)",
             false;
  return true;
}

bool decode(const uint8_t *data, uint64_t size, Artifact &a, std::string &error,
            bool copyWeights) {
  if (!data && size)
    return error = "no data", false;
  if (size < layout::kHeaderSize)
    return error = "truncated file: " + str(size) +
                   " bytes, smaller than the " + str(layout::kHeaderSize) +
                   "-byte header",
           false;
  if (std::memcmp(data, layout::kMagic, sizeof(layout::kMagic)) != 0)
    return error = "bad magic: not a Tessel artifact (.tsl)", false;
  uint32_t major = readU32(data + header::kVersionMajorAt);
  uint32_t minor = readU32(data + header::kVersionMinorAt);
  if (major != kFormatVersionMajor)
    return error = "unsupported format version " + str(major) + "." +
                   str(minor) + " (this runtime reads " +
                   str(kFormatVersionMajor) + ".x)",
           false;
  uint64_t fileSize = readU64(data + header::kFileSizeAt);
  if (fileSize > size)
    return error = "truncated file: the header says " + str(fileSize) +
                   " bytes, got " + str(size),
           false;
  if (fileSize != size)
    return error = "the header says " + str(fileSize) + " bytes, but got " +
                   str(size) + " (trailing data)",
           false;

  uint64_t tableOffset = readU64(data + header::kTableOffsetAt);
  uint32_t count = readU32(data + header::kSectionCountAt);
  if (count > layout::kMaxSections || tableOffset < layout::kHeaderSize ||
      tableOffset > size ||
      count * layout::kSectionEntrySize > size - tableOffset)
    return error = "section table (" + str(count) + " entries at offset " +
                   str(tableOffset) + ") is outside the file",
           false;
  const uint8_t *table = data + tableOffset;
  uint64_t tableBytes = count * layout::kSectionEntrySize;
  if (crc32(table, tableBytes) != readU32(data + header::kTableCrcAt))
    return error = "corrupt section table (CRC mismatch)", false;
  // Newer minor versions may use the reserved header bytes.
  if (minor <= kFormatVersionMinor &&
      !isZero(data, header::kReservedAt, layout::kHeaderSize, error))
    return error = "corrupt header (reserved bytes are not zero)", false;
  if (!isZero(data, layout::kHeaderSize, tableOffset, error))
    return false;

  std::vector<Section> sections;
  if (!readSections(data, size, tableOffset, count, minor, sections, error))
    return false;
  const Section *manifest =
      findUnique(sections, SectionKind::Manifest, "manifest", error);
  if (!manifest)
    return false;
  const Section *weights =
      findUnique(sections, SectionKind::Weights, "weights", error);
  if (!weights)
    return false;

  const uint8_t *manifestData = data + manifest->offset;
  if (crc32(manifestData, manifest->size) !=
      readU32(data + header::kManifestCrcAt))
    return error = "corrupt manifest (CRC mismatch)", false;
  ManifestExtras extras;
  if (!decodeManifest(manifestData, manifest->size, a, error, &extras))
    return false;
  if (!extras.kernelParams) {
    // A 3.5 writer always writes field 14 when there are kernels: its
    // absence means a manifest cut short, not an old artifact.
    if (minor >= 5 && !a.kernels.empty())
      return error = "manifest lacks field 14 (kernelParams), which format "
                     "3." + str(minor) + " has whenever there are kernels",
             false;
    legacyKernelParams(a);
  }

  a.weightsFileOffset = weights->offset;
  a.weightsFileSize = weights->size;
  if (copyWeights)
    a.weights.assign(data + weights->offset,
                     data + weights->offset + weights->size);
  for (const Section &s : sections) {
    if (s.kind != SectionKind::Binary)
      continue;
    TargetBinary bin;
    bin.target = s.name;
    bin.format = static_cast<TargetBinary::Format>(s.format);
    bin.bytes.assign(data + s.offset, data + s.offset + s.size);
    a.binaries.push_back(std::move(bin));
  }
  if (!attachLaunchConfigs(a, extras.launchConfigs, minor, error) ||
      !attachCpuFeatures(a, extras, error))
    return false;
  if (!validate(a, error))
    return error = "invalid artifact: " + error, false;
  return true;
}

} // namespace

bool isCpuTarget(const std::string &target) {
  return target == "cpu" || target.rfind("cpu:", 0) == 0;
}

std::vector<uint8_t> serialize(const Artifact &a) {
  std::vector<uint8_t> manifest;
  encodeManifest(a, manifest);

  std::vector<Section> sections;
  sections.push_back({SectionKind::Manifest, 0, 0, manifest.size(), 0,
                      "manifest", manifest.data()});
  sections.push_back({SectionKind::Weights, 0, 0, a.weights.size(), 0,
                      "weights", a.weights.data()});
  for (const TargetBinary &bin : a.binaries)
    sections.push_back({SectionKind::Binary, static_cast<uint32_t>(bin.format),
                        0, bin.bytes.size(), 0,
                        bin.target.substr(0, kMaxTargetNameLength),
                        bin.bytes.data()});

  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.zeros(layout::kHeaderSize);
  const uint64_t tableOffset = w.size();
  w.zeros(sections.size() * layout::kSectionEntrySize);
  for (Section &s : sections) {
    w.alignTo(kSectionAlignment);
    s.offset = w.size();
    w.bytes(s.data, s.size);
  }

  for (size_t i = 0; i < sections.size(); ++i) {
    const Section &s = sections[i];
    size_t at = tableOffset + i * layout::kSectionEntrySize;
    w.patchU32(at + entry::kKindAt, static_cast<uint32_t>(s.kind));
    w.patchU32(at + entry::kFormatAt, s.format);
    w.patchU64(at + entry::kOffsetAt, s.offset);
    w.patchU64(at + entry::kSizeAt, s.size);
    w.patchU32(at + entry::kCrcAt, crc32(s.data, s.size));
    std::memcpy(&out[at + entry::kNameAt], s.name.data(), s.name.size());
  }
  std::memcpy(&out[header::kMagicAt], layout::kMagic, sizeof(layout::kMagic));
  w.patchU32(header::kVersionMajorAt, kFormatVersionMajor);
  w.patchU32(header::kVersionMinorAt, kFormatVersionMinor);
  w.patchU64(header::kFileSizeAt, out.size());
  w.patchU64(header::kTableOffsetAt, tableOffset);
  w.patchU32(header::kSectionCountAt, static_cast<uint32_t>(sections.size()));
  w.patchU32(header::kManifestCrcAt, crc32(manifest.data(), manifest.size()));
  w.patchU32(
      header::kTableCrcAt,
      crc32(&out[tableOffset], sections.size() * layout::kSectionEntrySize));
  return out;
}

bool deserialize(const uint8_t *data, uint64_t size, Artifact &artifact,
                 std::string &error, bool copyWeights) {
  artifact = Artifact();
  if (decode(data, size, artifact, error, copyWeights))
    return true;
  artifact = Artifact();
  return false;
}

} // namespace tessel::format
