//===- ShapeProgramTest.cpp - Evaluation of the shape program -------------===//
//
// SymbolBindings::evaluate on each instruction kind: checked arithmetic with
// floor semantics, InputValues, Reshape, CheckEq, binding or checking the
// results, and the errors (naming the node, the message and the values).
//
//===----------------------------------------------------------------------===//

#include "SymbolBindings.h"
#include "TestArtifacts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <climits>

using namespace tessel;
using namespace tessel::runtime;
using format::Dim;
using format::ShapeOp;
using K = format::ShapeOp::Kind;

namespace {

Dim sym(const std::string &name) { return Dim{-1, name}; }
Dim lit(int64_t v) { return Dim{v, ""}; }

ShapeOp op(K kind, format::Shape operands, format::Shape results,
           const std::string &node = "add_1", const std::string &type = "Add",
           const std::string &message = "") {
  return test::shapeOp(kind, std::move(operands), std::move(results), node,
                       type, message);
}

/// Bindings with input 'x' of shape [n, m] = [4, 3].
SymbolBindings withInput() {
  SymbolBindings b;
  format::TensorSignature sig{"x", format::DType::F32, {sym("n"), sym("m")}, 0};
  int64_t dims[] = {4, 3};
  EXPECT_EQ(b.bindInput(sig, dims, 2).code(), TESSEL_STATUS_OK);
  return b;
}

int64_t valueOf(const SymbolBindings &b, const std::string &symbol) {
  int64_t v = INT64_MIN;
  EXPECT_TRUE(b.lookup(symbol, v)) << symbol;
  return v;
}

struct ArithmeticCase {
  K kind;
  int64_t a, b;
  int64_t expected; ///< unless `error` is set
  const char *error = nullptr;
};

constexpr int64_t kMin = INT64_MIN, kMax = INT64_MAX;

const ArithmeticCase kArithmetic[] = {
    {K::Add, 3, 4, 7},
    {K::Add, -3, 1, -2},
    {K::Add, kMax, 1, 0, "9223372036854775807 + 1: overflows int64"},
    {K::Add, kMin, -1, 0, "-9223372036854775808 + -1: overflows int64"},
    {K::Sub, 3, 4, -1},
    {K::Sub, kMin, 1, 0, "-9223372036854775808 - 1: overflows int64"},
    {K::Sub, 0, kMin, 0, "0 - -9223372036854775808: overflows int64"},
    {K::Mul, -3, 4, -12},
    {K::Mul, int64_t(1) << 32, int64_t(1) << 31, 0,
     "4294967296 * 2147483648: overflows int64"},
    {K::Mul, kMin, -1, 0, "-9223372036854775808 * -1: overflows int64"},
    // floor(a / b), for every combination of signs.
    {K::FloorDiv, 7, 2, 3},
    {K::FloorDiv, -7, 2, -4},
    {K::FloorDiv, 7, -2, -4},
    {K::FloorDiv, -7, -2, 3},
    {K::FloorDiv, -6, 3, -2},
    {K::FloorDiv, 0, -5, 0},
    {K::FloorDiv, kMin, 1, kMin},
    {K::FloorDiv, kMin, 2, kMin / 2},
    {K::FloorDiv, kMax, -1, -kMax},
    {K::FloorDiv, 7, 0, 0, "floor(7 / 0): division by zero"},
    {K::FloorDiv, kMin, -1, 0,
     "floor(-9223372036854775808 / -1): overflows int64"},
    // ceil(a / b).
    {K::CeilDiv, 7, 2, 4},
    {K::CeilDiv, -7, 2, -3},
    {K::CeilDiv, 7, -2, -3},
    {K::CeilDiv, -7, -2, 4},
    {K::CeilDiv, 6, 3, 2},
    {K::CeilDiv, kMax, 2, kMax / 2 + 1},
    {K::CeilDiv, 1, 0, 0, "ceil(1 / 0): division by zero"},
    {K::CeilDiv, kMin, -1, 0,
     "ceil(-9223372036854775808 / -1): overflows int64"},
    // a - b * floor(a / b): the sign of b.
    {K::Mod, 7, 3, 1},
    {K::Mod, -7, 3, 2},
    {K::Mod, 7, -3, -2},
    {K::Mod, -7, -3, -1},
    {K::Mod, 6, -3, 0},
    {K::Mod, kMin, -1, 0},
    {K::Mod, kMin, kMax, kMax - 1},
    {K::Mod, 5, 0, 0, "5 mod 0: division by zero"},
    {K::Min, -3, 2, -3},
    {K::Min, kMax, kMin, kMin},
    {K::Max, -3, 2, 2},
    {K::Max, 5, 5, 5},
    // 1 if a < b else 0 (a Slice bound's "negative counts from the end").
    {K::Lt, -1, 0, 1},
    {K::Lt, 0, 0, 0},
    {K::Lt, 3, -2, 0},
    {K::Lt, kMin, kMax, 1},
};

class Arithmetic : public ::testing::TestWithParam<ArithmeticCase> {};

TEST_P(Arithmetic, IsCheckedWithFloorSemantics) {
  const ArithmeticCase &c = GetParam();
  SymbolBindings b;
  Status s = b.evaluate(op(c.kind, {lit(c.a), lit(c.b)}, {sym("r")}));
  if (c.error) {
    EXPECT_EQ(s.code(), TESSEL_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(s.message(), std::string("node 'add_1' (Add): ") + c.error);
    int64_t v;
    EXPECT_FALSE(b.lookup("r", v));
    return;
  }
  ASSERT_EQ(s.code(), TESSEL_STATUS_OK) << s.message();
  EXPECT_EQ(valueOf(b, "r"), c.expected);
}

INSTANTIATE_TEST_SUITE_P(ShapeProgram, Arithmetic,
                         ::testing::ValuesIn(kArithmetic));

TEST(ShapeProgram, OperandsAreInputSymbolsAndEarlierResults) {
  SymbolBindings b = withInput();
  ASSERT_EQ(b.evaluate(op(K::Mul, {sym("n"), sym("m")}, {sym("nm")})).code(),
            TESSEL_STATUS_OK);
  ASSERT_EQ(b.evaluate(op(K::Sub, {sym("nm"), lit(2)}, {sym("k")})).code(),
            TESSEL_STATUS_OK);
  EXPECT_EQ(valueOf(b, "nm"), 12);
  EXPECT_EQ(valueOf(b, "k"), 10);
  std::vector<int64_t> dims;
  ASSERT_EQ(b.resolve({sym("k"), lit(2), sym("n")}, dims).code(),
            TESSEL_STATUS_OK);
  EXPECT_EQ(dims, (std::vector<int64_t>{10, 2, 4}));
}

TEST(ShapeProgram, ResultsBoundElsewhereAreChecked) {
  SymbolBindings b = withInput();
  // n is 4 (input x): a result that agrees passes, one that differs fails.
  EXPECT_EQ(b.evaluate(op(K::Add, {sym("m"), lit(1)}, {sym("n")})).code(),
            TESSEL_STATUS_OK);
  Status s = b.evaluate(op(K::Add, {sym("m"), lit(2)}, {sym("n")}));
  EXPECT_EQ(s.code(), TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(s.message(), "node 'add_1' (Add): symbol 'n' bound to 4 by input "
                         "'x' and 5 by node 'add_1' (Add) computing 3 + 2");
  // A symbol bound by an earlier instruction is checked the same way.
  ASSERT_EQ(b.evaluate(op(K::Max, {sym("m"), lit(7)}, {sym("k")}, "mx", "Max"))
                .code(),
            TESSEL_STATUS_OK);
  s = b.evaluate(op(K::Min, {sym("m"), lit(7)}, {sym("k")}, "mn", "Min"));
  EXPECT_EQ(s.message(), "node 'mn' (Min): symbol 'k' bound to 7 by node 'mx' "
                         "(Max) computing max(3, 7) and 3 by node 'mn' (Min) "
                         "computing min(3, 7)");
  EXPECT_EQ(valueOf(b, "k"), 7);
  // A static result is checked.
  EXPECT_EQ(b.evaluate(op(K::Mul, {sym("n"), sym("m")}, {lit(12)})).code(),
            TESSEL_STATUS_OK);
  s = b.evaluate(op(K::Mul, {sym("n"), sym("m")}, {lit(10)}, "mul", "Mul",
                    "the batch must be 10"));
  EXPECT_EQ(s.code(), TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(s.message(), "node 'mul' (Mul): the batch must be 10: 4 * 3 is "
                         "12, but the model needs 10");
}

TEST(ShapeProgram, CheckEq) {
  SymbolBindings b = withInput();
  EXPECT_EQ(b.evaluate(op(K::CheckEq, {sym("n"), lit(4)}, {})).code(),
            TESSEL_STATUS_OK);
  Status s = b.evaluate(op(K::CheckEq, {sym("m"), lit(2)}, {}, "add_1", "Add",
                           "dim 1 of A and B"));
  EXPECT_EQ(s.code(), TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(s.message(), "node 'add_1' (Add): dim 1 of A and B: 3 vs 2");
  // Without a node the kind names the instruction.
  s = b.evaluate(op(K::CheckEq, {sym("n"), sym("m")}, {}, "", ""));
  EXPECT_EQ(s.message(), "shape op CheckEq: 4 vs 3");
}

TEST(ShapeProgram, InputValuesBindOrCheckTheirResults) {
  SymbolBindings b = withInput();
  ShapeOp values =
      op(K::InputValues, {}, {sym("t0"), sym("n"), lit(5)}, "r", "Reshape");
  ASSERT_EQ(b.evaluate(values, "shape", {-1, 4, 5}).code(), TESSEL_STATUS_OK);
  EXPECT_EQ(valueOf(b, "t0"), -1); // values need not be extents
  SymbolBindings c = withInput();
  Status s = c.evaluate(values, "shape", {2, 3, 5});
  EXPECT_EQ(s.message(), "node 'r' (Reshape): symbol 'n' bound to 4 by input "
                         "'x' and 3 by the values of input 'shape' ([2, 3, "
                         "5])");
  s = c.evaluate(values, "shape", {2, 4, 6});
  EXPECT_EQ(s.message(), "node 'r' (Reshape): input 'shape': value 2 is 6, "
                         "but the model needs 5");
  int64_t v;
  EXPECT_FALSE(c.lookup("t0", v)); // a failed instruction binds nothing
}

TEST(ShapeProgram, ReshapeOfInputValuesNamesTheInput) {
  SymbolBindings b = withInput();
  ASSERT_EQ(
      b.evaluate(op(K::InputValues, {}, {sym("s0"), sym("s1")}, "r", "Reshape"),
                 "s", {0, -1})
          .code(),
      TESSEL_STATUS_OK);
  ShapeOp reshape = op(K::Reshape, {sym("n"), sym("m"), sym("s0"), sym("s1")},
                       {sym("d0"), sym("d1")}, "r", "Reshape");
  ASSERT_EQ(b.evaluate(reshape).code(), TESSEL_STATUS_OK);
  EXPECT_EQ(valueOf(b, "d0"), 4);
  EXPECT_EQ(valueOf(b, "d1"), 3);
  // The same target read again, into [5, -1]: not a multiple.
  ASSERT_EQ(b.evaluate(op(K::InputValues, {}, {sym("u0"), sym("u1")}, "r2",
                          "Reshape"),
                       "t", {5, -1})
                .code(),
            TESSEL_STATUS_OK);
  Status s =
      b.evaluate(op(K::Reshape, {sym("n"), sym("m"), sym("u0"), sym("u1")},
                    {sym("e0"), sym("e1")}, "r2", "Reshape"));
  EXPECT_EQ(s.code(), TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(s.message(), "node 'r2' (Reshape): input 't': cannot reshape "
                         "[4, 3] (12 elements) into [5, -1]: the -1 cannot be "
                         "inferred: 12 elements are not a multiple of 5");
}

TEST(ShapeProgram, ReshapeOfOtherValues) {
  SymbolBindings b = withInput();
  // Literal targets (a -1 among them) and computed ones: no input to name.
  ShapeOp reshape = op(K::Reshape, {sym("n"), sym("m"), lit(2), lit(-1)},
                       {sym("d0"), sym("d1")}, "r", "Reshape");
  ASSERT_EQ(b.evaluate(reshape).code(), TESSEL_STATUS_OK);
  EXPECT_EQ(valueOf(b, "d1"), 6);
  reshape.operands[2] = lit(5);
  Status s = b.evaluate(reshape);
  EXPECT_EQ(s.message(), "node 'r' (Reshape): cannot reshape [4, 3] (12 "
                         "elements) into [5, -1]: the -1 cannot be inferred: "
                         "12 elements are not a multiple of 5");
  reshape.operands[2] = lit(3);
  s = b.evaluate(reshape);
  EXPECT_EQ(s.message(), "node 'r' (Reshape): symbol 'd0' bound to 2 by node "
                         "'r' (Reshape) reshaping [4, 3] into [2, -1] and 3 by "
                         "node 'r' (Reshape) reshaping [4, 3] into [3, -1]");
  reshape.results[1] = lit(5);
  reshape.operands[2] = lit(2);
  s = b.evaluate(reshape);
  EXPECT_EQ(s.message(), "node 'r' (Reshape): reshaping [4, 3] into [2, -1] "
                         "gives [2, 6], but the model needs dim 1 to be 5");
  // A negative source dim (the program computed it) is no shape.
  ASSERT_EQ(b.evaluate(op(K::Sub, {lit(1), sym("m")}, {sym("neg")})).code(),
            TESSEL_STATUS_OK);
  s = b.evaluate(
      op(K::Reshape, {sym("neg"), lit(-1)}, {sym("f")}, "r3", "Reshape"));
  EXPECT_EQ(s.message(), "node 'r3' (Reshape): cannot reshape [-2] (0 "
                         "elements) into [-1]: dim 0 of the source is "
                         "negative");
  // allowZero: a 0 is a literal 0.
  ShapeOp zero = op(K::Reshape, {lit(0), lit(3), lit(0), lit(7)},
                    {sym("z0"), sym("z1")}, "r4", "Reshape");
  zero.allowZero = true;
  ASSERT_EQ(b.evaluate(zero).code(), TESSEL_STATUS_OK);
  EXPECT_EQ(valueOf(b, "z0"), 0);
  EXPECT_EQ(valueOf(b, "z1"), 7);
}

TEST(ShapeProgram, NegativeValuesAreNoExtents) {
  SymbolBindings b = withInput();
  ASSERT_EQ(
      b.evaluate(op(K::Sub, {sym("m"), sym("n")}, {sym("d")}, "sub", "Sub"))
          .code(),
      TESSEL_STATUS_OK);
  std::vector<int64_t> dims;
  Status s = b.resolve({sym("n"), sym("d")}, dims);
  EXPECT_EQ(s.code(), TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(s.message(), "symbol 'd' is -1 (bound by node 'sub' (Sub) "
                         "computing 3 - 4), not a valid extent");
}

TEST(ShapeProgram, MalformedInstructionsAreInvalidArtifacts) {
  // validate() rejects these; evaluate() still never reads out of bounds.
  SymbolBindings b = withInput();
  EXPECT_EQ(b.evaluate(op(K::Add, {lit(1)}, {sym("r")})).code(),
            TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(b.evaluate(op(K::Add, {sym("q"), lit(1)}, {sym("r")})).code(),
            TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(b.evaluate(op(K::InputValues, {}, {sym("r")}), "x", {}).code(),
            TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(
      b.evaluate(op(static_cast<K>(99), {lit(1), lit(2)}, {sym("r")})).code(),
      TESSEL_STATUS_INVALID_ARTIFACT);
}

} // namespace
