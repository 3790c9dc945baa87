//===- ValidationChecks.h - Helpers of the validation tests -------*- C++ -*-===//
//
// What ArtifactValidationTest.cpp and ControlFlowValidationTest.cpp share:
// dims and steps written briefly, and the check that a broken model is
// rejected with one message by validate() and on load.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TEST_GTEST_VALIDATIONCHECKS_H
#define TESSEL_TEST_GTEST_VALIDATIONCHECKS_H

#include "format/Artifact.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tessel::test::validation {

using namespace tessel::format;

inline Dim sym(const char *name) { return Dim{-1, name}; }
inline Dim lit(int64_t v) { return Dim{v, ""}; }

inline Step step(Step::Kind kind, uint32_t index) { return Step{kind, index}; }

/// Checks that `a` is rejected with `expected`, directly and on load.
inline void expectRejected(Artifact a, const char *expected) {
  std::string direct;
  EXPECT_FALSE(validate(a, direct));
  EXPECT_THAT(direct, ::testing::HasSubstr(expected));

  std::vector<uint8_t> bytes = serialize(a);
  Artifact out;
  std::string error;
  EXPECT_FALSE(deserialize(bytes.data(), bytes.size(), out, error));
  EXPECT_EQ(error, "invalid artifact: " + direct);
}

} // namespace tessel::test::validation

#endif // TESSEL_TEST_GTEST_VALIDATIONCHECKS_H
