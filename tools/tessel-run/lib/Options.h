//===- Options.h - Command line of tessel-run -------------------*- C++ -*-===//

#ifndef TESSEL_TOOLS_TESSEL_RUN_OPTIONS_H
#define TESSEL_TOOLS_TESSEL_RUN_OPTIONS_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::run {

struct Options {
  std::string artifactPath;
  /// "NAME=FILE" or "FILE" (the name then comes from the file), in order.
  std::vector<std::string> inputs;
  std::string outputDir; ///< empty: the current directory
  bool outputDirGiven = false;
  std::string device = "cpu";
  bool print = false;
  bool help = false;
  /// Timed runs after the first (0: just run once).
  int runs = 0;
  /// Print the time of each ONNX node's kernels (summed over its stages,
  /// averaged over the runs).
  bool profile = false;
  /// The most threads a CPU launch uses (0: the number of cores).
  uint32_t threads = 0;
  /// The CPU binary to run (tessel_session_options_t::cpu_variant); empty:
  /// the best this CPU supports.
  std::string cpuVariant;
  /// The most iterations of a Loop (0: the runtime's default).
  uint64_t maxLoopIterations = 0;
  /// Compare each output with <compareDir>/<output>.npy.
  std::string compareDir;
  double rtol = 1e-3, atol = 1e-5;
};

/// Parses the arguments after argv[0]. On a usage error returns false and
/// sets `error`.
bool parseOptions(const std::vector<std::string> &args, Options &out,
                  std::string &error);

/// The text of --help.
const char *usageText();

} // namespace tessel::run

#endif // TESSEL_TOOLS_TESSEL_RUN_OPTIONS_H
