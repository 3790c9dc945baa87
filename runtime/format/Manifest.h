//===- Manifest.h - Binary encoding of the artifact's manifest -*- C++ -*-===//
//
// The manifest section holds everything but the weights and the binaries:
// producer, model name, signatures, buffers, kernels, the plan, the shape
// program and the CPU binaries' features. It is a sequence of tagged fields (u32 tag,
// u64 byte length, payload; see Manifest.cpp): a newer minor version adds
// fields under new tags, which an older reader skips unless the tag marks
// them required.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FORMAT_MANIFEST_H
#define TESSEL_RUNTIME_FORMAT_MANIFEST_H

#include "format/Artifact.h"

namespace tessel::format {

/// Manifest field 13 (format 3.3) as decoded: the launch configs of each
/// target, which belong to the binaries, which are sections of their own.
struct TargetLaunchConfigs {
  std::string target;
  std::vector<LaunchConfig> configs;
};
struct LaunchConfigTable {
  bool present = false; ///< false for a manifest of format 3.0-3.2
  std::vector<TargetLaunchConfigs> targets;
};

/// What deserialize() needs to know of a manifest beyond the model: the
/// fields whose absence means an older format (or a manifest cut short).
struct ManifestExtras {
  LaunchConfigTable launchConfigs;
  /// Field 9: the features of the binary named "cpu" (empty when there is
  /// none), which deserialize() gives that binary.
  std::vector<std::string> cpuFeatures;
  /// Field 15 (cpuVariants, format 3.6): the features of each binary named
  /// "cpu:<variant>", by target name.
  std::vector<std::pair<std::string, std::vector<std::string>>> cpuVariants;
  /// Field 14 (kernelParams, format 3.5) was present and gave each kernel
  /// its params; false for a manifest of format 3.0-3.4.
  bool kernelParams = false;
};

/// Appends the manifest encoding of `artifact` to `out`.
void encodeManifest(const Artifact &artifact, std::vector<uint8_t> &out);

/// Decodes the manifest in `size` bytes at `data` into the model fields of
/// `artifact` (signatures, buffers, kernels, plan, shape program, names).
/// Skips unknown optional fields; rejects unknown required ones, duplicate
/// fields, missing required fields and payloads not consumed exactly.
/// Checks the encoding only; validate() checks what it means. Field 13
/// goes into `extras->launchConfigs` (dropped when null); attaching it to
/// the binaries is the caller's (deserialize()), as are fields 9 and 15
/// (the CPU binaries' features). Field 14 must have one entry per kernel.
bool decodeManifest(const uint8_t *data, uint64_t size, Artifact &artifact,
                    std::string &error, ManifestExtras *extras = nullptr);

} // namespace tessel::format

#endif // TESSEL_RUNTIME_FORMAT_MANIFEST_H
