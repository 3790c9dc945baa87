//===- Passes.td - Target-independent graph passes ---------*- tablegen -*-===//
//
// Passes from the graph dialect to the graph dialect, run by every target
// before partitioning (see compiler/Compile.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PASSES_PASSES
#define TESSEL_PASSES_PASSES

include "mlir/Pass/PassBase.td"

def FoldWeightTransposesPass : Pass<"tessel-fold-weight-transposes"> {
  let summary = "Transpose constant weights at compile time";
  let description = [{
    Weights are constants, so a transpose of one costs nothing at compile
    time and a kernel pass over memory at run time:
      * `tessel.transpose` of a constant becomes the transposed constant;
      * `tessel.gemm` with `trans_b` and a constant B (the usual export of
        a fully connected layer, B = [N, K]) gets B transposed to [K, N]
        and `trans_b = false`, so that its columns are contiguous: the
        layout the CPU's register tiles vectorize (see
        tessel-tile-and-vectorize) and GPU threads coalesce on.
    Values are moved, not recomputed: results are bit-identical.
  }];
}

#endif // TESSEL_PASSES_PASSES
