//===- ControlFlowSessionTest.cpp - Sessions running If and Loop ----------===//
//
// Control flow (format 3.2) through the C API on the CPU driver:
// test::ifModel, loopModel and nestedModel, their branches, iterations,
// carried tensors, scan outputs, and the errors their results report.
//
//===----------------------------------------------------------------------===//

#include "SessionFixture.h"
#include "StatusResult.h"
#include "TestArtifacts.h"
#include "tessel/tessel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace tessel;
using ::testing::ElementsAre;

namespace {

using test::Result;
using test::SessionTest;
using test::take;

//===----------------------------------------------------------------------===//
// Control flow (format 3.2): test::ifModel, loopModel and nestedModel
//===----------------------------------------------------------------------===//

using format::Dim;

/// SessionTest with setters for the scalars of the control-flow models.
class ControlFlowTest : public SessionTest {
protected:
  tessel_status_t setBool(const char *name, bool value) {
    uint8_t byte = value ? 1 : 0;
    return tessel_session_set_input(session, name, TESSEL_DTYPE_BOOL, 0,
                                    nullptr, &byte, 1);
  }
  tessel_status_t setInt(const char *name, int64_t value) {
    return tessel_session_set_input(session, name, TESSEL_DTYPE_INT64, 0,
                                    nullptr, &value, sizeof(value));
  }

  /// Runs loopModel (or a variant) with y0 = {1, 2}, a = {10, 20} and
  /// z0 = {7, 8, 9}.
  void runLoop(int64_t trip, bool go) {
    ASSERT_OK(setInt("trip", trip));
    ASSERT_OK(setBool("go", go));
    ASSERT_OK(setFloats("y0", {2}, {1, 2}));
    ASSERT_OK(setFloats("a", {2}, {10, 20}));
    ASSERT_OK(setFloats("z0", {3}, {7, 8, 9}));
    ASSERT_OK(tessel_session_run(session));
  }

  /// The expected outputs of loopModel after `iterations` (of y += a).
  void expectLoopOutputs(int64_t iterations) {
    SCOPED_TRACE(std::to_string(iterations) + " iterations");
    std::vector<int64_t> dims;
    float n = float(iterations);
    // y = yF + a, yF = y0 + iterations * a.
    EXPECT_THAT(output("y", &dims),
                ElementsAre(1 + 10 * (n + 1), 2 + 20 * (n + 1)));
    EXPECT_THAT(output("z", &dims), ElementsAre(14, 16, 18));
    std::vector<float> scan;
    for (int64_t i = 1; i <= iterations; ++i) {
      scan.push_back(2 * (1 + 10 * float(i)));
      scan.push_back(2 * (2 + 20 * float(i)));
    }
    EXPECT_EQ(output("scan", &dims), scan);
    EXPECT_THAT(dims, ElementsAre(iterations, 2));
  }

  void expectRunFails(tessel_status_code_t code, const std::string &message) {
    Result r = take(tessel_session_run(session));
    EXPECT_EQ(r.code, code);
    EXPECT_EQ(r.message, message);
  }
};

TEST_F(ControlFlowTest, IfRunsTheBranchItsConditionSelects) {
  open(test::ifModel());
  ASSERT_OK(setFloats("a", {3}, {1, 2, 3}));
  ASSERT_OK(setFloats("b", {3}, {10, 20, 30}));
  ASSERT_OK(setFloats("d", {2}, {5, 6}));
  std::vector<int64_t> dims;
  // Then: y = r + r with r = a + b; the result symbol m is 3.
  ASSERT_OK(setBool("c", true));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", &dims), ElementsAre(22, 44, 66));
  EXPECT_THAT(dims, ElementsAre(3));
  // Else: r is d itself, of another extent, which the launch after the If
  // sees through m.
  ASSERT_OK(setBool("c", false));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", &dims), ElementsAre(10, 12));
  EXPECT_THAT(dims, ElementsAre(2));
  // And back, with larger inputs: the buffers grow.
  ASSERT_OK(setBool("c", true));
  ASSERT_OK(setFloats("a", {5}, {1, 1, 1, 1, 1}));
  ASSERT_OK(setFloats("b", {5}, {1, 2, 3, 4, 5}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", &dims), ElementsAre(4, 6, 8, 10, 12));
}

TEST_F(ControlFlowTest, IfBranchMayYieldAnInputOfTheEnclosingRegion) {
  format::Artifact model = test::ifModel();
  model.regions[2].yields = {{1, {Dim{-1, "n"}}}}; // else: a itself
  open(model);
  ASSERT_OK(setFloats("a", {2}, {1, 2}));
  ASSERT_OK(setFloats("b", {2}, {3, 3}));
  ASSERT_OK(setFloats("d", {1}, {0}));
  ASSERT_OK(setBool("c", false));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(2, 4));
  ASSERT_OK(setBool("c", true));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(8, 10));
}

/// ifModel with its result r and everything after it of shape `shape`.
format::Artifact ifModelWithResultShape(format::Shape shape) {
  format::Artifact model = test::ifModel();
  for (uint32_t buffer : {5u, 6u})
    model.buffers[buffer].shape = shape;
  model.outputs[0].shape = shape;
  model.plan[1] = {0, {{5, shape}, {5, shape}, {6, shape}}, shape};
  return model;
}

TEST_F(ControlFlowTest, IfResultsCheckTheirStaticDimsAndBoundSymbols) {
  open(ifModelWithResultShape({Dim{3, ""}}));
  ASSERT_OK(setFloats("a", {3}, {1, 2, 3}));
  ASSERT_OK(setFloats("b", {3}, {0, 0, 0}));
  ASSERT_OK(setFloats("d", {2}, {5, 6}));
  ASSERT_OK(setBool("c", false));
  expectRunFails(TESSEL_STATUS_INVALID_ARGUMENT,
                 "control op 0 (ONNX node 'if_0', If): result 0 [2]: dim 0 "
                 "is 2, but the model needs 3");
  tessel_tensor_view_t view;
  EXPECT_EQ(take(tessel_session_get_output(session, "y", &view)).code,
            TESSEL_STATUS_FAILED_PRECONDITION);
  ASSERT_OK(setBool("c", true));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(2, 4, 6));

