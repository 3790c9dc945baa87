//===- BenchTool.cpp - The tessel-bench tool as a library -----------------===//
//
// Everything is checked before the first timed run: options, the JSON file,
// the artifact, the input files and shapes, the symbols of every random
// input, the device. Then, per thread count, one session; per batch size the
// inputs are bound again (a new batch needs every input set again).
//
//===----------------------------------------------------------------------===//

#include "BenchTool.h"

#include "BenchOptions.h"
#include "StatusLine.h"
#include "io/HostTensor.h"
#include "tessel/tessel.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <random>

namespace tessel::bench {

double nearestRank(const std::vector<double> &sorted, unsigned percent) {
  uint64_t n = sorted.size();
  uint64_t rank = (uint64_t(percent) * n + 99) / 100; // ceil(p/100 * n)
  rank = std::clamp<uint64_t>(rank, 1, n);
  return sorted[rank - 1];
}

LatencyStats summarize(std::vector<double> ms) {
  LatencyStats s;
  std::sort(ms.begin(), ms.end());
  s.iterations = ms.size();
  double sum = 0;
  for (double v : ms)
    sum += v;
  s.totalSeconds = sum / 1000;
  s.minMs = ms.front();
  s.maxMs = ms.back();
  s.meanMs = sum / ms.size();
  s.p50Ms = nearestRank(ms, 50);
  s.p90Ms = nearestRank(ms, 90);
  s.p99Ms = nearestRank(ms, 99);
  return s;
}

namespace {

using Clock = std::chrono::steady_clock;

using tools::cpuThreads;
using tools::fromStatus;
using tools::InputFile;
using tools::ToolError;

std::string shapeText(const tessel_tensor_info_t &info) {
  std::string s = "[";
  for (size_t d = 0; d < info.rank; ++d) {
    if (d)
      s += ", ";
    s += info.dims[d] < 0 && info.dim_symbols[d] ? info.dim_symbols[d]
                                                 : std::to_string(info.dims[d]);
  }
  return s + "]";
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string number(double v, const char *format = "%.6g") {
  if (!std::isfinite(v))
    return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

/// A time for people: four significant digits or more, no exponent.
std::string readable(double v) {
  char buf[64];
  if (!std::isfinite(v))
    return "nan";
  if (v >= 100)
    std::snprintf(buf, sizeof(buf), "%.1f", v);
  else if (v >= 1)
    std::snprintf(buf, sizeof(buf), "%.3f", v);
  else if (v >= 0.001)
    std::snprintf(buf, sizeof(buf), "%.4f", v);
  else
    std::snprintf(buf, sizeof(buf), "%.6f", v);
  return buf;
}

/// Seeded random data for an input: floats uniform in [-1, 1), integers
/// 0..9 (0..3 for the sub-byte ones), bools 0 or 1, float8/float4 finite
/// non-negative codes.
bool randomTensor(tessel_dtype_t dtype, const std::vector<int64_t> &shape,
                  std::mt19937_64 &rng, std::vector<uint8_t> &data) {
  uint64_t count;
  size_t size = tessel_dtype_size(dtype);
  if (size == 0 || !io::checkedElementCount(shape, size, count))
    return false;
  data.assign(count * size, 0);
  uint8_t *p = data.data();
  auto put = [&](uint64_t i, auto v) { std::memcpy(p + i * size, &v, size); };
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t r = rng();
    switch (dtype) {
    case TESSEL_DTYPE_FLOAT32: // 24 random bits: exact in float
      put(i, static_cast<float>((r >> 40) * 0x1p-23 - 1.0));
      break;
    case TESSEL_DTYPE_FLOAT64:
      put(i, (r >> 11) * 0x1p-52 - 1.0);
      break;
    case TESSEL_DTYPE_BFLOAT16: { // truncation keeps |v| < 1
      float f = static_cast<float>((r >> 40) * 0x1p-23 - 1.0);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      put(i, static_cast<uint16_t>(bits >> 16));
      break;
    }
    case TESSEL_DTYPE_FLOAT16: { // k/1024 - 1 is exact (and normal) in half
      float f = static_cast<float>((r >> 53) * 0x1p-10 - 1.0);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint16_t half = static_cast<uint16_t>((bits >> 16) & 0x8000);
      if (f != 0)
        half |= static_cast<uint16_t>(
            ((((bits >> 23) & 0xff) - 127 + 15) << 10) |
            ((bits >> 13) & 0x3ff));
      put(i, half);
      break;
    }
    case TESSEL_DTYPE_BOOL:
      p[i] = static_cast<uint8_t>(r & 1);
      break;
    case TESSEL_DTYPE_INT8:
    case TESSEL_DTYPE_UINT8:
      p[i] = static_cast<uint8_t>(r % 10);
      break;
    case TESSEL_DTYPE_INT4: // values 0..3 fit every sub-byte integer
    case TESSEL_DTYPE_UINT4:
    case TESSEL_DTYPE_INT2:
    case TESSEL_DTYPE_UINT2:
      p[i] = static_cast<uint8_t>(r % 4);
      break;
    case TESSEL_DTYPE_FLOAT4E2M1: // any non-negative code
      p[i] = static_cast<uint8_t>(r % 8);
      break;
    case TESSEL_DTYPE_FLOAT8E4M3FN: // finite, non-negative codes of every
    case TESSEL_DTYPE_FLOAT8E4M3FNUZ: // float8 format
    case TESSEL_DTYPE_FLOAT8E5M2:
    case TESSEL_DTYPE_FLOAT8E5M2FNUZ:
    case TESSEL_DTYPE_FLOAT8E8M0:
      p[i] = static_cast<uint8_t>(r % 0x70);
      break;
    case TESSEL_DTYPE_INT16:
    case TESSEL_DTYPE_UINT16:
      put(i, static_cast<uint16_t>(r % 10));
      break;
    case TESSEL_DTYPE_INT32:
    case TESSEL_DTYPE_UINT32:
      put(i, static_cast<uint32_t>(r % 10));
      break;
    case TESSEL_DTYPE_INT64:
    case TESSEL_DTYPE_UINT64:
      put(i, static_cast<uint64_t>(r % 10));
      break;
    default:
      return false;
    }
  }
  return true;
}

/// An input of the model and where its data comes from.
struct Input {
  tessel_tensor_info_t info{};
  std::string name;
  bool leadingSymbolic = false; ///< rank >= 1 and dim 0 symbolic
  /// From --input: the file and its tensor.
  std::optional<io::HostTensor> file;
  std::string path;
  /// From --shape (random data).
  std::optional<std::vector<int64_t>> shape;
  std::string shapeArg;
};

/// One input as bound in a configuration.
struct Bound {
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  std::string what; ///< the file, or "input 'x' (random)"
};

/// The inputs of one batch size.
struct Config {
  std::optional<int64_t> sweep; ///< the --batch-sweep value, if any
  std::map<std::string, Bound> inputs;
  int64_t batch = 1; ///< what throughput counts
};

/// The progress line on stderr, drawn at most ten times a second.
class Progress {
public:
  Progress(std::ostream &err, bool enabled) : line(err), enabled(enabled) {}
  /// Whether show() would draw now (so that callers build the line only
  /// then).
  bool due() const {
    return enabled &&
           (!shown || Clock::now() - lastDraw >= std::chrono::milliseconds(100));
  }
  void show(const std::string &text) {
    if (!due())
      return;
    lastDraw = Clock::now();
    line.show(text);
    shown = true;
  }
  void clear() {
    line.clear();
    shown = false;
  }

private:
  tools::StatusLine line;
  bool enabled;
  bool shown = false;
  Clock::time_point lastDraw;
};

class Tool {
public:
  Tool(const Options &opts, std::ostream &out, std::ostream &err,
       bool progress)
      : opts(opts), out(out), err(err), progress(err, progress) {}
  ~Tool() { progress.clear(); }

  bool run(ToolError &error) {
    if (!loadArtifact(error) || !readInputs(error) || !readShapes(error) ||
        !checkSweep(error))
      return false;
    // Resolve every configuration's shapes before the device is opened,
    // so that a missing symbol is reported at once.
    // (Without their data: that is made for one configuration at a time.)
    std::vector<Config> configs(std::max<size_t>(1, opts.batches.size()));
    for (size_t i = 0; i < opts.batches.size(); ++i)
      configs[i].sweep = opts.batches[i];
    for (Config &config : configs)
      if (!prepare(config, /*fill=*/false, error))
        return false;
    if (!openJson(error))
      return false;
    if (Status s = Device::create(opts.device, device); !s)
      return error = fromStatus(s, "--device " + opts.device), false;
    isCpu = device.name().rfind("cpu", 0) == 0;
    std::ostream &text = opts.jsonPath == "-" ? err : out;
    text << opts.artifactPath << " on " << device.name() << " ("
         << device.description() << ")\n";
    for (uint32_t threads : opts.threads) {
      Session session;
      tessel_session_options_t options;
      tessel_session_options_init(&options);
      options.threads = threads;
      options.cpu_variant =
          opts.cpuVariant.empty() ? nullptr : opts.cpuVariant.c_str();
      if (Status s = Session::create(artifact, device, options, session); !s)
        return error = fromStatus(s, opts.artifactPath), false;
      for (Config &config : configs) {
        if (!prepare(config, /*fill=*/true, error) ||
            !measure(session, threads, config, text, error))
          return false;
        config.inputs.clear();
      }
    }
    return true;
  }

private:
  bool openJson(ToolError &error) {
    if (opts.jsonPath.empty() || opts.jsonPath == "-")
      return true;
    jsonFile.open(opts.jsonPath, std::ios::trunc);
    if (!jsonFile)
      return error = {kExitUserError, opts.jsonPath + ": cannot open for "
                                                      "writing: " +
                                          std::strerror(errno)},
             false;
    return true;
  }

  bool loadArtifact(ToolError &error) {
    if (Status s = Artifact::load(opts.artifactPath, artifact); !s)
      return error = fromStatus(s, opts.artifactPath), false;
    for (const tessel_tensor_info_t &info : artifact.inputs()) {
      Input in;
      in.info = info;
      in.name = info.name;
      in.leadingSymbolic = info.rank >= 1 && info.dims[0] < 0;
      inputs.push_back(std::move(in));
    }
    return true;
  }

  Input *find(const std::string &name) {
    for (Input &in : inputs)
      if (in.name == name)
        return &in;
    return nullptr;
  }

  std::string inputList() const {
    std::string s;
    for (const Input &in : inputs)
      s += (s.empty() ? "'" : ", '") + in.name + "' " + shapeText(in.info);
    return s.empty() ? "none" : s;
  }

  bool readInputs(ToolError &error) {
    std::vector<std::string> names;
    for (const Input &in : inputs)
      names.push_back(in.name);
    for (const std::string &arg : opts.inputs) {
      InputFile file;
      if (!tools::readInputFile(arg, names, inputList(), "--input " + arg,
                                file, error))
        return false;
      Input &in = *find(file.name);
      if (in.file)
        return error = tools::inputGivenTwice(file, in.path), false;
      if (!checkFile(in.info, file.tensor, file.path, error))
        return false;
      in.file = std::move(file.tensor);
      in.path = file.path;
    }
    return true;
  }

  /// The file's dtype, rank and static dims against the signature.
  bool checkFile(const tessel_tensor_info_t &info, const io::HostTensor &t,
                 const std::string &path, ToolError &error) {
    std::string what = path + ": input '" + info.name + "' ";
    auto dtype = static_cast<tessel_dtype_t>(t.dtype);
    if (dtype != info.dtype)
      return error = {kExitUserError, what + "is " +
                                          tessel_dtype_name(info.dtype) +
                                          ", the file holds " +
                                          tessel_dtype_name(dtype)},
             false;
    if (t.shape.size() != info.rank)
      return error = {kExitUserError,
                      what + "has rank " + std::to_string(info.rank) + " " +
                          shapeText(info) + ", the file's tensor " +
                          std::to_string(t.shape.size())},
             false;
    for (size_t d = 0; d < info.rank; ++d)
      if (info.dims[d] >= 0 && info.dims[d] != t.shape[d])
        return error = {kExitUserError,
                        what + shapeText(info) + ": dim " + std::to_string(d) +
                            " is " + std::to_string(t.shape[d]) +
                            " in the file, expected " +
                            std::to_string(info.dims[d])},
               false;
    return true;
  }

  bool readShapes(ToolError &error) {
    for (const std::string &arg : opts.shapes) {
      size_t eq = arg.find('=');
      if (eq == std::string::npos)
        return error = {kExitUserError, "--shape " + arg +
                                            ": expected NAME=D0xD1x... (e.g. "
                                            "input=8x64)"},
               false;
      std::string name = arg.substr(0, eq), dimsText = arg.substr(eq + 1);
      Input *in = find(name);
      if (!in)
        return error = {kExitUserError, "--shape " + arg + ": unknown input '" +
                                            name + "' (inputs: " +
                                            inputList() + ")"},
               false;
      std::vector<int64_t> dims;
      if (!parseShape(dimsText, dims))
        return error = {kExitUserError,
                        "--shape " + arg + ": bad shape '" + dimsText +
                            "' (expected D0xD1x..., non-negative integers, "
                            "e.g. 8x64)"},
               false;
      if (in->file)
        return error = {kExitUserError, "--shape " + arg + ": input '" + name +
                                            "' is given by a file (" +
                                            in->path + ")"},
               false;
      if (in->shape)
        return error = {kExitUserError, "--shape " + arg + ": input '" + name +
                                            "' has a shape already (--shape " +
                                            in->shapeArg + ")"},
               false;
      const tessel_tensor_info_t &info = in->info;
      if (dims.size() != info.rank)
        return error = {kExitUserError,
                        "--shape " + arg + ": input '" + name + "' has rank " +
                            std::to_string(info.rank) + " " + shapeText(info) +
                            ", not " + std::to_string(dims.size())},
               false;
      for (size_t d = 0; d < dims.size(); ++d)
        if (info.dims[d] >= 0 && info.dims[d] != dims[d])
          return error = {kExitUserError,
                          "--shape " + arg + ": dim " + std::to_string(d) +
                              " of input '" + name + "' is " +
                              std::to_string(info.dims[d]) + " " +
                              shapeText(info) + ", not " +
                              std::to_string(dims[d])},
                 false;
      in->shape = dims;
      in->shapeArg = arg;
    }
    return true;
  }

  bool checkSweep(ToolError &error) {
    if (opts.batches.empty())
      return true;
    for (const Input &in : inputs)
      if (in.leadingSymbolic)
        return true;
    return error = {kExitUserError,
                    "--batch-sweep: " + opts.artifactPath +
                        " has no input with a symbolic leading dim (inputs: " +
                        inputList() + ")"},
           false;
  }

  /// The shapes of the inputs of `config` and, when `fill`, their data.
  bool prepare(Config &config, bool fill, ToolError &error) {
    const std::optional<int64_t> &batch = config.sweep;
    std::map<std::string, Bound> &bound = config.inputs;
    bound.clear();
    // Symbols: first the sweep's, then those of files and --shape.
    std::map<std::string, int64_t> symbols;
    std::map<std::string, std::string> boundBy;
    auto bind = [&](const std::string &symbol, int64_t value,
                    const std::string &by) {
      auto [it, inserted] = symbols.emplace(symbol, value);
      if (inserted) {
        boundBy[symbol] = by;
        return true;
      }
      if (it->second == value)
        return true;
      error = {kExitUserError, by + ": symbol '" + symbol + "' is " +
                                   std::to_string(value) + " here but " +
                                   std::to_string(it->second) + " by " +
                                   boundBy[symbol]};
      return false;
    };
    if (batch)
      for (const Input &in : inputs)
        if (in.leadingSymbolic) {
          symbols.emplace(in.info.dim_symbols[0], *batch);
          boundBy.emplace(in.info.dim_symbols[0], "--batch-sweep");
        }
    for (const Input &in : inputs) {
      Bound b;
      if (in.file) {
        b.what = in.path;
        b.shape = in.file->shape;
        if (fill)
          b.data = in.file->data;
        if (batch && in.leadingSymbolic && !b.shape.empty() &&
            !repeatRows(*batch, fill, b, error))
          return false;
        for (size_t d = 0; d < in.info.rank; ++d)
          if (in.info.dims[d] < 0 && !(batch && d == 0) &&
              !bind(in.info.dim_symbols[d], b.shape[d], in.path))
            return false;
      } else if (in.shape) {
        for (size_t d = 0; d < in.info.rank; ++d)
          if (in.info.dims[d] < 0 && !(batch && d == 0 && in.leadingSymbolic) &&
              !bind(in.info.dim_symbols[d], (*in.shape)[d],
                    "--shape " + in.shapeArg))
            return false;
      }
      bound[in.name] = std::move(b);
    }
    // Random inputs: their shapes from --shape or the symbols, then data
    // from a generator seeded afresh for each configuration.
    std::mt19937_64 rng(opts.seed);
    for (const Input &in : inputs) {
      if (in.file)
        continue;
      Bound &b = bound[in.name];
      b.what = "input '" + in.name + "' (random)";
      for (size_t d = 0; d < in.info.rank; ++d) {
        int64_t extent = in.info.dims[d];
        if (in.shape && !(batch && d == 0 && in.leadingSymbolic))
          extent = (*in.shape)[d];
        else if (extent < 0) {
          auto it = symbols.find(in.info.dim_symbols[d]);
          if (it == symbols.end())
            return error = {kExitUserError,
                            "input '" + in.name + "' " + shapeText(in.info) +
                                ": symbolic dim " + std::to_string(d) + " ('" +
                                in.info.dim_symbols[d] +
                                "') has no value; give --shape " + in.name +
                                "=D0x... (or --input " + in.name +
                                "=FILE, or --batch-sweep B for a leading "
                                "dim)"},
                   false;
          extent = it->second;
        }
        b.shape.push_back(extent);
      }
      uint64_t count;
      if (!io::checkedElementCount(b.shape, tessel_dtype_size(in.info.dtype),
                                   count) ||
          (fill && !randomTensor(in.info.dtype, b.shape, rng, b.data)))
        return error = {kExitUserError,
                        "input '" + in.name + "': cannot make random " +
                            tessel_dtype_name(in.info.dtype) +
                            " data of this shape"},
               false;
    }
    // The batch: the leading dim of the first input whose leading dim is
    // symbolic; 1 without one.
    config.batch = 1;
    for (const Input &in : inputs)
      if (in.leadingSymbolic && !bound[in.name].shape.empty()) {
        config.batch = bound[in.name].shape[0];
        break;
      }
    return true;
  }

  /// Repeats the rows of a file input cyclically to `batch` rows.
  static bool repeatRows(int64_t batch, bool fill, Bound &b,
                         ToolError &error) {
    int64_t rows = b.shape[0];
    if (rows == 0)
      return error = {kExitUserError,
                      b.what + ": has no rows to repeat for --batch-sweep"},
             false;
    b.shape[0] = batch;
    if (!fill)
      return true;
    size_t rowBytes = b.data.size() / static_cast<size_t>(rows);
    std::vector<uint8_t> data(rowBytes * static_cast<size_t>(batch));
    for (int64_t r = 0; r < batch; ++r)
      std::memcpy(data.data() + r * rowBytes,
                  b.data.data() + (r % rows) * rowBytes, rowBytes);
    b.data = std::move(data);
    return true;
  }

  bool measure(Session &session, uint32_t threads, Config &config,
               std::ostream &text, ToolError &error) {
    for (const Input &in : inputs) {
      const Bound &b = config.inputs[in.name];
      if (Status s = session.setInput(in.name, in.info.dtype, b.shape,
                                      b.data.data(), b.data.size());
          !s)
        return error = fromStatus(s, b.what), false;
    }
    int64_t batch = config.batch;
    uint32_t usedThreads = isCpu ? cpuThreads(threads) : threads;
    std::string binary = session.target();
    char head[300];
    std::snprintf(head, sizeof(head), "batch %lld, threads %u, %s (%s)",
                  static_cast<long long>(batch), usedThreads,
                  device.name().c_str(), binary.c_str());

    for (uint64_t i = 0; i < opts.warmup; ++i) {
      if (progress.due())
        progress.show(std::string(head) + ": warmup " + std::to_string(i + 1) +
                    "/" + std::to_string(opts.warmup));
      if (Status s = session.run(); !s)
        return error = fromStatus(s, opts.artifactPath), false;
    }
    std::vector<double> ms;
    double totalMs = 0;
    bool timed = opts.seconds > 0;
    while (timed ? ms.empty() || totalMs < opts.seconds * 1000
                 : ms.size() < opts.iterations) {
      Clock::time_point start = Clock::now();
      Status s = session.run();
      double t = std::chrono::duration<double, std::milli>(Clock::now() -
                                                           start)
                     .count();
      if (!s)
        return error = fromStatus(s, opts.artifactPath), false;
      ms.push_back(t);
      totalMs += t;
      if (!progress.due())
        continue;
      char line[160];
      if (timed)
        std::snprintf(line, sizeof(line), ": %.1f/%.1f s, %zu iterations",
                      totalMs / 1000, opts.seconds, ms.size());
      else
        std::snprintf(line, sizeof(line), ": %zu/%llu iterations", ms.size(),
                      static_cast<unsigned long long>(opts.iterations));
      progress.show(head + std::string(line) + ", mean " +
                    readable(totalMs / ms.size()) + " ms");
    }
    progress.clear();

    LatencyStats st = summarize(ms);
    double throughput =
        st.totalSeconds > 0 ? batch * st.iterations / st.totalSeconds : 0;
    char tput[64];
    std::snprintf(tput, sizeof(tput), "%.1f", throughput);
    text << head << ": " << st.iterations << " iterations in "
         << readable(st.totalSeconds) << " s\n"
         << "  latency ms: min " << readable(st.minMs) << " mean "
         << readable(st.meanMs) << " p50 " << readable(st.p50Ms) << " p90 "
         << readable(st.p90Ms) << " p99 " << readable(st.p99Ms) << " max "
         << readable(st.maxMs) << "\n"
         << "  throughput: " << tput << " inferences/s\n"
         << std::flush;

    if (opts.jsonPath.empty())
      return true;
    std::string json =
        "{\"model\": " + jsonString(opts.artifactPath) +
        ", \"device\": " + jsonString(device.name()) +
        ", \"binary\": " + jsonString(binary) +
        ", \"batch\": " + std::to_string(batch) +
        ", \"threads\": " + std::to_string(usedThreads) +
        ", \"warmup\": " + std::to_string(opts.warmup) +
        ", \"iterations\": " + std::to_string(st.iterations) +
        ", \"total_s\": " + number(st.totalSeconds) +
        ", \"min_ms\": " + number(st.minMs) +
        ", \"mean_ms\": " + number(st.meanMs) +
        ", \"p50_ms\": " + number(st.p50Ms) +
        ", \"p90_ms\": " + number(st.p90Ms) +
        ", \"p99_ms\": " + number(st.p99Ms) +
        ", \"max_ms\": " + number(st.maxMs) +
        ", \"throughput_per_s\": " + number(throughput) + "}\n";
    std::ostream &sink = opts.jsonPath == "-" ? out : jsonFile;
    sink << json << std::flush;
    if (!sink)
      return error = {kExitUserError, (opts.jsonPath == "-"
                                           ? std::string("stdout")
                                           : opts.jsonPath) +
                                          ": cannot write the JSON results"},
             false;
    return true;
  }

  const Options &opts;
  std::ostream &out, &err;
  Progress progress;
  std::ofstream jsonFile;
  Artifact artifact;
  Device device;
  bool isCpu = true;
  std::vector<Input> inputs;
};

} // namespace

int benchTool(const std::vector<std::string> &args, std::ostream &out,
              std::ostream &err, bool progress) {
  return tools::runReporting("tessel-bench", err, [&](ToolError &error) {
    Options opts;
    if (!parseOptions(args, opts, error.message)) // a usage error: exit 2
      return false;
    if (opts.help)
      return out << usageText(), true;
    return Tool(opts, out, err, progress).run(error);
  });
}

} // namespace tessel::bench
