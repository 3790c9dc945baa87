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
        tessel-tile-and-vectorize) and GPU threads coalesce on;
      * `tessel.conv` with a constant weight (F x C/group x K...) gets it
        as C/group x K... x F with `filters_last`: the weights of
        consecutive output channels are contiguous, for register tiles
        whose vectors run along the output channels.
    Values are moved, not recomputed: results are bit-identical.
  }];
}

def SubsamplePointwiseConvsPass : Pass<"tessel-subsample-pointwise-convs"> {
  let summary = "A strided 1x1 Conv reads a strided Slice of its input";
  let description = [{
    A `tessel.conv` with 1x1 kernels, a stride above 1 and no padding (a
    ResNet's downsampling shortcut) reads every s-th pixel: it becomes a
    `tessel.slice` of its input with steps s and a 1x1 Conv of stride 1.
    The Conv's pixels are then contiguous, so its register tiles load them
    as vectors (a strided Conv gathers them) and, quantized, it is a MatMul
    of its weights by the pixels (the CPU's dot-product tiles); the slice
    copies 1/s^2 of the input once. The products are the same ones.
  }];
}

def FoldBatchNormPass : Pass<"tessel-fold-batch-norm"> {
  let summary = "Fold inference BatchNormalization into its Conv or Gemm";
  let description = [{
    A `tessel.batch_norm` whose input is a Conv or a Gemm used only by it,
    with every parameter a constant (f32), costs nothing at run time: per
    output channel c it is y = x * s[c] + t[c] with
    s = scale / sqrt(variance + epsilon) and t = bias - mean * s, so
      * Conv(x, W, b) -> BN becomes Conv(x, W', b') with W' = W * s along
        the output channels and b' = b * s + t;
      * Gemm(A, B, C) -> BN over the columns becomes Gemm(A, B', C') with
        B' = B * s along N (either layout of B), C' = beta * C * s + t and
        beta = 1 (C absent, a scalar or of shape [N]).
    The new weights are computed in double and rounded once, so results
    differ from the unfolded graph by float rounding only (what ONNX
    Runtime's and PyTorch's exporters' own folding does). The new op's
    location names both ONNX nodes. Anything else (a non-constant
    parameter, a producer with other users, a dynamic channel count, f16)
    is left alone and runs as a BatchNormalization kernel.
  }];
}

def FormDispatchRegionsPass : Pass<"tessel-form-dispatch-regions"> {
  let summary = "Group elementwise ops and reductions into dispatch regions";
  let description = [{
    Each `tessel.dispatch_region` becomes one kernel and one dispatch, so
    the values inside it never travel between kernels. Members: elementwise
    ops on floats (Add, Sub, Mul, Div, Pow, Relu, Sigmoid, Tanh, Sqrt, Erf,
    Clip, Cast; broadcasting ones included) and reductions on floats
    (ReduceSum, ReduceMean, ReduceMax, ReduceMin, Softmax,
    LayerNormalization). Walking the block backwards, such an op joins a
    region when every user of it is in that one region; else it starts its
    own. So softmax and LayerNorm as exporters write them (ReduceMean, Sub,
    Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) or as one LayerNormalization,
    with the residual Add before them, become one region, and a value read
    by two regions or by any other op ends its region. A Conv, MatMul or
    Gemm on floats joins, by the same rule, a region of elementwise ops only
    (its epilogue: bias, activation, Clip, the residual Add), which is then
    closed: what comes before the contraction is its input, not its
    epilogue. A region yields the results of its last op (partitioning
    writes those that are used), and every other op in it is used only
    inside it. Integer and bool ops stay alone: partitioning evaluates shape
    arithmetic on the host. The exceptions are int8 quantization's: an
    integer Conv or MatMul (i8 operands, i32 sums) is a contraction like a
    float one, the cast dequantizing its sums joins its epilogue, and a
    cast quantizing a float value for integer contractions only joins the
    region of the value's producer. Results are unchanged: the kernel pipeline
    computes the same ops in the same order per element.
  }];
  let dependentDialects = ["::tessel::TesselDialect"];
}

def LowerPrecisionPass : Pass<"tessel-lower-precision"> {
  let summary = "Contractions read bf16 or f16 operands, with f32 sums";
  let description = [{
    Mixed precision (`tessel-compile --precision bf16|fp16`; design.md
    section 8). Every f32 Conv, MatMul and Gemm reads its two
    multiplicands in the low type and gives its sums in the accumulator
    its op contract declares, f32 (`acc_type = f32`, the result f32):
    weights are stored in the low type (converted at compile time,
    rounding to nearest even) and an activation is cast down once, where
    it enters contractions (one cast per value, shared by every
    contraction that reads it; tessel-form-dispatch-regions fuses it into
    its producer's kernel). The bias, the epilogue (activation, residual
    Add, ...) and every other op stay f32, so softmax, normalizations,
    reductions and exp/log/pow are never lowered, and each value is
    rounded to the low type at most once.
    `keep-fp32` names ONNX op types ("Gemm") or node names whose
    contractions stay f32. With `io` (--io-precision low) the f32
    arguments and results of each function take the low type (their
    `tessel.dtype` and `tessel.output_dtypes` follow): an argument is cast
    up where an op needs f32 and read as it is by contractions, a result
    cast down once.
  }];
  let options = [
    Option<"precision", "precision", "std::string", "\"bf16\"",
           "the low type: bf16 or fp16">,
    ListOption<"keepFp32", "keep-fp32", "std::string",
               "ONNX op types or node names that stay f32">,
    Option<"io", "io", "bool", "false",
           "the function's f32 arguments and results take the low type">,
  ];
  let dependentDialects = ["::tessel::TesselDialect"];
}

def ObserveContractionsPass : Pass<"tessel-observe-contractions", "::mlir::ModuleOp"> {
  let summary = "Return every contraction's result as an extra model output";
  let description = [{
    The observers of calibration and of the precision report
    (design.md section 8): every f32 Conv, MatMul and Gemm in the body of
    `main` (not in a control op's regions) gets its result returned as an
    extra output named `tessel.observe:<ONNX node>` (a suffix `#2`, `#3`
    for a node seen before), after the model's own outputs, so that the
    runtime, running the artifact on calibration data, reports each
    layer's values. Runs after the graph passes that fold producers into
    contractions (BatchNormalization), since an observed value has one
    more user, and before tessel-lower-precision, which then casts the
    observed low-precision values back to f32 like any result. With
    `inputs`, each contraction's input (operand 0) is observed instead:
    what int8 calibration measures.
  }];
  let options = [
    Option<"inputs", "inputs", "bool", "false",
           "observe each contraction's input instead of its result">,
  ];
  let dependentDialects = ["::tessel::TesselDialect"];
}

def QuantizePass : Pass<"tessel-quantize", "::mlir::ModuleOp"> {
  let summary = "Post-training int8 or fp8 quantization of Conv, MatMul and Gemm";
  let description = [{
    `tessel-compile --precision int8|fp8` (design.md section 8). Each f32
    Conv, MatMul (rank-2 weight) and Gemm (alpha any, beta 1, neither
    operand transposed) of a function whose weight is a constant and whose
    input has a calibrated range (`amax`: "NODE=A", the largest magnitude
    the calibrator kept) is quantized.

    int8 (`format=int8`, the default): the input is read as u8
    (`input_unsigned`: u8 x i8, the operands of the CPU's vpdpbusd) with a
    zero point z: 128 for a symmetric range (s = A / 127: the levels of
    i8), 0 for a range from LO >= 0 (a ReLU's output; s = HI / 255),
    round(-LO / s) with s = (HI - LO) / 255 for any other range [LO, HI]:
      xq  = cast<u8>(round(x / s) + z)            (the cast saturates)
      acc = integer contraction(xq, Wq) : i32     (Wq: i8 constant,
                                                   symmetric per output
                                                   channel, |Wq| <= 127)
      y   = cast<f32>(acc) * (s * s_w[c] * alpha)
            - z * sum_k Wq[k, c] * (s * s_w[c] * alpha) + bias
    the compensation being one more constant per channel; a padded Conv
    pads with z (`input_zero_point`). A 1x1 Conv of stride 1 gets its
    weights filters-first, a 3x3 one kernel rows of 4 taps (a 0 weight and
    one more column of end padding): the forms of the CPU's dot-product
    tiles (design.md section 8).

    `prequantized`: each Conv, MatMul and Gemm of a pre-quantized (QDQ)
    model, whose input is DequantizeLinear(xq, s, z) of 8-bit integers per
    tensor and whose weight is DequantizeLinear(Wq, s_w, z_w) of a constant
    with per-channel (or one) scales, as the importer writes them
    (mul(sub(cast<f32>(q), z), s)), computes on xq (an i8 one read as u8:
    xq + 128, z + 128) and Wq - z_w (which must fit i8) the same way, with
    those scales; no calibration, every such contraction, first and last
    included (the model chose its precision). So do the i32 contractions
    of centred integers that MatMulInteger, ConvInteger and the QLinear
    ops are written as (sub(cast<i32>(q), z) by a constant weight): the
    same u8 x i8 contraction less z * sum_k W[k, c] in i32, exactly, plus
    their i32 bias. Other forms stay as the model has them.
    So the scales are folded at compile time, and the dequantization, the
    bias and whatever follows (an activation, the next layer's
    quantization) fuse into the contraction's epilogue
    (tessel-form-dispatch-regions).

    fp8 (`format=fp8-e4m3` or `fp8-e5m2`; per-tensor scales, F the
    format's largest finite value, 448 or 57344): the input becomes
      x8 = cast<f32>(cast<f8>(x * (F / A))) * (A / F)
    (the cast saturating, rounding to nearest even) and the weight its
    values rounded the same way at compile time with the scale
    max |W| / F; the contraction then runs in f32 on those values: the
    CPU computes fp8 by conversion, for its numerics (GPU fp8 tensor cores
    come with the tensor-core work).

    The first and last contractions of a function and grouped Convs (int8:
    no dot-product form) stay f32 unless `lower` names them, as do the
    nodes and ONNX op types `keep-fp32` names and every contraction without
    a range.
  }];
  let options = [
    Option<"format", "format", "std::string", "\"int8\"",
           "int8, fp8-e4m3 or fp8-e5m2">,
    ListOption<"amax", "amax", "std::string",
               "NODE=A (symmetric, [-A, A]) or NODE=LO:HI (asymmetric "
               "int8): the calibrated range of each contraction's input">,
    ListOption<"keepFp32", "keep-fp32", "std::string",
               "ONNX op types or node names that stay f32">,
    ListOption<"lowerNodes", "lower", "std::string",
               "ONNX node names quantized even when first or last">,
    Option<"prequantizedOnly", "prequantized", "bool", "false",
           "only the contractions of a pre-quantized model (QDQ), every "
           "one, to integer kernels">,
  ];
  let dependentDialects = ["::tessel::TesselDialect"];
}

#endif // TESSEL_PASSES_PASSES
