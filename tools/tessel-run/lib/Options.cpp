//===- Options.cpp - Command line of tessel-run ---------------------------===//
//
// Options take their value as the next argument or after '=' (--device=cuda).
// Arguments that are not options are the artifact (first) and inputs.
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "ToolSupport.h"

#include <cstdlib>

namespace tessel::run {

const char *usageText() {
  return R"(usage: tessel-run MODEL.tsl [--input NAME=FILE]... [options]

Runs a compiled Tessel artifact on the given inputs.

  -i, --input NAME=FILE  bind input NAME to FILE (.npy, or .pb holding an ONNX
                         TensorProto); "--input FILE" (or just FILE) takes the
                         name from the TensorProto, else from the file stem
  -o, --output-dir DIR   write NAME.npy for each output into DIR (created if
                         needed); output names are made file-safe: characters
                         other than A-Z a-z 0-9 . _ - become '_'
  -d, --device DEVICE    cpu (default), cuda, cuda:N, hip, hip:N, vulkan,
                         vulkan:N
  -p, --print            print each output (name, dtype, shape, values)
  -t, --threads N        run each CPU kernel on up to N threads (default 0:
                         one per core; at most 256 are used); ignored on GPUs
      --cpu-variant NAME the artifact's CPU binary to run (cpu:x86-64-v3, or
                         x86-64-v3; default: the best this CPU supports)
      --max-loop-iterations N
                         fail a run whose ONNX Loop takes more than N
                         iterations (default 10000000)
      --runs N           after the first run, time N more and print the
                         median, min and max latency
      --profile          time every kernel (the device waits after each) and
                         print the time per ONNX node, largest first, the
                         binary that ran (which CPU variant) and the CPU
                         thread count
      --compare DIR      compare each output with DIR/<output>.npy (as
                         written by --output-dir) and print the errors
      --rtol R, --atol A tolerances of --compare for floats (default 1e-3,
                         1e-5: |out - ref| <= atol + rtol * |ref|)
  -h, --help             show this help

Outputs go to the current directory unless --print or --compare is given
without --output-dir, which only print. Files are written only after a successful
run (through temporary names), so a failed run leaves no partial output.
bfloat16 outputs are written as float32 (numpy has no bfloat16).

Exit status: 0 success, 2 bad input (arguments, files, shapes, artifact,
device), 3 outputs differ from --compare, 1 internal error.
)";
}

bool parseOptions(const std::vector<std::string> &args, Options &out,
                  std::string &error) {
  out = Options();
  tools::OptionCursor arg(args, error);
  while (arg.next()) {
    if (arg.is("-h", "--help")) {
      if (!arg.takeFlag(out.help))
        return false;
    } else if (arg.is("-p", "--print")) {
      if (!arg.takeFlag(out.print))
        return false;
    } else if (arg.is("--profile")) {
      if (!arg.takeFlag(out.profile))
        return false;
    } else if (arg.is("-i", "--input")) {
      if (!arg.appendValue(out.inputs))
        return false;
    } else if (arg.is("-o", "--output-dir")) {
      if (!arg.takeValue(out.outputDir))
        return false;
      out.outputDirGiven = true;
    } else if (arg.is("-d", "--device")) {
      if (!arg.takeValue(out.device))
        return false;
    } else if (arg.is("-t", "--threads")) {
      std::string text;
      uint64_t v;
      if (!arg.takeValue(text))
        return false;
      if (!tools::parseUnsigned(text, 1000000, v))
        return arg.invalid(text, "a non-negative integer");
      out.threads = static_cast<uint32_t>(v);
    } else if (arg.is("--cpu-variant")) {
      if (!arg.takeValue(out.cpuVariant))
        return false;
    } else if (arg.is("--max-loop-iterations")) {
      std::string text;
      if (!arg.takeValue(text))
        return false;
      if (!tools::parseUnsigned(text, UINT64_MAX, out.maxLoopIterations) ||
          out.maxLoopIterations == 0)
        return arg.invalid(text, "a positive integer");
    } else if (arg.is("--runs") || arg.is("--rtol") || arg.is("--atol")) {
      bool runs = arg.is("--runs");
      std::string text;
      if (!arg.takeValue(text))
        return false;
      char *end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(v >= 0) ||
          (runs && (v > 1e6 || v != static_cast<int>(v))))
        return arg.invalid(text, runs ? "a non-negative integer"
                                      : "a non-negative number");
      if (runs)
        out.runs = static_cast<int>(v);
      else
        (arg.is("--rtol") ? out.rtol : out.atol) = v;
    } else if (arg.is("--compare")) {
      if (!arg.takeValue(out.compareDir))
        return false;
    } else if (!arg.positional(out.artifactPath, out.inputs)) {
      return false;
    }
  }
  if (!out.help && out.artifactPath.empty()) {
    error = "no artifact given (usage: tessel-run MODEL.tsl --input NAME=FILE "
            "...; see --help)";
    return false;
  }
  if (out.outputDirGiven && out.outputDir.empty()) {
    error = "--output-dir is empty";
    return false;
  }
  return true;
}

} // namespace tessel::run
