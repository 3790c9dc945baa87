//===- ArtifactValidationTest.cpp - Every semantic check of validate() ----===//
//
// Each case breaks one invariant of a valid model, serializes it (serialize
// does not check) and expects deserialize() to reject it with a message
// naming the culprit; validate() must say the same on the model directly.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"
#include "ValidationChecks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

using namespace tessel;
using namespace tessel::format;
using ::testing::HasSubstr;
using namespace tessel::test::validation;

namespace {

struct Case {
  const char *name;
  std::function<void(Artifact &)> mutate;
  const char *expected;
};

Artifact base() {
  Artifact a = test::addModel({false, false, false, false});
  // Add a weight and a binary so that their checks have something to see.
  Buffer w;
  w.kind = Buffer::Kind::Weight;
  w.dtype = DType::F32;
  w.shape = {{2, ""}};
  w.weightOffset = 64;
  w.weightSize = 8;
  a.buffers.push_back(w);
  a.weights.resize(128);
  test::addBinary(a, "cpu", TargetBinary::Format::ElfSharedObject, {1});
  return a;
}

constexpr uint32_t kWeight = 5;

const Case kCases[] = {
    {"UnknownBufferDType",
     [](Artifact &a) { a.buffers[2].dtype = static_cast<DType>(8); },
     "buffer 2: unknown dtype 8"},
    {"UnknownBufferKind",
     [](Artifact &a) { a.buffers[2].kind = static_cast<Buffer::Kind>(9); },
     "buffer 2: unknown kind 9"},
    {"NegativeDim",
     [](Artifact &a) {
       a.buffers[2].shape = {{-3, ""}};
     },
     "buffer 2: dim 0 has invalid extent -3"},
    {"HugeDim",
     [](Artifact &a) {
       a.buffers[2].shape = {{int64_t(1) << 50, ""}};
     },
     "buffer 2: dim 0 has invalid extent"},
    {"ShapeTooLarge",
     [](Artifact &a) {
       a.buffers[2].shape = Shape(4, Dim{int64_t(1) << 40, ""});
     },
     "is too large"},
    {"RankTooLarge",
     [](Artifact &a) {
       a.buffers[2].shape = Shape(33, Dim{1, ""});
     },
     "rank 33 exceeds the maximum of 32"},
    {"UndefinedSymbol",
     [](Artifact &a) {
       a.buffers[2].shape = {{-1, "seq"}};
     },
     "buffer 2: symbol 'seq' is not defined by any input"},
    {"UndefinedSymbolInOutput",
     [](Artifact &a) {
       a.outputs[0].shape = {{-1, "seq"}};
       a.buffers[3].shape = {{-1, "seq"}};
     },
     "symbol 'seq' is not defined by any input"},
    {"ControlCharacterInName", [](Artifact &a) { a.modelName = "m\x01"; },
     "model name: name contains control characters"},
    {"InputBufferOutOfRange", [](Artifact &a) { a.inputs[1].buffer = 40; },
     "input 1 ('b'): refers to buffer 40, but there are 6 buffers"},
    {"InputBoundToTransient", [](Artifact &a) { a.inputs[1].buffer = 2; },
     "input 1 ('b'): buffer 2 is not an input buffer"},
    {"SignatureDTypeMismatch",
     [](Artifact &a) { a.inputs[0].dtype = DType::I64; },
     "input 0 ('a'): int64 [batch] does not match buffer 0 (float32 [batch])"},
    {"SignatureShapeMismatch",
     [](Artifact &a) {
       a.outputs[1].shape = {{2, ""}};
     },
     "output 1 ('s'): float32 [2] does not match buffer 4 (float32 [])"},
    {"InputShapeIsNotAView",
     [](Artifact &a) {
       a.inputs[0].shape = {{1, ""}, {-1, "batch"}};
     },
     "input 0 ('a'): float32 [1, batch] does not match buffer 0 (float32 "
     "[batch])"},
    {"DuplicateInputName", [](Artifact &a) { a.inputs[1].name = "a"; },
     "input 1 ('a'): duplicate input name"},
    {"EmptyOutputName", [](Artifact &a) { a.outputs[0].name = ""; },
     "output 0: empty name"},
    {"TwoInputsOneBuffer", [](Artifact &a) { a.inputs[1].buffer = 0; },
     "input 1 ('b'): buffer 0 is bound to two inputs"},
    {"InputBufferWithoutSignature",
     [](Artifact &a) { a.buffers[2].kind = Buffer::Kind::Input; },
     "buffer 2: input buffer without a signature"},
    {"KernelOutOfRange", [](Artifact &a) { a.plan[1].kernel = 7; },
     "launch 1: refers to kernel 7, but there are 2 kernels"},
    {"LaunchBufferOutOfRange",
     [](Artifact &a) { a.plan[2].args[1].buffer = 99; },
     "launch 2 (kernel 'sum_all') argument 1: refers to buffer 99, but there "
     "are 6 buffers"},
    {"ViewWithOtherElementCount",
     [](Artifact &a) {
       a.plan[2].args[0].shape = {{2, ""}, {-1, "batch"}};
     },
     "view [2, batch] of buffer 3 [batch] has a different number of elements"},
    {"WorkSizeWithUndefinedSymbol",
     [](Artifact &a) {
       a.plan[0].workSize = {{-1, "q"}};
     },
     "launch 0 (kernel 'add') work size: symbol 'q' is not defined"},
    // Format 3.5: every launch passes exactly its kernel's signature.
    {"LaunchArityDiffersFromSignature",
     [](Artifact &a) { a.plan[1].args.pop_back(); },
     "launch 1 (kernel 'add'): passes 2 arguments to a kernel of 3 params"},
    {"LaunchRankDiffersFromSignature",
     [](Artifact &a) { a.plan[2].args[0].shape = {{-1, "batch"}}; },
     "launch 2 (kernel 'sum_all') argument 0: float32 view of rank 1 (buffer "
     "3) for a param of float32, rank 2"},
    {"LaunchDTypeDiffersFromSignature",
     [](Artifact &a) { a.kernels[1].params[1].dtype = DType::I64; },
     "launch 2 (kernel 'sum_all') argument 1: float32 view of rank 0 (buffer "
     "4) for a param of int64, rank 0"},
    {"LaunchOfABufferOfAnotherDType",
     [](Artifact &a) { a.buffers[2].dtype = DType::I32; },
     "launch 0 (kernel 'add') argument 2: int32 view of rank 1 (buffer 2) for "
     "a param of float32, rank 1"},
    {"KernelParamUnknownDType",
     [](Artifact &a) { a.kernels[0].params[0].dtype = static_cast<DType>(8); },
     "kernel 0 ('add') param 0: unknown dtype 8"},
    {"KernelParamRankTooLarge",
     [](Artifact &a) { a.kernels[0].params[2].rank = 33; },
     "kernel 0 ('add') param 2: rank 33 exceeds 32"},
    {"KernelSymbolNotIdentifier",
     [](Artifact &a) { a.kernels[0].symbol = "add; rm"; },
     "kernel 0: symbol 'add; rm' is not a valid symbol name"},
    {"DuplicateKernelSymbol", [](Artifact &a) { a.kernels[1].symbol = "add"; },
     "kernel 1: duplicate symbol 'add'"},
    {"WeightOutsideSection",
     [](Artifact &a) { a.buffers[kWeight].weightOffset = 128; },
     "buffer 5: weight range [128, 128+8) is outside the weights section (128 "
     "bytes)"},
    {"WeightRangeOverflows",
     [](Artifact &a) { a.buffers[kWeight].weightOffset = ~uint64_t(0) - 63; },
     "is outside the weights section"},
    {"WeightMisaligned",
     [](Artifact &a) { a.buffers[kWeight].weightOffset = 4; },
     "buffer 5: weight offset 4 is not 64-byte aligned"},
    {"WeightSizeMismatch",
     [](Artifact &a) { a.buffers[kWeight].weightSize = 12; },
     "buffer 5: weight size 12 does not match its shape [2] of float32"},
    {"SymbolicWeight",
     [](Artifact &a) {
       a.buffers[kWeight].shape = {{-1, "batch"}};
     },
     "buffer 5: a weight has the symbolic shape [batch]"},
    {"WeightRangeOnTransient", [](Artifact &a) { a.buffers[2].weightSize = 4; },
     "buffer 2: a non-weight buffer has a weight range"},
    {"DuplicateTarget",
     [](Artifact &a) { a.binaries.push_back(a.binaries[0]); },
     "binary 'cpu': duplicate target"},
    {"EmptyCpuFeature",
     [](Artifact &a) {
       a.binaries[0].cpuFeatures = {"avx2", ""};
     },
     "binary 'cpu': CPU feature '': invalid name (printable, 1 to 32 bytes)"},
    {"CpuVariantNotElf",
     [](Artifact &a) {
       test::addBinary(a, "cpu:x86-64-v3", TargetBinary::Format::Ptx, {1});
     },
     "binary 'cpu:x86-64-v3': a CPU binary that is not an ELF shared object"},
    {"EmptyCpuVariantName",
     [](Artifact &a) { a.binaries[0].target = "cpu:"; },
     "binary 'cpu:': empty CPU variant name"},
    {"UnknownBinaryFormat",
     [](Artifact &a) {
       a.binaries[0].format = static_cast<TargetBinary::Format>(5);
     },
     "binary 'cpu': unknown format 5"},
};

ShapeOp arithmetic(ShapeOp::Kind kind, Shape operands, Shape results) {
  ShapeOp op;
  op.kind = kind;
  op.operands = std::move(operands);
  op.results = std::move(results);
  op.onnxNode = "add_1";
  op.onnxOp = "Add";
  return op;
}


/// Breaks of the shape program, on test::reshapeModel (inputs x: [n, 6] and
/// shape: int64 [3]; op 0 reads the values of shape into shape.0..2, op 1
/// reshapes [n, 6] by them into [r.d0, r.d1, r.d2]).
const Case kProgramCases[] = {
    {"UnknownKind",
     [](Artifact &a) {
       a.shapeProgram[1].kind = static_cast<ShapeOp::Kind>(9);
     },
     "shape op 1: unknown kind 9"},
    {"InputOutOfRange", [](Artifact &a) { a.shapeProgram[0].input = 5; },
     "shape op 0 (InputValues of node 'Reshape_0'): refers to input 5, but "
     "there are 2 inputs"},
    {"InputNotInt64", [](Artifact &a) { a.shapeProgram[0].input = 0; },
     "shape op 0 (InputValues of node 'Reshape_0'): input 'x' must be int64 "
     "of static shape [3] (one value per result), not float32 [n, 6]"},
    {"InputElementCountIsNotTheResultCount",
     [](Artifact &a) { a.shapeProgram[0].results.pop_back(); },
     "shape op 0 (InputValues of node 'Reshape_0'): input 'shape' must be "
     "int64 of static shape [2] (one value per result), not int64 [3]"},
    {"InputOfRankTwo",
     [](Artifact &a) {
       a.inputs[1].shape = {lit(1), lit(3)};
       a.buffers[1].shape = a.inputs[1].shape;
     },
     "input 'shape' must be int64 of static shape [3] (one value per "
     "result), not int64 [1, 3]"},
    {"InputOfSymbolicShape",
     [](Artifact &a) {
       a.inputs[1].shape = {sym("n")};
       a.buffers[1].shape = a.inputs[1].shape;
     },
     "input 'shape' must be int64 of static shape [3] (one value per "
     "result), not int64 [n]"},
    {"InputValuesWithOperands",
     [](Artifact &a) { a.shapeProgram[0].operands = {lit(1)}; },
     "shape op 0 (InputValues of node 'Reshape_0'): has 1 operands and 3 "
     "results, expected 0 and 3"},
    {"ReshapeWithFewerOperandsThanResults",
     [](Artifact &a) { a.shapeProgram[1].operands.resize(2); },
     "shape op 1 (Reshape of node 'Reshape_0'): has 2 operands, fewer than "
     "its 3 results (the source dims, then one target value per result)"},
    {"ReshapeOfTooLargeARank",
     [](Artifact &a) {
       Shape &operands = a.shapeProgram[1].operands;
       operands.insert(operands.begin(), 35, lit(1));
     },
     "shape op 1 (Reshape of node 'Reshape_0'): reshapes rank 37 into rank 3 "
     "(at most 32)"},
    {"BinaryWithOneOperand",
     [](Artifact &a) {
       a.shapeProgram.push_back(
           arithmetic(ShapeOp::Kind::Add, {sym("n")}, {sym("m")}));
     },
     "shape op 2 (Add of node 'add_1'): has 1 operands and 1 results, "
     "expected 2 and 1"},
    {"BinaryWithTwoResults",
     [](Artifact &a) {
       a.shapeProgram.push_back(arithmetic(
           ShapeOp::Kind::Max, {sym("n"), lit(1)}, {sym("m"), sym("k")}));
     },
     "shape op 2 (Max of node 'add_1'): has 2 operands and 2 results, "
     "expected 2 and 1"},
    {"CheckEqWithAResult",
     [](Artifact &a) {
       a.shapeProgram.push_back(arithmetic(
           ShapeOp::Kind::CheckEq, {sym("n"), sym("r.d0")}, {sym("m")}));
     },
     "shape op 2 (CheckEq of node 'add_1'): has 2 operands and 1 results, "
     "expected 2 and 0"},
    {"OperandWithUndefinedSymbol",
     [](Artifact &a) { a.shapeProgram[1].operands[0].symbol = "m"; },
     "shape op 1 (Reshape of node 'Reshape_0') operand 0: symbol 'm' is not "
     "defined by any input or earlier shape op"},
    {"OperandDefinedByALaterOp",
     [](Artifact &a) {
       a.shapeProgram.insert(
           a.shapeProgram.begin(),
           arithmetic(ShapeOp::Kind::Mul, {lit(2), sym("r.d0")}, {sym("q")}));
     },
     "shape op 0 (Mul of node 'add_1') operand 1: symbol 'r.d0' is not "
     "defined by any input or earlier shape op"},
    {"OperandOfItsOwnResult",
     [](Artifact &a) {
       a.shapeProgram.push_back(
           arithmetic(ShapeOp::Kind::Sub, {sym("q"), lit(1)}, {sym("q")}));
     },
     "shape op 2 (Sub of node 'add_1') operand 0: symbol 'q' is not defined"},
    {"OperandWithBadSymbolName",
     [](Artifact &a) { a.shapeProgram[1].operands[2].symbol = "s\x02"; },
     "shape op 1 (Reshape of node 'Reshape_0') operand 2: name contains "
     "control characters"},
    {"ResultWithInvalidExtent",
     [](Artifact &a) { a.shapeProgram[1].results[2] = lit(-2); },
     "shape op 1 (Reshape of node 'Reshape_0') result 2: has invalid extent "
     "-2"},
    {"ResultWithHugeExtent",
     [](Artifact &a) { a.shapeProgram[1].results[2] = lit(int64_t(1) << 50); },
     "shape op 1 (Reshape of node 'Reshape_0') result 2: has invalid extent"},
    {"ResultWithBadSymbolName",
     [](Artifact &a) { a.shapeProgram[1].results[1].symbol = "r\x02"; },
     "shape op 1 (Reshape of node 'Reshape_0') result 1: name contains "
     "control characters"},
    {"InputSetOnAnotherKind", [](Artifact &a) { a.shapeProgram[1].input = 1; },
     "shape op 1 (Reshape of node 'Reshape_0'): sets an input (1), but only "
     "InputValues reads one"},
    {"AllowZeroOnAnotherKind",
     [](Artifact &a) { a.shapeProgram[0].allowZero = true; },
     "shape op 0 (InputValues of node 'Reshape_0'): sets allowZero, which "
     "only Reshape has"},
    {"NodeNameWithControlCharacters",
     [](Artifact &a) { a.shapeProgram[1].onnxNode = "r\x01"; },
     "shape op 1 node: name contains control characters"},
    {"MessageTooLong",
     [](Artifact &a) {
       a.shapeProgram[1].message = std::string(kMaxNameLength + 1, 'm');
     },
     "shape op 1 message: name is 4097 bytes long (at most 4096)"},
    {"HostValuesOfAMissingBuffer",
     [](Artifact &a) { a.hostValues.push_back({99, {lit(1)}}); },
     "host values 0: refers to buffer 99, but there are"},
    {"HostValuesOfAFloatBuffer",
     [](Artifact &a) {
       a.buffers.push_back({Buffer::Kind::Transient, DType::F32, {lit(1)}});
       a.hostValues.push_back(
           {uint32_t(a.buffers.size() - 1), {sym("r.d0")}});
     },
     "is not a transient int64 buffer of 1 elements and static shape"},
    {"HostValuesOfTheWrongCount",
     [](Artifact &a) {
       a.buffers.push_back({Buffer::Kind::Transient, DType::I64, {lit(2)}});
       a.hostValues.push_back({uint32_t(a.buffers.size() - 1), {lit(-1)}});
     },
     "is not a transient int64 buffer of 1 elements and static shape"},
    {"HostValuesOfAnInput",
     [](Artifact &a) { a.hostValues.push_back({1, {lit(3)}}); },
     "host values 0: buffer 1 is not a transient int64 buffer"},
    {"HostValuesOfAnOutput",
     [](Artifact &a) {
       a.hostValues.push_back({2, Shape(8, lit(3))});
     },
     "host values 0: buffer 2 is not a transient int64 buffer"},
    {"HostValuesTwiceIntoOneBuffer",
     [](Artifact &a) {
       a.buffers.push_back({Buffer::Kind::Transient, DType::I64, {lit(1)}});
       uint32_t id = a.buffers.size() - 1;
       a.hostValues.push_back({id, {lit(-5)}});
       a.hostValues.push_back({id, {sym("r.d1")}});
     },
     "host values 1: fills buffer"},
    {"HostValuesOfAnUndefinedSymbol",
     [](Artifact &a) {
       a.buffers.push_back({Buffer::Kind::Transient, DType::I64, {lit(1)}});
       a.hostValues.push_back({uint32_t(a.buffers.size() - 1), {sym("q")}});
     },
     "host values 0: symbol 'q' is not defined by any input or the shape "
     "program"},
    {"SymbolOfNoInputAndNoShapeOp", [](Artifact &a) { a.shapeProgram.clear(); },
     "launch 0 (kernel 'abi_probe') argument 0: symbol 'r.d0' is not defined "
     "by any input or the shape program"},
    {"OutputSymbolOfNoInputAndNoShapeOp",
     [](Artifact &a) {
       a.outputs[0].shape = {sym("p.n")};
       a.buffers[2].shape = a.outputs[0].shape;
     },
     "buffer 2: symbol 'p.n' is not defined by any input or the shape "
     "program"},
};




class Validation : public ::testing::TestWithParam<Case> {};

TEST_P(Validation, IsRejectedWithAMessageNamingTheCulprit) {
  Artifact a = base();
  GetParam().mutate(a);
  expectRejected(a, GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Artifact, Validation, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return info.param.name; });

/// Breaks of the launch configs (format 3.3), on base() with a CUDA binary
/// besides the CPU one (binary 1: workgroups of 256 threads, axis x over
/// the work dim of `add`, launched by launches 0 and 1 over [batch]).
const Case kLaunchCases[] = {
    {"OneConfigPerKernel",
     [](Artifact &a) { a.binaries[0].launchConfigs.pop_back(); },
     "target 'cpu': 1 launch configs for 2 kernels (one per kernel)"},
    {"CpuWorkgroupOfMoreThanOneThread",
     [](Artifact &a) { a.binaries[0].launchConfigs[1].workgroupSize[1] = 4; },
     "target 'cpu', kernel 'sum_all': workgroup size 1x4x1 on the CPU, which "
     "runs workgroups of one thread (1x1x1)"},
    {"CpuSharedMemory",
     [](Artifact &a) { a.binaries[0].launchConfigs[0].sharedMemoryBytes = 16; },
     "target 'cpu', kernel 'add': 16 bytes of shared memory on the CPU, which "
     "has none"},
    {"ZeroWorkgroupSize",
     [](Artifact &a) { a.binaries[1].launchConfigs[0].workgroupSize[2] = 0; },
     "target 'cuda:sm_80', kernel 'add': workgroup size 256x1x0 is 0 along z "
     "(each must be 1 to 1024)"},
    {"WorkgroupSizeAbove1024",
     [](Artifact &a) { a.binaries[1].launchConfigs[0].workgroupSize[0] = 2048; },
     "target 'cuda:sm_80', kernel 'add': workgroup size 2048x1x1 is 2048 "
     "along x (each must be 1 to 1024)"},
    {"WorkgroupOfMoreThan1024Threads",
     [](Artifact &a) { a.binaries[1].launchConfigs[0].workgroupSize[1] = 8; },
     "target 'cuda:sm_80', kernel 'add': workgroup size 256x8x1 has 2048 "
     "threads (at most 1024)"},
    {"ZeroTile",
     [](Artifact &a) {
       a.binaries[1].launchConfigs[1].workgroupCount[2].tile = 0;
     },
     "target 'cuda:sm_80', kernel 'sum_all': workgroup axis 2 has tile 0 "
     "(must be > 0)"},
    {"DimsOutOfOrder",
     [](Artifact &a) {
       a.plan[0].workSize = {sym("batch"), lit(1), lit(1)};
       a.plan[1].workSize = a.plan[0].workSize;
       a.binaries[1].launchConfigs[0].workgroupCount[0].dims = {0, 2, 1};
     },
     "target 'cuda:sm_80', kernel 'add': workgroup axis 0 names work dim 1 "
     "after work dim 2 (dims must be strictly increasing)"},
    {"DimTwiceInOneAxis",
     [](Artifact &a) {
       a.binaries[0].launchConfigs[0].workgroupCount[1].dims = {0, 0};
     },
     "target 'cpu', kernel 'add': workgroup axis 1 names work dim 0 after "
     "work dim 0"},
    {"DimInTwoAxes",
     [](Artifact &a) {
       a.binaries[1].launchConfigs[0].workgroupCount[2].dims = {0};
     },
     "target 'cuda:sm_80', kernel 'add': work dim 0 is in workgroup axes 0 "
     "and 2"},
    {"DimPastTheWorkSizeOfOneLaunch",
     [](Artifact &a) {
       // Launch 0 has two work dims; launch 1, of the same kernel, one.
       a.plan[0].workSize = {sym("batch"), lit(1)};
       a.binaries[0].launchConfigs[0].workgroupCount[1].dims = {1};
     },
     "target 'cpu', kernel 'add': workgroup axis 1 names work dim 1, but "
     "launch 1 has 1 work dims"},
    {"DimPastAnyWorkSize",
     [](Artifact &a) {
       a.binaries[0].launchConfigs[1].workgroupCount[0].dims = {40};
     },
     "target 'cpu', kernel 'sum_all': workgroup axis 0 names work dim 40 (a "
     "work size has at most 32 dims)"},
};

class LaunchValidation : public ::testing::TestWithParam<Case> {};

TEST_P(LaunchValidation, IsRejectedWithAMessageNamingTheCulprit) {
  Artifact a = base();
  test::addBinary(a, "cuda:sm_80", TargetBinary::Format::Ptx, {1});
  std::string error;
  ASSERT_TRUE(validate(a, error)) << error;
  GetParam().mutate(a);
  expectRejected(a, GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(Artifact, LaunchValidation,
                         ::testing::ValuesIn(kLaunchCases),
                         [](const auto &info) { return info.param.name; });

TEST(LaunchValidation, ConfigsOfEveryShapeThatFitPass) {
  Artifact a = base();
  a.plan[0].workSize = {sym("batch"), lit(3), lit(1)};
  a.plan[1].workSize = {lit(2), sym("batch"), lit(5)};
  test::addBinary(a, "rocm:gfx90a", TargetBinary::Format::Hsaco, {1});
  LaunchConfig &gpu = a.binaries[1].launchConfigs[0];
  gpu.workgroupSize[0] = 32;
  gpu.workgroupSize[1] = 32;
  gpu.workgroupCount[0] = {{0, 2}, 64};
  gpu.workgroupCount[1] = {{}, 1};
  gpu.workgroupCount[2] = {{1}, 1};
  gpu.sharedMemoryBytes = 49152;
  LaunchConfig &cpu = a.binaries[0].launchConfigs[0];
  cpu.workgroupCount[1] = {{1}, 2};
  cpu.scratchBytes = 4096;
  std::string error;
  EXPECT_TRUE(validate(a, error)) << error;
}

class ProgramValidation : public ::testing::TestWithParam<Case> {};

TEST_P(ProgramValidation, IsRejectedWithAMessageNamingTheCulprit) {
  Artifact a = test::reshapeModel({false, false, false, false});
  GetParam().mutate(a);
  expectRejected(a, GetParam().expected);
}


INSTANTIATE_TEST_SUITE_P(Artifact, ProgramValidation,
                         ::testing::ValuesIn(kProgramCases),
                         [](const auto &info) { return info.param.name; });

TEST(Validation, ShapeProgramDefinesSymbolsInOrder) {
  Artifact a = test::reshapeModel({false, false, false, false});
  // A second Reshape reshapes the first one's result; its own results repeat
  // a symbol of an input and a static extent (both checked at run time),
  // and its target holds literals, a -1 among them.
  ShapeOp second = a.shapeProgram[1];
  second.operands = a.shapeProgram[1].results;
  for (int64_t v : {0, -1, 4})
    second.operands.push_back(lit(v));
  second.results = {sym("n"), sym("r.d0"), lit(4)};
  a.shapeProgram.push_back(second);
  // Every arithmetic kind, on symbols of inputs and earlier results, and a
  // check; negative literal operands are plain integers.
  using K = ShapeOp::Kind;
  for (K kind : {K::Add, K::Sub, K::Mul, K::FloorDiv, K::CeilDiv, K::Mod,
                 K::Min, K::Max})
    a.shapeProgram.push_back(arithmetic(
        kind, {sym("n"), lit(-3)},
        {sym(("k" + std::to_string(static_cast<int>(kind))).c_str())}));
  a.shapeProgram.push_back(
      arithmetic(K::Add, {sym("k0"), sym("k1")}, {lit(7)}));
  a.shapeProgram.push_back(
      arithmetic(K::CheckEq, {sym("k2"), sym("r.d1")}, {}));
  std::string error;
  EXPECT_TRUE(validate(a, error)) << error;
}

TEST(Validation, InputValuesOfAScalarOrOfOneValue) {
  Artifact a = test::reshapeModel({false, false, false, false});
  a.inputs[1].shape = {};
  a.buffers[1].shape = {};
  a.shapeProgram[0].results = {sym("k")};
  a.shapeProgram[1].operands = {sym("n"), lit(6), lit(-1), sym("k"), lit(2)};
  std::string error;
  EXPECT_TRUE(validate(a, error)) << error;
  a.inputs[1].shape = {lit(1)};
  a.buffers[1].shape = {lit(1)};
  EXPECT_TRUE(validate(a, error)) << error;
  a.shapeProgram[0].results = {};
  EXPECT_FALSE(validate(a, error));
  EXPECT_THAT(error, HasSubstr("must be int64 of static shape [0]"));
}

TEST(Validation, BufferValuesReadWhatAnEarlierLaunchWrote) {
  std::string error;
  Artifact a = test::readbackModel({false, false, false, false});
  EXPECT_TRUE(validate(a, error)) << error;
  struct {
    const char *name;
    std::function<void(Artifact &)> breakIt;
    const char *message;
  } cases[] = {
      {"NoRegions", [](Artifact &b) { b.regions.clear(); },
       "shape op 0 (BufferValues of node 'Resize_0'): reads a buffer back, "
       "which needs the steps of regions (format 3.2) to run after its "
       "producer"},
      {"BeforeItsProducer",
       [](Artifact &b) {
         std::swap(b.regions[0].steps[0], b.regions[0].steps[1]);
       },
       "shape op 0 (BufferValues of node 'Resize_0'): reads buffer 1, which "
       "no launch before it writes at step 0 of region 0"},
      {"BufferOutOfRange", [](Artifact &b) { b.shapeProgram[0].buffer = 9; },
       "shape op 0 (BufferValues of node 'Resize_0'): refers to buffer 9, but "
       "there are 3 buffers"},
      {"NotInt64", [](Artifact &b) { b.buffers[1].dtype = DType::F32; },
       "shape op 0 (BufferValues of node 'Resize_0'): buffer 1 must be a "
       "transient or output int64 buffer of 8 elements (one value per "
       "result), not float32 [8]"},
      {"AnInput", [](Artifact &b) { b.shapeProgram[0].buffer = 0; },
       "buffer 0 must be a transient or output int64 buffer of 8 elements"},
      {"ElementCountIsNotTheResultCount",
       [](Artifact &b) { b.shapeProgram[0].results.pop_back(); },
       "buffer 1 must be a transient or output int64 buffer of 7 elements "
       "(one value per result), not int64 [8]"},
      {"BufferSetOnAnotherKind",
       [](Artifact &b) {
         b.shapeProgram.push_back(
             arithmetic(ShapeOp::Kind::Add, {sym("n"), lit(1)}, {sym("m")}));
         b.shapeProgram.back().buffer = 1;
         b.regions[0].steps.push_back({format::Step::Kind::Shape, 1});
       },
       "sets a buffer (1), but only BufferValues reads one"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE(c.name);
    Artifact b = test::readbackModel({false, false, false, false});
    c.breakIt(b);
    EXPECT_FALSE(validate(b, error));
    EXPECT_THAT(error, HasSubstr(c.message));
  }
}

TEST(Validation, ValidModelsPass) {
  std::string error;
  EXPECT_TRUE(validate(base(), error)) << error;
  EXPECT_TRUE(validate(test::weightModel(), error)) << error;
  EXPECT_TRUE(validate(test::probeModel(), error)) << error;
  EXPECT_TRUE(validate(test::reshapeModel(), error)) << error;
  EXPECT_TRUE(validate(test::readbackModel(), error)) << error;
  EXPECT_TRUE(validate(test::ifModel(), error)) << error;
  EXPECT_TRUE(validate(test::loopModel(), error)) << error;
  EXPECT_TRUE(validate(test::nestedModel(), error)) << error;
}

/// Gives every buffer but the weight, and the signatures, dtype `t`.
void retype(Artifact &a, DType t) {
  for (Buffer &b : a.buffers)
    if (b.kind != Buffer::Kind::Weight)
      b.dtype = t;
  for (TensorSignature &s : a.inputs)
    s.dtype = t;
  for (TensorSignature &s : a.outputs)
    s.dtype = t;
}

TEST(Validation, AParamAcceptsEveryDTypeStoredAsItsOwn) {
  // Compiled code has signless integers: a kernel of int8 params serves
  // uint8, float8 and the 4-bit formats alike, one of int64 uint64.
  for (DType stored : {DType::U8, DType::F8E4M3FN, DType::I4}) {
    Artifact a = base();
    retype(a, stored);
    for (Kernel &k : a.kernels)
      for (KernelParam &p : k.params)
        p.dtype = DType::I8;
    std::string error;
    EXPECT_TRUE(validate(a, error)) << dtypeName(stored) << ": " << error;
  }
  Artifact a = base();
  retype(a, DType::U64);
  for (Kernel &k : a.kernels)
    for (KernelParam &p : k.params)
      p.dtype = DType::I64;
  std::string error;
  EXPECT_TRUE(validate(a, error)) << error;
  // Not a float of the same width.
  a.kernels[0].params[0].dtype = DType::F64;
  EXPECT_FALSE(validate(a, error));
  EXPECT_EQ(error, "launch 0 (kernel 'add') argument 0: uint64 view of rank 1 "
                   "(buffer 0) for a param of float64, rank 1");
}

TEST(Validation, OutputsMayViewTheirBufferAndShareIt) {
  Artifact a = base();
  a.outputs[1].shape = {{1, ""}, {1, ""}}; // s: [] seen as [1, 1]
  a.outputs.push_back(a.outputs[0]);       // y twice, as y and y2
  a.outputs.back().name = "y2";
  a.kernels[0].symbol = "tessel_k0.stage$1";
  std::string error;
  EXPECT_TRUE(validate(a, error)) << error;
}

TEST(Validation, UsesTheMappedWeightsSizeWhenWeightsAreNotCopied) {
  Artifact a = base();
  a.weights.clear();
  a.weightsFileSize = 128;
  std::string error;
  EXPECT_TRUE(validate(a, error)) << error;
  a.weightsFileSize = 70; // the weight at [64, 72) no longer fits
  EXPECT_FALSE(validate(a, error));
  EXPECT_THAT(error, HasSubstr("outside the weights section (70 bytes)"));
}

TEST(Validation, OnlyCpuBinariesListCpuFeatures) {
  // Only a model built in memory can be so (the codec writes features for
  // CPU binaries only).
  Artifact a = base();
  test::addBinary(a, "cuda:sm_90", TargetBinary::Format::Ptx, {1});
  a.binaries.back().cpuFeatures = {"avx2"};
  std::string error;
  EXPECT_FALSE(validate(a, error));
  EXPECT_EQ(error, "binary 'cuda:sm_90': lists CPU features, but is not a "
                   "CPU binary");
}

} // namespace
