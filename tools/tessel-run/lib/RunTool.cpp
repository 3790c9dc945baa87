//===- RunTool.cpp - The tessel-run tool as a library ---------------------===//
//
// The steps run in an order that validates everything before writing
// anything: options, artifact, input files, device, session, input binding,
// run, output read-back, and only then the output files (all or none).
//
//===----------------------------------------------------------------------===//

#include "RunTool.h"

#include "Compare.h"
#include "Options.h"
#include "OutputWriter.h"
#include "TensorPrinter.h"
#include "io/HostTensor.h"
#include "io/Npy.h"
#include "tessel/tessel.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>

namespace tessel::run {

namespace {

using tools::cpuThreads;
using tools::fromStatus;
using tools::InputFile;
using tools::ToolError;

/// Kernel times of profiled runs, summed per ONNX node (a node's kernel may
/// have several stages).
class Profile {
public:
  void add(const std::vector<tessel_launch_time_t> &launches) {
    for (const tessel_launch_time_t &l : launches) {
      std::string key = std::string(l.onnx_node) + "\t" + l.onnx_op;
      auto [it, inserted] = index.emplace(key, nodes.size());
      if (inserted)
        nodes.push_back({l.onnx_node, l.onnx_op, 0, 0});
      nodes[it->second].ms += l.milliseconds;
      ++nodes[it->second].launches;
    }
  }
  void print(std::ostream &os, int runs) const {
    std::vector<Node> sorted = nodes;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const Node &a, const Node &b) { return a.ms > b.ms; });
    double total = 0;
    for (const Node &n : sorted)
      total += n.ms;
    os << "profile: " << runs << (runs == 1 ? " run" : " runs")
       << ", ms per run by ONNX node (kernels summed over their stages)\n";
    char line[64];
    for (const Node &n : sorted) {
      // The names unbounded (a fused kernel's list of nodes is long).
      std::snprintf(line, sizeof(line), "  %10.3f ms %5.1f%%  ", n.ms / runs,
                    total > 0 ? 100 * n.ms / total : 0.0);
      os << line << n.node << " (" << n.op << ")\n";
    }
    std::snprintf(line, sizeof(line), "  %10.3f ms total in %zu kernels\n",
                  total / runs, launchesPerRun(runs));
    os << line;
  }

private:
  struct Node {
    std::string node, op;
    double ms;
    size_t launches;
  };
  size_t launchesPerRun(int runs) const {
    size_t n = 0;
    for (const Node &node : nodes)
      n += node.launches;
    return runs ? n / runs : n;
  }
  std::vector<Node> nodes;
  std::map<std::string, size_t> index;
};

struct BoundInput {
  std::string path;
  io::HostTensor tensor;
};

class Tool {
public:
  Tool(std::ostream &out) : out(out) {}

  bool run(const Options &opts, ToolError &error) {
    return loadArtifact(opts, error) && readInputs(opts, error) &&
           openSession(opts, error) && bindInputs(error) &&
           execute(opts, error) && collectOutputs(error) &&
           compare(opts, error) && emit(opts, error);
  }

private:
  bool loadArtifact(const Options &opts, ToolError &error) {
    artifactPath = opts.artifactPath;
    if (Status s = Artifact::load(artifactPath, artifact); !s)
      return error = fromStatus(s, artifactPath), false;
    for (const tessel_tensor_info_t &info : artifact.inputs())
      inputNames.push_back(info.name);
    return true;
  }

  std::string inputList() const {
    std::string s;
    for (const std::string &n : inputNames)
      s += (s.empty() ? "'" : ", '") + n + "'";
    return s.empty() ? "none" : s;
  }

  bool readInputs(const Options &opts, ToolError &error) {
    for (const std::string &arg : opts.inputs) {
      InputFile file;
      if (!tools::readInputFile(arg, inputNames, inputList(), artifactPath,
                                file, error))
        return false;
      if (inputs.count(file.name))
        return error = tools::inputGivenTwice(file, inputs[file.name].path),
               false;
      inputs[file.name] = {file.path, std::move(file.tensor)};
    }
    for (const std::string &name : inputNames)
      if (!inputs.count(name))
        return error = {kExitUserError, artifactPath + ": missing input '" +
                                            name + "' (give --input " + name +
                                            "=FILE)"},
               false;
    return true;
  }

