//===- Options.cpp - Command line of tessel-run ---------------------------===//
//
// Options take their value as the next argument or after '=' (--device=cuda).
// Arguments that are not options are the artifact (first) and inputs.
//
//===----------------------------------------------------------------------===//

#include "Options.h"

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
  -d, --device DEVICE    cpu (default), cuda, cuda:N, hip, hip:N
  -p, --print            print each output (name, dtype, shape, values)
  -t, --threads N        run each CPU kernel on up to N threads (default 0:
                         one per core; at most 256 are used); ignored on GPUs
      --runs N           after the first run, time N more and print the
                         median, min and max latency
      --profile          time every kernel (the device waits after each) and
                         print the time per ONNX node, largest first, and
                         the CPU thread count
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
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    std::string flag = arg, value;
    bool inlineValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        flag = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        inlineValue = true;
      }
    }
    auto takeValue = [&](std::string &dst) {
      if (inlineValue) {
        dst = value;
        return true;
      }
      if (i + 1 >= args.size()) {
        error = "option " + flag + " needs a value";
        return false;
      }
      dst = args[++i];
      return true;
    };
    auto noValue = [&] {
      if (inlineValue)
        error = "option " + flag + " takes no value";
      return !inlineValue;
    };

    if (flag == "-h" || flag == "--help") {
      if (!noValue())
        return false;
      out.help = true;
    } else if (flag == "-p" || flag == "--print") {
      if (!noValue())
        return false;
      out.print = true;
    } else if (flag == "--profile") {
      if (!noValue())
        return false;
      out.profile = true;
    } else if (flag == "-i" || flag == "--input") {
      std::string input;
      if (!takeValue(input))
        return false;
      out.inputs.push_back(input);
    } else if (flag == "-o" || flag == "--output-dir") {
      if (!takeValue(out.outputDir))
        return false;
      out.outputDirGiven = true;
    } else if (flag == "-d" || flag == "--device") {
      if (!takeValue(out.device))
        return false;
    } else if (flag == "-t" || flag == "--threads") {
      std::string text;
      if (!takeValue(text))
        return false;
      char *end = nullptr;
      unsigned long v = std::strtoul(text.c_str(), &end, 10);
      if (text.empty() || text[0] < '0' || text[0] > '9' || *end != '\0' ||
          v > 1000000) {
        error = "option " + flag + " needs a non-negative integer, got '" +
                text + "'";
        return false;
      }
      out.threads = static_cast<uint32_t>(v);
    } else if (flag == "--runs" || flag == "--rtol" || flag == "--atol") {
      std::string text;
      if (!takeValue(text))
        return false;
      char *end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(v >= 0) ||
          (flag == "--runs" && (v != static_cast<int>(v) || v > 1e6))) {
        error = "option " + flag + " needs a non-negative " +
                (flag == "--runs" ? "integer" : "number") + ", got '" + text +
                "'";
        return false;
      }
      if (flag == "--runs")
        out.runs = static_cast<int>(v);
      else
        (flag == "--rtol" ? out.rtol : out.atol) = v;
    } else if (flag == "--compare") {
      if (!takeValue(out.compareDir))
        return false;
    } else if (arg.size() > 1 && arg[0] == '-') {
      error = "unknown option '" + arg + "' (see --help)";
      return false;
    } else if (out.artifactPath.empty()) {
      out.artifactPath = arg;
    } else {
      out.inputs.push_back(arg);
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
