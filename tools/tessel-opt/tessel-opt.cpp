//===- tessel-opt.cpp - mlir-opt with every Tessel dialect and pass -------===//
//
// For lit tests and pass authors: upstream MLIR's dialects and passes plus
// Tessel's graph dialect, passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "compiler/Registration.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tessel::registerAllDialects(registry);
  tessel::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Tessel optimizer driver\n", registry));
}
