//===- BenchOptions.cpp - Command line of tessel-bench --------------------===//
//
// Options take their value as the next argument or after '='
// (--iterations=5). Arguments that are not options are the artifact (first)
// and inputs, as for tessel-run.
//
//===----------------------------------------------------------------------===//

#include "BenchOptions.h"

#include "ToolSupport.h"

#include <cmath>
#include <cstdlib>

namespace tessel::bench {

const char *usageText() {
  return R"(usage: tessel-bench MODEL.tsl [--input NAME=FILE]... [--shape NAME=D0xD1...]...
                    [options]

Measures the latency and throughput of a compiled Tessel artifact.

Inputs
  -i, --input NAME=FILE  bind input NAME to FILE (.npy, or .pb holding an ONNX
                         TensorProto); "--input FILE" takes the name from the
                         TensorProto, else from the file stem
  -s, --shape NAME=D0xD1x...
                         the shape of input NAME when it is not given by a
                         file (e.g. --shape input=8x64); needed for inputs
                         with symbolic dims whose symbols no other input binds
      --seed N           seed of the random inputs (default 0)
  Inputs not given by --input get random data, the same for the same seed and
  shape: floats uniform in [-1, 1), integers 0..9, bools 0 or 1. Integer inputs
  that hold indices or shapes may need a file instead (random values can be
  out of range for them).

Configurations (one result per thread count and batch size)
  -d, --device DEVICE    cpu (default), cuda, cuda:N, hip, hip:N, vulkan,
                         vulkan:N
  -t, --threads N[,N...] run each CPU kernel on up to N threads (default 0:
                         one per core; at most 256 are used); a list measures
                         each count in turn; ignored on GPUs
      --cpu-variant NAME the artifact's CPU binary to run (cpu:x86-64-v3, or
                         x86-64-v3; default: the best this CPU supports)
  -b, --batch-sweep B[,B...]
                         measure each batch size B in turn: the leading dim of
                         every input whose leading dim is symbolic is set to
                         B (random inputs are drawn at that size; the rows of
                         a file input are repeated cyclically to B rows); an
                         error for a model without a symbolic leading dim

Timing
  -w, --warmup N         untimed runs before the timed ones (default 10)
  -n, --iterations N     timed runs per configuration (default 100)
      --time SECONDS     timed runs until their times add up to SECONDS (at
                         least one run); excludes --iterations
  Each run is timed with a steady clock around tessel_session_run, which
  returns when the device is done. Percentiles are nearest-rank: pP is the
  ceil(P/100 * n)-th smallest of the n latencies.

Output
  For each configuration, to stdout:
    batch 4, threads 2, cpu (cpu:x86-64-v3): 100 iterations in 0.53 s
      latency ms: min 5.101 mean 5.302 p50 5.200 p90 5.600 p99 6.012 max 6.100
      throughput: 754.4 inferences/s
  Throughput counts batch items: batch * iterations / timed seconds. The
  batch is the leading dim of the first input whose leading dim is symbolic,
  1 for models without one. The binary in parentheses is the one the session
  runs: for the CPU, which of the artifact's CPU variants. On a terminal a progress line on stderr shows the
  current configuration (rewritten in place, cleared when it ends).
      --json FILE|-      also write one JSON object per configuration, one per
                         line, to FILE, or with '-' to stdout (the text above
                         then goes to stderr, so stdout holds JSON only); keys:
                         model, device, binary, batch, threads, warmup,
                         iterations,
                         total_s, min_ms, mean_ms, p50_ms, p90_ms, p99_ms,
                         max_ms, throughput_per_s ("threads" is the number a
                         CPU launch uses, after the default and the cap)
  -h, --help             show this help

Exit status: 0 success, 2 bad input (arguments, files, shapes, artifact,
device), 1 internal error.
)";
}

