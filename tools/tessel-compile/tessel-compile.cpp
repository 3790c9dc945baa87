//===- tessel-compile.cpp - Compile an ONNX model into a .tsl artifact ----===//
//
// tessel-compile MODEL.onnx -o OUT.tsl [--target T]... [--mcpu CPU]
// tessel-compile --list-ops
// tessel-compile --check-supported MODEL.onnx...
//
// On a terminal, a compile that runs for more than a second shows its
// current stage on stderr ("[5/6] codegen cpu 2.1 s", rewritten in place and
// cleared at the end); --timings prints each stage's time after a compile.
//
// A thin main over tessel::compileOnnxModel (and, for the two queries, the
// frontend's op registry and importer). Errors print one line,
// "tessel-compile: error: <file>: node '<n>' (<op>): <message>", and exit 2;
// the output file is written to a temporary name and renamed, so a failed
// compile never leaves a partial artifact.
//
//===----------------------------------------------------------------------===//

#include "compiler/Calibration.h"
#include "compiler/Compile.h"
#include "compiler/Registration.h"
#include "compiler/Report.h"
#include "format/SpirvModules.h"
#include "dialects/Graph/TesselDialect.h"
#include "frontend/onnx/Importer.h"
#include "tools/common/StatusLine.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>

static const char *kUsage =
    "usage: tessel-compile MODEL.onnx -o OUT.tsl [--target TARGET]... "
    "[--mcpu CPU,...]\n"
    "       tessel-compile --list-ops\n"
    "       tessel-compile --check-supported MODEL.onnx...\n"
    "\n"
    "Compiles an ONNX model into a Tessel artifact (.tsl).\n"
    "\n"
    "  --list-ops         print each supported op as DOMAIN OP OPSETS (e.g.\n"
    "                     'ai.onnx Softmax 13+'); ops ONNX defines as a\n"
    "                     function of these are imported too\n"
    "  --check-supported  import each model only and print one line per\n"
    "                     model: 'MODEL<TAB>supported', 'MODEL<TAB>\n"
    "                     unsupported<TAB>WHY' (an op or opset without\n"
    "                     support) or 'MODEL<TAB>invalid<TAB>WHY' (any other\n"
    "                     import error); exit 0 when all are supported, else 1\n"
    "  -o OUT.tsl         the artifact to write (required)\n"
    "  --target TARGET    cpu (default), cuda:sm_80, cuda:sm_90, rocm:gfx90a,\n"
    "                     rocm:gfx942, vulkan; repeat for several targets in\n"
    "                     one file\n"
    "  --mcpu CPU,...     the x86-64 CPUs the cpu target compiles for, one\n"
    "                     binary each; the runtime runs the best one the\n"
    "                     host supports. Each is an LLVM CPU name (x86-64-v2,\n"
    "                     x86-64-v3, x86-64-v4, znver4, 'native' for this\n"
    "                     machine) with any '+FEATURE' (avx512bf16, ...).\n"
    "                     Default: x86-64-v4+avx512bf16+avx512vnni,x86-64-v3\n"
    "  --precision P      fp32 (default: the model's own), bf16 or fp16: Conv,\n"
    "                     MatMul and Gemm read their operands in P (weights\n"
    "                     stored so) and sum in f32; every other op stays f32.\n"
    "                     int8: Conv, MatMul and Gemm with constant weights\n"
    "                     (not the first and last) on int8 with int32 sums,\n"
    "                     ranges from --calibration or --calibration-cache.\n"
    "                     fp8: their inputs and weights rounded to float8\n"
    "                     (E4M3, or --fp8-format e5m2) with per-tensor\n"
    "                     scales from the same calibration\n"
    "  --keep-fp32 X,...  ONNX op types or node names that stay f32\n"
    "  --io-precision M   model (default: inputs and outputs keep their\n"
    "                     types) or low (bf16/fp16: f32 ones take it)\n"
    "  --lower NODE,...   int8/fp8: contractions quantized even when they are\n"
    "                     the model's first or last\n"
    "  --calibration DIR  calibration inputs: DIR/<input>.npy (a batch along\n"
    "                     axis 0) or subfolders with one sample each\n"
    "  --precision-report FILE\n"
    "                     run the model at fp32 and at --precision on the\n"
    "                     calibration set and write each layer's and each\n"
    "                     output's relative error (and top-1 agreement) to FILE\n"
    "  --accuracy-budget X\n"
    "                     return the worst layers to fp32, one at a time,\n"
    "                     until the outputs' relative L2 error against fp32\n"
    "                     is at most X (with --metric top1: until top-1\n"
    "                     agreement is at least X, a fraction)\n"
    "  --metric M         rel-l2 (default) or top1, for --accuracy-budget\n"
    "  --fp8-format F     e4m3 (default) or e5m2\n"
    "  --calibrator C     int8/fp8 ranges: minmax (default), percentile, entropy,\n"
    "                     mse\n"
    "  --percentile P     the percentile calibrator's percentile (99.99)\n"
    "  --activations M    int8 activations: symmetric (default) or asymmetric\n"
    "                     (a range from 0 up, after a ReLU: u8 with zero point\n"
    "                     0; any other: a zero point for MatMul and Gemm, a\n"
    "                     Conv stays symmetric)\n"
    "  --calibration-cache FILE\n"
    "                     int8 ranges (JSON): read when FILE exists, else\n"
    "                     written after calibrating\n"
    "  --emit STAGE       print the IR after STAGE instead of writing an\n"
    "                     artifact: graph, graph-opt, plan, kernels, linalg,\n"
    "                     pipeline (each target's lowering passes), llvm,\n"
    "                     llvm-ir (the CPU binary's LLVM IR with its\n"
    "                     packed wrappers, before LLVM's optimizations)\n"
    "  --report           print each dispatch (its ONNX nodes, its kernel\n"
    "                     launches) and the memory plan of the transients;\n"
    "                     with -o, also write the artifact\n"
    "  --dump-binaries DIR\n"
    "                     also write each target's code to DIR/<target>.so,\n"
    "                     .ptx or .hsaco (':' in the target becomes '_'), and\n"
    "                     vulkan's SPIR-V to DIR/vulkan/<kernel>.spv\n"
    "  --timings          after compiling, print the time of each stage\n"
    "                     (import, graph passes, partition, kernel lowering,\n"
    "                     codegen per target, write) and the total to stderr\n"
    "  --cpu-gpu-tiles    test aid: the cpu target takes the workgroup tiles\n"
    "                     a GPU target would choose, so that the GPU's tiling\n"
    "                     and fusion are checked numerically on the CPU\n"
    "  --gpu-mapping-of TARGET\n"
    "                     the vulkan target takes the tiles, workgroup\n"
    "                     shapes and reduction splits that TARGET (e.g.\n"
    "                     cuda:sm_80) would choose, so that its kernels run\n"
    "                     on Vulkan; they must fit Vulkan's limits\n"
    "  -h, --help         this text\n"
    "\n"
    "When stderr is a terminal, a compile that takes more than a second shows\n"
    "its current stage there, on one line that is cleared at the end.\n";

