// --tessel-fold-batch-norm: an inference BatchNormalization with constant
// parameters after a Conv or Gemm used only by it folds into its weights:
// s = scale / sqrt(var + eps), t = bias - mean * s, W' = W * s per output
// channel, b' = b * s + t. Here s = [4 / 2, 1 / 1] = [2, 1] and
// t = [1 - 0.5 * 2, 0 - 2 * 1] = [0, -2].
// RUN: tessel-opt %s --split-input-file --tessel-fold-batch-norm --canonicalize --mlir-print-debuginfo | FileCheck %s

// Conv W = [3, 5], b = [1, 1]: W' = [6, 5], b' = [2, -1]. The folded Conv
// names both nodes.
// CHECK-LABEL: func.func @conv
// CHECK-DAG:     %[[W:.+]] = tessel.constant dense<{{\[\[\[\[}}6.000000e+00]]], {{\[\[\[}}5.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-DAG:     %[[B:.+]] = tessel.constant dense<[2.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK:         %[[Y:.+]] = tessel.conv %arg0, %[[W]], %[[B]] {{.+}} loc(#[[LOC:.+]])
// CHECK-NOT:     tessel.batch_norm
// CHECK:         return %[[Y]]
// CHECK:       #[[LOC]] = loc(fused<"tessel.dispatch_region">[#{{.+}}, #{{.+}}])
func.func @conv(%x: tensor<?x1x4x4xf32>) -> tensor<?x2x4x4xf32> {
  %w = tessel.constant dense<[[[[3.0]]], [[[5.0]]]]> : tensor<2x1x1x1xf32>
  %b = tessel.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %scale = tessel.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %bias = tessel.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %mean = tessel.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %var = tessel.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<?x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32> loc("conv1"("Conv"))
  %y = tessel.batch_norm %c, %scale, %bias, %mean, %var {epsilon = 1.0 : f32}
      : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32> loc("bn1"("BatchNormalization"))
  return %y : tensor<?x2x4x4xf32>
}

// -----

// With filters_last the filters are the weight's last dim: W = [[3, 5],
// [7, 9]] (C x F) scales per column, W' = [[6, 5], [14, 9]].
// CHECK-LABEL: func.func @conv_filters_last
// CHECK-DAG:     %[[W:.+]] = tessel.constant dense<{{\[\[\[\[}}6.000000e+00, 5.000000e+00]]], {{\[\[\[}}1.400000e+01, 9.000000e+00]]]]> : tensor<2x1x1x2xf32>
// CHECK:         tessel.conv %arg0, %[[W]], %{{.+}} {{{.*}}filters_last{{.*}}}
// CHECK-NOT:     tessel.batch_norm
func.func @conv_filters_last(%x: tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32> {
  %w = tessel.constant dense<[[[[3.0, 5.0]]], [[[7.0, 9.0]]]]> : tensor<2x1x1x2xf32>
  %scale = tessel.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %bias = tessel.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %mean = tessel.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %var = tessel.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = tessel.conv %x, %w {dilations = array<i64: 1, 1>, filters_last, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<?x2x4x4xf32>, tensor<2x1x1x2xf32>) -> tensor<?x2x4x4xf32>
  %y = tessel.batch_norm %c, %scale, %bias, %mean, %var {epsilon = 1.0 : f32}
      : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  return %y : tensor<?x2x4x4xf32>
}

// -----

// Padded rows (3 for 2 filters): the padding is left as it is.
// CHECK-LABEL: func.func @conv_filters_last_padded
// CHECK-DAG:     tessel.constant dense<{{\[\[\[\[}}6.000000e+00, 5.000000e+00, 9.000000e+00]]]]> : tensor<1x1x1x3xf32>
// CHECK-NOT:     tessel.batch_norm
func.func @conv_filters_last_padded(%x: tensor<?x1x4x4xf32>) -> tensor<?x2x4x4xf32> {
  %w = tessel.constant dense<[[[[3.0, 5.0, 9.0]]]]> : tensor<1x1x1x3xf32>
  %scale = tessel.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %bias = tessel.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %mean = tessel.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %var = tessel.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c = tessel.conv %x, %w {dilations = array<i64: 1, 1>, filters_last, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<?x1x4x4xf32>, tensor<1x1x1x3xf32>) -> tensor<?x2x4x4xf32>
  %y = tessel.batch_norm %c, %scale, %bias, %mean, %var {epsilon = 1.0 : f32}
      : (tensor<?x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2x4x4xf32>
  return %y : tensor<?x2x4x4xf32>
}

// -----

// Gemm with trans_b, B = [N, K] = [[1, 2], [3, 4]], C = [1, 1], beta 2:
// B' = [[2, 4], [3, 4]], C' = 2 * C * s + t = [4, 0], beta 1.
// CHECK-LABEL: func.func @gemm
// CHECK-DAG:     %[[B:.+]] = tessel.constant dense<{{\[\[}}2.000000e+00, 4.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG:     %[[C:.+]] = tessel.constant dense<[4.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK:         tessel.gemm %arg0, %[[B]], %[[C]] {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true}
// CHECK-NOT:     tessel.batch_norm
func.func @gemm(%a: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %b = tessel.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c = tessel.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %scale = tessel.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %bias = tessel.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %mean = tessel.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %var = tessel.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %g = tessel.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 2.0 : f32, trans_a = false, trans_b = true}
      : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  %y = tessel.batch_norm %g, %scale, %bias, %mean, %var {epsilon = 1.0 : f32}
      : (tensor<?x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// Left alone: the Conv has another user, and the statistics are inputs.
// CHECK-LABEL: func.func @not_folded
// CHECK-COUNT-2: tessel.batch_norm
func.func @not_folded(%x: tensor<1x1x4x4xf32>, %mean: tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = tessel.constant dense<[[[[3.0]]], [[[5.0]]]]> : tensor<2x1x1x1xf32>
  %ones = tessel.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %c = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = tessel.batch_norm %c, %ones, %ones, %ones, %ones {epsilon = 1.0 : f32}
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %c2 = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %z = tessel.batch_norm %c2, %ones, %ones, %mean, %ones {epsilon = 1.0 : f32}
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %y, %c, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
