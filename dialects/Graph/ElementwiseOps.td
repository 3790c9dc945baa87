//===- ElementwiseOps.td - The graph dialect's elementwise ops -*- tablegen -*-===//
//
// Arithmetic, activations and math, comparisons, logic, Where and Clip:
// every op here derives from Tessel_ElementwiseOp and writes its scalar body
// in ElementwiseOps.cpp (docs/design.md, "Adding an op"). Included by
// TesselOps.td, which defines the dialect and the base classes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_GRAPH_ELEMENTWISE_OPS
#define TESSEL_GRAPH_ELEMENTWISE_OPS

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Tessel_BinaryOp<string mnemonic>
    : Tessel_ElementwiseOp<mnemonic, [ResultsBroadcastableShape,
                           SameOperandsAndResultElementType]> {
  let summary = "Elementwise ONNX " # mnemonic # " with numpy broadcasting";
  let arguments = (ins Tessel_NumericTensor:$lhs, Tessel_NumericTensor:$rhs);
  let results = (outs Tessel_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  // Integer constants fold (the shape arithmetic exporters emit).
  let hasFolder = 1;
  // ResultsBroadcastableShape lets `?` match anything; the verifier also
  // checks the result dims exactly (see TesselOps.cpp).
  let hasVerifier = 1;
}

def Tessel_AddOp : Tessel_BinaryOp<"add">;
def Tessel_SubOp : Tessel_BinaryOp<"sub">;
def Tessel_MulOp : Tessel_BinaryOp<"mul">;

def Tessel_DivOp : Tessel_ElementwiseOp<"div", [ResultsBroadcastableShape,
                                     SameOperandsAndResultElementType]> {
  let summary = "Elementwise ONNX Div with numpy broadcasting";
  let description = [{
    Integer division truncates toward zero; `is_unsigned` marks integers
    that ONNX types as unsigned (MLIR integers here are signless).
  }];
  let arguments = (ins Tessel_NumericTensor:$lhs, Tessel_NumericTensor:$rhs,
                   UnitAttr:$is_unsigned);
  let results = (outs Tessel_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  // ResultsBroadcastableShape lets `?` match anything; the verifier also
  // checks the result dims exactly (see TesselOps.cpp).
  let hasVerifier = 1;
}

// A float op of one operand; `attrs` are its ONNX attributes (alpha, ...),
// always explicit (the importer fills in ONNX's defaults).
class Tessel_UnaryOp<string mnemonic, dag attrs = (ins)>
    : Tessel_ElementwiseOp<mnemonic, [SameOperandsAndResultType]> {
  let summary = "Elementwise ONNX " # mnemonic;
  let arguments = !con((ins Tessel_FloatTensor:$input), attrs);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tessel_ReluOp : Tessel_UnaryOp<"relu">;
def Tessel_SigmoidOp : Tessel_UnaryOp<"sigmoid">;
def Tessel_TanhOp : Tessel_UnaryOp<"tanh">;
def Tessel_SqrtOp : Tessel_UnaryOp<"sqrt">;
def Tessel_ErfOp : Tessel_UnaryOp<"erf">;
def Tessel_ExpOp : Tessel_UnaryOp<"exp">;
def Tessel_LogOp : Tessel_UnaryOp<"log">;
def Tessel_ReciprocalOp : Tessel_UnaryOp<"reciprocal">;
def Tessel_FloorOp : Tessel_UnaryOp<"floor">;
def Tessel_CeilOp : Tessel_UnaryOp<"ceil">;
// log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)) so that it
// neither overflows nor loses the small values.
def Tessel_SoftplusOp : Tessel_UnaryOp<"softplus">;
def Tessel_SoftsignOp : Tessel_UnaryOp<"softsign">;
// Trigonometric and hyperbolic functions; Round rounds half to even.
def Tessel_SinOp : Tessel_UnaryOp<"sin">;
def Tessel_CosOp : Tessel_UnaryOp<"cos">;
def Tessel_TanOp : Tessel_UnaryOp<"tan">;
def Tessel_AsinOp : Tessel_UnaryOp<"asin">;
def Tessel_AcosOp : Tessel_UnaryOp<"acos">;
def Tessel_AtanOp : Tessel_UnaryOp<"atan">;
def Tessel_SinhOp : Tessel_UnaryOp<"sinh">;
def Tessel_CoshOp : Tessel_UnaryOp<"cosh">;
def Tessel_AsinhOp : Tessel_UnaryOp<"asinh">;
def Tessel_AcoshOp : Tessel_UnaryOp<"acosh">;
def Tessel_AtanhOp : Tessel_UnaryOp<"atanh">;
def Tessel_RoundOp : Tessel_UnaryOp<"round">;
def Tessel_LeakyReluOp : Tessel_UnaryOp<"leaky_relu", (ins F32Attr:$alpha)>;
def Tessel_EluOp : Tessel_UnaryOp<"elu", (ins F32Attr:$alpha)>;
def Tessel_CeluOp : Tessel_UnaryOp<"celu", (ins F32Attr:$alpha)>;
def Tessel_SeluOp : Tessel_UnaryOp<"selu", (ins F32Attr:$alpha, F32Attr:$gamma)>;
def Tessel_HardSigmoidOp
    : Tessel_UnaryOp<"hard_sigmoid", (ins F32Attr:$alpha, F32Attr:$beta)>;
def Tessel_ThresholdedReluOp
    : Tessel_UnaryOp<"thresholded_relu", (ins F32Attr:$alpha)>;

// Float classification: a bool per element.
def Tessel_IsNaNOp : Tessel_ElementwiseOp<"is_nan"> {
  let summary = "Whether each element is NaN (ONNX IsNaN)";
  let arguments = (ins Tessel_FloatTensor:$input);
  let results = (outs Tessel_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tessel_IsInfOp : Tessel_ElementwiseOp<"is_inf"> {
  let summary = "Whether each element is an infinity (ONNX IsInf)";
  let description = [{
    `detect_negative` and `detect_positive` choose which infinities count.
  }];
  let arguments = (ins Tessel_FloatTensor:$input, BoolAttr:$detect_negative,
                   BoolAttr:$detect_positive);
  let results = (outs Tessel_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

// A numeric op of one operand: floats and integers, `is_unsigned` marking
// integers ONNX types as unsigned.
class Tessel_NumericUnaryOp<string mnemonic>
    : Tessel_ElementwiseOp<mnemonic, [SameOperandsAndResultType]> {
  let summary = "Elementwise ONNX " # mnemonic # " of numbers";
  let arguments = (ins Tessel_NumericTensor:$input, UnitAttr:$is_unsigned);
  let results = (outs Tessel_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  // Integer constants fold (shape arithmetic).
  let hasFolder = 1;
}

// -x; integers wrap (-INT_MIN = INT_MIN).
def Tessel_NegOp : Tessel_NumericUnaryOp<"neg">;
// |x|; integers wrap (|INT_MIN| = INT_MIN), unsigned ones are unchanged.
def Tessel_AbsOp : Tessel_NumericUnaryOp<"abs">;
// -1, 0 or 1 (NaN stays NaN).
def Tessel_SignOp : Tessel_NumericUnaryOp<"sign">;

// Binary ops on numbers whose integer form depends on signedness.
class Tessel_SignedBinaryOp<string mnemonic, string onnx>
    : Tessel_ElementwiseOp<mnemonic, [ResultsBroadcastableShape,
                                      SameOperandsAndResultElementType]> {
  let summary = "Elementwise ONNX " # onnx # " with numpy broadcasting";
  let arguments = (ins Tessel_NumericTensor:$lhs, Tessel_NumericTensor:$rhs,
                   UnitAttr:$is_unsigned);
  let results = (outs Tessel_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  // Integer constants fold (shape arithmetic).
  let hasFolder = 1;
  let hasVerifier = 1;
}

// The larger (smaller) of two numbers; a NaN operand gives NaN (ONNX Max
// and Min of two inputs; more inputs are a chain of these).
def Tessel_MaxOp : Tessel_SignedBinaryOp<"max", "Max">;
def Tessel_MinOp : Tessel_SignedBinaryOp<"min", "Min">;

def Tessel_ModOp : Tessel_ElementwiseOp<"mod", [ResultsBroadcastableShape,
                                               SameOperandsAndResultElementType]> {
  let summary = "Elementwise remainder with numpy broadcasting (ONNX Mod)";
  let description = [{
    With `fmod` the remainder has the sign of the dividend (C's fmod,
    truncated division); without it (integers only) the sign of the divisor
    (Python's %, floored division). An integer remainder by 0 is the
    dividend, so that x == (x / y) * y + x mod y holds with Tessel's
    x / 0 = 0 (docs/design.md, "Integer division"); nothing traps.
  }];
  let arguments = (ins Tessel_NumericTensor:$lhs, Tessel_NumericTensor:$rhs,
                   UnitAttr:$fmod, UnitAttr:$is_unsigned);
  let results = (outs Tessel_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  // Integer constants fold (shape arithmetic: attention's heads % groups).
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tessel_PowOp : Tessel_ElementwiseOp<"pow", [ResultsBroadcastableShape,
                                     SameOperandsAndResultElementType]> {
  let summary = "Elementwise x ** y of floats with numpy broadcasting (ONNX Pow)";
  let description = [{
    C's `pow`: a negative base with an integral exponent has the exponent's
    parity as its sign, with any other exponent it is NaN; `pow(x, 0)` and
    `pow(1, y)` are 1. The importer converts an exponent of another type
    (ONNX Pow-12 allows integers) to the base's type.
  }];
  let arguments = (ins Tessel_FloatTensor:$lhs, Tessel_FloatTensor:$rhs);
  let results = (outs Tessel_FloatTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Comparisons, logic, Where
//===----------------------------------------------------------------------===//


class Tessel_CompareOp<string mnemonic, string onnx>
    : Tessel_ElementwiseOp<mnemonic, [ResultsBroadcastableShape,
                           AllElementTypesMatch<["lhs", "rhs"]>]> {
  let summary = "Elementwise ONNX " # onnx # " with numpy broadcasting";
  let description = [{
    Numbers compare as numbers: integers signed, or unsigned with
    `is_unsigned` (ONNX's unsigned types; MLIR integers are signless);
    floats ordered, so a NaN compares false (true for nothing but
    inequality, which ONNX does not have). The result is bool (i1).
  }];
  let arguments = (ins Tessel_NumericTensor:$lhs, Tessel_NumericTensor:$rhs,
                   UnitAttr:$is_unsigned);
  let results = (outs Tessel_BoolTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  // Integer and bool constants fold (shape arithmetic, attention masks).
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tessel_EqualOp : Tessel_CompareOp<"equal", "Equal">;
def Tessel_LessOp : Tessel_CompareOp<"less", "Less">;
def Tessel_LessOrEqualOp : Tessel_CompareOp<"less_or_equal", "LessOrEqual">;
def Tessel_GreaterOp : Tessel_CompareOp<"greater", "Greater">;
def Tessel_GreaterOrEqualOp
    : Tessel_CompareOp<"greater_or_equal", "GreaterOrEqual">;

class Tessel_LogicalOp<string mnemonic>
    : Tessel_ElementwiseOp<mnemonic, [ResultsBroadcastableShape,
                           SameOperandsAndResultElementType]> {
  let summary = "Elementwise " # mnemonic # " with numpy broadcasting";
  let description = [{
    Logical on bools (ONNX And, Or, Xor), bitwise on integers (ONNX
    BitwiseAnd, BitwiseOr, BitwiseXor).
  }];
  let arguments = (ins Tessel_IntegerTensor:$lhs, Tessel_IntegerTensor:$rhs);
  let results = (outs Tessel_IntegerTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tessel_AndOp : Tessel_LogicalOp<"and">;
def Tessel_OrOp : Tessel_LogicalOp<"or">;
def Tessel_XorOp : Tessel_LogicalOp<"xor">;

def Tessel_NotOp : Tessel_ElementwiseOp<"not", [SameOperandsAndResultType]> {
  let summary = "Elementwise negation: logical on bools (ONNX Not), bitwise "
                "on integers (ONNX BitwiseNot)";
  let arguments = (ins Tessel_IntegerTensor:$input);
  let results = (outs Tessel_IntegerTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Tessel_BitShiftOp
    : Tessel_ElementwiseOp<"bit_shift", [ResultsBroadcastableShape,
                           SameOperandsAndResultElementType]> {
  let summary = "Elementwise shift of unsigned integers (ONNX BitShift)";
  let description = [{
    `lhs` shifted by `rhs` bits, to the left with `left`, else to the right
    (logical: ONNX shifts unsigned types only); a shift by the width or more
    gives 0.
  }];
  let arguments = (ins Tessel_IntegerTensor:$lhs, Tessel_IntegerTensor:$rhs,
                   UnitAttr:$left);
  let results = (outs Tessel_IntegerTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tessel_BitcastOp : Tessel_ElementwiseOp<"bitcast"> {
  let summary = "Elementwise reinterpretation of the bits (ONNX BitCast)";
  let description = [{
    The result element type has the input's width (bool counts as 8 bits,
    its storage: true is 1, and a byte converts to bool as != 0).
  }];
  let arguments = (ins Tessel_NumericTensor:$input);
  let results = (outs Tessel_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tessel_WhereOp
    : Tessel_ElementwiseOp<"where", [ResultsBroadcastableShape,
                          AllElementTypesMatch<["x", "y", "result"]>]> {
  let summary = "condition ? x : y elementwise, numpy broadcasting of all three";
  let description = [{
    ONNX Where. `x` and `y` have any one element type; a constant condition
    (and constant operands) fold.

    ```mlir
    %r = tessel.where %c, %x, %y : (tensor<?x1xi1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Tessel_BoolTensor:$condition, AnyRankedTensor:$x,
                   AnyRankedTensor:$y);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $condition `,` $x `,` $y attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Tessel_ClipOp : Tessel_ElementwiseOp<"clip", [AttrSizedOperandSegments]> {
  let summary = "min(max(x, min), max) elementwise (ONNX Clip)";
  let description = [{
    `min` and `max` are optional scalars (rank 0) of the element type, read
    at run time; an absent one does not bound. With min > max every element
    becomes max (ONNX). `is_unsigned` marks integers ONNX types as unsigned.

    ```mlir
    %y = tessel.clip %x, %lo, %hi : (tensor<?x8xf32>, tensor<f32>, tensor<f32>) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Tessel_NumericTensor:$input,
                   Optional<Tessel_NumericTensor>:$min,
                   Optional<Tessel_NumericTensor>:$max, UnitAttr:$is_unsigned);
  let results = (outs Tessel_NumericTensor:$result);
  let assemblyFormat = [{
    $input (`min` $min^)? (`max` $max^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // TESSEL_GRAPH_ELEMENTWISE_OPS
