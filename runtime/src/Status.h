//===- Status.h - Internal error type of the runtime -------------*- C++ -*-===//
//
// Status is the C++ face of tessel_status_t: a move-only owner of a status
// object, empty on success. Internal functions return it (`[[nodiscard]]`),
// and the C API hands its pointer to the caller with release(). Nothing in
// the runtime throws.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_SRC_STATUS_H
#define TESSEL_RUNTIME_SRC_STATUS_H

#include "tessel/tessel.h"

#include <string>

/// The object behind tessel_status_t.
struct tessel_status_s {
  tessel_status_code_t code;
  std::string message;
};

namespace tessel::runtime {

class [[nodiscard]] Status {
public:
  /// Success.
  Status() = default;
  Status(tessel_status_code_t code, std::string message);
  Status(Status &&other) noexcept : status(other.status) {
    other.status = nullptr;
  }
  Status &operator=(Status &&other) noexcept;
  Status(const Status &) = delete;
  Status &operator=(const Status &) = delete;
  ~Status();

  static Status ok() { return Status(); }

  bool isOk() const { return status == nullptr; }
  explicit operator bool() const { return isOk(); }
  tessel_status_code_t code() const {
    return status ? status->code : TESSEL_STATUS_OK;
  }
  const std::string &message() const;

  /// Prepends "`prefix`: " to the message (no-op on success).
  Status &&withPrefix(const std::string &prefix) &&;

  /// Gives the status object to a C caller (NULL on success).
  tessel_status_t release() {
    tessel_status_t s = status;
    status = nullptr;
    return s;
  }

private:
  tessel_status_t status = nullptr;
};

inline Status invalidArgument(std::string m) {
  return Status(TESSEL_STATUS_INVALID_ARGUMENT, std::move(m));
}
inline Status notFound(std::string m) {
  return Status(TESSEL_STATUS_NOT_FOUND, std::move(m));
}
inline Status invalidArtifact(std::string m) {
  return Status(TESSEL_STATUS_INVALID_ARTIFACT, std::move(m));
}
inline Status unavailable(std::string m) {
  return Status(TESSEL_STATUS_UNAVAILABLE, std::move(m));
}
inline Status failedPrecondition(std::string m) {
  return Status(TESSEL_STATUS_FAILED_PRECONDITION, std::move(m));
}
inline Status resourceExhausted(std::string m) {
  return Status(TESSEL_STATUS_RESOURCE_EXHAUSTED, std::move(m));
}
inline Status internalError(std::string m) {
  return Status(TESSEL_STATUS_INTERNAL, std::move(m));
}

} // namespace tessel::runtime

/// Returns from the enclosing function if `expr` yields an error.
#define TESSEL_RETURN_IF_ERROR(expr)                                           \
  do {                                                                         \
    ::tessel::runtime::Status tesselStatus_ = (expr);                          \
    if (!tesselStatus_.isOk())                                                 \
      return tesselStatus_;                                                    \
  } while (false)

#endif // TESSEL_RUNTIME_SRC_STATUS_H