namespace {

using tools::parseUnsigned;

/// "A,B,C" (with `separator` ',') of integers in [min, max].
bool parseList(const std::string &text, char separator, uint64_t min,
               uint64_t max, std::vector<uint64_t> &values) {
  values.clear();
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    std::string item = text.substr(
        start, end == std::string::npos ? std::string::npos : end - start);
    uint64_t v;
    if (!parseUnsigned(item, max, v) || v < min)
      return false;
    values.push_back(v);
    if (end == std::string::npos)
      return true;
    start = end + 1;
  }
}

} // namespace

bool parseShape(const std::string &text, std::vector<int64_t> &dims) {
  std::vector<uint64_t> values;
  if (!parseList(text, 'x', 0, uint64_t(1) << 40, values))
    return false;
  dims.assign(values.begin(), values.end());
  return true;
}

bool parseOptions(const std::vector<std::string> &args, Options &out,
                  std::string &error) {
  out = Options();
  bool timeGiven = false;
  tools::OptionCursor arg(args, error);
  while (arg.next()) {
    if (arg.is("-h", "--help")) {
      if (!arg.takeFlag(out.help))
        return false;
    } else if (arg.is("-i", "--input")) {
      if (!arg.appendValue(out.inputs))
        return false;
    } else if (arg.is("-s", "--shape")) {
      if (!arg.appendValue(out.shapes))
        return false;
    } else if (arg.is("-d", "--device")) {
      if (!arg.takeValue(out.device))
        return false;
      if (out.device.empty())
        return arg.invalid(out.device,
                           "a device (cpu, cuda, cuda:N, hip, hip:N)");
    } else if (arg.is("--cpu-variant")) {
      if (!arg.takeValue(out.cpuVariant))
        return false;
    } else if (arg.is("-t", "--threads")) {
      std::string v;
      std::vector<uint64_t> list;
      if (!arg.takeValue(v))
        return false;
      if (!parseList(v, ',', 0, 1000000, list))
        return arg.invalid(v, "a non-negative integer or a list N,N,...");
      out.threads.assign(list.begin(), list.end());
    } else if (arg.is("-b", "--batch-sweep")) {
      std::string v;
      std::vector<uint64_t> list;
      if (!arg.takeValue(v))
        return false;
      if (!parseList(v, ',', 1, uint64_t(1) << 32, list))
        return arg.invalid(v, "a list of positive integers B,B,...");
      out.batches.assign(list.begin(), list.end());
    } else if (arg.is("-w", "--warmup")) {
      std::string v;
      if (!arg.takeValue(v))
        return false;
      if (!parseUnsigned(v, 100000000, out.warmup))
        return arg.invalid(v, "a non-negative integer");
    } else if (arg.is("-n", "--iterations")) {
      std::string v;
      if (!arg.takeValue(v))
        return false;
      if (!parseUnsigned(v, 100000000, out.iterations) || out.iterations == 0)
        return arg.invalid(v, "a positive integer");
      out.iterationsGiven = true;
    } else if (arg.is("--time")) {
      std::string v;
      if (!arg.takeValue(v))
        return false;
      char *end = nullptr;
      double s = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !std::isfinite(s) || !(s > 0) ||
          s > 1e7)
        return arg.invalid(v, "a positive number of seconds");
      out.seconds = s;
      timeGiven = true;
    } else if (arg.is("--seed")) {
      std::string v;
      if (!arg.takeValue(v))
        return false;
      if (!parseUnsigned(v, UINT64_MAX / 10, out.seed))
        return arg.invalid(v, "a non-negative integer");
    } else if (arg.is("--json")) {
      if (!arg.takeValue(out.jsonPath))
        return false;
      if (out.jsonPath.empty())
        return arg.invalid(out.jsonPath, "a file or '-'");
    } else if (!arg.positional(out.artifactPath, out.inputs)) {
      return false;
    }
  }
  if (out.help)
    return true;
  if (timeGiven && out.iterationsGiven) {
    error = "--time and --iterations exclude each other";
    return false;
  }
  if (out.artifactPath.empty()) {
    error = "no artifact given (usage: tessel-bench MODEL.tsl [--input "
            "NAME=FILE]...; see --help)";
    return false;
  }
  return true;
}

} // namespace tessel::bench
