//===- tessel-bench.cpp - Measure a compiled Tessel artifact --------------===//
//
// The thin main of tessel-bench; the tool lives in lib/BenchTool.cpp.
//
//===----------------------------------------------------------------------===//

#include "BenchTool.h"

#include <iostream>
#include <unistd.h>

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return tessel::bench::benchTool(args, std::cout, std::cerr,
                                  isatty(STDERR_FILENO) == 1);
}