using Clock = std::chrono::steady_clock;

/// "a,b,,c" -> {"a", "b", "", "c"} (an empty item is the option's to
/// reject).
static std::vector<std::string> splitList(const std::string &list) {
  std::vector<std::string> items;
  for (size_t begin = 0; begin <= list.size();) {
    size_t end = std::min(list.find(',', begin), list.size());
    items.push_back(list.substr(begin, end - begin));
    begin = end + 1;
  }
  return items;
}

static double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Follows the compile's stages: records each one's time (--timings) and,
/// when `progress`, shows the current one on stderr once the compile has run
/// for more than a second, from a thread that redraws it while it lasts.
class StageReporter {
public:
  explicit StageReporter(bool progress) : start(Clock::now()) {
    if (progress)
      drawer = std::thread([this] { drawLoop(); });
  }
  StageReporter(const StageReporter &) = delete;
  StageReporter &operator=(const StageReporter &) = delete;
  ~StageReporter() { finish(); }

  /// `extra` stages run after the compiler's (the write).
  void setExtraStages(unsigned n) {
    std::lock_guard<std::mutex> lock(mutex);
    extra = n;
  }

  void onStage(const tessel::CompileStageEvent &e) {
    if (e.kind == tessel::CompileStageEvent::Kind::End)
      return end();
    unsigned count;
    {
      std::lock_guard<std::mutex> lock(mutex);
      compilerCount = e.count;
      count = e.count + extra;
    }
    begin(e.name, e.index, count);
  }
  void begin(const std::string &name, unsigned index, unsigned count) {
    std::lock_guard<std::mutex> lock(mutex);
    current = "[" + std::to_string(index) + "/" + std::to_string(count) +
              "] " + name;
    stageStart = Clock::now();
    stageName = name;
  }
  void end() {
    std::lock_guard<std::mutex> lock(mutex);
    if (stageName.empty())
      return;
    timings.push_back({stageName, secondsSince(stageStart)});
    stageName.clear();
    current.clear();
  }
  /// The number of stages the compiler announced (0 before the first).
  unsigned compilerStages() {
    std::lock_guard<std::mutex> lock(mutex);
    return compilerCount;
  }

