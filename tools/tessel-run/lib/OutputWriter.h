//===- OutputWriter.h - Safe names and all-or-nothing output files -*- C++ -*-===//
//
// ONNX output names may contain '/', ':' and worse; they become file names
// made of [A-Za-z0-9._-] only, made distinct when two names collide. Files
// are written under temporary names first and renamed into place only when
// all of them were written, so a failure leaves no partial output.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_TESSEL_RUN_OUTPUTWRITER_H
#define TESSEL_TOOLS_TESSEL_RUN_OUTPUTWRITER_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::run {

/// Replaces every character outside [A-Za-z0-9._-] with '_'; "" and names
/// of dots only (".", "..") are made safe too.
std::string sanitizeFileName(const std::string &name);

/// Sanitized, pairwise distinct file stems for `names` (a later duplicate
/// gets "_2", "_3", ...).
std::vector<std::string> uniqueFileStems(const std::vector<std::string> &names);

struct OutputFile {
  std::string fileName; ///< within the directory
  std::vector<uint8_t> bytes;
};

/// Writes `files` into `dir` (created if missing): each to a temporary
/// file, then, once all are written, renamed into place. On failure removes
/// what it wrote and sets `error` ("<path>: <reason>").
bool writeFilesAtomically(const std::string &dir,
                          const std::vector<OutputFile> &files,
                          std::string &error);

} // namespace tessel::run

#endif // TESSEL_TOOLS_TESSEL_RUN_OUTPUTWRITER_H
