//===- tessel-run.cpp - Run a compiled Tessel artifact --------------------===//
//
// The thin main of tessel-run; the tool lives in lib/RunTool.cpp.
//
//===----------------------------------------------------------------------===//

#include "RunTool.h"

#include <iostream>

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return tessel::run::runTool(args, std::cout, std::cerr);
}