  /// Erases the progress line (before an error message is printed).
  void clearLine() {
    std::lock_guard<std::mutex> lock(mutex);
    clearLocked();
  }

  /// Stops the progress thread and erases its line.
  void finish() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    if (drawer.joinable())
      drawer.join();
    clearLine();
  }

  void printTimings(std::ostream &os) {
    std::lock_guard<std::mutex> lock(mutex);
    os << "timings:\n";
    char line[160];
    for (const auto &[name, seconds] : timings) {
      std::snprintf(line, sizeof(line), "  %-24s %9.3f s\n", name.c_str(),
                    seconds);
      os << line;
    }
    std::snprintf(line, sizeof(line), "  %-24s %9.3f s\n", "total",
                  secondsSince(start));
    os << line;
  }

private:
  void drawLoop() {
    std::unique_lock<std::mutex> lock(mutex);
    while (!stopping) {
      wake.wait_for(lock, std::chrono::milliseconds(100));
      if (stopping || current.empty() || secondsSince(start) <= 1.0)
        continue;
      char elapsed[32];
      std::snprintf(elapsed, sizeof(elapsed), " %.1f s",
                    secondsSince(stageStart));
      line.show(current + " ..." + elapsed);
    }
  }
  void clearLocked() { line.clear(); }

  std::mutex mutex;
  std::condition_variable wake;
  std::thread drawer;
  bool stopping = false;
  Clock::time_point start, stageStart;
  std::string current, stageName;
  unsigned extra = 0, compilerCount = 0;
  tessel::tools::StatusLine line{std::cerr};
  std::vector<std::pair<std::string, double>> timings;
};

static int usageError(const std::string &message) {
  std::cerr << "tessel-compile: error: " << message << "\n"
            << "(run tessel-compile --help for usage)\n";
  return 2;
}

/// The first error of a diagnostic, prefixed with its location's file and
/// node when the message does not start with them already.
static std::string errorText(mlir::Diagnostic &d) {
  std::string message = d.str();
  // Errors raised outside Tessel's own code carry only a location.
  std::string where = tessel::describeLoc(d.getLocation());
  if (!where.empty() && message.rfind(where, 0) != 0)
    message = where + ": " + message;
  return message;
}

static int listOps() {
  for (const tessel::SupportedOnnxOp &op : tessel::supportedOnnxOps())
    std::cout << op.domain << " " << op.opType << " " << op.range << "\n";
  return 0;
}

