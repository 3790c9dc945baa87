//===- SessionTest.cpp - C API sessions: binding, running, outputs --------===//
//
// Input validation and symbol binding through tessel_session_set_input, the
// run/output protocol and handle lifetimes, on the CPU driver. (Control
// flow is in ControlFlowSessionTest.cpp; the fixture in SessionFixture.h.)
//
//===----------------------------------------------------------------------===//

#include "LaunchParams.h"
#include "SessionFixture.h"
#include "StatusResult.h"
#include "TestArtifacts.h"
#include "tessel/tessel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace tessel;
using ::testing::ElementsAre;
using ::testing::Each;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

using test::Result;
using test::SessionTest;
using test::take;

TEST_F(SessionTest, RunsWithSymbolicBatchAndRebinds) {
  open(test::addModel());
  ASSERT_OK(setFloats("a", {4}, {1, 2, 3, 4}));
  ASSERT_OK(setFloats("b", {4}, {10, 20, 30, 40}));
  ASSERT_OK(tessel_session_run(session));
  std::vector<int64_t> dims;
  EXPECT_THAT(output("y", &dims), ElementsAre(12, 24, 36, 48));
  EXPECT_THAT(dims, ElementsAre(4));
  EXPECT_THAT(output("s", &dims), ElementsAre(120));
  EXPECT_TRUE(dims.empty());

  // A smaller batch, then a larger one: buffers are resized.
  ASSERT_OK(setFloats("a", {2}, {1, 1}));
  ASSERT_OK(setFloats("b", {2}, {5, 6}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", &dims), ElementsAre(7, 8));
  std::vector<float> big(1000, 1.0f);
  ASSERT_OK(setFloats("a", {1000}, big));
  ASSERT_OK(setFloats("b", {1000}, big));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("s", nullptr), ElementsAre(3000));
}

TEST_F(SessionTest, ProfileRecordsEveryLaunchWhenEnabled) {
  open(test::addModel());
  ASSERT_OK(setFloats("a", {4}, {1, 2, 3, 4}));
  ASSERT_OK(setFloats("b", {4}, {10, 20, 30, 40}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_EQ(tessel_session_profile_count(session), 0u); // off by default

  ASSERT_OK(tessel_session_set_profiling(session, 1));
  ASSERT_OK(tessel_session_run(session));
  const format::Artifact model = test::addModel();
  ASSERT_EQ(tessel_session_profile_count(session), model.plan.size());
  for (size_t i = 0; i < model.plan.size(); ++i) {
    tessel_launch_time_t e;
    ASSERT_OK(tessel_session_profile_entry(session, i, &e));
    const format::Kernel &k = model.kernels[model.plan[i].kernel];
    EXPECT_EQ(e.kernel, k.symbol);
    EXPECT_EQ(e.onnx_node, k.onnxNode);
    EXPECT_EQ(e.onnx_op, k.onnxOp);
    EXPECT_GE(e.milliseconds, 0.0);
  }
  tessel_launch_time_t e;
  Result r = take(tessel_session_profile_entry(session, 3, &e));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "profile entry 3 of 3");
  EXPECT_THAT(output("y", nullptr), ElementsAre(12, 24, 36, 48));

  ASSERT_OK(tessel_session_set_profiling(session, 0));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_EQ(tessel_session_profile_count(session), 0u);
}

/// y = (((a + b) + a) + a) + a through transients t1, t2, t3 of [batch]:
/// t1 lives in launches 0-1, t2 in 1-2, t3 in 2-3, so t1 and t3 can share
/// bytes and the arena holds two buffers' worth.
format::Artifact chainModel() {
  format::Artifact model = test::addModel();
  format::Shape batch = {format::Dim{-1, "batch"}};
  model.buffers.resize(3); // a, b, t1
  for (int i = 0; i < 2; ++i) // t2, t3
    model.buffers.push_back(
        {format::Buffer::Kind::Transient, format::DType::F32, batch});
  model.buffers.push_back(
      {format::Buffer::Kind::Output, format::DType::F32, batch});
  model.outputs = {{"y", format::DType::F32, batch, 5}};
  model.plan = {{0, {{0, batch}, {1, batch}, {2, batch}}, batch},
                {0, {{2, batch}, {0, batch}, {3, batch}}, batch},
                {0, {{3, batch}, {0, batch}, {4, batch}}, batch},
                {0, {{4, batch}, {0, batch}, {5, batch}}, batch}};
  return model;
}

/// Sessions of chainModel (or a variant of it): runChain runs one at `n`
/// elements and checks y.
class ChainTest : public SessionTest {
protected:
  void runChain(int64_t n) {
    std::vector<float> a(n), b(n), want(n);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = float(i);
      b[i] = float(100 * i);
      want[i] = 4 * a[i] + b[i];
    }
    ASSERT_OK(setFloats("a", {n}, a));
    ASSERT_OK(setFloats("b", {n}, b));
    ASSERT_OK(tessel_session_run(session));
    EXPECT_THAT(output("y", nullptr), ElementsAreArray(want));
  }
};

TEST_F(ChainTest, TransientsShareAnArenaWhereTheirLifetimesDoNotMeet) {
  open(chainModel());
  tessel_memory_stats_t m;
  ASSERT_OK(tessel_session_memory_stats(session, &m));
  EXPECT_EQ(m.planned_buffers, 0u); // nothing ran yet
  for (int64_t n : {3, 40, 3}) {
    SCOPED_TRACE(std::to_string(n) + " elements");
    runChain(n);
    ASSERT_OK(tessel_session_memory_stats(session, &m));
    // Each buffer is rounded up to 64 bytes.
    uint64_t bytes = (n * 4 + 63) / 64 * 64;
    EXPECT_EQ(m.planned_buffers, 3u);
    EXPECT_EQ(m.sum_bytes, 3 * bytes);
    EXPECT_EQ(m.peak_live_bytes, 2 * bytes);
    EXPECT_EQ(m.arena_bytes, 2 * bytes);
  }
  Result r = take(tessel_session_memory_stats(session, nullptr));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
}

TEST_F(ChainTest, APlanWithStepsPlansTheBuffersSizedBeforeItsFirstLaunch) {
  // chainModel with region 0 spelled out, and t3 sized by a symbol that a
  // shape step binds after the first launch (as a value read back would):
  // t1 and t2 share the arena over the steps, t3 is an allocation of its
  // own.
  format::Artifact model = chainModel();
  format::ShapeOp add;
  add.kind = format::ShapeOp::Kind::Add;
  add.operands = {format::Dim{-1, "batch"}, format::Dim{0, ""}};
  add.results = {format::Dim{-1, "late"}};
  model.shapeProgram = {add};
  model.buffers[4].shape = {format::Dim{-1, "late"}};
  format::Region top;
  top.steps = {{format::Step::Kind::Launch, 0},
               {format::Step::Kind::Shape, 0},
               {format::Step::Kind::Launch, 1},
               {format::Step::Kind::Launch, 2},
               {format::Step::Kind::Launch, 3}};
  model.regions = {top};
  open(model);
  for (int64_t n : {5, 33}) {
    SCOPED_TRACE(std::to_string(n) + " elements");
    runChain(n);
    tessel_memory_stats_t m;
    ASSERT_OK(tessel_session_memory_stats(session, &m));
    uint64_t bytes = (n * 4 + 63) / 64 * 64;
    EXPECT_EQ(m.planned_buffers, 2u);
    EXPECT_EQ(m.sum_bytes, 2 * bytes);
    EXPECT_EQ(m.arena_bytes, 2 * bytes); // t1 (steps 0-2) meets t2 (2-3)
  }
}

TEST_F(SessionTest, PlansWithControlFlowHaveNoArena) {
  open(test::ifModel());
  tessel_memory_stats_t m;
  ASSERT_OK(tessel_session_memory_stats(session, &m));
  EXPECT_EQ(m.planned_buffers, 0u);
  EXPECT_EQ(m.arena_bytes, 0u);
}

TEST_F(SessionTest, EmptyBatch) {
  open(test::addModel());
  ASSERT_OK(setFloats("a", {0}, {}));
  ASSERT_OK(setFloats("b", {0}, {}));
  ASSERT_OK(tessel_session_run(session));
  std::vector<int64_t> dims;
  EXPECT_TRUE(output("y", &dims).empty());
  EXPECT_THAT(dims, ElementsAre(0));
  EXPECT_THAT(output("s", nullptr), ElementsAre(0));
}

TEST_F(SessionTest, InputsAreCopied) {
  open(test::addModel());
  std::vector<float> a = {1, 2}, b = {3, 4};
  int64_t dims[] = {2};
  ASSERT_OK(tessel_session_set_input(session, "a", TESSEL_DTYPE_FLOAT32, 1,
                                     dims, a.data(), 8));
  ASSERT_OK(tessel_session_set_input(session, "b", TESSEL_DTYPE_FLOAT32, 1,
                                     dims, b.data(), 8));
  a = {100, 100};
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(5, 8));
}

