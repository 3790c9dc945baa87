//===- BenchTool.h - The tessel-bench tool as a library ----------*- C++ -*-===//
//
// Everything tessel-bench does, callable from tests: parse the arguments,
// load the artifact, bind the inputs (files or seeded random data), and for
// each configuration (thread count x batch size) warm up, time the runs and
// report latency percentiles and throughput. A client of the public C API
// (through tessel.hpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_TESSEL_BENCH_BENCHTOOL_H
#define TESSEL_TOOLS_TESSEL_BENCH_BENCHTOOL_H

#include "ToolSupport.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tessel::bench {

/// Exit codes (those of tessel-run).
using tools::kExitInternalError;
using tools::kExitOk;
using tools::kExitUserError;

/// Summary of the timed runs of one configuration.
struct LatencyStats {
  uint64_t iterations = 0;
  double totalSeconds = 0; ///< sum of the timed runs
  double minMs = 0, meanMs = 0, p50Ms = 0, p90Ms = 0, p99Ms = 0, maxMs = 0;
};

/// The nearest-rank `percent` percentile of `sorted` (ascending, not
/// empty): its ceil(percent/100 * n)-th smallest element (at least the 1st).
double nearestRank(const std::vector<double> &sorted, unsigned percent);

/// Stats of the latencies `ms` (not empty; any order).
LatencyStats summarize(std::vector<double> ms);

/// Runs tessel-bench with `args` (argv without argv[0]). The results and
/// --help go to `out` (the text to `err` when --json writes to stdout); an
/// error is one line "tessel-bench: error: <message>" on `err`. When
/// `progress`, a progress line is drawn on `err` while it runs (the main
/// passes isatty(stderr)). Returns the exit code.
int benchTool(const std::vector<std::string> &args, std::ostream &out,
              std::ostream &err, bool progress);

} // namespace tessel::bench

#endif // TESSEL_TOOLS_TESSEL_BENCH_BENCHTOOL_H