/// Imports each model (nothing else) and says whether its ops are supported.
static int checkSupported(const std::vector<std::string> &models) {
  mlir::DialectRegistry registry;
  tessel::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  std::string firstError;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error &&
        firstError.empty())
      firstError = errorText(d);
    return mlir::success();
  });
  bool allSupported = true;
  for (const std::string &model : models) {
    firstError.clear();
    bool unsupported = false;
    bool ok = static_cast<bool>(
        tessel::importOnnxModel(context, model, &unsupported));
    allSupported &= ok;
    std::replace(firstError.begin(), firstError.end(), '\n', ' ');
    // One flushed line per model: a caller can tell where a crash happened.
    if (ok)
      std::cout << model << "\tsupported" << std::endl;
    else
      std::cout << model << (unsupported ? "\tunsupported\t" : "\tinvalid\t")
                << firstError << std::endl;
  }
  return allSupported ? 0 : 1;
}

/// Writes each SPIR-V module of `binary` to DIR/<kernel>.spv.
static bool dumpSpirv(const tessel::format::TargetBinary &binary,
                      const std::string &dir, std::string &error) {
  std::vector<tessel::format::SpirvModule> modules;
  if (!tessel::format::decodeSpirvModules(binary.bytes, modules, error))
    return false;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (const tessel::format::SpirvModule &m : modules) {
    std::ofstream out(dir + "/" + m.entryPoint + ".spv", std::ios::binary);
    out.write(reinterpret_cast<const char *>(m.words.data()),
              m.words.size() * sizeof(uint32_t));
    if (!out) {
      error = dir + ": cannot write the SPIR-V modules";
      return false;
    }
  }
  return true;
}

