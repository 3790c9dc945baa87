//===- SpirvModules.h - The SPIR-V modules of a "vulkan" binary -*- C++ -*-===//
//
// A binary of format TargetBinary::Format::Spirv holds one SPIR-V module per
// kernel, each with its entry point (the kernel's symbol), in this
// container. All integers are little-endian:
//
//   u32 magic 0x56505354 ("TSPV"), u32 version 1, u32 count,
//   then per module: u32 nameLength, the name's bytes, zero padding to a
//   multiple of 4 bytes, u32 wordCount, wordCount u32 words.
//
// The decoder reads untrusted bytes: every length is checked against what
// is left, a module must be a SPIR-V module (at least the 5 words of the
// header, the first the SPIR-V magic 0x07230203), names are non-empty and
// unique, and nothing may follow the last module. It depends on the C++
// standard library only, like the rest of the artifact codec.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FORMAT_SPIRVMODULES_H
#define TESSEL_RUNTIME_FORMAT_SPIRVMODULES_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::format {

/// "TSPV" read as a little-endian u32.
constexpr uint32_t kSpirvModulesMagic = 0x56505354;
constexpr uint32_t kSpirvModulesVersion = 1;
/// The first word of every SPIR-V module.
constexpr uint32_t kSpirvMagic = 0x07230203;
/// The words of a SPIR-V module header (magic, version, generator, bound,
/// schema).
constexpr uint32_t kSpirvHeaderWords = 5;

/// One kernel: a SPIR-V module whose GLCompute entry point is `entryPoint`.
struct SpirvModule {
  std::string entryPoint;
  std::vector<uint32_t> words;
};

/// Encodes `modules` in the container layout above.
std::vector<uint8_t>
encodeSpirvModules(const std::vector<SpirvModule> &modules);

/// Decodes a container into `out`. On failure returns false and sets `error`
/// ("SPIR-V container: module 1 ('add'): 40 words (160 bytes) but only 12
/// bytes left"); `out` is then unspecified.
bool decodeSpirvModules(const std::vector<uint8_t> &bytes,
                        std::vector<SpirvModule> &out, std::string &error);

} // namespace tessel::format

#endif // TESSEL_RUNTIME_FORMAT_SPIRVMODULES_H
