//===- ValidateLaunch.h - Checks of the launch configs -------*- C++ -*-===//
//
// Internal to tessel_format: the part of validate() that checks the launch
// configs of the binaries (format 3.3), kept apart from Validate.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FORMAT_VALIDATELAUNCH_H
#define TESSEL_RUNTIME_FORMAT_VALIDATELAUNCH_H

#include "format/Artifact.h"

namespace tessel::format {

/// Checks the launch configs of every binary of `artifact` (see validate()
/// in Artifact.h), whose kernels, plan and binaries must be valid already.
/// On failure returns false and sets `error` ("target 'cpu', kernel 'k':
/// ...").
bool validateLaunchConfigs(const Artifact &artifact, std::string &error);

} // namespace tessel::format

#endif // TESSEL_RUNTIME_FORMAT_VALIDATELAUNCH_H