/// Writes --dump-binaries and the artifact (through a temporary name, so a
/// failure leaves no partial artifact); on failure sets `error`.
static bool writeOutputs(const tessel::format::Artifact &artifact,
                         const std::string &output, const std::string &dumpDir,
                         std::string &error) {
  if (!dumpDir.empty())
    for (const tessel::format::TargetBinary &b : artifact.binaries) {
      if (b.format == tessel::format::TargetBinary::Format::Spirv) {
        if (!dumpSpirv(b, dumpDir + "/" + b.target, error))
          return false;
        continue;
      }
      std::string name = b.target;
      std::replace(name.begin(), name.end(), ':', '_');
      const char *ext =
          b.format == tessel::format::TargetBinary::Format::Ptx     ? ".ptx"
          : b.format == tessel::format::TargetBinary::Format::Hsaco ? ".hsaco"
                                                                    : ".so";
      std::ofstream out(dumpDir + "/" + name + ext, std::ios::binary);
      out.write(reinterpret_cast<const char *>(b.bytes.data()), b.bytes.size());
      if (!out) {
        error = dumpDir + ": cannot write the target binaries";
        return false;
      }
    }
  std::vector<uint8_t> bytes = tessel::format::serialize(artifact);
  std::string temp = output + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    if (!out) {
      std::remove(temp.c_str());
      error = output + ": cannot write the artifact";
      return false;
    }
  }
  if (std::rename(temp.c_str(), output.c_str()) != 0) {
    error = output + ": " + std::strerror(errno);
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  std::string input, output, dumpDir, reportPath;
  tessel::calibration::BudgetOptions budget;
  tessel::calibration::RangeOptions int8;
  bool report = false, timings = false;
  std::vector<std::string> models;
  bool checkMode = false;
  tessel::CompileOptions options;
  options.targets.clear();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string &out) {
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    // The next argument as a whole number (strtod's syntax).
    auto number = [&](double &out) {
      std::string text;
      char *end = nullptr;
      if (!value(text) || text.empty())
        return false;
      out = std::strtod(text.c_str(), &end);
      return *end == '\0';
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--list-ops")
      return listOps();
    if (arg == "--check-supported") {
      checkMode = true;
    } else if (arg == "-o") {
      if (!value(output))
        return usageError("-o needs a file name");
    } else if (arg == "--target" || arg.rfind("--target=", 0) == 0) {
      std::string target;
      if (arg == "--target" ? !value(target) : (target = arg.substr(9), false))
        return usageError("--target needs a value");
      options.targets.push_back(target);
    } else if (arg == "--emit") {
      if (!value(options.emit))
        return usageError("--emit needs a stage");
      const auto &stages = tessel::emitStages();
      if (std::find(stages.begin(), stages.end(), options.emit) == stages.end())
        return usageError("unknown stage '" + options.emit + "'");
    } else if (arg == "--report") {
      report = true;
    } else if (arg == "--dump-binaries") {
      if (!value(dumpDir))
        return usageError("--dump-binaries needs a folder");
    } else if (arg == "--timings") {
      timings = true;
    } else if (arg == "--gpu-mapping-of") {
      if (!value(options.gpuMappingOf))
        return usageError("--gpu-mapping-of needs a target");
    } else if (arg == "--cpu-gpu-tiles") {
      options.cpuWithGpuTiles = true;
    } else if (arg == "--precision") {
      if (!value(options.precision))
        return usageError("--precision needs a value");
    } else if (arg == "--keep-fp32" || arg == "--lower") {
      std::string list;
      if (!value(list) || list.empty())
        return usageError(arg + " needs a value");
      auto &names = arg == "--lower" ? options.lowerNodes : options.keepFp32;
      for (std::string &name : splitList(list))
        names.push_back(std::move(name));
    } else if (arg == "--calibration") {
      if (!value(budget.calibrationDir))
        return usageError("--calibration needs a folder");
    } else if (arg == "--precision-report") {
      if (!value(reportPath))
        return usageError("--precision-report needs a file");
    } else if (arg == "--io-precision") {
      if (!value(options.ioPrecision))
        return usageError("--io-precision needs a value");
    } else if (arg == "--fp8-format") {
      if (!value(options.fp8Format))
        return usageError("--fp8-format needs a value");
    } else if (arg == "--activations") {
      std::string mode;
      if (!value(mode) || (mode != "symmetric" && mode != "asymmetric"))
        return usageError("--activations takes symmetric or asymmetric");
      int8.asymmetric = mode == "asymmetric";
    } else if (arg == "--calibrator") {
      if (!value(int8.calibrator))
        return usageError("--calibrator needs a value");
    } else if (arg == "--calibration-cache") {
      if (!value(int8.cachePath))
        return usageError("--calibration-cache needs a file");
    } else if (arg == "--percentile") {
      if (!number(int8.percentile))
        return usageError("--percentile needs a number");
    } else if (arg == "--metric") {
      if (!value(budget.metric))
        return usageError("--metric needs a value");
    } else if (arg == "--accuracy-budget") {
      if (!number(budget.budget) || !(budget.budget >= 0))
        return usageError("--accuracy-budget needs a non-negative number");
    } else if (arg == "--mcpu") {
      std::string list;
      if (!value(list) || list.empty())
        return usageError("--mcpu needs a value");
      options.cpus = splitList(list);
    } else if (!arg.empty() && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else if (checkMode || input.empty()) {
      models.push_back(arg);
      input = arg;
    } else {
      return usageError("more than one model given");
    }
  }
  if (checkMode)
    return models.empty() ? usageError("no model given")
                          : checkSupported(models);
  if (input.empty())
    return usageError("no model given");
  if (output.empty() && options.emit.empty() && !report)
    return usageError("no output given (-o OUT.tsl)");
  if (options.targets.empty())
    options.targets.push_back("cpu");

  // Progress only on a terminal; the reporter also keeps the timings.
  StageReporter stages(isatty(STDERR_FILENO) == 1);
  bool writes = options.emit.empty() && !output.empty();
  stages.setExtraStages(writes ? 1 : 0);
  options.onStage = [&](const tessel::CompileStageEvent &e) {
    stages.onStage(e);
  };

  mlir::DialectRegistry registry;
  tessel::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading(); // two cores: compile-time threads don't pay
  // Print the first error only: later ones are consequences of it.
  bool reported = false;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() != mlir::DiagnosticSeverity::Error || reported)
      return mlir::success();
    reported = true;
    stages.clearLine();
    std::cerr << "tessel-compile: error: " << errorText(d) << "\n";
    return mlir::success();
  });

  // The precision report and the accuracy budget run the model on the
  // calibration set first; the budget's choice of fp32 layers then holds
  // for the artifact.
  if (options.precision == "int8" || options.precision == "fp8") {
    int8.calibrationDir = budget.calibrationDir;
    std::string summary, error;
    if (!tessel::calibration::calibrateRanges(context, input, options, int8,
                                            options.quantRanges, summary,
                                            error)) {
      stages.finish();
      if (!reported)
        std::cerr << "tessel-compile: error: " << input << ": " << error
                  << "\n";
      return 2;
    }
    options.calibrated = true;
  } else if (!int8.cachePath.empty()) {
    return usageError("--calibration-cache holds int8/fp8 ranges: it needs "
                      "--precision int8 or fp8");
  }
  bool searches = !reportPath.empty() || budget.budget >= 0;
  if (searches || (!budget.calibrationDir.empty() &&
                   options.precision != "int8" && options.precision != "fp8")) {
    if (budget.calibrationDir.empty())
      return usageError("--precision-report and --accuracy-budget need "
                        "--calibration DIR");
    if (!searches)
      return usageError("--calibration is used by --precision int8 and "
                        "fp8, --precision-report and --accuracy-budget");
    std::string text, error;
    std::vector<std::string> returned;
    tessel::CompileOptions search = options;
    if (!tessel::calibration::searchPrecision(context, input, search, budget,
                                              text, returned, error)) {
      stages.finish();
      if (!reported)
        std::cerr << "tessel-compile: error: " << input << ": " << error
                  << "\n";
      return 2;
    }
    options.keepFp32 = search.keepFp32;
    if (!reportPath.empty()) {
      std::ofstream out(reportPath);
      out << text;
      if (!out) {
        std::cerr << "tessel-compile: error: " << reportPath
                  << ": cannot write the precision report\n";
        return 2;
      }
    }
    if (!returned.empty()) {
      stages.clearLine();
      std::cerr << "tessel-compile: accuracy budget: kept in fp32:";
      for (const std::string &node : returned)
        std::cerr << " " << node;
      std::cerr << "\n";
    }
  }

  tessel::format::Artifact artifact;
  if (mlir::failed(
          tessel::compileOnnxModel(context, input, options, artifact))) {
    stages.finish();
    if (!reported)
      std::cerr << "tessel-compile: error: " << input
                << ": compilation failed\n";
    return 2;
  }
  if (!writes)
    stages.finish();
  if (!options.emit.empty()) {
    std::cout << options.emitted;
    if (timings)
      stages.printTimings(std::cerr);
    return 0;
  }
  if (report) {
    stages.clearLine();
    std::cout << tessel::reportArtifact(artifact);
    if (output.empty()) {
      if (timings)
        stages.printTimings(std::cerr);
      return 0;
    }
  }
  // Target binaries (--dump-binaries) and the artifact.
  unsigned writeIndex = stages.compilerStages() + 1;
  stages.begin("write", writeIndex, writeIndex);
  std::string writeError;
  bool written = writeOutputs(artifact, output, dumpDir, writeError);
  stages.end();
  stages.finish();
  if (!written) {
    std::cerr << "tessel-compile: error: " << writeError << "\n";
    return 1;
  }
  if (timings)
    stages.printTimings(std::cerr);
  return 0;
}
