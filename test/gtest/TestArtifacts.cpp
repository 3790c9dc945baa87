//===- TestArtifacts.cpp - Artifacts and helpers for the runtime tests ----===//

#include "TestArtifacts.h"

#include "Driver.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>

namespace tessel::test {

using format::Buffer;
using format::Dim;
using format::DType;
using format::Shape;

void addBinary(format::Artifact &a, const std::string &target,
               format::TargetBinary::Format fmt, std::vector<uint8_t> bytes) {
  format::TargetBinary bin;
  bin.target = target;
  bin.format = fmt;
  bin.bytes = std::move(bytes);
  bin.launchConfigs = format::legacyLaunchConfigs(a, fmt);
  a.binaries.push_back(std::move(bin));
  format::legacyKernelParams(a);
}

namespace {

Dim sym(const std::string &name) { return Dim{-1, name}; }
Dim lit(int64_t v) { return Dim{v, ""}; }

/// Also signs the kernels: their params as the plan passes them.
void addBinaries(format::Artifact &a, Targets t) {
  format::legacyKernelParams(a);
  if (t.cpu)
    addBinary(a, "cpu", format::TargetBinary::Format::ElfSharedObject, cpuKernels());
  if (t.cuda)
    addBinary(a, "cuda:sm_80", format::TargetBinary::Format::Ptx, cudaKernels());
  if (t.rocm)
    addBinary(a, "rocm:gfx90a", format::TargetBinary::Format::Hsaco, rocmKernels());
  if (t.vulkan)
    addBinary(a, "vulkan", format::TargetBinary::Format::Spirv,
              vulkanKernels());
}

Buffer buffer(Buffer::Kind kind, Shape shape, DType dtype = DType::F32) {
  Buffer b;
  b.kind = kind;
  b.dtype = dtype;
  b.shape = std::move(shape);
  return b;
}

void appendFloats(std::vector<uint8_t> &weights,
                  const std::vector<float> &values) {
  size_t at = weights.size();
  weights.resize(at + values.size() * 4);
  std::memcpy(weights.data() + at, values.data(), values.size() * 4);
}

} // namespace

format::Artifact addModel(Targets targets) {
  format::Artifact a;
  a.producer = "tessel-tests";
  a.modelName = "add";
  Shape batch = {sym("batch")};
  a.buffers = {
      buffer(Buffer::Kind::Input, batch), buffer(Buffer::Kind::Input, batch),
      buffer(Buffer::Kind::Transient, batch),
      buffer(Buffer::Kind::Output, batch), buffer(Buffer::Kind::Output, {})};
  a.inputs = {{"a", DType::F32, batch, 0}, {"b", DType::F32, batch, 1}};
  a.outputs = {{"y", DType::F32, batch, 3}, {"s", DType::F32, {}, 4}};
  a.kernels = {{"add", "Add_0", "Add"},
               {"sum_all", "ReduceSum_0", "ReduceSum"}};
  a.plan = {
      {0, {{0, batch}, {1, batch}, {2, batch}}, batch},
      {0, {{2, batch}, {0, batch}, {3, batch}}, batch},
      {1, {{3, {lit(1), sym("batch")}}, {4, {}}}, {}},
  };
  addBinaries(a, targets);
  return a;
}

format::Artifact weightModel(Targets targets) {
  format::Artifact a;
  a.producer = "tessel-tests";
  a.modelName = "weights";
  Shape three = {lit(3)};
  a.buffers = {buffer(Buffer::Kind::Input, three),
               buffer(Buffer::Kind::Weight, three),
               buffer(Buffer::Kind::Weight, three),
               buffer(Buffer::Kind::Transient, three),
               buffer(Buffer::Kind::Output, three)};
  appendFloats(a.weights, {10, 20, 30});
  a.weights.resize(64);
  appendFloats(a.weights, {1, 2, 3});
  a.buffers[1].weightOffset = 0;
  a.buffers[1].weightSize = 12;
  a.buffers[2].weightOffset = 64;
  a.buffers[2].weightSize = 12;
  a.inputs = {{"x", DType::F32, three, 0}};
  a.outputs = {{"z", DType::F32, three, 4}};
  a.kernels = {{"add", "Add_w", "Add"}};
  a.plan = {{0, {{0, three}, {1, three}, {3, three}}, three},
            {0, {{3, three}, {2, three}, {4, three}}, three}};
  addBinaries(a, targets);
  return a;
}

format::Artifact probeModel(Targets targets) {
  format::Artifact a;
  a.producer = "tessel-tests";
  a.modelName = "probe";
  Shape in = {lit(2), sym("n"), lit(4)};
  Shape out = {lit(8)};
  a.buffers = {buffer(Buffer::Kind::Input, in),
               buffer(Buffer::Kind::Output, out, DType::I64)};
  a.inputs = {{"x", DType::F32, in, 0}};
  a.outputs = {{"p", DType::I64, out, 1}};
  a.kernels = {{"abi_probe", "Probe_0", "Probe"}};
  a.plan = {{0, {{0, in}, {1, out}}, {}}};
  addBinaries(a, targets);
  return a;
}

format::ShapeOp shapeOp(format::ShapeOp::Kind kind, format::Shape operands,
                        format::Shape results, const std::string &node,
                        const std::string &type, const std::string &message) {
  format::ShapeOp o;
  o.kind = kind;
  o.operands = std::move(operands);
  o.results = std::move(results);
  o.onnxNode = node;
  o.onnxOp = type;
  o.message = message;
  return o;
}

format::Artifact reshapeModel(Targets targets) {
  format::Artifact a;
  a.producer = "tessel-tests";
  a.modelName = "reshape";
  Shape in = {sym("n"), lit(6)};
  Shape target = {lit(3)};
  Shape viewed = {sym("r.d0"), sym("r.d1"), sym("r.d2")};
  Shape out = {lit(8)};
  a.buffers = {buffer(Buffer::Kind::Input, in),
               buffer(Buffer::Kind::Input, target, DType::I64),
               buffer(Buffer::Kind::Output, out, DType::I64)};
  a.inputs = {{"x", DType::F32, in, 0}, {"shape", DType::I64, target, 1}};
  a.outputs = {{"p", DType::I64, out, 2}};
  a.kernels = {{"abi_probe", "Probe_0", "Probe"}};
  a.plan = {{0, {{0, viewed}, {2, out}}, {}}};
  // The values of `shape` (InputValues), then ONNX Reshape of [n, 6] by them.
  format::ShapeOp values;
  values.kind = format::ShapeOp::Kind::InputValues;
  values.results = {sym("shape.0"), sym("shape.1"), sym("shape.2")};
  values.input = 1;
  values.onnxNode = "Reshape_0";
  values.onnxOp = "Reshape";
  format::ShapeOp reshape;
  reshape.kind = format::ShapeOp::Kind::Reshape;
  reshape.operands = in;
  reshape.operands.insert(reshape.operands.end(), values.results.begin(),
                          values.results.end());
  reshape.results = viewed;
  reshape.onnxNode = "Reshape_0";
  reshape.onnxOp = "Reshape";
  a.shapeProgram = {values, reshape};
  addBinaries(a, targets);
  return a;
}

format::Artifact readbackModel(Targets targets) {
  format::Artifact a;
  a.producer = "tessel-tests";
  a.modelName = "readback";
  Shape in = {lit(2), sym("n"), lit(4)};
  Shape probe = {lit(8)};
  Shape out = {sym("v.2"), sym("v.3")};
  a.buffers = {buffer(Buffer::Kind::Input, in),
               buffer(Buffer::Kind::Transient, probe, DType::I64),
               buffer(Buffer::Kind::Output, out, DType::I64)};
  a.inputs = {{"x", DType::F32, in, 0}};
  a.outputs = {{"z", DType::I64, out, 2}};
  a.kernels = {{"abi_probe", "Probe_0", "Probe"}, {"zero_i64", "Zero_0", "Zero"}};
  a.plan = {{0, {{0, in}, {1, probe}}, {}}, {1, {{2, out}}, {}}};
  format::ShapeOp read;
  read.kind = format::ShapeOp::Kind::BufferValues;
  read.buffer = 1;
  for (int k = 0; k < 8; ++k)
    read.results.push_back(k == 1 ? lit(2) : sym("v." + std::to_string(k)));
  read.onnxNode = "Resize_0";
  read.onnxOp = "Resize";
  a.shapeProgram = {read};
  format::Region top;
  top.steps = {{format::Step::Kind::Launch, 0},
               {format::Step::Kind::Shape, 0},
               {format::Step::Kind::Launch, 1}};
  a.regions = {top};
  addBinaries(a, targets);
  return a;
}

namespace {

format::Step step(format::Step::Kind kind, uint32_t index) {
  format::Step s;
  s.kind = kind;
  s.index = index;
  return s;
}

format::ControlOp controlOp(format::ControlOp::Kind kind,
                            std::vector<format::LaunchArg> operands,
                            std::vector<uint32_t> regions,
                            std::vector<uint32_t> bodyArgs,
                            std::vector<uint32_t> results,
                            const std::string &node, const std::string &type) {
  format::ControlOp op;
  op.kind = kind;
  op.operands = std::move(operands);
  op.regions = std::move(regions);
  op.bodyArgs = std::move(bodyArgs);
  op.results = std::move(results);
  op.onnxNode = node;
  op.onnxOp = type;
  return op;
}

using StepKind = format::Step::Kind;

} // namespace

format::Artifact ifModel(Targets targets) {
  format::Artifact a;
  a.producer = "tessel-tests";
  a.modelName = "if";
  Shape n = {sym("n")}, k = {sym("k")}, m = {sym("m")};
  a.buffers = {buffer(Buffer::Kind::Input, {}, DType::Bool), // 0 c
               buffer(Buffer::Kind::Input, n),               // 1 a
               buffer(Buffer::Kind::Input, n),               // 2 b
               buffer(Buffer::Kind::Input, k),               // 3 d
               buffer(Buffer::Kind::Transient, n),           // 4 t = a + b
               buffer(Buffer::Kind::Transient, m),           // 5 r
               buffer(Buffer::Kind::Output, m)};             // 6 y = r + r
  a.inputs = {{"c", DType::Bool, {}, 0},
              {"a", DType::F32, n, 1},
              {"b", DType::F32, n, 2},
              {"d", DType::F32, k, 3}};
  a.outputs = {{"y", DType::F32, m, 6}};
  a.kernels = {{"add", "Add_0", "Add"}};
  a.plan = {{0, {{1, n}, {2, n}, {4, n}}, n},  // then: t = a + b
            {0, {{5, m}, {5, m}, {6, m}}, m}}; // y = r + r
  a.regions.resize(3);
  a.regions[0].steps = {step(StepKind::Control, 0), step(StepKind::Launch, 1)};
  a.regions[1].steps = {step(StepKind::Launch, 0)};
  a.regions[1].yields = {{4, n}};
  a.regions[2].yields = {{3, k}};
  a.controlOps = {controlOp(format::ControlOp::Kind::If, {{0, {}}}, {1, 2}, {},
                            {5}, "if_0", "If")};
  addBinaries(a, targets);
  return a;
}

format::Artifact loopModel(Targets targets) {
  format::Artifact a;
  a.producer = "tessel-tests";
  a.modelName = "loop";
  Shape n = {sym("n")}, k = {sym("k")}, zk = {sym("zk")}, zr = {sym("zr")};
  Shape stacked = {sym("s"), sym("n")}, sn = {sym("sn")};
  a.buffers = {buffer(Buffer::Kind::Input, {}, DType::I64),      // 0 trip
               buffer(Buffer::Kind::Input, {}, DType::Bool),     // 1 go
               buffer(Buffer::Kind::Input, n),                   // 2 y0
               buffer(Buffer::Kind::Input, n),                   // 3 a
               buffer(Buffer::Kind::Input, k),                   // 4 z0
               buffer(Buffer::Kind::Transient, {}, DType::I64),  // 5 iteration
               buffer(Buffer::Kind::Transient, {}, DType::Bool), // 6 cond in
               buffer(Buffer::Kind::Transient, n),               // 7 y
               buffer(Buffer::Kind::Transient, zk),              // 8 z
               buffer(Buffer::Kind::Transient, n),               // 9 t = y + a
               buffer(Buffer::Kind::Transient, n),               // 10 yF
               buffer(Buffer::Kind::Transient, zr),              // 11 zF
               buffer(Buffer::Kind::Transient, stacked),         // 12 scan
               buffer(Buffer::Kind::Output, n),   // 13 y = yF + a
               buffer(Buffer::Kind::Output, zr),  // 14 z = zF + zF
               buffer(Buffer::Kind::Output, sn)}; // 15 scan + scan
  a.inputs = {{"trip", DType::I64, {}, 0},
              {"go", DType::Bool, {}, 1},
              {"y0", DType::F32, n, 2},
              {"a", DType::F32, n, 3},
              {"z0", DType::F32, k, 4}};
  a.outputs = {{"y", DType::F32, n, 13},
               {"z", DType::F32, zr, 14},
               {"scan", DType::F32, stacked, 15}};
  a.kernels = {{"add", "Add_0", "Add"}};
  a.plan = {{0, {{7, n}, {3, n}, {9, n}}, n},         // body: t = y + a
            {0, {{10, n}, {3, n}, {13, n}}, n},       // y = yF + a
            {0, {{11, zr}, {11, zr}, {14, zr}}, zr},  // z = zF + zF
            {0, {{12, sn}, {12, sn}, {15, sn}}, sn}}; // scan + scan
  a.shapeProgram = {shapeOp(format::ShapeOp::Kind::Mul, stacked, sn, "Add_1",
                            "Add", "the elements of the scan output")};
  a.regions.resize(2);
  a.regions[0].steps = {step(StepKind::Control, 0), step(StepKind::Shape, 0),
                        step(StepKind::Launch, 1), step(StepKind::Launch, 2),
                        step(StepKind::Launch, 3)};
  a.regions[1].steps = {step(StepKind::Launch, 0)};
  a.regions[1].yields = {{1, {}}, {9, n}, {8, zk}, {9, n}};
  a.controlOps = {controlOp(format::ControlOp::Kind::Loop,
                            {{0, {}}, {1, {}}, {2, n}, {4, k}}, {1},
                            {5, 6, 7, 8}, {10, 11, 12}, "loop_0", "Loop")};
  addBinaries(a, targets);
  return a;
}

format::Artifact nestedModel(Targets targets) {
  format::Artifact a = loopModel(targets);
  a.modelName = "nested";
  Shape n = {sym("n")};
  uint32_t flip = static_cast<uint32_t>(a.buffers.size());
  a.buffers.push_back(buffer(Buffer::Kind::Input, {}, DType::Bool));
  a.inputs.push_back({"flip", DType::Bool, {}, flip});
  uint32_t r = static_cast<uint32_t>(a.buffers.size());
  a.buffers.push_back(buffer(Buffer::Kind::Transient, n));
  // The body runs the If, whose then branch (region 2) holds launch 0.
  a.regions.resize(4);
  a.regions[1].steps = {step(StepKind::Control, 1)};
  a.regions[1].yields = {{1, {}}, {r, n}, {8, {sym("zk")}}, {r, n}};
  a.regions[2].steps = {step(StepKind::Launch, 0)};
  a.regions[2].yields = {{9, n}};
  a.regions[3].yields = {{7, n}};
  a.controlOps.push_back(controlOp(format::ControlOp::Kind::If, {{flip, {}}},
                                   {2, 3}, {}, {r}, "if_1", "If"));
  return a;
}

format::Artifact tileModel(bool vulkan) {
  format::Artifact a;
  a.producer = "tessel-tests";
  a.modelName = "tiles";
  Shape grid = {sym("rows"), sym("cols")};
  a.buffers = {buffer(Buffer::Kind::Input, grid, DType::I64),
               buffer(Buffer::Kind::Output, grid, DType::I64)};
  a.inputs = {{"x", DType::I64, grid, 0}};
  a.outputs = {{"ids", DType::I64, grid, 1}};
  a.kernels = {{"zero_i64", "Zero_0", "Zero"}, {"tile_ids", "Tiles_0", "Tiles"}};
  a.plan = {{0, {{1, grid}}, {}}, {1, {{1, grid}}, grid}};
  addBinary(a, "cpu", format::TargetBinary::Format::ElfSharedObject,
            cpuKernels());
  if (vulkan)
    addBinary(a, "vulkan", format::TargetBinary::Format::Spirv,
              vulkanKernels());
  for (format::TargetBinary &bin : a.binaries) {
    format::LaunchConfig &tiles = bin.launchConfigs[1];
    tiles.workgroupCount[0] = {{1}, 4};
    tiles.workgroupCount[1] = {{0}, 2};
  }
  return a;
}

int64_t tileCode(int64_t rows, int64_t cols, int64_t r, int64_t c) {
  int64_t countX = (cols + 3) / 4, countY = (rows + 1) / 2;
  return 1 + c / 4 + 100 * (r / 2) + 1000000 * countX + 100000000 * countY +
         10000000000;
}

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out)
    throw std::runtime_error("cannot write " + path);
}

