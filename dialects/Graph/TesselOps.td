//===- TesselOps.td - The Tessel graph dialect -------------*- tablegen -*-===//
//
// The graph dialect holds a model after import: one op per ONNX operator,
// on ranked tensors, with ONNX's defaults made explicit and shapes inferred.
// A dynamic (`?`) dim stands for a symbolic ONNX dim (the batch). Every op
// verifies its operands; the location of an op is its ONNX node name.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_GRAPH_OPS
#define TESSEL_GRAPH_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "dialects/Graph/ShapeContract.td"
include "dialects/Graph/ElementwiseOp.td"

def Tessel_Dialect : Dialect {
  let name = "tessel";
  let cppNamespace = "::tessel";
  let summary = "Tessel graph dialect: ONNX operators on ranked tensors";
  let description = [{
    The ops of this dialect are ONNX operators with their semantics
    normalized: attributes are explicit, shapes are inferred at import, and
    broadcasting follows numpy rules. Passes fold, fuse and partition this
    graph before it is lowered to linalg in codegen/common.
  }];
  let hasConstantMaterializer = 1;
}

// Every op declares its shape contract (ShapeContract.td): an op without
// one does not build.
// `contractMethods` lists the optional contract methods the op defines
// (isShapeOperand).
class Tessel_Op<string mnemonic, list<Trait> traits = [],
                list<string> contractMethods = []>
    : Op<Tessel_Dialect, mnemonic,
         !listconcat(traits, [Pure,
                              DeclareOpInterfaceMethods<
                                  Tessel_ShapeContract,
                                  !listconcat(["reifyShapeContract"],
                                              contractMethods)>])>;

// An elementwise op (ElementwiseOp.td): its shape contract is numpy
// broadcasting of all its operands (ShapeContract's default, which only
// such ops may use), and its semantics are its `buildScalar`
// (ElementwiseOps.cpp), from which its lowering, fusion, in-place ties and
// splat inlining all follow.
class Tessel_ElementwiseOp<string mnemonic, list<Trait> traits = []>
    : Op<Tessel_Dialect, mnemonic,
         !listconcat(traits, [Pure, Tessel_ShapeContract,
                              DeclareOpInterfaceMethods<
                                  Tessel_ElementwiseOpInterface>])>;

def Tessel_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Tessel_BoolTensor : RankedTensorOf<[I1]>;
def Tessel_IntegerTensor : RankedTensorOf<[AnySignlessInteger]>;
def Tessel_NumericTensor : RankedTensorOf<[AnyFloat, AnySignlessInteger]>;

//===----------------------------------------------------------------------===//
// Constants and identity
//===----------------------------------------------------------------------===//

