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

def FormDispatchRegionsPass : Pass<"tessel-form-dispatch-regions"> {
  let summary = "Group elementwise chains into dispatch regions";
  let description = [{
    Each `tessel.dispatch_region` becomes one kernel and one dispatch, so
    the values inside it never travel through memory between kernels. The
    first heuristic: an elementwise op on floats (Add, Sub, Mul, Div, Pow,
    Relu, Sigmoid, Tanh, Sqrt, Erf, Clip, Cast) joins the region of its
    consumer when it is an elementwise op on floats too and the consumer is
    its only user; broadcasting producers included. A region therefore
    yields one value, that of its last op, and every op in it is used only
    inside it. Integer and bool ops stay alone: partitioning evaluates
    shape arithmetic on the host. Results are unchanged: the kernel
    pipeline computes the same ops in the same order per element.
  }];
  let dependentDialects = ["::tessel::TesselDialect"];
}

#endif // TESSEL_PASSES_PASSES
