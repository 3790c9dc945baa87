//===- BenchOptions.cpp - Command line of tessel-bench --------------------===//
//
// Options take their value as the next argument or after '='
// (--iterations=5). Arguments that are not options are the artifact (first)
// and inputs, as for tessel-run.
//
//===----------------------------------------------------------------------===//

#include "BenchOptions.h"

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
  -d, --device DEVICE    cpu (default), cuda, cuda:N, hip, hip:N
  -t, --threads N[,N...] run each CPU kernel on up to N threads (default 0:
                         one per core; at most 256 are used); a list measures
                         each count in turn; ignored on GPUs
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
    batch 4, threads 2, cpu: 100 iterations in 0.53 s
      latency ms: min 5.101 mean 5.302 p50 5.200 p90 5.600 p99 6.012 max 6.100
      throughput: 754.4 inferences/s
  Throughput counts batch items: batch * iterations / timed seconds. The
  batch is the leading dim of the first input whose leading dim is symbolic,
  1 for models without one. On a terminal a progress line on stderr shows the
  current configuration (rewritten in place, cleared when it ends).
      --json FILE|-      also write one JSON object per configuration, one per
                         line, to FILE, or with '-' to stdout (the text above
                         then goes to stderr, so stdout holds JSON only); keys:
                         model, device, batch, threads, warmup, iterations,
                         total_s, min_ms, mean_ms, p50_ms, p90_ms, p99_ms,
                         max_ms, throughput_per_s ("threads" is the number a
                         CPU launch uses, after the default and the cap)
  -h, --help             show this help

Exit status: 0 success, 2 bad input (arguments, files, shapes, artifact,
device), 1 internal error.
)";
}

namespace {

bool parseUnsigned(const std::string &text, uint64_t max, uint64_t &value) {
  if (text.empty() || text.size() > 19)
    return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > max)
    return false;
  value = v;
  return true;
}

/// "A,B,C" of integers in [min, max].
bool parseList(const std::string &text, uint64_t min, uint64_t max,
               std::vector<uint64_t> &values) {
  values.clear();
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start);
    uint64_t v;
    if (!parseUnsigned(item, max, v) || v < min)
      return false;
    values.push_back(v);
    if (comma == std::string::npos)
      return true;
    start = comma + 1;
  }
}

} // namespace

bool parseShape(const std::string &text, std::vector<int64_t> &dims) {
  dims.clear();
  size_t start = 0;
  while (true) {
    size_t x = text.find('x', start);
    std::string item = text.substr(
        start, x == std::string::npos ? std::string::npos : x - start);
    uint64_t v;
    if (!parseUnsigned(item, uint64_t(1) << 40, v))
      return false;
    dims.push_back(static_cast<int64_t>(v));
    if (x == std::string::npos)
      return true;
    start = x + 1;
  }
}

bool parseOptions(const std::vector<std::string> &args, Options &out,
                  std::string &error) {
  out = Options();
  bool timeGiven = false;
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
    auto bad = [&](const std::string &text, const char *what) {
      error = "option " + flag + " needs " + what + ", got '" + text + "'";
      return false;
    };

    if (flag == "-h" || flag == "--help") {
      if (!noValue())
        return false;
      out.help = true;
    } else if (flag == "-i" || flag == "--input") {
      std::string v;
      if (!takeValue(v))
        return false;
      out.inputs.push_back(v);
    } else if (flag == "-s" || flag == "--shape") {
      std::string v;
      if (!takeValue(v))
        return false;
      out.shapes.push_back(v);
    } else if (flag == "-d" || flag == "--device") {
      if (!takeValue(out.device))
        return false;
      if (out.device.empty())
        return bad(out.device, "a device (cpu, cuda, cuda:N, hip, hip:N)");
    } else if (flag == "-t" || flag == "--threads") {
      std::string v;
      std::vector<uint64_t> list;
      if (!takeValue(v))
        return false;
      if (!parseList(v, 0, 1000000, list))
        return bad(v, "a non-negative integer or a list N,N,...");
      out.threads.assign(list.begin(), list.end());
    } else if (flag == "-b" || flag == "--batch-sweep") {
      std::string v;
      std::vector<uint64_t> list;
      if (!takeValue(v))
        return false;
      if (!parseList(v, 1, uint64_t(1) << 32, list))
        return bad(v, "a list of positive integers B,B,...");
      out.batches.assign(list.begin(), list.end());
    } else if (flag == "-w" || flag == "--warmup") {
      std::string v;
      if (!takeValue(v))
        return false;
      if (!parseUnsigned(v, 100000000, out.warmup))
        return bad(v, "a non-negative integer");
    } else if (flag == "-n" || flag == "--iterations") {
      std::string v;
      if (!takeValue(v))
        return false;
      if (!parseUnsigned(v, 100000000, out.iterations) || out.iterations == 0)
        return bad(v, "a positive integer");
      out.iterationsGiven = true;
    } else if (flag == "--time") {
      std::string v;
      if (!takeValue(v))
        return false;
      char *end = nullptr;
      double s = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !std::isfinite(s) || !(s > 0) ||
          s > 1e7)
        return bad(v, "a positive number of seconds");
      out.seconds = s;
      timeGiven = true;
    } else if (flag == "--seed") {
      std::string v;
      if (!takeValue(v))
        return false;
      if (!parseUnsigned(v, UINT64_MAX / 10, out.seed))
        return bad(v, "a non-negative integer");
    } else if (flag == "--json") {
      if (!takeValue(out.jsonPath))
        return false;
      if (out.jsonPath.empty())
        return bad(out.jsonPath, "a file or '-'");
    } else if (arg.size() > 1 && arg[0] == '-') {
      error = "unknown option '" + arg + "' (see --help)";
      return false;
    } else if (out.artifactPath.empty()) {
      out.artifactPath = arg;
    } else {
      out.inputs.push_back(arg);
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