def Tessel_ConstantOp
    : Tessel_Op<"constant", [ConstantLike, AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor (ONNX Constant, initializers)";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Tessel_IdentityOp : Tessel_Op<"identity", [SameOperandsAndResultType]> {
  let summary = "ONNX Identity; folds away";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

include "dialects/Graph/ElementwiseOps.td"

def Tessel_SoftmaxOp : Tessel_Op<"softmax", [SameOperandsAndResultType]> {
  let summary = "Softmax along one axis (ONNX Softmax-13 semantics)";
  let arguments = (ins Tessel_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Tessel_ReduceOp<string mnemonic, string onnx>
    : Tessel_Op<mnemonic, [AllElementTypesMatch<["input", "result"]>],
                ["isShapeOperand"]> {
  let summary = "ONNX " # onnx # " over the listed axes";
  let description = [{
    `axes` are normalized at import (sorted, unique, 0 <= axis < rank; ONNX's
    empty axes are every axis, or an Identity with noop_with_empty_axes).
    Axes known only at run time (a graph input) are the operand
    `dynamic_axes` instead, a 1-D int64 tensor of static length K >= 1 whose
    elements must be K distinct axes in [-rank, rank) (the plan checks
    them); `axes` is then empty, `keepdims` is true (the importer squeezes
    the result with tessel.squeeze where ONNX drops them) and the result
    dims are dynamic.
    With `keepdims` a reduced dim stays as extent 1, else it is dropped.
    The reduction accumulates in `acc_type`, the op's declared accumulator:
    sums, products and means of f16/bf16 in f32, of f32/f64 in their own
    type, of integers in i32 (sums and products of integers of up to 32
    bits: the result wraps the same) or i64; max and min in the element
    type. The result is converted
    back to the element type; an integer mean truncates toward zero (ONNX
    Runtime and numpy's cast of the mean). `is_unsigned` marks integers ONNX
    types as unsigned. An empty reduction gives 0 for a sum, 1 for a
    product, NaN (floats) or
    0 (integers) for a mean, and the type's lowest (highest) value, -inf
    (+inf) for floats, for max (min).

    ```mlir
    %m = tessel.reduce_mean %x {axes = array<i64: 2>, keepdims = true, acc_type = f32}
        : (tensor<?x128x256xf16>) -> tensor<?x128x1xf16>
    ```
  }];
  let arguments = (ins Tessel_NumericTensor:$input,
                   Optional<1DTensorOf<[I64]>>:$dynamic_axes,
                   DenseI64ArrayAttr:$axes, BoolAttr:$keepdims,
                   TypeAttr:$acc_type, UnitAttr:$is_unsigned);
  let results = (outs Tessel_NumericTensor:$result);
  let assemblyFormat = [{
    $input (`axes` $dynamic_axes^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  // A small integer constant reduces to a constant (the product of a
  // shape's dims in a function body), so that what follows is static.
  let hasFolder = 1;
}

// ArgMax, ArgMin.
class Tessel_ArgReduceOp<string mnemonic, string onnx, string extreme>
    : Tessel_Op<mnemonic> {
  let summary = "ONNX " # onnx # ": where along `axis` the " # extreme #
                " element is";
  let description = [{
    The int64 index of the first (with `select_last_index`, the last)
    extreme element along `axis`, which must not be empty; with `keepdims`
    the axis stays as extent 1, else it is dropped. A NaN counts as more
    extreme than any number (numpy's argmax/argmin): the first NaN wins, or
    the last with `select_last_index`. `is_unsigned` marks integers ONNX
    types as unsigned.
  }];
  let arguments = (ins Tessel_NumericTensor:$input, I64Attr:$axis,
                   BoolAttr:$keepdims, UnitAttr:$select_last_index,
                   UnitAttr:$is_unsigned);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tessel_ArgMaxOp : Tessel_ArgReduceOp<"arg_max", "ArgMax", "greatest">;
def Tessel_ArgMinOp : Tessel_ArgReduceOp<"arg_min", "ArgMin", "least">;

def Tessel_ReduceSumOp : Tessel_ReduceOp<"reduce_sum", "ReduceSum">;
def Tessel_ReduceProdOp : Tessel_ReduceOp<"reduce_prod", "ReduceProd">;
def Tessel_ReduceMeanOp : Tessel_ReduceOp<"reduce_mean", "ReduceMean">;
def Tessel_ReduceMaxOp : Tessel_ReduceOp<"reduce_max", "ReduceMax">;
def Tessel_ReduceMinOp : Tessel_ReduceOp<"reduce_min", "ReduceMin">;

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

// The accumulator of a contraction: `acc_type` where set (a precision pass
// chooses it), else the default for the element type: f32 for f16 and
// bf16, i32 for 8- and 16-bit integers, the element type otherwise. The
// verifier requires an accumulator of the element type's kind and at least
// its width.
defvar Tessel_AccumulatorType = [{
  /// The type products are summed in.
  mlir::Type getAccumulatorType();
}];

def Tessel_MatMulOp : Tessel_Op<"matmul"> {
  let summary = "numpy matmul (ONNX MatMul), batch dims broadcast";
  let description = [{
    Products are summed in `acc_type` (see Tessel_AccumulatorType) and the
    sums rounded to the result's element type once. The operands have one
    element type; the result has it too, except in an integer contraction
    (int8 quantization, design.md section 8): integer operands with a
    result of the accumulator's type (`acc_type` set, e.g. i8 x i8 -> i32),
    whose sums are not rounded at all. `input_unsigned` (integer operands
    only) reads the lhs's integers as unsigned: u8 activations times i8
    weights, the lhs zero-extended.
  }];
  let arguments = (ins Tessel_NumericTensor:$lhs, Tessel_NumericTensor:$rhs,
                   OptionalAttr<TypeAttr>:$acc_type,
                   UnitAttr:$input_unsigned);
  let results = (outs Tessel_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = Tessel_AccumulatorType;
}

def Tessel_GemmOp : Tessel_Op<"gemm"> {
  let summary = "alpha * op(A) * op(B) + beta * C (ONNX Gemm)";
  let description = [{
    Products are summed in `acc_type` (see Tessel_AccumulatorType).
  }];
  let arguments = (ins Tessel_FloatTensor:$a, Tessel_FloatTensor:$b,
                   Optional<Tessel_FloatTensor>:$c,
                   F32Attr:$alpha, F32Attr:$beta,
                   BoolAttr:$trans_a, BoolAttr:$trans_b,
                   OptionalAttr<TypeAttr>:$acc_type);
  let extraClassDeclaration = Tessel_AccumulatorType;
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tessel_ConvOp : Tessel_Op<"conv"> {
  let summary = "N-d convolution, NCHW / FCHW (ONNX Conv)";
  let description = [{
    `pads` holds the begin pads of every spatial dim followed by the end
    pads (ONNX order); auto_pad is resolved into explicit pads at import.
    Products are summed in `acc_type` (see Tessel_AccumulatorType). Float
    operands, or (int8 quantization) integer operands of one type with a
    result and bias of the accumulator's type, as MatMul, whose
    `input_unsigned` it shares (u8 input, i8 weights); padding reads 0, or
    `input_zero_point` (an integer input only: the value that stands for
    the real 0, in the input's range, u8 with `input_unsigned`).

    The weight is ONNX's F x C/group x K1 x ... x Kn, or with
    `filters_last` C/group x K1 x ... x Kn x P: the filters in the last
    dim, so that the weights of consecutive output channels are contiguous
    (tessel-fold-weight-transposes lays constant weights out so). Then
    F = P or, when P > F, the weights of filter f are at f < F and the rest
    of each row is padding, never read: F is the result's dim 1, which must
    be static (a row stride of a power of two maps the rows of a slice of
    filters into a few cache sets).
  }];
  let arguments = (ins Tessel_NumericTensor:$input,
                   Tessel_NumericTensor:$weight,
                   Optional<Tessel_NumericTensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, I64Attr:$group,
                   OptionalAttr<TypeAttr>:$acc_type,
                   UnitAttr:$filters_last, UnitAttr:$input_unsigned,
                   OptionalAttr<I64Attr>:$input_zero_point);
  let extraClassDeclaration = Tessel_AccumulatorType # [{
    /// The weight's dims of the filters (output channels), of the input
    /// channels per group, and of the first kernel dim.
    int64_t getFilterDim();
    /// The filters (output channels): the result's dim 1.
    int64_t getFilterCount();
    int64_t getChannelDim();
    int64_t getKernelDim();
  }];
  let results = (outs Tessel_NumericTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pooling and normalization
//===----------------------------------------------------------------------===//

class Tessel_PoolOp<string mnemonic, dag extraArgs>
    : Tessel_Op<mnemonic, [SameOperandsAndResultElementType]> {
  let arguments = !con((ins Tessel_FloatTensor:$input,
                        DenseI64ArrayAttr:$kernel_shape,
                        DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                        DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode),
                       extraArgs);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tessel_MaxPoolOp
    : Tessel_PoolOp<"max_pool", (ins UnitAttr:$is_unsigned)> {
  let summary = "Max pooling over the spatial dims (ONNX MaxPool)";
  let description = [{
    Works on floats and integers; `is_unsigned` marks integers ONNX types
    as unsigned.
  }];
  let arguments = !con((ins Tessel_NumericTensor:$input,
                        DenseI64ArrayAttr:$kernel_shape,
                        DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                        DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode),
                       (ins UnitAttr:$is_unsigned));
  let results = (outs Tessel_NumericTensor:$result);
}

def Tessel_MaxPoolWithIndicesOp : Tessel_Op<"max_pool_with_indices"> {
  let summary = "MaxPool with its second ONNX output, the argmax indices";
  let description = [{
    `indices` holds, for each output element, the position of the selected
    input element in the flattened, unpadded input tensor N x C x D1 x ... x
    Dn, as ONNX MaxPool's Indices: row-major spatial dims, or column-major
    ones with `column_major` (ONNX storage_order = 1). The first maximum in
    window order wins.
  }];
  let arguments = (ins Tessel_NumericTensor:$input,
                   DenseI64ArrayAttr:$kernel_shape,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                   UnitAttr:$is_unsigned, UnitAttr:$column_major);
  let results = (outs Tessel_NumericTensor:$result,
                 RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tessel_AveragePoolOp
    : Tessel_PoolOp<"average_pool", (ins BoolAttr:$count_include_pad)> {
  let summary = "Average pooling over the spatial dims (ONNX AveragePool)";
}

def Tessel_GlobalAveragePoolOp
    : Tessel_Op<"global_average_pool", [SameOperandsAndResultElementType]> {
  let summary = "Mean over all spatial dims, kept as extent 1";
  let arguments = (ins Tessel_FloatTensor:$input);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tessel_BatchNormOp
    : Tessel_Op<"batch_norm", [SameOperandsAndResultElementType]> {
  let summary = "Inference-mode batch normalization over dim 1";
  let arguments = (ins Tessel_FloatTensor:$input, Tessel_FloatTensor:$scale,
                   Tessel_FloatTensor:$bias, Tessel_FloatTensor:$mean,
                   Tessel_FloatTensor:$variance, F32Attr:$epsilon);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tessel_BatchNormTrainingOp
    : Tessel_Op<"batch_norm_training", [SameOperandsAndResultElementType]> {
  let summary = "Training-mode batch normalization (ONNX training_mode = 1)";
  let description = [{
    Normalizes with the batch's own statistics over every dim but dim 1
    (mean and population variance), and updates the running statistics:
    running = input_running * momentum + batch_stat * (1 - momentum).
  }];
  let arguments = (ins Tessel_FloatTensor:$input, Tessel_FloatTensor:$scale,
                   Tessel_FloatTensor:$bias, Tessel_FloatTensor:$mean,
                   Tessel_FloatTensor:$variance, F32Attr:$epsilon,
                   F32Attr:$momentum);
  let results = (outs Tessel_FloatTensor:$result,
                 Tessel_FloatTensor:$running_mean,
                 Tessel_FloatTensor:$running_variance);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tessel_LayerNormOp : Tessel_Op<"layer_norm"> {
  let summary = "Layer normalization over the dims from `axis` on (ONNX LayerNormalization)";
  let description = [{
    For each index of the dims before `axis` (normalized at import), over
    the dims from `axis` on: mean, variance as the mean of squared
    deviations (two passes, both accumulated in `acc_type`, ONNX's
    stash_type), InvStdDev = 1 / sqrt(variance + epsilon), and
    result = cast((x - mean) * InvStdDev) * scale + bias in the element type.
    `scale` and `bias` broadcast (numpy, trailing dims aligned) to the
    input's shape, as in ONNX's function body. `mean` and `inv_std_dev` are ONNX's optional outputs:
    the input's shape with the normalized dims 1, of type acc_type.

    ```mlir
    %y, %m, %s = tessel.layer_norm %x, %g, %b {axis = 2, epsilon = 1.0e-05 : f32, acc_type = f32}
        : (tensor<?x128x256xf32>, tensor<256xf32>, tensor<256xf32>)
        -> (tensor<?x128x256xf32>, tensor<?x128x1xf32>, tensor<?x128x1xf32>)
    ```
  }];
  let arguments = (ins Tessel_FloatTensor:$input, Tessel_FloatTensor:$scale,
                   Optional<Tessel_FloatTensor>:$bias, I64Attr:$axis,
                   F32Attr:$epsilon, TypeAttr:$acc_type);
  let results = (outs Tessel_FloatTensor:$result, Tessel_FloatTensor:$mean,
                 Tessel_FloatTensor:$inv_std_dev);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Tessel_ReshapeOp
    : Tessel_Op<"reshape", [AllElementTypesMatch<["input", "result"]>]> {
  let summary = "Reshape to the result type (ONNX Reshape, Flatten)";
  let description = [{
    Without `shape`, the target shape is the result type (a constant ONNX
    shape, resolved at import); a dynamic dim stays dynamic.

    With `shape` (a 1-D i64 tensor with one entry per result dim), the
    target shape is known only at run time and follows ONNX Reshape: an
    entry 0 copies the input's dim at that position (a literal 0 with
    `allowzero`), one entry may be -1 (inferred from the element count).
    The result's dynamic dims come from those values; a static one is what
    they must give.

    The runtime treats a reshape as a view of its operand's buffer.

    ```mlir
    %0 = tessel.reshape %x : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
    %1 = tessel.reshape %x, %s {allowzero}
        : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                   Optional<1DTensorOf<[I64]>>:$shape, UnitAttr:$allowzero);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input (`,` $shape^)? attr-dict `:` functional-type(operands, results)
  }];
  let builders = [
    // The one-operand form: the target shape is `type`.
    OpBuilder<(ins "mlir::Type":$type, "mlir::Value":$input), [{
      build($_builder, $_state, type, input, mlir::Value(), false);
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tessel_TransposeOp
    : Tessel_Op<"transpose", [SameOperandsAndResultElementType]> {
  let summary = "Permute dims: result dim i is input dim perm[i]";
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tessel_ConcatOp : Tessel_Op<"concat", [SameOperandsAndResultElementType]> {
  let summary = "Concatenate along one axis (ONNX Concat)";
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tessel_CastOp : Tessel_ElementwiseOp<"cast"> {
  let summary = "Elementwise conversion to another element type (ONNX Cast)";
  let description = [{
    Integers whose ONNX type is unsigned are marked (`input_unsigned`,
    `result_unsigned`); MLIR's integers are signless. Floats convert to
    integers by truncation toward zero, saturating at the integer's range
    (NaN gives 0) so that no value is undefined; anything converts to bool
    as `!= 0`, and bool to numbers as 0 or 1.

    A narrow format (float8, float4, int4/uint4, int2/uint2) is an i8
    element whose ONNX data type `input_format` / `result_format` names
    (NarrowFormats.h). A float format's bits are decoded exactly, and
    encoded rounding to nearest even, by ONNX's rules: `saturate` (float8)
    maps values beyond the largest finite one to it, else to NaN (E5M2:
    infinity); `e8m0_rounding` (0 up, 1 down, 2 nearest) rounds to float8
    E8M0. A float converts to a sub-byte integer rounding to nearest even
    and keeping the low bits, sign-extended (int4, int2) or zero-extended.
  }];
  let arguments = (ins Tessel_NumericTensor:$input, UnitAttr:$input_unsigned,
                   UnitAttr:$result_unsigned,
                   OptionalAttr<I32Attr>:$input_format,
                   OptionalAttr<I32Attr>:$result_format,
                   DefaultValuedAttr<BoolAttr, "true">:$saturate,
                   DefaultValuedAttr<I32Attr, "0">:$e8m0_rounding);
  let results = (outs Tessel_NumericTensor:$result);
  let builders = [
    // A conversion between ordinary element types.
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$input,
                   "bool":$inputUnsigned,
                   "bool":$resultUnsigned), [{
      build($_builder, $_state, result, input, inputUnsigned, resultUnsigned,
            /*input_format=*/nullptr, /*result_format=*/nullptr,
            /*saturate=*/true, /*e8m0_rounding=*/0);
    }]>
  ];
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tessel_SliceOp : Tessel_Op<"slice", [], ["isShapeOperand"]> {
  let summary = "A strided slice of some axes (ONNX Slice)";
  let description = [{
    For each listed axis: elements start, start + step, ... up to end
    (exclusive), with ONNX's rules applied against the axis' extent at run
    time: a negative start or end counts from the end, both are clamped into
    the axis (to [0, n] for a positive step, start to [0, n-1] and end to
    [-1, n-1] for a negative one), and an empty range gives extent 0.
    `starts` and `ends` are int64 tensors, read at run time unless they are
    constants (exporters compute them from shapes); `axes` (normalized,
    0 <= axis < rank, unique) and `steps` (non-zero) are attributes. All
    four have one entry per sliced axis. A sliced dim is static when its
    input dim and both bounds are constants, else dynamic.

    ```mlir
    %y = tessel.slice %x[%starts, %ends] {axes = array<i64: 1>, steps = array<i64: 1>}
        : (tensor<2x?xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, 1DTensorOf<[I64]>:$starts,
                   1DTensorOf<[I64]>:$ends, DenseI64ArrayAttr:$axes,
                   DenseI64ArrayAttr:$steps);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `[` $starts `,` $ends `]` attr-dict `:`
    functional-type(operands, results)
  }];
  // A slice of a constant integer vector with constant bounds folds (the
  // shape arithmetic of function bodies: LayerNormalization's prefix of
  // Shape(X)).
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tessel_SplitOp : Tessel_Op<"split", [], ["isShapeOperand"]> {
  let summary = "Consecutive parts of a tensor along one axis (ONNX Split)";
  let description = [{
    Result i is the part of `input` along `axis` of extent `sizes[i]`,
    starting where part i - 1 ended; the sizes (a 1-D int64 tensor, read
    at run time unless it is a constant) must add up to the axis' extent.
    Without `sizes` the k results split the axis evenly: each of extent
    ceil(n / k), the last one what is left (ONNX Split-18's num_outputs;
    earlier opsets require n divisible by k).

    ```mlir
    %a, %b = tessel.split %x sizes %s {axis = 1 : i64}
        : (tensor<?x8xf32>, tensor<2xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, Optional<1DTensorOf<[I64]>>:$sizes,
                   I64Attr:$axis);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $input (`sizes` $sizes^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tessel_SizeOp : Tessel_Op<"size"> {
  let summary = "The number of elements of a tensor, as int64 (ONNX Size)";
  let description = [{
    Folds to a constant when the input's shape is static; otherwise
    partitioning computes it on the host from the plan's extents.

    ```mlir
    %n = tessel.size %x : (tensor<?x4xf32>) -> tensor<i64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs 0DTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Tessel_RangeOp : Tessel_Op<"range", [SameOperandsAndResultElementType],
                                ["isShapeOperand"]> {
  let summary = "start, start + delta, ... up to limit (ONNX Range)";
  let description = [{
    A 1-D tensor of max(ceil((limit - start) / delta), 0) elements,
    element i being start + i * delta. The operands are scalars. Its extent
    depends on their values: for int64 they are shape operands (constants,
    model inputs or computed from shapes, read on the host and in the
    kernel); for other types they must be constants (the result type is
    then static).

    ```mlir
    %r = tessel.range %start, %limit, %delta : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
    ```
  }];
  let arguments = (ins 0DTensorOf<[AnyFloat, AnySignlessInteger]>:$start,
                   0DTensorOf<[AnyFloat, AnySignlessInteger]>:$limit,
                   0DTensorOf<[AnyFloat, AnySignlessInteger]>:$delta);
  let results = (outs 1DTensorOf<[AnyFloat, AnySignlessInteger]>:$result);
  let assemblyFormat = [{
    $start `,` $limit `,` $delta attr-dict `:` functional-type(operands, results)
  }];
  // A range of integer constants folds (axes lists in function bodies).
  let hasFolder = 1;
}

def Tessel_ExpandOp : Tessel_Op<"expand", [], ["isShapeOperand"]> {
  let summary = "Broadcast to a shape given as values (ONNX Expand)";
  let description = [{
    numpy broadcasting of `input` with the shape `shape` (a 1-D int64
    tensor, read at run time unless it is a constant): the result rank is
    the larger of the two, and each result dim is the input's, or the shape
    value where the input's dim is a static 1. Where the input's dim is not
    a static 1, a shape value must be 1 or equal to it (checked at run
    time). A result dim is static when it follows from static dims and
    constant values.

    ```mlir
    %y = tessel.expand %x, %s : (tensor<?x1x8xf32>, tensor<3xi64>) -> tensor<?x?x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, 1DTensorOf<[I64]>:$shape);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $shape attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tessel_ConstantOfShapeOp
    : Tessel_Op<"constant_of_shape", [], ["isShapeOperand"]> {
  let summary = "A tensor of one value, its shape given as values";
  let description = [{
    ONNX ConstantOfShape: every element is `value` (a one-element tensor of
    the result's element type); the dims are the elements of `shape`, a
    1-D int64 tensor read at run time. Folds to a splat constant when the
    shape is a constant.

    ```mlir
    %y = tessel.constant_of_shape %s {value = dense<0.0> : tensor<1xf32>}
        : (tensor<2xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins 1DTensorOf<[I64]>:$shape, ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$shape attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shapes as values
//===----------------------------------------------------------------------===//

def Tessel_ShapeOp : Tessel_Op<"shape"> {
  let summary = "Dims [start, end) of a tensor's shape as int64 (ONNX Shape)";
  let description = [{
    `start` and `end` are normalized at import (0 <= start <= end <= rank).
    Folds to a constant when those dims are static; otherwise partitioning
    evaluates it on the host from the plan's extents.

    ```mlir
    %s = tessel.shape %x {start = 0, end = 2} : (tensor<?x3x4xf32>) -> tensor<2xi64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$start, I64Attr:$end);
  let results = (outs 1DTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

// Squeeze and Unsqueeze with axes known only at run time. With constant
// axes they are Reshapes.
class Tessel_AxesViewOp<string mnemonic>
    : Tessel_Op<mnemonic, [AllElementTypesMatch<["input", "result"]>],
                ["isShapeOperand"]> {
  let arguments = (ins AnyRankedTensor:$input, 1DTensorOf<[I64]>:$axes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `axes` $axes attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tessel_SqueezeOp : Tessel_AxesViewOp<"squeeze"> {
  let summary = "Drop the extent-1 dims that run-time axes name (ONNX Squeeze)";
  let description = [{
    `axes` (static length K >= 1) must name K distinct dims in
    [-rank, rank), each of extent 1; the result keeps the others in order.
    The elements do not move: the plan makes it a view.
  }];
}

def Tessel_UnsqueezeOp : Tessel_AxesViewOp<"unsqueeze"> {
  let summary = "Insert extent-1 dims where run-time axes say (ONNX Unsqueeze)";
  let description = [{
    `axes` (static length K >= 1) must name K distinct dims of the result,
    in [-(rank + K), rank + K); the input's dims fill the others in order.
    The elements do not move: the plan makes it a view.
  }];
}

def Tessel_TriluOp : Tessel_Op<"trilu", [AllTypesMatch<["input", "result"]>]> {
  let summary = "The upper or lower triangle of the last two dims (ONNX Trilu)";
  let description = [{
    Keeps element [..., i, j] where j - i >= k (`upper`) or j - i <= k
    (lower) and writes 0 elsewhere. `k`, a 0-D int64 tensor read by the
    kernel, may be known only at run time; without it k is 0.
  }];
  let arguments = (ins AnyRankedTensor:$input,
                   Optional<0DTensorOf<[I64]>>:$k, BoolAttr:$upper);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input (`k` $k^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tessel_GatherOp : Tessel_Op<"gather"> {
  let summary = "Take slices of `data` along `axis` at `indices` (ONNX Gather)";
  let description = [{
    The result has shape data[:axis] + indices + data[axis+1:]. A negative
    index counts from the end of the axis. Indices outside [-n, n) are an
    error in ONNX: the importer checks them with `tessel.count_out_of_range`
    and `tessel.assert_zero`, and the kernel clamps them into range so that
    it never reads out of bounds. On small int64 tensors computed from shapes (Shape, then
    Gather) partitioning evaluates it on the host.
  }];
  let arguments = (ins AnyRankedTensor:$data,
                   RankedTensorOf<[I32, I64]>:$indices, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tessel_GatherElementsOp : Tessel_Op<"gather_elements"> {
  let summary = "Take one element of `data` per index along `axis` (ONNX GatherElements)";
  let description = [{
    The result has the shape of `indices`, which has the rank of `data`:
    out[i_0, ..., i_r] = data[i_0, ..., indices[i_0, ..., i_r], ..., i_r],
    the index replacing the coordinate on `axis`. On every other axis the
    indices' extent must not exceed the data's. A negative index counts from
    the end of the axis; indices outside [-n, n) are checked and clamped as
    Gather's are.
  }];
  let arguments = (ins AnyRankedTensor:$data,
                   RankedTensorOf<[I32, I64]>:$indices, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tessel_CountOutOfRangeOp : Tessel_Op<"count_out_of_range"> {
  let summary = "How many indices lie outside the dims they index";
  let description = [{
    The number of elements of `indices` outside [-n, n), n the extent of
    the dim of `data` each indexes: dim `axis` for every index (Gather,
    GatherElements, ScatterElements) or, with `tuples`, dim `axis + j` for
    entry j of each index tuple along the last dim of `indices`, which is
    static (GatherND with `axis` its batch_dims, ScatterND with 0). `data`
    is read for its shape only. ONNX makes an out-of-range index an error,
    while the kernels clamp (they must never read out of bounds): the
    importer follows this op with `tessel.assert_zero`. Folds when the
    indices are constant and the extents they meet static.

    ```mlir
    %n = tessel.count_out_of_range %data[%idx] {axis = 0 : i64}
        : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<i64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$data,
                   RankedTensorOf<[I32, I64]>:$indices, I64Attr:$axis,
                   UnitAttr:$tuples);
  let results = (outs 0DTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tessel_AssertZeroOp : Op<Tessel_Dialect, "assert_zero"> {
  let summary = "A run-time error unless a count is zero";
  let description = [{
    The model is invalid when `count` is not 0: `message` says what it
    counts ("indices outside [-n, n) for n = dim 0 of input 0"), and the
    error names the node. Partitioning reads the count back after the rest
    of its block has been launched (one wait at the end, not one per check)
    and checks it with `plan.assert_eq`; a count known at compile time is
    checked then. Not pure, and without a shape contract: it has no
    results. Erased when the count is the constant 0.

    ```mlir
    tessel.assert_zero %n, "indices outside [-n, n) for n = dim 0 of input 0"
        : tensor<i64>
    ```
  }];
  let arguments = (ins 0DTensorOf<[I64]>:$count, StrAttr:$message);
  let assemblyFormat = "$count `,` $message attr-dict `:` type($count)";
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

// Control-flow ops have no shape contract: partitioning lowers them to plan
// regions (plan.if, plan.loop) whose result extents are bound when they run.
// Their regions capture outer values by use; they are as pure as their bodies.
class Tessel_ControlOp<string mnemonic, list<Trait> traits = []>
    : Op<Tessel_Dialect, mnemonic,
         !listconcat(traits, [RecursiveMemoryEffects])>;

def Tessel_YieldOp
    : Op<Tessel_Dialect, "yield",
         [Pure, Terminator, ReturnLike,
          ParentOneOf<["IfOp", "LoopOp", "DispatchRegionOp"]>]> {
  let summary = "The values a branch, loop body or dispatch region gives its op";
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{
    build($_builder, $_state, mlir::ValueRange());
  }]>];
}

def Tessel_DispatchRegionOp
    : Tessel_ControlOp<"dispatch_region",
                       [NoRegionArguments,
                        SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Ops that run as one kernel";
  let description = [{
    Formed by tessel-form-dispatch-regions: partitioning makes the ops of
    the region one kernel and one `plan.dispatch`, whose arguments are the
    values the region reads from outside and whose results are what it
    yields. Intermediate values stay inside the kernel (in registers once
    the kernel pipeline fuses them). The location fuses the ops' locations,
    so a dispatch names every ONNX node it runs.

    ```mlir
    %y = tessel.dispatch_region -> tensor<?x8xf32> {
      %s = tessel.add %a, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
      %r = tessel.relu %s : tensor<?x8xf32>
      tessel.yield %r : tensor<?x8xf32>
    }
    ```
  }];
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "(`->` type($results)^)? $body attr-dict";
  let hasVerifier = 1;
}

def Tessel_IfOp
    : Tessel_ControlOp<"if", [NoRegionArguments,
                              SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "ONNX If: runs one of two branches";
  let description = [{
    `cond` has one element. Each branch yields one tensor per result, of the
    result's element type and rank; a static dim of a result is the
    extent both branches yield there (checked at run time where a branch's
    is dynamic).

    ```mlir
    %r = tessel.if %c : tensor<i1> -> tensor<?xf32> {
      tessel.yield %a : tensor<3xf32>
    } else {
      tessel.yield %b : tensor<?xf32>
    }
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$cond);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$thenRegion,
                        SizedRegion<1>:$elseRegion);
  let assemblyFormat = [{
    $cond `:` type($cond) (`->` type($results)^)? $thenRegion `else`
    $elseRegion attr-dict
  }];
  let hasVerifier = 1;
}

def Tessel_LoopOp
    : Tessel_ControlOp<"loop", [AttrSizedOperandSegments,
                                SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "ONNX Loop: a body run while a count and a condition allow";
  let description = [{
    The body runs while (no `trip_count` or i < trip_count) and (no `cond`
    or cond); both have one element. Its block arguments are the iteration
    number (tensor<i64>), the condition (tensor<i1>) and the loop-carried
    values; it yields the next condition, the next carried values and
    `num_scan` scan values. The results are the final carried values, then
    each scan value of every iteration stacked on a new leading axis.
    Carried values keep their element type and rank; a dim that changes
    across iterations is dynamic in the block argument and the result.

    ```mlir
    %y, %s = tessel.loop trip(%n : tensor<i64>) cond(%c : tensor<i1>)
        carried(%y0 : tensor<1xf32>) -> tensor<1xf32>, tensor<?x1xf32> {
    ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<1xf32>):
      ...
      tessel.yield %ci, %next, %next : tensor<i1>, tensor<1xf32>, tensor<1xf32>
    }
    ```
  }];
  let arguments = (ins Optional<TensorOf<[I64]>>:$trip_count,
                   Optional<TensorOf<[I1]>>:$cond,
                   Variadic<AnyRankedTensor>:$inits);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`trip` `(` $trip_count^ `:` type($trip_count) `)`)?
    (`cond` `(` $cond^ `:` type($cond) `)`)?
    (`carried` `(` $inits^ `:` type($inits) `)`)?
    (`->` type($results)^)? $body attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// How many scan outputs the loop has.
    unsigned getNumScanOutputs() {
      return getNumResults() - getInits().size();
    }
  }];
}

#endif // TESSEL_GRAPH_OPS