  // A result of shape [n]: the else branch must give d the extent of a.
  tessel_session_release(session);
  tessel_device_release(device);
  tessel_artifact_release(artifact);
  open(ifModelWithResultShape({Dim{-1, "n"}}));
  ASSERT_OK(setFloats("a", {3}, {1, 2, 3}));
  ASSERT_OK(setFloats("b", {3}, {0, 0, 0}));
  ASSERT_OK(setFloats("d", {2}, {5, 6}));
  ASSERT_OK(setBool("c", false));
  expectRunFails(TESSEL_STATUS_INVALID_ARGUMENT,
                 "control op 0 (ONNX node 'if_0', If): symbol 'n' bound to 3 "
                 "by input 'a' and 2 by result 0 [2]");
  ASSERT_OK(setFloats("d", {3}, {5, 6, 7}));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(10, 12, 14));
}

TEST_F(ControlFlowTest, IfBranchMayComputeIntoTheResultBuffer) {
  // The then branch writes a + b into r itself and yields it: no copy.
  format::Shape n = {Dim{-1, "n"}};
  format::Artifact model = ifModelWithResultShape(n);
  model.plan[0].args[2].buffer = 5;
  model.regions[1].yields = {{5, n}};
  open(model);
  ASSERT_OK(setFloats("a", {2}, {1, 2}));
  ASSERT_OK(setFloats("b", {2}, {3, 4}));
  ASSERT_OK(setFloats("d", {2}, {5, 6}));
  ASSERT_OK(setBool("c", true));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(8, 12));
  ASSERT_OK(setBool("c", false));
  ASSERT_OK(tessel_session_run(session));
  EXPECT_THAT(output("y", nullptr), ElementsAre(10, 12));
}

TEST_F(ControlFlowTest, LoopRunsItsTripCountAndStacksTheScanOutput) {
  open(test::loopModel());
  for (int64_t trip : {3, 0, 1, 3}) {
    runLoop(trip, true);
    expectLoopOutputs(trip);
  }
  // A trip count of 0 or less runs no iteration.
  runLoop(-5, true);
  expectLoopOutputs(0);
}

TEST_F(ControlFlowTest, LoopBindsItsIterationSymbolInTheBody) {
  // The body writes [i] (host values of the iteration symbol) into a buffer
  // it yields as a second scan output, straight into an output buffer.
  format::Artifact model = test::loopModel();
  model.controlOps[0].iterationSymbol = "loop_0.i";
  uint32_t values = model.buffers.size();
  model.buffers.push_back({format::Buffer::Kind::Transient,
                           format::DType::I64, {Dim{1, ""}}});
  uint32_t iters = model.buffers.size();
  format::Shape stacked = {Dim{-1, "s2"}, Dim{1, ""}};
  model.buffers.push_back(
      {format::Buffer::Kind::Output, format::DType::I64, stacked});
  model.outputs.push_back({"iters", format::DType::I64, stacked, iters});
  model.hostValues.push_back({values, {Dim{-1, "loop_0.i"}}});
  model.regions[1].steps.insert(model.regions[1].steps.begin(),
                                {format::Step::Kind::HostValues, 0});
  model.regions[1].yields.push_back({values, {Dim{1, ""}}});
  model.controlOps[0].results.push_back(iters);
  open(model);
  for (int64_t trip : {3, 0, 2}) {
    SCOPED_TRACE(std::to_string(trip) + " iterations");
    runLoop(trip, true);
    expectLoopOutputs(trip);
    tessel_tensor_view_t view;
    ASSERT_OK(tessel_session_get_output(session, "iters", &view));
    ASSERT_EQ(view.rank, 2u);
    EXPECT_EQ(view.dims[0], trip);
    std::vector<int64_t> got(trip);
    if (trip)
      std::memcpy(got.data(), view.data, trip * sizeof(int64_t));
    for (int64_t i = 0; i < trip; ++i)
      EXPECT_EQ(got[i], i);
  }
}

