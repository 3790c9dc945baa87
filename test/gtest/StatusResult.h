//===- StatusResult.h - C API statuses as values in the tests ---*- C++ -*-===//

#ifndef TESSEL_TEST_GTEST_STATUSRESULT_H
#define TESSEL_TEST_GTEST_STATUSRESULT_H

#include "tessel/tessel.h"

#include <string>

namespace tessel::test {

/// A status's code and message.
struct Result {
  tessel_status_code_t code;
  std::string message;
};

/// Takes ownership of `s` (frees it) and returns its code and message.
inline Result take(tessel_status_t s) {
  Result r{tessel_status_code(s), tessel_status_message(s)};
  tessel_status_free(s);
  return r;
}

} // namespace tessel::test

#endif // TESSEL_TEST_GTEST_STATUSRESULT_H