TEST_F(SessionTest, WrongDTypeNamesTheInput) {
  open(test::addModel());
  std::vector<int64_t> values = {1, 2};
  int64_t dims[] = {2};
  Result r = take(tessel_session_set_input(session, "a", TESSEL_DTYPE_INT64, 1,
                                           dims, values.data(), 16));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "input 'a': expected dtype float32, got int64");
  r = take(tessel_session_set_input(session, "a",
                                    static_cast<tessel_dtype_t>(42), 1, dims,
                                    values.data(), 16));
  EXPECT_EQ(r.message,
            "input 'a': expected dtype float32, got unknown dtype 42");
}

TEST_F(SessionTest, WrongRankAndUnknownInput) {
  open(test::addModel());
  Result r = take(setFloats("a", {1, 2}, {1, 2}));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "input 'a': expected rank 1 [batch], got rank 2");
  r = take(setFloats("c", {2}, {1, 2}));
  EXPECT_EQ(r.code, TESSEL_STATUS_NOT_FOUND);
  EXPECT_EQ(r.message, "unknown input 'c' (inputs: 'a', 'b')");
  r = take(setFloats("a", {-1}, {}));
  EXPECT_EQ(r.message, "input 'a': dim 0 is negative (-1)");
}

TEST_F(SessionTest, ConflictingSymbolBindingNamesBothInputs) {
  open(test::addModel());
  ASSERT_OK(setFloats("a", {2}, {1, 2}));
  Result r = take(setFloats("b", {5}, {1, 2, 3, 4, 5}));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message,
            "symbol 'batch' bound to 2 by input 'a' and 5 by input 'b'");
  // The failed call changed nothing: b is still unset.
  r = take(tessel_session_run(session));
  EXPECT_EQ(r.code, TESSEL_STATUS_FAILED_PRECONDITION);
  EXPECT_EQ(r.message, "input 'b' is not set");
  ASSERT_OK(setFloats("b", {2}, {1, 2}));
  // Re-setting a input is checked against the others, not against itself.
  r = take(setFloats("a", {3}, {1, 2, 3}));
  EXPECT_EQ(r.message,
            "symbol 'batch' bound to 2 by input 'b' and 3 by input 'a'");
  ASSERT_OK(setFloats("a", {2}, {3, 4}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(7, 10));

  // After a run, a new batch needs every input again: a kept input that
  // disagrees is reported by run().
  ASSERT_OK(setFloats("a", {3}, {1, 1, 1}));
  r = take(tessel_session_run(session));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message,
            "symbol 'batch' bound to 3 by input 'a' and 2 by input 'b'");
  ASSERT_OK(setFloats("b", {3}, {1, 2, 3}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(3, 4, 5));
}

