//===- BenchOptions.h - Command line of tessel-bench -------------*- C++ -*-===//

#ifndef TESSEL_TOOLS_TESSEL_BENCH_BENCHOPTIONS_H
#define TESSEL_TOOLS_TESSEL_BENCH_BENCHOPTIONS_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::bench {

struct Options {
  std::string artifactPath;
  /// "NAME=FILE" or "FILE" (the name then comes from the file), in order.
  std::vector<std::string> inputs;
  /// "NAME=D0xD1x..." for inputs filled with random data, in order.
  std::vector<std::string> shapes;
  std::string device = "cpu";
  /// One configuration per value (0: one thread per core).
  std::vector<uint32_t> threads = {0};
  /// The CPU binary to run (tessel_session_options_t::cpu_variant); empty:
  /// the best this CPU supports.
  std::string cpuVariant;
  /// Untimed runs before the timed ones, per configuration.
  uint64_t warmup = 10;
  /// Timed runs per configuration (when seconds is 0).
  uint64_t iterations = 100;
  bool iterationsGiven = false;
  /// --time: timed runs until their times add up to this (0: off).
  double seconds = 0;
  /// --batch-sweep: one configuration per value (empty: no sweep).
  std::vector<int64_t> batches;
  uint64_t seed = 0;
  /// --json: "" none, "-" stdout, else a file.
  std::string jsonPath;
  bool help = false;
};

/// Parses the arguments after argv[0]. On a usage error returns false and
/// sets `error` (one line naming the option).
bool parseOptions(const std::vector<std::string> &args, Options &out,
                  std::string &error);

/// Parses "D0xD1x..." (each a non-negative integer); false if malformed.
bool parseShape(const std::string &text, std::vector<int64_t> &dims);

/// The text of --help.
const char *usageText();

} // namespace tessel::bench

#endif // TESSEL_TOOLS_TESSEL_BENCH_BENCHOPTIONS_H
