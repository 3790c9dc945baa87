//===- ToolSupport.cpp - What tessel-run and tessel-bench share -----------===//

#include "ToolSupport.h"

#include <algorithm>
#include <thread>
#include <unistd.h>

namespace tessel::tools {

int exitCodeOf(const Status &s) {
  return s.code() == TESSEL_STATUS_INTERNAL ||
                 s.code() == TESSEL_STATUS_RESOURCE_EXHAUSTED
             ? kExitInternalError
             : kExitUserError;
}

ToolError fromStatus(const Status &s, const std::string &what) {
  std::string message = s.message();
  if (!what.empty() && message.compare(0, what.size() + 2, what + ": ") != 0)
    message = what + ": " + message;
  return {exitCodeOf(s), message};
}

int runReporting(const char *tool, std::ostream &err,
                 const std::function<bool(ToolError &)> &body) {
  ToolError error;
  try {
    if (body(error))
      return kExitOk;
  } catch (const std::exception &e) {
    error = {kExitInternalError, std::string("internal error: ") + e.what()};
  }
  err << tool << ": error: " << error.message << "\n";
  return error.exitCode;
}

//===- OptionCursor -------------------------------------------------------===//

bool OptionCursor::next() {
  if (following >= args.size())
    return false;
  current = following++;
  const std::string &a = args[current];
  size_t eq = a.rfind("--", 0) == 0 ? a.find('=') : std::string::npos;
  inlineValue = eq != std::string::npos;
  name = inlineValue ? a.substr(0, eq) : a;
  inlineText = inlineValue ? a.substr(eq + 1) : std::string();
  return true;
}

bool OptionCursor::takeValue(std::string &dst) {
  if (inlineValue) {
    dst = inlineText;
    return true;
  }
  if (following >= args.size()) {
    error = "option " + name + " needs a value";
    return false;
  }
  dst = args[following++];
  return true;
}

bool OptionCursor::noValue() {
  if (inlineValue)
    error = "option " + name + " takes no value";
  return !inlineValue;
}

bool OptionCursor::takeFlag(bool &flag) {
  if (!noValue())
    return false;
  flag = true;
  return true;
}

bool OptionCursor::appendValue(std::vector<std::string> &values) {
  std::string v;
  if (!takeValue(v))
    return false;
  values.push_back(std::move(v));
  return true;
}

bool OptionCursor::invalid(const std::string &text, const std::string &what) {
  error = "option " + name + " needs " + what + ", got '" + text + "'";
  return false;
}

bool OptionCursor::positional(std::string &artifact,
                              std::vector<std::string> &inputs) {
  const std::string &a = arg();
  if (a.size() > 1 && a[0] == '-') {
    error = "unknown option '" + a + "' (see --help)";
    return false;
  }
  if (artifact.empty())
    artifact = a;
  else
    inputs.push_back(a);
  return true;
}

//===- Values and inputs --------------------------------------------------===//

bool parseUnsigned(const std::string &text, uint64_t max, uint64_t &value) {
  if (text.empty())
    return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (digit > max || v > (max - digit) / 10)
      return false;
    v = v * 10 + digit;
  }
  value = v;
  return true;
}

uint32_t cpuThreads(uint32_t requested) {
  unsigned threads = requested;
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  return std::min(threads, 256u);
}

namespace {

std::string stemOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

} // namespace

bool readInputFile(const std::string &arg,
                   const std::vector<std::string> &inputNames,
                   const std::string &inputList,
                   const std::string &unknownWhere, InputFile &file,
                   ToolError &error) {
  auto isInput = [&](const std::string &name) {
    return std::find(inputNames.begin(), inputNames.end(), name) !=
           inputNames.end();
  };
  // "NAME=FILE" only when NAME is an input: a file name may hold '=' too.
  file.name.clear();
  file.path = arg;
  size_t eq = arg.find('=');
  if (eq != std::string::npos && isInput(arg.substr(0, eq))) {
    file.name = arg.substr(0, eq);
    file.path = arg.substr(eq + 1);
  } else if (eq != std::string::npos && access(arg.c_str(), F_OK) != 0) {
    error = {kExitUserError, unknownWhere + ": unknown input '" +
                                 arg.substr(0, eq) + "' (inputs: " +
                                 inputList + ")"};
    return false;
  }
  std::string message;
  if (!io::readTensorFile(file.path, file.tensor, message))
    return error = {kExitUserError, message}, false;
  if (!file.name.empty())
    return true;
  file.name = !file.tensor.name.empty() ? file.tensor.name : stemOf(file.path);
  if (!isInput(file.name))
    return error = {kExitUserError, file.path + ": no input is called '" +
                                        file.name + "' (inputs: " + inputList +
                                        "); use --input NAME=" + file.path},
           false;
  return true;
}

ToolError inputGivenTwice(const InputFile &file, const std::string &otherPath) {
  return {kExitUserError, file.path + ": input '" + file.name +
                              "' is given twice (also by " + otherPath + ")"};
}

} // namespace tessel::tools
