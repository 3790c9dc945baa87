//===- SpirvModules.cpp - The SPIR-V modules of a "vulkan" binary ---------===//

#include "format/SpirvModules.h"

#include "format/Artifact.h"
#include "format/ByteIO.h"

#include <cstdio>
#include <unordered_map>

namespace tessel::format {

namespace {

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

std::string str(uint64_t v) { return std::to_string(v); }

} // namespace

std::vector<uint8_t>
encodeSpirvModules(const std::vector<SpirvModule> &modules) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.u32(kSpirvModulesMagic);
  w.u32(kSpirvModulesVersion);
  w.u32(static_cast<uint32_t>(modules.size()));
  for (const SpirvModule &m : modules) {
    w.string(m.entryPoint);
    w.alignTo(4);
    w.u32(static_cast<uint32_t>(m.words.size()));
    for (uint32_t word : m.words)
      w.u32(word);
  }
  return out;
}

bool decodeSpirvModules(const std::vector<uint8_t> &bytes,
                        std::vector<SpirvModule> &out, std::string &error) {
  out.clear();
  auto fail = [&](const std::string &message) {
    error = "SPIR-V container: " + message;
    return false;
  };
  ByteReader r(bytes.data(), bytes.size());
  uint32_t magic = 0, version = 0, count = 0;
  if (!r.u32(magic) || !r.u32(version) || !r.u32(count))
    return fail("truncated header (" + str(bytes.size()) +
                " bytes, the header has 12)");
  if (magic != kSpirvModulesMagic)
    return fail("bad magic " + hex(magic) + " (expected " +
                hex(kSpirvModulesMagic) + ", \"TSPV\")");
  if (version != kSpirvModulesVersion)
    return fail("unsupported version " + str(version) +
                " (this runtime reads " + str(kSpirvModulesVersion) + ")");
  // A module takes at least 8 bytes (two lengths): never reserve more
  // modules than the bytes can hold.
  if (count > r.remaining() / 8)
    return fail(str(count) + " modules cannot fit in the " +
                str(r.remaining()) + " bytes after the header");
  out.reserve(count);
  std::unordered_map<std::string, uint32_t> seen;
  for (uint32_t i = 0; i < count; ++i) {
    std::string what = "module " + str(i);
    uint32_t nameLength = 0;
    if (!r.u32(nameLength))
      return fail(what + ": truncated name length");
    if (nameLength > r.remaining())
      return fail(what + ": name of " + str(nameLength) + " bytes but only " +
                  str(r.remaining()) + " bytes left");
    if (nameLength == 0)
      return fail(what + " has an empty name");
    if (nameLength > kMaxNameLength)
      return fail(what + ": name of " + str(nameLength) + " bytes (at most " +
                  str(kMaxNameLength) + ")");
    SpirvModule m;
    m.entryPoint.assign(
        reinterpret_cast<const char *>(bytes.data() + r.offset()), nameLength);
    (void)r.skip(nameLength);
    what += " ('" + m.entryPoint + "')";
    uint64_t padding = (4 - nameLength % 4) % 4;
    if (r.remaining() < padding)
      return fail(what + ": truncated padding after the name");
    for (uint64_t p = 0; p < padding; ++p)
      if (bytes[r.offset() + p] != 0)
        return fail(what + ": nonzero padding after the name");
    (void)r.skip(padding);
    uint32_t wordCount = 0;
    if (!r.u32(wordCount))
      return fail(what + ": truncated word count");
    if (wordCount > r.remaining() / 4)
      return fail(what + ": " + str(wordCount) + " words (" +
                  str(uint64_t(wordCount) * 4) + " bytes) but only " +
                  str(r.remaining()) + " bytes left");
    if (wordCount < kSpirvHeaderWords)
      return fail(what + " has " + str(wordCount) + " words, fewer than the " +
                  str(kSpirvHeaderWords) + " of a SPIR-V header");
    m.words.resize(wordCount);
    for (uint32_t &word : m.words)
      (void)r.u32(word);
    if (m.words[0] != kSpirvMagic)
      return fail(what + " does not start with the SPIR-V magic " +
                  hex(kSpirvMagic) + " (found " + hex(m.words[0]) + ")");
    auto [it, inserted] = seen.emplace(m.entryPoint, i);
    if (!inserted)
      return fail(what + " has the name of module " + str(it->second));
    out.push_back(std::move(m));
  }
  if (!r.atEnd())
    return fail(str(r.remaining()) + " trailing bytes after " +
                (count ? "the last module" : "the header (no modules)"));
  return true;
}

} // namespace tessel::format