std::vector<uint8_t> cpuKernels() { return readBytes(TESSEL_TEST_KERNELS_SO); }

std::vector<uint8_t> cudaKernels() {
  return readBytes(TESSEL_TEST_KERNELS_PTX);
}

std::vector<uint8_t> rocmKernels() {
  std::string text = "FAKEHSACO gfx90a\n.entry add(\n.entry sum_all(\n"
                     ".entry abi_probe(\n";
  std::vector<uint8_t> bytes(text.begin(), text.end());
  bytes.push_back(0);
  return bytes;
}

std::vector<format::SpirvModule> vulkanModules() {
  std::vector<format::SpirvModule> modules;
  for (const char *kernel :
       {"add", "sum_all", "abi_probe", "zero_i64", "tile_ids"}) {
    std::vector<uint8_t> bytes = readBytes(
        std::string(TESSEL_TEST_VULKAN_KERNELS_DIR) + "/" + kernel + ".spv");
    format::SpirvModule m;
    m.entryPoint = kernel;
    m.words.resize(bytes.size() / 4);
    std::memcpy(m.words.data(), bytes.data(), m.words.size() * 4);
    modules.push_back(std::move(m));
  }
  return modules;
}

std::vector<uint8_t> vulkanKernels() {
  return format::encodeSpirvModules(vulkanModules());
}

std::string fakeCudaLibrary() { return TESSEL_FAKE_CUDA_SO; }
std::string fakeCudaNoDeviceLibrary() { return TESSEL_FAKE_CUDA_NODEVICE_SO; }
std::string fakeHipLibrary() { return TESSEL_FAKE_HIP_SO; }
std::string fakeHipNoDeviceLibrary() { return TESSEL_FAKE_HIP_NODEVICE_SO; }
std::string tesselRunExecutable() { return TESSEL_RUN_EXE; }

void registerFakeDrivers() {
  static std::once_flag once;
  std::call_once(once, [] {
    runtime::registerDriver(
        runtime::createCudaDriver("cuda-fake", {fakeCudaLibrary()}));
    runtime::registerDriver(
        runtime::createHipDriver("hip-fake", {fakeHipLibrary()}));
  });
}

TempDir::TempDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "tessel-test-XXXXXX").string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    throw std::runtime_error("mkdtemp failed");
  dir = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

std::vector<std::string> TempDir::entries() const {
  std::vector<std::string> names;
  for (const auto &e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace tessel::test