TEST_F(ControlFlowTest, LoopConditionFalseFromTheStartRunsNoIteration) {
  open(test::loopModel());
  runLoop(3, false);
  expectLoopOutputs(0);
}

/// loopModel whose initial condition is a separate input, `start`, so that
/// `go` (which the body yields) can stop the loop after an iteration.
format::Artifact loopModelWithStart() {
  format::Artifact model = test::loopModel();
  uint32_t start = static_cast<uint32_t>(model.buffers.size());
  model.buffers.push_back(model.buffers[1]);
  model.inputs.push_back({"start", format::DType::Bool, {}, start});
  model.controlOps[0].operands[1] = {start, {}};
  return model;
}

TEST_F(ControlFlowTest, LoopStopsWhenTheBodyYieldsFalse) {
  open(loopModelWithStart());
  ASSERT_OK(setBool("start", true));
  runLoop(5, false); // the body runs once, then yields go = false
  expectLoopOutputs(1);
  runLoop(5, true);
  expectLoopOutputs(5);
  ASSERT_OK(setBool("start", false));
  runLoop(5, true);
  expectLoopOutputs(0);
}

TEST_F(ControlFlowTest, LoopWithoutATripCountRunsWhileTheConditionHolds) {
  format::Artifact model = loopModelWithStart();
  model.controlOps[0].operands[0].buffer = format::kNoBuffer;
  model.inputs.erase(model.inputs.begin()); // trip is unused
  model.buffers[0].kind = format::Buffer::Kind::Transient;
  for (format::TensorSignature &sig : model.inputs)
    ASSERT_NE(sig.buffer, 0u);
  open(model);
  ASSERT_OK(setBool("start", true));
  ASSERT_OK(setBool("go", false));
  ASSERT_OK(setFloats("y0", {2}, {1, 2}));
  ASSERT_OK(setFloats("a", {2}, {10, 20}));
  ASSERT_OK(setFloats("z0", {3}, {7, 8, 9}));
  ASSERT_OK(tessel_session_run(session));
  expectLoopOutputs(1);
}

TEST_F(ControlFlowTest, LoopWithoutAConditionIgnoresTheYieldedOne) {
  format::Artifact model = test::loopModel();
  model.controlOps[0].operands[1].buffer = format::kNoBuffer;
  open(model);
  runLoop(2, false); // go = false is only yielded: ONNX ignores it
  expectLoopOutputs(2);
}

TEST_F(ControlFlowTest, LoopPassesACarriedTensorThrough) {
  // z (loopModel's second carried tensor) is yielded unchanged; its body
  // argument's symbol zk is bound from the value on every iteration.
  open(test::loopModel());
  std::vector<int64_t> dims;
  for (std::vector<float> z0 :
       {std::vector<float>{1, 2, 3, 4, 5}, std::vector<float>{}}) {
    ASSERT_OK(setInt("trip", 4));
    ASSERT_OK(setBool("go", true));
    ASSERT_OK(setFloats("y0", {1}, {0}));
    ASSERT_OK(setFloats("a", {1}, {1}));
    ASSERT_OK(setFloats("z0", {int64_t(z0.size())}, z0));
    ASSERT_OK(tessel_session_run(session));
    std::vector<float> twice;
    for (float v : z0)
      twice.push_back(2 * v);
    EXPECT_EQ(output("z", &dims), twice);
    EXPECT_THAT(dims, ElementsAre(int64_t(z0.size())));
    EXPECT_THAT(output("scan", &dims), ElementsAre(2, 4, 6, 8));
  }
}

TEST_F(ControlFlowTest, LoopBodyMayYieldItsArgumentsInAnyOrder) {
  // y and z swap on every iteration: each must be read before the other
  // overwrites it.
  format::Artifact model = test::loopModel();
  model.regions[1].yields[1] = {8, {Dim{-1, "zk"}}}; // y := z
  model.regions[1].yields[2] = {7, {Dim{-1, "n"}}};  // z := y
  open(model);
  for (int64_t trip : {1, 2, 3}) {
    ASSERT_OK(setInt("trip", trip));
    ASSERT_OK(setBool("go", true));
    ASSERT_OK(setFloats("y0", {2}, {1, 2}));
    ASSERT_OK(setFloats("a", {2}, {10, 20}));
    ASSERT_OK(setFloats("z0", {2}, {7, 8}));
    ASSERT_OK(tessel_session_run(session));
    bool swapped = trip % 2 == 1;
    // y = yF + a, z = zF + zF.
    EXPECT_THAT(output("y", nullptr),
                swapped ? ElementsAre(17, 28) : ElementsAre(11, 22))
        << trip;
    EXPECT_THAT(output("z", nullptr),
                swapped ? ElementsAre(2, 4) : ElementsAre(14, 16))
        << trip;
  }
}

