// --tessel-lower-precision: a contraction reads its two multiplicands in
// bf16 (or f16) and gives its f32 sums (acc_type = f32); the bias and
// every other op stay f32. Constants are converted at compile time (round
// to nearest even); an f32 activation is cast down once however many
// contractions read it; the function's types stay unless `io` is set.
// RUN: tessel-opt %s --split-input-file --tessel-lower-precision | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-lower-precision=precision=fp16 | FileCheck %s --check-prefix=F16
// RUN: tessel-opt %s --split-input-file --tessel-lower-precision="keep-fp32=Gemm" | FileCheck %s --check-prefix=KEEP
// RUN: tessel-opt %s --split-input-file --tessel-lower-precision="keep-fp32=mm2" | FileCheck %s --check-prefix=NODE
// RUN: not tessel-opt %s --split-input-file --tessel-lower-precision=precision=fp12 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: tessel-opt %s --split-input-file --tessel-lower-precision="io=true" | FileCheck %s --check-prefix=IO

// 1 + 2^-8 is halfway between the bf16 values 1 and 1 + 2^-7 (to even: 1);
// 1 + 3 * 2^-8 rounds up to 1 + 2^-6. f16 holds both exactly. The bias
// (a Gemm's C) is not a multiplicand: it stays f32, as do the Relu and the
// Softmax.
// CHECK-LABEL: func.func @mlp
// CHECK-DAG:     %[[X:.+]] = tessel.cast %arg0 : (tensor<?x2xf32>) -> tensor<?x2xbf16>
// CHECK-DAG:     %[[W:.+]] = tessel.constant dense<{{\[\[}}1.000000e+00, 1.015630e+00], [-2.000000e+00, 5.000000e-01]]> : tensor<2x2xbf16>
// CHECK:         %[[G:.+]] = tessel.gemm %[[X]], %[[W]], %{{.+}} {acc_type = f32, {{.*}}} : (tensor<?x2xbf16>, tensor<2x2xbf16>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK:         %[[R:.+]] = tessel.relu %[[G]] : tensor<?x2xf32>
// CHECK:         %[[S:.+]] = tessel.softmax %[[R]] {axis = 1 : i64} : tensor<?x2xf32>
// CHECK:         return %[[S]], %[[R]] : tensor<?x2xf32>, tensor<?x2xf32>
// F16-LABEL: func.func @mlp
// F16-DAG:     tessel.constant dense<{{\[\[}}1.003910e+00, 1.011720e+00], [-2.000000e+00, 5.000000e-01]]> : tensor<2x2xf16>
// F16:         tessel.gemm %{{.+}}, %{{.+}}, %{{.+}} {acc_type = f32, {{.*}}} : (tensor<?x2xf16>, tensor<2x2xf16>, tensor<2xf32>) -> tensor<?x2xf32>
// KEEP-LABEL: func.func @mlp
// KEEP-NOT:   bf16
// KEEP-LABEL: func.func @shared_input
// With io, the argument and results are bf16 (and their ONNX dtype 16):
// the Gemm reads x as it is, the Relu's input is the f32 sums, and the
// f32 results are cast down at the return.
// IO-LABEL: func.func @mlp
// IO-SAME:    (%arg0: tensor<?x2xbf16> {tessel.dtype = 16 : i32}) -> (tensor<?x2xbf16>, tensor<?x2xbf16>)
// IO-SAME:    tessel.output_dtypes = [16 : i32, 16 : i32]
// IO:         tessel.gemm %arg0, %{{.+}}, %{{.+}} {acc_type = f32, {{.*}}} : (tensor<?x2xbf16>, tensor<2x2xbf16>, tensor<2xf32>) -> tensor<?x2xf32>
// IO:         %[[R:.+]] = tessel.relu
// IO:         %[[RD:.+]] = tessel.cast %[[R]] : (tensor<?x2xf32>) -> tensor<?x2xbf16>
// IO:         %[[S:.+]] = tessel.softmax %[[R]] {axis = 1 : i64} : tensor<?x2xf32>
// IO:         %[[SD:.+]] = tessel.cast %[[S]] : (tensor<?x2xf32>) -> tensor<?x2xbf16>
// IO:         return %[[SD]], %[[RD]] : tensor<?x2xbf16>, tensor<?x2xbf16>
func.func @mlp(%x: tensor<?x2xf32> {tessel.dtype = 1 : i32}) -> (tensor<?x2xf32>, tensor<?x2xf32>) attributes {tessel.output_dtypes = [1 : i32, 1 : i32]} {
  %w = tessel.constant dense<[[1.00390625, 1.01171875], [-2.0, 0.5]]> : tensor<2x2xf32> loc("w"("Constant"("m.onnx":0:0)))
  %b = tessel.constant dense<0.25> : tensor<2xf32>
  %g = tessel.gemm %x, %w, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32> loc("g"("Gemm"("m.onnx":0:0)))
  %r = tessel.relu %g : tensor<?x2xf32>
  %s = tessel.softmax %r {axis = 1 : i64} : tensor<?x2xf32>
  return %s, %r : tensor<?x2xf32>, tensor<?x2xf32>
}

// -----

// An f32 value read by two contractions is cast down once; ops between
// f32 values are left alone; `keep-fp32` of a node keeps that one.
// CHECK-LABEL: func.func @shared_input
// CHECK:         %[[X:.+]] = tessel.cast %arg0 : (tensor<4x3xf32>) -> tensor<4x3xbf16>
// CHECK-NOT:     tessel.cast %arg0
// CHECK:         %[[A:.+]] = tessel.matmul %[[X]], %{{.+}} {acc_type = f32} : (tensor<4x3xbf16>, tensor<3x3xbf16>) -> tensor<4x3xf32>
// CHECK:         tessel.matmul %[[X]], %{{.+}} {acc_type = f32}
// CHECK:         tessel.reduce_sum %[[A]] {{{.*}}} : (tensor<4x3xf32>) -> tensor<4x1xf32>
// CHECK:         tessel.add %arg0, %arg0 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// NODE-LABEL: func.func @shared_input
// NODE:         tessel.matmul %{{.+}}, %{{.+}} {acc_type = f32} : (tensor<4x3xbf16>, tensor<3x3xbf16>) -> tensor<4x3xf32>
// NODE:         tessel.matmul %arg0, %arg1 : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
func.func @shared_input(%x: tensor<4x3xf32>, %w: tensor<3x3xf32>) -> (tensor<4x1xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %a = tessel.matmul %x, %w : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32> loc("mm1"("MatMul"("m.onnx":0:0)))
  %b = tessel.matmul %x, %w : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32> loc("mm2"("MatMul"("m.onnx":0:0)))
  %s = tessel.reduce_sum %a {acc_type = f32, axes = array<i64: 1>, keepdims = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  %c = tessel.add %x, %x : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %s, %b, %c : tensor<4x1xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// BAD: tessel-lower-precision: unknown precision 'fp12' (bf16 or fp16)
