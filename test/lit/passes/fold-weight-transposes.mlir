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

// -----

// Rows of 128 floats (512 bytes) are padded by a cache line: 144 wide,
// filters 1 to 128 then 16 zeros.
// CHECK-LABEL: func.func @conv_padded_rows
// CHECK:         %[[W:[^ ]+]] = tessel.constant dense<"0x0000803F{{[0-9A-F]*}}00000043{{(00000000)+}}"> : tensor<1x1x1x144xf32>
// CHECK:         tessel.conv %{{.+}}, %[[W]] {{{.*}}filters_last{{.*}}} : (tensor<1x1x2x2xf32>, tensor<1x1x1x144xf32>) -> tensor<1x128x2x2xf32>
func.func @conv_padded_rows(%x: tensor<1x1x2x2xf32>) -> tensor<1x128x2x2xf32> {
  %w = tessel.constant dense<[[[[1.0]]], [[[2.0]]], [[[3.0]]], [[[4.0]]], [[[5.0]]], [[[6.0]]], [[[7.0]]], [[[8.0]]], [[[9.0]]], [[[10.0]]], [[[11.0]]], [[[12.0]]], [[[13.0]]], [[[14.0]]], [[[15.0]]], [[[16.0]]], [[[17.0]]], [[[18.0]]], [[[19.0]]], [[[20.0]]], [[[21.0]]], [[[22.0]]], [[[23.0]]], [[[24.0]]], [[[25.0]]], [[[26.0]]], [[[27.0]]], [[[28.0]]], [[[29.0]]], [[[30.0]]], [[[31.0]]], [[[32.0]]], [[[33.0]]], [[[34.0]]], [[[35.0]]], [[[36.0]]], [[[37.0]]], [[[38.0]]], [[[39.0]]], [[[40.0]]], [[[41.0]]], [[[42.0]]], [[[43.0]]], [[[44.0]]], [[[45.0]]], [[[46.0]]], [[[47.0]]], [[[48.0]]], [[[49.0]]], [[[50.0]]], [[[51.0]]], [[[52.0]]], [[[53.0]]], [[[54.0]]], [[[55.0]]], [[[56.0]]], [[[57.0]]], [[[58.0]]], [[[59.0]]], [[[60.0]]], [[[61.0]]], [[[62.0]]], [[[63.0]]], [[[64.0]]], [[[65.0]]], [[[66.0]]], [[[67.0]]], [[[68.0]]], [[[69.0]]], [[[70.0]]], [[[71.0]]], [[[72.0]]], [[[73.0]]], [[[74.0]]], [[[75.0]]], [[[76.0]]], [[[77.0]]], [[[78.0]]], [[[79.0]]], [[[80.0]]], [[[81.0]]], [[[82.0]]], [[[83.0]]], [[[84.0]]], [[[85.0]]], [[[86.0]]], [[[87.0]]], [[[88.0]]], [[[89.0]]], [[[90.0]]], [[[91.0]]], [[[92.0]]], [[[93.0]]], [[[94.0]]], [[[95.0]]], [[[96.0]]], [[[97.0]]], [[[98.0]]], [[[99.0]]], [[[100.0]]], [[[101.0]]], [[[102.0]]], [[[103.0]]], [[[104.0]]], [[[105.0]]], [[[106.0]]], [[[107.0]]], [[[108.0]]], [[[109.0]]], [[[110.0]]], [[[111.0]]], [[[112.0]]], [[[113.0]]], [[[114.0]]], [[[115.0]]], [[[116.0]]], [[[117.0]]], [[[118.0]]], [[[119.0]]], [[[120.0]]], [[[121.0]]], [[[122.0]]], [[[123.0]]], [[[124.0]]], [[[125.0]]], [[[126.0]]], [[[127.0]]], [[[128.0]]]]> : tensor<128x1x1x1xf32>
  %0 = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<128x1x1x1xf32>) -> tensor<1x128x2x2xf32>
  return %0 : tensor<1x128x2x2xf32>
}
