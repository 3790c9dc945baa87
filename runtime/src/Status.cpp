//===- Status.cpp - Internal error type of the runtime --------------------===//

#include "Status.h"

namespace tessel::runtime {

Status::Status(tessel_status_code_t code, std::string message)
    : status(new tessel_status_s{code, std::move(message)}) {}

Status &Status::operator=(Status &&other) noexcept {
  if (this != &other) {
    tessel_status_free(status);
    status = other.status;
    other.status = nullptr;
  }
  return *this;
}

Status::~Status() { tessel_status_free(status); }

const std::string &Status::message() const {
  static const std::string empty;
  return status ? status->message : empty;
}

Status &&Status::withPrefix(const std::string &prefix) && {
  if (status)
    status->message = prefix + ": " + status->message;
  return std::move(*this);
}

} // namespace tessel::runtime
