//===- tessel-compile.cpp - Compile an ONNX model into a .tsl artifact ----===//
//
// tessel-compile MODEL.onnx -o OUT.tsl [--target T]... [--mcpu CPU]
// tessel-compile --list-ops
// tessel-compile --check-supported MODEL.onnx...
//
// A thin main over tessel::compileOnnxModel (and, for the two queries, the
// frontend's op registry and importer). Errors print one line,
// "tessel-compile: error: <file>: node '<n>' (<op>): <message>", and exit 2;
// the output file is written to a temporary name and renamed, so a failed
// compile never leaves a partial artifact.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compile.h"
#include "compiler/Registration.h"
#include "compiler/Report.h"
#include "dialects/Graph/TesselDialect.h"
#include "frontend/onnx/Importer.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

static const char *kUsage =
    "usage: tessel-compile MODEL.onnx -o OUT.tsl [--target TARGET]... "
    "[--mcpu CPU]\n"
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
    "                     rocm:gfx942; repeat for several targets in one file\n"
    "  --mcpu CPU         x86-64 CPU for the cpu target (default x86-64-v3,\n"
    "                     i.e. AVX2 + FMA; x86-64-v2 for older CPUs, 'native'\n"
    "                     for this machine)\n"
    "  --emit STAGE       print the IR after STAGE instead of writing an\n"
    "                     artifact: graph, graph-opt, plan, kernels, linalg,\n"
    "                     pipeline (each target's lowering passes), llvm\n"
    "  --report           print each dispatch (its ONNX nodes, its kernel\n"
    "                     launches) and the memory plan of the transients;\n"
    "                     with -o, also write the artifact\n"
    "  --dump-binaries DIR\n"
    "                     also write each target's code to DIR/<target>.so,\n"
    "                     .ptx or .hsaco (':' in the target becomes '_')\n"
    "  --cpu-gpu-tiles    test aid: the cpu target takes the workgroup tiles\n"
    "                     a GPU target would choose, so that the GPU's tiling\n"
    "                     and fusion are checked numerically on the CPU\n"
    "  -h, --help         this text\n";

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

int main(int argc, char **argv) {
  std::string input, output, dumpDir;
  bool report = false;
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
    } else if (arg == "--cpu-gpu-tiles") {
      options.cpuWithGpuTiles = true;
    } else if (arg == "--mcpu") {
      if (!value(options.cpu))
        return usageError("--mcpu needs a value");
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
    std::cerr << "tessel-compile: error: " << errorText(d) << "\n";
    return mlir::success();
  });

  tessel::format::Artifact artifact;
  if (mlir::failed(
          tessel::compileOnnxModel(context, input, options, artifact))) {
    if (!reported)
      std::cerr << "tessel-compile: error: " << input
                << ": compilation failed\n";
    return 2;
  }
  if (!options.emit.empty()) {
    std::cout << options.emitted;
    return 0;
  }
  if (report) {
    std::cout << tessel::reportArtifact(artifact);
    if (output.empty())
      return 0;
  }
  if (!dumpDir.empty())
    for (const tessel::format::TargetBinary &b : artifact.binaries) {
      std::string name = b.target;
      std::replace(name.begin(), name.end(), ':', '_');
      const char *ext =
          b.format == tessel::format::TargetBinary::Format::Ptx     ? ".ptx"
          : b.format == tessel::format::TargetBinary::Format::Hsaco ? ".hsaco"
                                                                    : ".so";
      std::ofstream out(dumpDir + "/" + name + ext, std::ios::binary);
      out.write(reinterpret_cast<const char *>(b.bytes.data()), b.bytes.size());
      if (!out) {
        std::cerr << "tessel-compile: error: " << dumpDir
                  << ": cannot write the target binaries\n";
        return 1;
      }
    }
  std::vector<uint8_t> bytes = tessel::format::serialize(artifact);
  std::string temp = output + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    if (!out) {
      std::remove(temp.c_str());
      std::cerr << "tessel-compile: error: " << output
                << ": cannot write the artifact\n";
      return 1;
    }
  }
  if (std::rename(temp.c_str(), output.c_str()) != 0) {
    std::remove(temp.c_str());
    std::cerr << "tessel-compile: error: " << output << ": "
              << std::strerror(errno) << "\n";
    return 1;
  }
  return 0;
}
