//===- Manifest.h - Binary encoding of the artifact's manifest -*- C++ -*-===//
//
// The manifest section holds everything but the weights and the binaries:
// producer, model name, signatures, buffers, kernels, the plan and the
// shape rules. It is a sequence of little-endian fields; strings and lists
// are prefixed with a u32 length. Newer minor versions may append fields at
// the end.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FORMAT_MANIFEST_H
#define TESSEL_RUNTIME_FORMAT_MANIFEST_H

#include "format/Artifact.h"

namespace tessel::format {

/// Appends the manifest encoding of `artifact` to `out`.
void encodeManifest(const Artifact &artifact, std::vector<uint8_t> &out);

/// Decodes the manifest in `size` bytes at `data` into the model fields of
/// `artifact` (signatures, buffers, kernels, plan, shape rules, names).
/// Trailing bytes are an error unless `allowTrailing` (a file of a newer
/// minor version). Checks the encoding only; validate() checks what it means.
bool decodeManifest(const uint8_t *data, uint64_t size, bool allowTrailing,
                    Artifact &artifact, std::string &error);

} // namespace tessel::format

#endif // TESSEL_RUNTIME_FORMAT_MANIFEST_H