TEST_F(SessionTest, KeptInputsAreReusedAcrossRuns) {
  open(test::addModel());
  ASSERT_OK(setFloats("a", {2}, {1, 2}));
  ASSERT_OK(setFloats("b", {2}, {0, 0}));
  ASSERT_OK(tessel_session_run(session));
  ASSERT_OK(setFloats("b", {2}, {1, 1}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(3, 5));
}

TEST_F(SessionTest, StaticDimAndByteCountMismatch) {
  open(test::weightModel());
  Result r = take(setFloats("x", {4}, {1, 2, 3, 4}));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "input 'x': dim 0 is 4, expected 3");
  int64_t dims[] = {3};
  float values[3] = {1, 2, 3};
  r = take(tessel_session_set_input(session, "x", TESSEL_DTYPE_FLOAT32, 1, dims,
                                    values, 8));
  EXPECT_EQ(r.message,
            "input 'x': got 8 bytes of data, expected 12 for float32 [3]");
  r = take(tessel_session_set_input(session, "x", TESSEL_DTYPE_FLOAT32, 1, dims,
                                    nullptr, 12));
  EXPECT_EQ(r.message, "input 'x': data is null");
}

TEST_F(SessionTest, OutputsBeforeRunAndUnknownOutputs) {
  open(test::addModel());
  tessel_tensor_view_t view;
  Result r = take(tessel_session_get_output(session, "y", &view));
  EXPECT_EQ(r.code, TESSEL_STATUS_FAILED_PRECONDITION);
  r = take(tessel_session_get_output(session, "q", &view));
  EXPECT_EQ(r.code, TESSEL_STATUS_NOT_FOUND);
  EXPECT_EQ(r.message, "unknown output 'q' (outputs: 'y', 's')");
}

