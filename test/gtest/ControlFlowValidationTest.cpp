//===- ControlFlowValidationTest.cpp - validate() on regions and control ops ===//
//
// Each case breaks one rule of the control flow of test::nestedModel (steps,
// regions, control ops, scoped symbols) and expects validate() and
// deserialize() to reject it naming the culprit; and the limits that hold
// (nesting depth, optional trip count and condition).
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"
#include "ValidationChecks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

using namespace tessel;
using namespace tessel::format;
using namespace tessel::test::validation;

namespace {

/// Breaks of the control flow, on test::nestedModel: control op 0 (Loop
/// 'loop_0', body region 1) runs control op 1 (If 'if_1', then region 2
/// holding launch 0, else region 3) in its body; region 0 runs the loop,
/// shape op 0 and launches 1-3 (see TestArtifacts.h).
constexpr uint32_t kFlip = 16; // bool [] input of the If
constexpr uint32_t kR = 17;    // f32 [n], the If's result
const char *const kLoop = "control op 0 (ONNX node 'loop_0', Loop)";
const char *const kIf = "control op 1 (ONNX node 'if_1', If)";

std::string loopSays(const std::string &what) { return kLoop + what; }
std::string ifSays(const std::string &what) { return kIf + what; }

/// Adds a transient buffer of `dtype` and `shape`; returns its index.
uint32_t addBuffer(Artifact &a, DType dtype, Shape shape) {
  a.buffers.push_back({Buffer::Kind::Transient, dtype, std::move(shape)});
  return static_cast<uint32_t>(a.buffers.size() - 1);
}

/// Adds a host values entry writing `value` as step `at` of `region`.
void readSymbolAt(Artifact &a, uint32_t region, size_t at, Dim value) {
  uint32_t buffer = addBuffer(a, DType::I64, {lit(1)});
  a.hostValues.push_back({buffer, {value}});
  std::vector<Step> &steps = a.regions[region].steps;
  steps.insert(steps.begin() + at,
               step(Step::Kind::HostValues, a.hostValues.size() - 1));
}

struct ControlCase {
  const char *name;
  std::function<void(Artifact &)> mutate;
  std::string expected;
};

const ControlCase kControlCases[] = {
    // Steps.
    {"UnknownStepKind",
     [](Artifact &a) { a.regions[0].steps[1].kind = Step::Kind(7); },
     "region 0 step 1: unknown kind 7"},
    {"StepOutOfRange", [](Artifact &a) { a.regions[2].steps[0].index = 9; },
     "region 2 step 0: refers to launch 9, but there are 4 launches"},
    {"ControlStepOutOfRange",
     [](Artifact &a) { a.regions[1].steps[0].index = 2; },
     "region 1 step 0: refers to control op 2, but there are 2 control ops"},
    {"StepRunTwiceInARegion",
     [](Artifact &a) { a.regions[0].steps.push_back(a.regions[0].steps[2]); },
     "region 0 step 5: runs launch 1, which region 0 step 2 runs too"},
    {"StepRunByTwoRegions",
     [](Artifact &a) { a.regions[3].steps.push_back(a.regions[2].steps[0]); },
     "region 3 step 0: runs launch 0, which region 2 step 0 runs too"},
    {"LaunchOfNoRegion", [](Artifact &a) { a.regions[0].steps.pop_back(); },
     "launch 3: is the step of no region"},
    {"ShapeOpOfNoRegion",
     [](Artifact &a) {
       a.regions[0].steps.erase(a.regions[0].steps.begin() + 1);
     },
     "shape op 0: is the step of no region"},
    {"HostValuesOfNoRegion",
     [](Artifact &a) {
       readSymbolAt(a, 0, 0, lit(1));
       a.regions[0].steps.erase(a.regions[0].steps.begin());
     },
     "host values 0: is the step of no region"},
    {"ControlOpOfNoRegion", [](Artifact &a) { a.regions[1].steps.clear(); },
     "control op 1: is the step of no region"},
    {"ControlOpsWithoutRegions", [](Artifact &a) { a.regions.clear(); },
     "control op 0: is the step of no region (the artifact has no regions)"},
    {"YieldOutOfRange", [](Artifact &a) { a.regions[2].yields[0].buffer = 99; },
     "region 2 yield 0: refers to buffer 99, but there are 18 buffers"},
    {"TopLevelYields",
     [](Artifact &a) {
       a.regions[0].yields = {{3, {sym("n")}}};
     },
     "region 0: yields 1 values, but the top level yields none"},
    // The region tree.
    {"RegionOfNoControlOp", [](Artifact &a) { a.regions.emplace_back(); },
     "region 4: belongs to no control op"},
    {"RegionOutOfRange", [](Artifact &a) { a.controlOps[1].regions[1] = 7; },
     ifSays(": refers to region 7, but there are 4 regions")},
    {"ClaimsTheTopLevel", [](Artifact &a) { a.controlOps[1].regions[1] = 0; },
     ifSays(": claims region 0, the top level")},
    {"RegionOfTwoControlOps",
     [](Artifact &a) { a.controlOps[1].regions[1] = 1; },
     ifSays(": claims region 1, which belongs to control op 0")},
    {"RegionsInACycle",
     [](Artifact &a) {
       // An If that is a step of its own then branch.
       a.regions.resize(6);
       a.regions[4].steps = {step(Step::Kind::Control, 2)};
       ControlOp op = a.controlOps[1];
       op.regions = {4, 5};
       op.results.clear();
       a.controlOps.push_back(op);
     },
     "region 4: is not reachable from region 0 (its control ops nest in a "
     "cycle)"},
    // Counts by kind.
    {"UnknownControlKind",
     [](Artifact &a) { a.controlOps[1].kind = ControlOp::Kind(5); },
     "control op 1: unknown kind 5"},
    {"ControlOpNodeWithControlCharacters",
     [](Artifact &a) { a.controlOps[1].onnxNode = "if\x01"; },
     "control op 1 node: name contains control characters"},
    {"IfWithTwoOperands",
     [](Artifact &a) {
       a.controlOps[1].operands.push_back({kFlip, {}});
     },
     ifSays(": has 2 operands, expected 1 (the condition)")},
    {"LoopWithOneOperand",
     [](Artifact &a) { a.controlOps[0].operands.resize(1); },
     loopSays(": has 1 operands, expected at least 2")},
    {"IfWithOneRegion", [](Artifact &a) { a.controlOps[1].regions.pop_back(); },
     ifSays(": has 1 regions, expected 2 (then, else)")},
    {"LoopWithTwoRegions",
     [](Artifact &a) { a.controlOps[0].regions.push_back(3); },
     loopSays(": has 2 regions, expected 1 (the body)")},
    {"IfWithABodyArgument", [](Artifact &a) { a.controlOps[1].bodyArgs = {5}; },
     ifSays(": has 1 body arguments, expected 0")},
    {"LoopWithoutABodyArgumentPerOperand",
     [](Artifact &a) {
       a.controlOps[0].bodyArgs.push_back(addBuffer(a, DType::F32, {}));
     },
     loopSays(": has 5 body arguments, expected 4 (the iteration number, the "
              "condition, then one per carried tensor)")},
    {"FewerResultsThanCarriedTensors",
     [](Artifact &a) {
       // Two more carried tensors, no more results.
       for (int i = 0; i < 2; ++i) {
         a.controlOps[0].operands.push_back({3, {sym("n")}});
         a.controlOps[0].bodyArgs.push_back(
             addBuffer(a, DType::F32, {sym("n")}));
       }
     },
     loopSays(": has 3 results, fewer than its 4 carried tensors")},
    {"BodyYieldsTooFew", [](Artifact &a) { a.regions[1].yields.pop_back(); },
     loopSays(": the body (region 1) yields 3 values, expected 4 (the "
              "condition, 2 carried tensors and 1 scan outputs)")},
    {"BranchYieldsTooMany",
     [](Artifact &a) {
       a.regions[3].yields.push_back({7, {sym("n")}});
     },
     ifSays(": the else branch (region 3) yields 2 values, but the op has 1 "
            "results")},
    // Operands, results and body arguments.
    {"IfConditionWithoutBuffer",
     [](Artifact &a) { a.controlOps[1].operands[0].buffer = kNoBuffer; },
     ifSays(" operand 0: has no buffer, which only the trip count and the "
            "condition of a Loop may lack")},
    {"CarriedTensorWithoutBuffer",
     [](Artifact &a) { a.controlOps[0].operands[3].buffer = kNoBuffer; },
     loopSays(" operand 3: has no buffer")},
    {"OperandOutOfRange",
     [](Artifact &a) { a.controlOps[0].operands[2].buffer = 99; },
     loopSays(" operand 2: refers to buffer 99, but there are 18 buffers")},
    {"OperandViewWithOtherElementCount",
     [](Artifact &a) {
       a.controlOps[0].operands[2].shape = {lit(2), sym("n")};
     },
     loopSays(" operand 2: view [2, n] of buffer 2 [n] has a different number "
              "of elements")},
    {"ResultOutOfRange", [](Artifact &a) { a.controlOps[1].results[0] = 99; },
     ifSays(" result 0: refers to buffer 99, but there are 18 buffers")},
    {"IterationSymbolOfAnIf",
     [](Artifact &a) { a.controlOps[1].iterationSymbol = "i"; },
     ifSays(": has an iteration symbol, which only a Loop has")},
    {"IterationSymbolBoundAlready",
     [](Artifact &a) { a.controlOps[0].iterationSymbol = "n"; },
     loopSays(": iteration symbol 'n' is bound already")},
    {"ResultIntoAnInputBuffer",
     [](Artifact &a) { a.controlOps[1].results[0] = 2; },
     ifSays(" result 0: buffer 2 is not a transient or output buffer")},
    {"BodyArgumentOfAnInput",
     [](Artifact &a) { a.controlOps[0].bodyArgs[2] = 2; },
     loopSays(" body argument 2: buffer 2 is not a transient buffer")},
    {"ResultThatIsABodyArgument",
     [](Artifact &a) { a.controlOps[0].bodyArgs[2] = 10; },
     loopSays(" result 0: buffer 10 is named twice among the op's body "
              "arguments and results")},
    {"TwoResultsInOneBuffer",
     [](Artifact &a) { a.controlOps[0].results[0] = 11; },
     loopSays(" result 1: buffer 11 is named twice")},
    // Dtypes and ranks.
    {"IfConditionNotBool",
     [](Artifact &a) {
       a.controlOps[1].operands[0] = {3, {sym("n")}};
     },
     ifSays(" condition: is float32 [n] (buffer 3), not one bool element of "
            "static shape")},
    {"IfConditionOfSymbolicShape",
     [](Artifact &a) {
       a.controlOps[1].operands[0] = {addBuffer(a, DType::Bool, {sym("n")}),
                                      {sym("n")}};
     },
     ifSays(" condition: is bool [n] (buffer 18), not one bool element")},
    {"IfConditionOfTwoElements",
     [](Artifact &a) {
       a.controlOps[1].operands[0] = {addBuffer(a, DType::Bool, {lit(2)}),
                                      {lit(2)}};
     },
     ifSays(" condition: is bool [2] (buffer 18), not one bool element")},
    {"TripCountNotInt64",
     [](Artifact &a) {
       a.controlOps[0].operands[0] = {1, {}};
     },
     loopSays(" trip count: is bool [] (buffer 1), not one int64 element")},
    {"LoopConditionNotBool",
     [](Artifact &a) {
       a.controlOps[0].operands[1] = {0, {}};
     },
     loopSays(" condition: is int64 [] (buffer 0), not one bool element")},
    {"IterationNumberNotAnInt64Scalar",
     [](Artifact &a) {
       std::swap(a.controlOps[0].bodyArgs[0], a.controlOps[0].bodyArgs[1]);
     },
     loopSays(" body argument 0 (the iteration number): buffer 6 is bool [], "
              "not an int64 scalar")},
    {"ConditionArgumentNotABoolScalar",
     [](Artifact &a) { a.buffers[6].shape = {lit(1)}; },
     loopSays(" body argument 1 (the condition): buffer 6 is bool [1], not "
              "an bool scalar")},
    {"BodyConditionNotBool",
     [](Artifact &a) {
       a.regions[1].yields[0] = {0, {}};
     },
     loopSays(" body yield 0 (the condition): is int64 [] (buffer 0), not one "
              "bool element")},
    {"CarriedInitialValueOfAnotherRank",
     [](Artifact &a) {
       a.controlOps[0].operands[2].shape = {lit(1), sym("n")};
     },
     loopSays(" carried tensor 0: the initial value is float32 [1, n] (buffer "
              "2), but the result buffer 10 is float32 [n]")},
    {"CarriedBodyArgumentOfAnotherDType",
     [](Artifact &a) { a.buffers[8].dtype = DType::I32; },
     loopSays(" carried tensor 1: the body argument is int32 [zk] (buffer 8), "
              "but the result buffer 11 is float32 [zr]")},
    {"CarriedYieldOfAnotherDType",
     [](Artifact &a) {
       a.regions[1].yields[1] = {0, {}};
     },
     loopSays(" carried tensor 0: the body yields int64 [] (buffer 0), but "
              "the result buffer 10 is float32 [n]")},
    {"ScanResultOfTheYieldsRank",
     [](Artifact &a) { a.buffers[12].shape = {sym("s")}; },
     loopSays(" scan output 0: the body yields float32 [n] (buffer 17), but "
              "the result buffer 12 is float32 [s] (expected the yield's dtype "
              "and one more dim, the iterations)")},
    {"IfResultOfAnotherDType",
     [](Artifact &a) {
       a.regions[2].yields[0] = {addBuffer(a, DType::F16, {sym("n")}),
                                 {sym("n")}};
     },
     ifSays(" result 0: the then branch (region 2) yields float16 [n] (buffer "
            "18), but the result buffer 17 is float32 [n]")},
    {"BranchYieldsAnotherResultsBuffer",
     [](Artifact &a) {
       uint32_t second = addBuffer(a, DType::F32, {sym("n")});
       a.controlOps[1].results.push_back(second);
       a.regions[2].yields.push_back({kR, {sym("n")}});
       a.regions[3].yields.push_back({7, {sym("n")}});
     },
     ifSays(" result 1: the then branch (region 2) yields buffer 17, which "
            "receives result 0")},
    // Symbol scopes.
    {"ShapeOpBeforeTheLoopBindsItsOperand",
     [](Artifact &a) {
       std::swap(a.regions[0].steps[0], a.regions[0].steps[1]);
     },
     "shape op 0 (Mul of node 'Add_1') operand 0: symbol 's' is not bound "
     "at step 0 of region 0"},
    {"BranchSymbolUsedAfterTheIf",
     [](Artifact &a) {
       a.shapeProgram.push_back(test::shapeOp(
           ShapeOp::Kind::Add, {sym("n"), lit(1)}, {sym("q")}, "q", "Add"));
       a.regions[2].steps.push_back(
           step(Step::Kind::Shape, a.shapeProgram.size() - 1));
       readSymbolAt(a, 1, 1, sym("q"));
     },
     "host values 0: symbol 'q' is not bound at step 1 of region 1"},
    {"BodyArgumentSymbolUsedAfterTheLoop",
     [](Artifact &a) { readSymbolAt(a, 0, 1, sym("zk")); },
     "host values 0: symbol 'zk' is not bound at step 1 of region 0"},
    {"ResultSymbolUsedBeforeTheLoop",
     [](Artifact &a) { readSymbolAt(a, 0, 0, sym("zr")); },
     "host values 0: symbol 'zr' is not bound at step 0 of region 0"},
    {"LaunchBufferOfAnUnboundSymbol",
     [](Artifact &a) {
       // Launch 0 (in the then branch) writes buffer 15 [sn] viewed as [n].
       a.plan[0].args[2].buffer = 15;
     },
     "launch 0 (kernel 'add') argument 2: buffer 15 [sn]: symbol 'sn' is not "
     "bound at step 0 of region 2"},
    {"LaunchWorkSizeOfAnUnboundSymbol",
     [](Artifact &a) { a.plan[1].workSize = {sym("zk")}; },
     "launch 1 (kernel 'add') work size: symbol 'zk' is not bound at step 2 "
     "of region 0"},
    {"OperandOfAnUnboundSymbol",
     [](Artifact &a) { a.controlOps[0].operands[3].shape = {sym("zr")}; },
     loopSays(" operand 3: symbol 'zr' is not bound at step 0 of region 0")},
    {"YieldOfAnUnboundSymbol",
     [](Artifact &a) { a.regions[3].yields[0].shape = {sym("zr")}; },
     "region 3 yield 0: symbol 'zr' is not bound at the end of region 3"},
    {"OutputOfASymbolOfTheBody",
     [](Artifact &a) { a.outputs[1].shape = {sym("zk")}; },
     "output 1 ('z'): symbol 'zk' is not bound at the end of region 0"},
};

/// An artifact whose control ops nest `levels` deep: each If's then branch
/// holds the next one.
Artifact nestedIfs(size_t levels) {
  Artifact a = test::ifModel({false, false, false, false});
  a.regions.resize(3);
  for (size_t level = 0; level < levels; ++level) {
    uint32_t then = a.regions.size(), otherwise = then + 1;
    a.regions.resize(a.regions.size() + 2);
    ControlOp op = a.controlOps[0];
    op.regions = {then, otherwise};
    op.results.clear();
    uint32_t parent = level == 0 ? 0 : then - 2;
    a.regions[parent].steps.push_back(
        step(Step::Kind::Control, a.controlOps.size()));
    a.controlOps.push_back(op);
  }
  return a;
}

class ControlFlowValidation : public ::testing::TestWithParam<ControlCase> {};

TEST_P(ControlFlowValidation, IsRejectedWithAMessageNamingTheCulprit) {
  Artifact a = test::nestedModel({false, false, false, false});
  {
    std::string error;
    ASSERT_TRUE(validate(a, error)) << error;
  }
  GetParam().mutate(a);
  expectRejected(a, GetParam().expected.c_str());
}

INSTANTIATE_TEST_SUITE_P(Artifact, ControlFlowValidation,
                         ::testing::ValuesIn(kControlCases),
                         [](const auto &info) { return info.param.name; });

TEST(Validation, ControlOpsNestUpToTheMaximumDepth) {
  std::string error;
  EXPECT_TRUE(validate(nestedIfs(kMaxRegionDepth), error)) << error;
  expectRejected(nestedIfs(kMaxRegionDepth + 1),
                 "control op 65 (ONNX node 'if_0', If): nests control flow "
                 "deeper than 64 levels");
}

TEST(Validation, LoopTripCountAndConditionAreOptional) {
  std::string error;
  for (int absent : {0, 1}) {
    Artifact a = test::loopModel({false, false, false, false});
    a.controlOps[0].operands[absent].buffer = kNoBuffer;
    EXPECT_TRUE(validate(a, error)) << error;
  }
  // A loop without carried tensors or scan outputs.
  Artifact a = test::loopModel({false, false, false, false});
  ControlOp &loop = a.controlOps[0];
  loop.operands.resize(2);
  loop.bodyArgs.resize(2);
  loop.results.clear();
  a.regions[1].yields.resize(1);
  a.regions[0].steps.resize(1);
  a.shapeProgram.clear();
  a.plan.resize(1);
  a.outputs.clear();
  a.buffers.resize(13); // no output buffers
  for (uint32_t unused : {8, 11, 12})
    a.buffers[unused].shape = {};
  EXPECT_TRUE(validate(a, error)) << error;
}

} // namespace