  bool openSession(const Options &opts, ToolError &error) {
    if (Status s = Device::create(opts.device, device); !s)
      return error = fromStatus(s, "--device " + opts.device), false;
    tessel_session_options_t options;
    tessel_session_options_init(&options);
    options.threads = opts.threads;
    options.max_loop_iterations = opts.maxLoopIterations;
    options.cpu_variant =
        opts.cpuVariant.empty() ? nullptr : opts.cpuVariant.c_str();
    if (Status s = Session::create(artifact, device, options, session); !s)
      return error = fromStatus(s, artifactPath), false;
    return true;
  }

  bool bindInputs(ToolError &error) {
    for (auto &[name, input] : inputs) {
      const io::HostTensor &t = input.tensor;
      if (Status s =
              session.setInput(name, static_cast<tessel_dtype_t>(t.dtype),
                               t.shape, t.data.data(), t.data.size());
          !s)
        return error = fromStatus(s, input.path), false;
    }
    return true;
  }

  void printMemory(const tessel_memory_stats_t &m) {
    if (m.planned_buffers == 0) {
      out << "memory: no arena (the plan has control flow, or no "
             "intermediate tensors)\n";
      return;
    }
    auto mib = [](uint64_t bytes) { return bytes / (1024.0 * 1024.0); };
    char line[200];
    std::snprintf(line, sizeof(line),
                  "memory: %llu transient buffers in a %.2f MiB arena (one "
                  "allocation each: %.2f MiB; most live at one launch: "
                  "%.2f MiB)\n",
                  static_cast<unsigned long long>(m.planned_buffers),
                  mib(m.arena_bytes), mib(m.sum_bytes),
                  mib(m.peak_live_bytes));
    out << line;
  }

  bool execute(const Options &opts, ToolError &error) {
    if (Status s = session.run(); !s)
      return error = fromStatus(s, artifactPath), false;
    if (opts.runs == 0 && !opts.profile)
      return true;
    // The first run warmed up (module load, allocation); time the rest.
    if (opts.profile)
      if (Status s = session.setProfiling(true); !s)
        return error = fromStatus(s, artifactPath), false;
    std::vector<double> ms;
    Profile profile;
    for (int i = 0; i < std::max(opts.runs, 1); ++i) {
      auto start = std::chrono::steady_clock::now();
      if (Status s = session.run(); !s)
        return error = fromStatus(s, artifactPath), false;
      ms.push_back(std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count());
      profile.add(session.profile());
    }
    if (opts.profile) {
      profile.print(out, static_cast<int>(ms.size()));
      printMemory(session.memoryStats());
      out << "binary: " << session.target() << "\n";
      if (device.name().rfind("cpu", 0) == 0)
        out << "threads: " << cpuThreads(opts.threads)
            << " per CPU launch\n";
    }
    if (opts.runs == 0)
      return true;
    std::sort(ms.begin(), ms.end());
    out << "timing: " << opts.runs << " runs on " << opts.device << ": median "
        << ms[ms.size() / 2] << " ms, min " << ms.front() << " ms, max "
        << ms.back() << " ms\n";
    return true;
  }

