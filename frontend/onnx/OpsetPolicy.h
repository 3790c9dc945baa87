//===- OpsetPolicy.h - Which opsets the importer was written for -*- C++ -*-===//
//
// Tessel's handlers and bodies follow ONNX 1.22 (the node tests' version).
// A model importing a newer opset of a domain may use op versions no one
// here has read, so it is refused, naming the node, op and version. And
// Debian's libonnx (1.12) knows the schemas up to opset 17 only: a body
// taken from it stands for every later opset until the op changes, so a
// node whose op has a newer version (by ONNX 1.22) at or below the model's
// opset is refused too, unless that change was reviewed and leaves the
// body's meaning as it was.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_FRONTEND_ONNX_OPSETPOLICY_H
#define TESSEL_FRONTEND_ONNX_OPSETPOLICY_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace tessel::onnx_import {

/// The newest opset of `domain` in ONNX 1.22, or nullopt for a domain ONNX
/// does not define (a model's own functions).
std::optional<int64_t> newestKnownOpset(llvm::StringRef domain);

/// For op `op` of `domain`, whose libonnx schema is version `schemaSince`,
/// imported at `opset`: the first version of the op after `schemaSince` and
/// at most `opset` that ONNX 1.22 defines and whose change was not reviewed
/// as keeping the body's meaning; nullopt when there is none.
std::optional<int64_t> unreviewedNewerVersion(llvm::StringRef domain,
                                              llvm::StringRef op,
                                              int64_t schemaSince,
                                              int64_t opset);

} // namespace tessel::onnx_import

#endif // TESSEL_FRONTEND_ONNX_OPSETPOLICY_H
