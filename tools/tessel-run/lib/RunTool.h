//===- RunTool.h - The tessel-run tool as a library --------------*- C++ -*-===//
//
// Everything tessel-run does, callable from tests: parse the arguments, load
// the artifact, read the input files, bind them, run, and write or print the
// outputs. It is a client of the public C API (through tessel.hpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_TESSEL_RUN_RUNTOOL_H
#define TESSEL_TOOLS_TESSEL_RUN_RUNTOOL_H

#include "ToolSupport.h"

#include <ostream>
#include <string>
#include <vector>

namespace tessel::run {

/// Exit codes: those of the tools, and 3 for outputs that differ from
/// --compare.
using tools::kExitInternalError;
using tools::kExitOk;
using tools::kExitUserError;
constexpr int kExitOutputsDiffer = 3;

/// Runs tessel-run with `args` (argv without argv[0]). Outputs and --help go
/// to `out`; an error is one line "tessel-run: error: <file>: <message>" on
/// `err`. Returns the exit code.
int runTool(const std::vector<std::string> &args, std::ostream &out,
            std::ostream &err);

} // namespace tessel::run

#endif // TESSEL_TOOLS_TESSEL_RUN_RUNTOOL_H
