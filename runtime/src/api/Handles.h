//===- Handles.h - The objects behind the C API's opaque handles -*- C++ -*-===//
//
// Each handle wraps the C++ object it stands for; reference counting
// (shared_ptr) lets a session outlive the handles of its artifact and device.
// guarded() is the exception firewall every API entry point goes through.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_SRC_API_HANDLES_H
#define TESSEL_RUNTIME_SRC_API_HANDLES_H

#include "ArtifactImage.h"
#include "Driver.h"
#include "Session.h"

#include <new>

struct tessel_artifact_s {
  std::shared_ptr<const tessel::runtime::ArtifactImage> image;
};

struct tessel_device_s {
  std::shared_ptr<tessel::runtime::Device> device;
};

struct tessel_session_s {
  std::unique_ptr<tessel::runtime::Session> session;
};

namespace tessel::runtime {

/// Preallocated statuses for when allocating one is impossible; freeing
/// them is a no-op.
tessel_status_t outOfMemoryStatus();
tessel_status_t unexpectedExceptionStatus();

/// Runs `body` (returning Status) and converts the result for C; no
/// exception escapes.
template <typename F> tessel_status_t guarded(F &&body) noexcept {
  try {
    return body().release();
  } catch (const std::bad_alloc &) {
    return outOfMemoryStatus();
  } catch (...) {
    return unexpectedExceptionStatus();
  }
}

/// INVALID_ARGUMENT "`what` is null" when `p` is null.
inline Status requireNonNull(const void *p, const char *what) {
  if (p)
    return Status::ok();
  return invalidArgument(std::string(what) + " is null");
}

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_SRC_API_HANDLES_H
