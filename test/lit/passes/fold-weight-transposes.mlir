// --tessel-fold-weight-transposes: transposes of constants happen at compile
// time. A Gemm with trans_b and a constant B gets B = [N, K] stored as
// [K, N] and trans_b = false; a Conv with a constant weight gets it with
// the filters last; non-constant operands are left alone.
// RUN: tessel-opt %s --split-input-file --tessel-fold-weight-transposes --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @gemm_trans_b
// CHECK:         %[[B:.+]] = tessel.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK:         tessel.gemm %{{.+}}, %[[B]] {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = false}
// CHECK-NOT:     tensor<2x3xf32>
func.func @gemm_trans_b(%a: tensor<?x3xf32>) -> tensor<?x2xf32> {
  %b = tessel.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = tessel.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
      : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// A B computed at run time stays transposed in the Gemm.
// CHECK-LABEL: func.func @gemm_trans_b_argument
// CHECK:         tessel.gemm %{{.+}}, %{{.+}} {{{.*}}trans_b = true}
func.func @gemm_trans_b_argument(%a: tensor<4x3xf32>, %b: tensor<2x3xf32>) -> tensor<4x2xf32> {
  %0 = tessel.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
      : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// A 3-d transpose of an int64 constant, and of a splat.
// CHECK-LABEL: func.func @transpose
// CHECK-DAG:     tessel.constant dense<{{\[\[\[}}0, 3]], {{\[\[}}1, 4]], {{\[\[}}2, 5]]]> : tensor<3x1x2xi64>
// CHECK-DAG:     tessel.constant dense<7.000000e+00> : tensor<3x2xf32>
// CHECK-NOT:     tessel.transpose
func.func @transpose() -> (tensor<3x1x2xi64>, tensor<3x2xf32>) {
  %c = tessel.constant dense<[[[0, 1, 2]], [[3, 4, 5]]]> : tensor<2x1x3xi64>
  %0 = tessel.transpose %c {perm = array<i64: 2, 1, 0>} : (tensor<2x1x3xi64>) -> tensor<3x1x2xi64>
  %s = tessel.constant dense<7.0> : tensor<2x3xf32>
  %1 = tessel.transpose %s {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %1 : tensor<3x1x2xi64>, tensor<3x2xf32>
}

// -----

// A Conv's constant weight F x C x KH x KW = 2 x 1 x 1 x 3 becomes
// C x KH x KW x F = 1 x 1 x 3 x 2 with filters_last; a weight computed at
// run time keeps ONNX's layout.
// CHECK-LABEL: func.func @conv_filters_last
// CHECK:         %[[W:.+]] = tessel.constant dense<{{\[\[\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]]]> : tensor<1x1x3x2xf32>
// CHECK:         tessel.conv %{{.+}}, %[[W]] {{{.*}}filters_last{{.*}}} : (tensor<1x1x4x8xf32>, tensor<1x1x3x2xf32>) -> tensor<1x2x4x6xf32>
// CHECK:         tessel.conv %{{.+}}, %{{.+}} {{{[^}]*}}} : (tensor<1x1x4x8xf32>, tensor<2x1x1x3xf32>)
// CHECK-NOT:     filters_last
func.func @conv_filters_last(%x: tensor<1x1x4x8xf32>, %v: tensor<2x1x1x3xf32>) -> (tensor<1x2x4x6xf32>, tensor<1x2x4x6xf32>) {
  %w = tessel.constant dense<[[[[1.0, 2.0, 3.0]]], [[[4.0, 5.0, 6.0]]]]> : tensor<2x1x1x3xf32>
  %0 = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x4x8xf32>, tensor<2x1x1x3xf32>) -> tensor<1x2x4x6xf32>
  %1 = tessel.conv %x, %v {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x4x8xf32>, tensor<2x1x1x3xf32>) -> tensor<1x2x4x6xf32>
  return %0, %1 : tensor<1x2x4x6xf32>, tensor<1x2x4x6xf32>
}