TEST_F(SessionTest, OutputsAreViewsWithTheirSignaturesShape) {
  format::Artifact model = test::addModel();
  model.outputs[0].shape = {{1, ""}, {-1, "batch"}, {1, ""}};
  model.outputs[1].shape = {{1, ""}};
  open(model);
  ASSERT_OK(setFloats("a", {2}, {1, 2}));
  ASSERT_OK(setFloats("b", {2}, {0, 0}));
  ASSERT_OK(tessel_session_run(session));
  std::vector<int64_t> dims;
  EXPECT_THAT(output("y", &dims), ElementsAre(2, 4));
  EXPECT_THAT(dims, ElementsAre(1, 2, 1));
  EXPECT_THAT(output("s", &dims), ElementsAre(6));
  EXPECT_THAT(dims, ElementsAre(1));
}

TEST_F(SessionTest, ReshapeBindsTheViewFromTheValues) {
  open(test::reshapeModel());
  std::vector<float> x(24, 1.0f);
  ASSERT_OK(setFloats("x", {4, 6}, x));
  // 0 copies the source dim, -1 takes the rest.
  ASSERT_OK(setInts("shape", {2, 0, -1}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(2, 6, 2));
  ASSERT_OK(setInts("shape", {-1, 3, 4}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(2, 3, 4));
  // Another source shape: the same values give other extents.
  ASSERT_OK(setFloats("x", {1, 6}, std::vector<float>(6, 1.0f)));
  ASSERT_OK(setInts("shape", {0, -1, 2}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(1, 3, 2));
}

TEST_F(SessionTest, ReshapeErrorsNameTheNodeTheInputAndTheValues) {
  open(test::reshapeModel());
  ASSERT_OK(setFloats("x", {4, 6}, std::vector<float>(24, 1.0f)));
  const std::string prefix =
      "node 'Reshape_0' (Reshape): input 'shape': cannot reshape [4, 6] (24 "
      "elements) into ";
  struct {
    std::vector<int64_t> values;
    std::string message;
  } cases[] = {
      {{5, -1, 1},
       prefix + "[5, -1, 1]: the -1 cannot be inferred: 24 "
                "elements are not a multiple of 5"},
      {{2, 3, 5}, prefix + "[2, 3, 5]: that is 30 elements"},
      {{-1, -1, 6}, prefix + "[-1, -1, 6]: more than one -1"},
      {{2, -3, 4}, prefix + "[2, -3, 4]: invalid value -3 at index 1"},
      {{2, 6, 0},
       prefix + "[2, 6, 0]: value 0 at index 2 copies a dim the "
                "rank-2 source does not have"},
      {{4, 0, 0},
       prefix + "[4, 0, 0]: value 0 at index 2 copies a dim the "
                "rank-2 source does not have"},
      {{int64_t(1) << 40, int64_t(1) << 40, -1},
       prefix + "[1099511627776, 1099511627776, -1]: the target shape "
                "overflows"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE(c.message);
    expectRunFails(c.values, c.message);
  }
  ASSERT_OK(setInts("shape", {4, 3, 2}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(4, 3, 2));
}

TEST_F(SessionTest, ReshapeWithAllowZero) {
  format::Artifact model = test::reshapeModel();
  model.shapeProgram[1].allowZero = true;
  open(model);
  // An empty source: 0 is a literal 0, so the other dims are free.
  ASSERT_OK(setFloats("x", {0, 6}, {}));
  ASSERT_OK(setInts("shape", {3, 0, 5}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(3, 0, 5));
  ASSERT_OK(setInts("shape", {0, -1, 6}));
  Result r = take(tessel_session_run(session));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message,
            "node 'Reshape_0' (Reshape): input 'shape': cannot reshape [0, "
            "6] (0 elements) into [0, -1, 6]: with allowzero, a 0 and a -1 "
            "cannot be used together");
  // A 0 is no copy: 24 elements do not fit in [4, 0, 6].
  ASSERT_OK(setFloats("x", {4, 6}, std::vector<float>(24, 1.0f)));
  ASSERT_OK(setInts("shape", {4, 0, 6}));
  r = take(tessel_session_run(session));
  EXPECT_EQ(r.message, "node 'Reshape_0' (Reshape): input 'shape': cannot "
                       "reshape [4, 6] (24 elements) into [4, 0, 6]: that is "
                       "0 elements");
}

TEST_F(SessionTest, WithoutAllowZeroAZeroCopiesAnEmptyDim) {
  open(test::reshapeModel());
  ASSERT_OK(setFloats("x", {0, 6}, {}));
  ASSERT_OK(setInts("shape", {0, 3, 2}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(0, 3, 2));
  // -1 next to an empty dim cannot be inferred (as in ONNX Runtime).
  ASSERT_OK(setInts("shape", {0, -1, 2}));
  Result r = take(tessel_session_run(session));
  EXPECT_EQ(r.message, "node 'Reshape_0' (Reshape): input 'shape': cannot "
                       "reshape [0, 6] (0 elements) into [0, -1, 2]: the -1 "
                       "cannot be inferred when another dim is 0");
}

TEST_F(SessionTest, ReshapeChecksDimsBoundElsewhere) {
  // After the compiler equated a result dim with an input's symbol, or with
  // a static extent, the instruction checks it instead of binding it.
  format::Artifact model = test::reshapeModel();
  format::Shape viewed = {{-1, "n"}, {-1, "r.d1"}, {2, ""}};
  model.shapeProgram[1].results = viewed;
  model.plan[0].args[0].shape = viewed;
  open(model);
  ASSERT_OK(setFloats("x", {4, 6}, std::vector<float>(24, 1.0f)));
  ASSERT_OK(setInts("shape", {4, 3, 2}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(4, 3, 2));
  ASSERT_OK(setInts("shape", {2, 6, 2}));
  Result r = take(tessel_session_run(session));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "node 'Reshape_0' (Reshape): symbol 'n' bound to 4 by "
                       "input 'x' and 2 by the values of input 'shape' ([2, "
                       "6, 2])");
  ASSERT_OK(setInts("shape", {4, 2, 3}));
  r = take(tessel_session_run(session));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "node 'Reshape_0' (Reshape): input 'shape': reshaping "
                       "[4, 6] into [4, 2, 3] gives [4, 2, 3], but the model "
                       "needs dim 2 to be 2");
}

/// reshapeModel with a program of arithmetic instead of a Reshape: x [n, 6]
/// is viewed as [d0, b, c] where (a, b, c) are the values of `shape`, with
/// 6n a multiple of bc, d0 = 6n / bc, and a checked to equal d0.
format::Artifact arithmeticModel() {
  using format::ShapeOp;
  using K = ShapeOp::Kind;
  format::Artifact model = test::reshapeModel();
  auto op = [](K kind, format::Shape operands, format::Shape results,
               const char *node, const char *type, const char *message = "") {
    return test::shapeOp(kind, std::move(operands), std::move(results), node,
                         type, message);
  };
  format::Dim a{-1, "shape.0"}, b{-1, "shape.1"}, c{-1, "shape.2"};
  format::Dim n{-1, "n"}, six{6, ""}, zero{0, ""};
  format::Dim bc{-1, "bc"}, total{-1, "total"}, d0{-1, "d0"};
  model.shapeProgram.resize(1); // InputValues of `shape`
  model.shapeProgram.push_back(op(K::Mul, {b, c}, {bc}, "mul_bc", "Mul"));
  model.shapeProgram.push_back(op(K::Mul, {n, six}, {total}, "size", "Size"));
  model.shapeProgram.push_back(
      op(K::Mod, {total, bc}, {zero}, "tile", "Mod", "the view must tile x"));
  model.shapeProgram.push_back(
      op(K::FloorDiv, {total, bc}, {d0}, "div", "Div"));
  model.shapeProgram.push_back(
      op(K::CheckEq, {a, d0}, {}, "check", "Reshape", "dim 0 of the view"));
  model.plan[0].args[0].shape = {d0, b, c};
  return model;
}

TEST_F(SessionTest, ShapeProgramArithmeticBindsTheView) {
  open(arithmeticModel());
  ASSERT_OK(setFloats("x", {4, 6}, std::vector<float>(24, 1.0f)));
  ASSERT_OK(setInts("shape", {2, 3, 4}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(2, 3, 4));
  ASSERT_OK(setInts("shape", {3, 2, 4}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(3, 2, 4));
  ASSERT_OK(setFloats("x", {2, 6}, std::vector<float>(12, 1.0f)));
  ASSERT_OK(setInts("shape", {1, 12, 1}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(1, 12, 1));
}

TEST_F(SessionTest, ShapeProgramErrorsNameTheNodeAndTheValues) {
  open(arithmeticModel());
  ASSERT_OK(setFloats("x", {4, 6}, std::vector<float>(24, 1.0f)));
  struct {
    std::vector<int64_t> values;
    std::string message;
  } cases[] = {
      // A static result is checked.
      {{2, 5, 4},
       "node 'tile' (Mod): the view must tile x: 24 mod 20 is 4, but the "
       "model needs 0"},
      {{3, 3, 4}, "node 'check' (Reshape): dim 0 of the view: 3 vs 2"},
      {{2, 0, 4},
       "node 'tile' (Mod): the view must tile x: 24 mod 0: division by zero"},
      {{1, int64_t(1) << 40, int64_t(1) << 40},
       "node 'mul_bc' (Mul): 1099511627776 * 1099511627776: overflows int64"},
      // The program may compute negative values, but not use them as dims.
      {{-2, -3, 4},
       "symbol 'd0' is -2 (bound by node 'div' (Div) computing floor(24 / "
       "-12)), not a valid extent"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE(c.message);
    expectRunFails(c.values, c.message);
  }
  ASSERT_OK(setInts("shape", {2, 3, 4}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(2, 3, 4));
}

TEST_F(SessionTest, BufferValuesReadBackWhatALaunchWrote) {
  // z's extents are values launch 0 computed (x's sizes, as the probe
  // wrote them), read back between the launches.
  open(test::readbackModel());
  for (int64_t n : {5, 3}) {
    SCOPED_TRACE(n);
    ASSERT_OK(setFloats("x", {2, n, 4}, std::vector<float>(8 * n, 1.0f)));
    ASSERT_OK(tessel_session_run(session));
    tessel_tensor_view_t view;
    ASSERT_OK(tessel_session_get_output(session, "z", &view));
    EXPECT_THAT(std::vector<int64_t>(view.dims, view.dims + view.rank),
                ElementsAre(n, 4));
    ASSERT_EQ(view.data_bytes, size_t(4 * n) * sizeof(int64_t));
    const int64_t *z = static_cast<const int64_t *>(view.data);
    EXPECT_THAT(std::vector<int64_t>(z, z + 4 * n), Each(0));
  }
}

TEST_F(SessionTest, BufferValuesAreCheckedAgainstStaticResults) {
  format::Artifact model = test::readbackModel();
  model.shapeProgram[0].results[1] = {3, ""};
  open(model);
  ASSERT_OK(setFloats("x", {2, 5, 4}, std::vector<float>(40, 1.0f)));
  Result r = take(tessel_session_run(session));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "node 'Resize_0' (Resize): the values it computed: "
                       "value 1 is 2, but the model needs 3");
}

TEST_F(SessionTest, InputValuesOfAScalar) {
  // shape: int64 [] holds k; x [n, 6] is viewed as [n, 6 / k, k].
  using K = format::ShapeOp::Kind;
  format::Artifact model = test::reshapeModel();
  model.inputs[1].shape = {};
  model.buffers[1].shape = {};
  model.shapeProgram[0].results = {{-1, "k"}};
  format::ShapeOp div;
  div.kind = K::FloorDiv;
  div.operands = {{6, ""}, {-1, "k"}};
  div.results = {{-1, "q"}};
  div.onnxNode = "div";
  div.onnxOp = "Div";
  model.shapeProgram[1] = div;
  model.plan[0].args[0].shape = {{-1, "n"}, {-1, "q"}, {-1, "k"}};
  open(model);
  ASSERT_OK(setFloats("x", {4, 6}, std::vector<float>(24, 1.0f)));
  int64_t k = 3;
  ASSERT_OK(tessel_session_set_input(session, "shape", TESSEL_DTYPE_INT64, 0,
                                     nullptr, &k, sizeof(k)));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(probedSizes(), ElementsAre(4, 2, 3));
  k = 0;
  ASSERT_OK(tessel_session_set_input(session, "shape", TESSEL_DTYPE_INT64, 0,
                                     nullptr, &k, sizeof(k)));
  Result r = take(tessel_session_run(session));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "node 'div' (Div): floor(6 / 0): division by zero");
}

TEST_F(SessionTest, CopyOutputChecksTheBufferSize) {
  open(test::addModel());
  ASSERT_OK(setFloats("a", {3}, {1, 2, 3}));
  ASSERT_OK(setFloats("b", {3}, {0, 0, 0}));
  ASSERT_OK(tessel_session_run(session));
  float y[3];
  Result r = take(tessel_session_copy_output(session, "y", y, 8));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(r.message, "output 'y' has 12 bytes, the buffer only 8");
  ASSERT_OK(tessel_session_copy_output(session, "y", y, sizeof(y)));
  EXPECT_THAT(y, ElementsAre(2, 4, 6));
}

TEST_F(SessionTest, WeightsMappedFromAFile) {
  test::TempDir dir;
  test::writeBytes(dir.file("w.tsl"), format::serialize(test::weightModel()));
  ASSERT_OK(tessel_artifact_load_file(dir.file("w.tsl").c_str(), &artifact));
  ASSERT_OK(tessel_device_create("cpu", &device));
  ASSERT_OK(tessel_session_create(artifact, device, &session));
  ASSERT_OK(setFloats("x", {3}, {1, 2, 3}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("z", nullptr), ElementsAre(12, 24, 36));
}

TEST_F(SessionTest, SessionKeepsArtifactAndDeviceAlive) {
  open(test::weightModel());
  tessel_artifact_release(artifact);
  tessel_device_release(device);
  artifact = nullptr;
  device = nullptr;
  ASSERT_OK(setFloats("x", {3}, {0, 0, 0}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("z", nullptr), ElementsAre(11, 22, 33));
}

TEST_F(SessionTest, TwoSessionsAreIndependent) {
  open(test::addModel());
  tessel_session_t *other = nullptr;
  ASSERT_OK(tessel_session_create(artifact, device, &other));
  ASSERT_OK(setFloats("a", {1}, {1}));
  ASSERT_OK(setFloats("b", {1}, {1}));
  ASSERT_OK(tessel_session_run(session));
  int64_t dims[] = {2};
  float v[] = {5, 5};
  ASSERT_OK(tessel_session_set_input(other, "a", TESSEL_DTYPE_FLOAT32, 1, dims,
                                     v, 8));
  ASSERT_OK(tessel_session_set_input(other, "b", TESSEL_DTYPE_FLOAT32, 1, dims,
                                     v, 8));
  ASSERT_OK(tessel_session_run(other));
  EXPECT_THAT(output("y", nullptr), ElementsAre(3));
  float y[2];
  ASSERT_OK(tessel_session_copy_output(other, "y", y, sizeof(y)));
  EXPECT_THAT(y, ElementsAre(15, 15));
  tessel_session_release(other);
}

/// Loads `model` and creates a CPU session; returns what creation said.
Result createCpuSession(const format::Artifact &model) {
  std::vector<uint8_t> bytes = format::serialize(model);
  tessel_artifact_t *a = nullptr;
  tessel_device_t *d = nullptr;
  tessel_session_t *s = nullptr;
  Result loaded =
      take(tessel_artifact_load_memory(bytes.data(), bytes.size(), &a));
  EXPECT_EQ(loaded.code, TESSEL_STATUS_OK) << loaded.message;
  Result created = take(tessel_device_create("cpu", &d));
  EXPECT_EQ(created.code, TESSEL_STATUS_OK) << created.message;
  Result r = take(tessel_session_create(a, d, &s));
  if (r.code != TESSEL_STATUS_OK) {
    EXPECT_EQ(s, nullptr);
  }
  tessel_session_release(s);
  tessel_device_release(d);
  tessel_artifact_release(a);
  return r;
}

TEST(SessionCreate, NoCpuKernels) {
  Result r = createCpuSession(test::addModel({false, true, true, false}));
  EXPECT_EQ(r.code, TESSEL_STATUS_UNAVAILABLE);
  EXPECT_EQ(r.message, "artifact has no kernels for the CPU (targets: "
                       "cuda:sm_80, rocm:gfx90a)");
  tessel_device_t *d = nullptr;
  tessel_session_t *s = nullptr;
  ASSERT_OK(tessel_device_create("cpu", &d));
  r = take(tessel_session_create(nullptr, d, &s));
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARGUMENT);
  tessel_device_release(d);
}

TEST(SessionCreate, CpuFeaturesAreChecked) {
  format::Artifact model = test::addModel();
  // SSE4.1 and POPCNT (x86-64-v2): every CPU that builds the tests has them.
  std::vector<std::string> &features = model.binaries[0].cpuFeatures;
  features = {"sse4.1", "popcnt"};
  EXPECT_EQ(createCpuSession(model).code, TESSEL_STATUS_OK);
  // A name the runtime cannot check is an artifact error, not a guess.
  features = {"sse4.1", "quantum-ops"};
  Result r = createCpuSession(model);
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(r.message, "the CPU binary 'cpu' needs the CPU feature "
                       "'quantum-ops', which this runtime does not know");
  // Features this CPU lacks are named (a CPU with both loads the binary).
  features = {"avx512f", "avx512bitalg"};
  __builtin_cpu_init();
  bool hasAll = __builtin_cpu_supports("avx512f") &&
                __builtin_cpu_supports("avx512bitalg");
  r = createCpuSession(model);
  if (hasAll) {
    EXPECT_EQ(r.code, TESSEL_STATUS_OK);
  } else {
    EXPECT_EQ(r.code, TESSEL_STATUS_UNAVAILABLE);
    EXPECT_THAT(r.message, HasSubstr("this CPU lacks x86-64 extensions"));
  }
}

TEST(SessionCreate, MissingKernelSymbolAndBrokenBinary) {
  format::Artifact model = test::addModel();
  model.kernels[0].symbol = "nonexistent";
  Result r = createCpuSession(model);
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_EQ(r.message, "the CPU binary lacks kernel 'nonexistent' (ONNX node "
                       "'Add_0', Add): no symbol nonexistent_packed");

  model = test::addModel({false, false, false, false});
  test::addBinary(model, "cpu",
                            format::TargetBinary::Format::ElfSharedObject,
                            {'n', 'o', 't', ' ', 'e', 'l', 'f'});
  r = createCpuSession(model);
  EXPECT_EQ(r.code, TESSEL_STATUS_INVALID_ARTIFACT);
  EXPECT_THAT(r.message, StartsWith("cannot load the CPU binary: "));
}

TEST(LaunchParams, FollowsTheKernelAbi) {
  runtime::LaunchParams p;
  float data[24];
  p.addMemref(data, {2, 3, 4});
  p.addMemref(data + 1, {});
  ASSERT_EQ(p.size(), 9u + 3u);
  void **params = p.params();
  EXPECT_EQ(*static_cast<float **>(params[0]), data);
  EXPECT_EQ(*static_cast<float **>(params[1]), data);
  std::vector<int64_t> scalars;
  for (int j = 2; j < 9; ++j)
    scalars.push_back(*static_cast<int64_t *>(params[j]));
  EXPECT_THAT(scalars, ElementsAre(0, 2, 3, 4, 12, 4, 1));
  EXPECT_EQ(*static_cast<float **>(params[10]), data + 1);
  EXPECT_EQ(*static_cast<int64_t *>(params[11]), 0);
}

} // namespace
