//===- ToolSupport.h - What tessel-run and tessel-bench share ----*- C++ -*-===//
//
// The command line (an option cursor), exit codes and errors, and the
// --input files of the runtime tools. Messages here are part of the tools'
// output (the lit tests check them), so both tools word them alike.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_COMMON_TOOLSUPPORT_H
#define TESSEL_TOOLS_COMMON_TOOLSUPPORT_H

#include "io/HostTensor.h"
#include "tessel/tessel.hpp"

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace tessel::tools {

/// Exit codes.
constexpr int kExitOk = 0;
constexpr int kExitInternalError = 1;
constexpr int kExitUserError = 2;

/// A failure: the exit code and the message ("<file>: <message>" when it is
/// about a file).
struct ToolError {
  int exitCode = kExitUserError;
  std::string message;
};

/// Internal failures of the runtime (and running out of resources) are
/// exit 1; everything else is about what the user gave us.
int exitCodeOf(const Status &s);

/// The error of a failed status. `what`, the file or thing it is about,
/// prefixes the message unless the message starts with it already (those of
/// artifact loading start with the path).
ToolError fromStatus(const Status &s, const std::string &what);

/// Runs `body` and returns the exit code. A failure, or an exception (an
/// internal error), is one line "<tool>: error: <message>" on `err`.
int runReporting(const char *tool, std::ostream &err,
                 const std::function<bool(ToolError &)> &body);

/// Walks the arguments after argv[0]. Options take their value as the next
/// argument or after '=' (--device=cuda); only "--" options split at '='.
/// The methods that can fail set the error given to the constructor, one
/// line naming the option, and return false.
///
///   OptionCursor arg(args, error);
///   while (arg.next())
///     if (arg.is("-d", "--device")) {
///       if (!arg.takeValue(out.device))
///         return false;
///     } else if (!arg.positional(out.artifactPath, out.inputs))
///       return false;
class OptionCursor {
public:
  OptionCursor(const std::vector<std::string> &args, std::string &error)
      : args(args), error(error) {}

  /// Steps to the next argument; false past the last.
  bool next();

  /// The whole argument.
  const std::string &arg() const { return args[current]; }
  /// Whether the option (the argument up to '=' of "--flag=value", else all
  /// of it) is `longName` (or `shortName`).
  bool is(const char *longName) const { return name == longName; }
  bool is(const char *shortName, const char *longName) const {
    return name == shortName || name == longName;
  }

  /// The option's value: after '=', else the next argument (consumed).
  /// Fails with "option F needs a value" at the end of the arguments.
  bool takeValue(std::string &value);
  /// Fails with "option F takes no value" when given "--flag=value".
  bool noValue();
  /// noValue(), then sets `flag`.
  bool takeFlag(bool &flag);
  /// takeValue(), appended to `values` (for an option given many times).
  bool appendValue(std::vector<std::string> &values);
  /// Fails with "option F needs <what>, got '<text>'".
  bool invalid(const std::string &text, const std::string &what);
  /// An argument no option took. Fails with "unknown option 'A' (see
  /// --help)" for an unknown option; otherwise the first such argument is
  /// the artifact and the rest are inputs.
  bool positional(std::string &artifact, std::vector<std::string> &inputs);

private:
  const std::vector<std::string> &args;
  std::string &error;
  size_t current = 0, following = 0;
  std::string name, inlineText; ///< the option, and its value after '='
  bool inlineValue = false;
};

/// Parses a decimal integer in [0, max]: digits only, no sign.
bool parseUnsigned(const std::string &text, uint64_t max, uint64_t &value);

/// The threads a CPU session given `requested` uses, by the rule of
/// tessel_session_options_t::threads: 0 is the number of cores, and at most
/// 256 are used.
uint32_t cpuThreads(uint32_t requested);

/// The file of one --input argument, read.
struct InputFile {
  std::string name; ///< the model input it binds
  std::string path;
  io::HostTensor tensor;
};

/// Reads the file of an --input argument: "NAME=FILE" when NAME is one of
/// `inputNames`, else "FILE", whose input is named by the file (its
/// TensorProto's name, else its stem). The errors list the inputs as
/// `inputList`; an unknown NAME is reported against `unknownWhere` (the
/// artifact, or the argument).
bool readInputFile(const std::string &arg,
                   const std::vector<std::string> &inputNames,
                   const std::string &inputList,
                   const std::string &unknownWhere, InputFile &file,
                   ToolError &error);

/// The error of an input given by two --input files.
ToolError inputGivenTwice(const InputFile &file, const std::string &otherPath);

} // namespace tessel::tools

#endif // TESSEL_TOOLS_COMMON_TOOLSUPPORT_H
