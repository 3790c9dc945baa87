//===- StatusApi.cpp - C API: statuses and dtypes -------------------------===//

#include "Handles.h"

using namespace tessel::runtime;

namespace {
tessel_status_s kOutOfMemory{TESSEL_STATUS_RESOURCE_EXHAUSTED,
                             "out of host memory"};
tessel_status_s kUnexpected{TESSEL_STATUS_INTERNAL,
                            "unexpected exception inside the runtime"};
} // namespace

namespace tessel::runtime {
tessel_status_t outOfMemoryStatus() { return &kOutOfMemory; }
tessel_status_t unexpectedExceptionStatus() { return &kUnexpected; }
} // namespace tessel::runtime

extern "C" {

tessel_status_code_t tessel_status_code(tessel_status_t status) {
  return status ? status->code : TESSEL_STATUS_OK;
}

const char *tessel_status_message(tessel_status_t status) {
  return status ? status->message.c_str() : "";
}

void tessel_status_free(tessel_status_t status) {
  if (status != &kOutOfMemory && status != &kUnexpected)
    delete status;
}

const char *tessel_status_code_name(tessel_status_code_t code) {
  switch (code) {
  case TESSEL_STATUS_OK:
    return "OK";
  case TESSEL_STATUS_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case TESSEL_STATUS_NOT_FOUND:
    return "NOT_FOUND";
  case TESSEL_STATUS_INVALID_ARTIFACT:
    return "INVALID_ARTIFACT";
  case TESSEL_STATUS_UNAVAILABLE:
    return "UNAVAILABLE";
  case TESSEL_STATUS_FAILED_PRECONDITION:
    return "FAILED_PRECONDITION";
  case TESSEL_STATUS_RESOURCE_EXHAUSTED:
    return "RESOURCE_EXHAUSTED";
  case TESSEL_STATUS_INTERNAL:
    return "INTERNAL";
  case TESSEL_STATUS_MAX_ENUM:
    break;
  }
  return "UNKNOWN";
}

size_t tessel_dtype_size(tessel_dtype_t dtype) {
  return tessel::format::dtypeSize(static_cast<tessel::format::DType>(dtype));
}

const char *tessel_dtype_name(tessel_dtype_t dtype) {
  return tessel::format::dtypeName(static_cast<tessel::format::DType>(dtype));
}

} // extern "C"