  bool compare(const Options &opts, ToolError &error) {
    if (opts.compareDir.empty())
      return true;
    std::vector<std::string> names;
    for (const io::HostTensor &t : outputs)
      names.push_back(t.name);
    std::vector<std::string> stems = uniqueFileStems(names);
    bool allOk = true;
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string path = opts.compareDir + "/" + stems[i] + ".npy";
      io::HostTensor reference;
      std::string message;
      if (!io::readNpyFile(path, reference, message))
        return error = {kExitUserError, message}, false;
      Comparison c =
          compareTensors(reference, forNpy(outputs[i]), opts.rtol, opts.atol);
      out << "compare: " << outputs[i].name << ": ";
      if (!c.problem.empty())
        out << c.problem;
      else
        out << "max abs error " << c.maxAbsError << ", max rel error "
            << c.maxRelError << ", " << c.mismatches << " of "
            << outputs[i].elementCount() << " outside tolerance";
      out << (c.ok ? " (ok)" : " (DIFFERS)") << "\n";
      allOk &= c.ok;
    }
    if (!allOk)
      return error = {kExitOutputsDiffer,
                      "outputs differ from the reference in " +
                          opts.compareDir},
             false;
    return true;
  }

  bool collectOutputs(ToolError &error) {
    for (const tessel_tensor_info_t &info : artifact.outputs()) {
      tessel_tensor_view_t view;
      if (Status s = session.output(info.name, view); !s)
        return error = fromStatus(s, artifactPath), false;
      io::HostTensor t;
      t.name = info.name;
      t.dtype = static_cast<format::DType>(view.dtype);
      t.shape.assign(view.dims, view.dims + view.rank);
      const auto *bytes = static_cast<const uint8_t *>(view.data);
      t.data.assign(bytes, bytes + view.data_bytes);
      outputs.push_back(std::move(t));
    }
    return true;
  }

  /// numpy has no bfloat16 and no narrow formats: bfloat16, float8 and
  /// float4 are widened to float32 for the .npy file (exactly), int4/int2
  /// written as int8 and uint4/uint2 as uint8 (their one-byte storage).
  static io::HostTensor forNpy(const io::HostTensor &t) {
    using format::DType;
    if (t.dtype == DType::I4 || t.dtype == DType::I2 ||
        t.dtype == DType::U4 || t.dtype == DType::U2) {
      io::HostTensor bytes = t;
      bytes.dtype = t.dtype == DType::I4 || t.dtype == DType::I2 ? DType::I8
                                                                  : DType::U8;
      return bytes;
    }
    if (t.dtype != DType::BF16 && !io::isNarrowFloat(t.dtype))
      return t;
    io::HostTensor wide;
    wide.dtype = DType::F32;
    wide.shape = t.shape;
    wide.data.resize(t.elementCount() * 4);
    for (uint64_t i = 0; i < t.elementCount(); ++i) {
      float f;
      if (t.dtype == DType::BF16) {
        uint16_t bits;
        std::memcpy(&bits, t.data.data() + 2 * i, 2);
        f = io::bfloat16ToFloat(bits);
      } else {
        f = io::narrowFloatToFloat(t.dtype, t.data[i]);
      }
      std::memcpy(wide.data.data() + 4 * i, &f, 4);
    }
    return wide;
  }

  bool emit(const Options &opts, ToolError &error) {
    if (opts.print)
      for (const io::HostTensor &t : outputs)
        printTensor(out, t.name, t);
    if ((opts.print || !opts.compareDir.empty()) && !opts.outputDirGiven)
      return true;
    std::vector<std::string> names;
    for (const io::HostTensor &t : outputs)
      names.push_back(t.name);
    std::vector<std::string> stems = uniqueFileStems(names);
    std::vector<OutputFile> files;
    for (size_t i = 0; i < outputs.size(); ++i) {
      OutputFile file{stems[i] + ".npy", {}};
      std::string message;
      if (!io::encodeNpy(forNpy(outputs[i]), file.bytes, message))
        return error = {kExitInternalError,
                        "output '" + outputs[i].name + "': " + message},
               false;
      files.push_back(std::move(file));
    }
    std::string dir = opts.outputDirGiven ? opts.outputDir : ".";
    std::string message;
    if (!writeFilesAtomically(dir, files, message))
      return error = {kExitUserError, message}, false;
    return true;
  }

  std::ostream &out;
  std::string artifactPath;
  Artifact artifact;
  Device device;
  Session session;
  std::vector<std::string> inputNames;
  std::map<std::string, BoundInput> inputs;
  std::vector<io::HostTensor> outputs;
};

} // namespace

int runTool(const std::vector<std::string> &args, std::ostream &out,
            std::ostream &err) {
  return tools::runReporting("tessel-run", err, [&](ToolError &error) {
    Options opts;
    if (!parseOptions(args, opts, error.message)) // a usage error: exit 2
      return false;
    if (opts.help)
      return out << usageText(), true;
    return Tool(out).run(opts, error);
  });
}

} // namespace tessel::run