TEST_F(ControlFlowTest, LoopBodyArgumentsCheckTheirStaticDims) {
  format::Artifact model = test::loopModel();
  model.buffers[8].shape = {Dim{3, ""}};           // z's body argument
  model.regions[1].yields[2].shape = {Dim{3, ""}}; // and its yield
  open(model);
  runLoop(2, true);
  expectLoopOutputs(2);
  ASSERT_OK(setFloats("z0", {2}, {1, 2}));
  expectRunFails(TESSEL_STATUS_INVALID_ARGUMENT,
                 "control op 0 (ONNX node 'loop_0', Loop): carried tensor 1 "
                 "at iteration 0 [2]: dim 0 is 2, but the model needs 3");
}

/// loopModel with the scan output of shape [s, w], w bound by nothing but
/// the loop.
format::Artifact loopModelWithFreeScanDim() {
  format::Artifact model = test::loopModel();
  format::Shape sw = {Dim{-1, "s"}, Dim{-1, "w"}};
  model.buffers[12].shape = sw;
  model.outputs[2].shape = sw;
  model.shapeProgram[0].operands = sw;
  return model;
}

TEST_F(ControlFlowTest, LoopScanOutputsMustKeepTheirShape) {
  // The scan output is z, whose value after the first iteration is a, of
  // another extent.
  format::Artifact model = loopModelWithFreeScanDim();
  model.regions[1].yields[2] = {3, {Dim{-1, "n"}}};  // z := a
  model.regions[1].yields[3] = {8, {Dim{-1, "zk"}}}; // scan z
  open(model);
  std::vector<int64_t> dims;
  runLoop(1, true);
  EXPECT_THAT(output("scan", &dims), ElementsAre(14, 16, 18));
  EXPECT_THAT(dims, ElementsAre(1, 3));
  EXPECT_THAT(output("z", &dims), ElementsAre(20, 40));
  ASSERT_OK(setInt("trip", 2));
  expectRunFails(TESSEL_STATUS_INVALID_ARGUMENT,
                 "control op 0 (ONNX node 'loop_0', Loop): scan output 0 is "
                 "[2] at iteration 1, but [3] at iteration 0 (every iteration "
                 "must yield the same shape)");
}

TEST_F(ControlFlowTest, ZeroIterationsGiveScanDimsFromTheResultShape) {
  // Without iterations, w is 0; otherwise the yields' extent.
  open(loopModelWithFreeScanDim());
  std::vector<int64_t> dims;
  runLoop(0, true);
  EXPECT_TRUE(output("scan", &dims).empty());
  EXPECT_THAT(dims, ElementsAre(0, 0));
  runLoop(2, true);
  EXPECT_THAT(output("scan", &dims), ElementsAre(22, 44, 42, 84));
  EXPECT_THAT(dims, ElementsAre(2, 2));
}

TEST_F(ControlFlowTest, IfNestedInALoopBody) {
  open(test::nestedModel());
  ASSERT_OK(setBool("flip", true));
  runLoop(3, true);
  expectLoopOutputs(3);
  // Else: the If yields y itself, so y keeps its initial value.
  ASSERT_OK(setBool("flip", false));
  runLoop(3, true);
  std::vector<int64_t> dims;
  EXPECT_THAT(output("y", nullptr), ElementsAre(11, 22));
  EXPECT_THAT(output("scan", &dims), ElementsAre(2, 4, 2, 4, 2, 4));
  EXPECT_THAT(dims, ElementsAre(3, 2));
}

TEST_F(ControlFlowTest, ProfileSumsEachLaunchOverItsRuns) {
  open(test::nestedModel());
  ASSERT_OK(tessel_session_set_profiling(session, 1));
  ASSERT_OK(setBool("flip", false));
  runLoop(3, true);
  const format::Artifact model = test::nestedModel();
  ASSERT_EQ(tessel_session_profile_count(session), model.plan.size());
  tessel_launch_time_t e;
  ASSERT_OK(tessel_session_profile_entry(session, 0, &e));
  EXPECT_EQ(e.milliseconds, 0.0); // in the branch not taken
  ASSERT_OK(tessel_session_profile_entry(session, 1, &e));
  EXPECT_GT(e.milliseconds, 0.0);
}

} // namespace
