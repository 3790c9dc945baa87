// --tessel-subsample-pointwise-convs: a 1x1 Conv of stride s > 1 without
// padding reads a Slice of its input with steps s (every s-th pixel from
// 0), and strides 1. Kernels other than 1x1, padding and stride 1 are left
// alone.
// RUN: tessel-opt %s --split-input-file --tessel-subsample-pointwise-convs | FileCheck %s

// CHECK-LABEL: func.func @downsample
// CHECK-DAG:     %[[START:.+]] = tessel.constant dense<0> : tensor<2xi64>
// CHECK-DAG:     %[[END:.+]] = tessel.constant dense<9223372036854775807> : tensor<2xi64>
// CHECK:         %[[S:.+]] = tessel.slice %arg0[%[[START]], %[[END]]] {axes = array<i64: 2, 3>, steps = array<i64: 2, 2>} : (tensor<?x4x7x8xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x4x4x4xf32>
// CHECK:         tessel.conv %[[S]], %arg1, %arg2 {dilations = array<i64: 1, 1>, filters_last, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x4x4x4xf32>, tensor<4x1x1x6xf32>, tensor<6xf32>) -> tensor<?x6x4x4xf32>
func.func @downsample(%x: tensor<?x4x7x8xf32>, %w: tensor<4x1x1x6xf32>, %b: tensor<6xf32>) -> tensor<?x6x4x4xf32> {
  %0 = tessel.conv %x, %w, %b {dilations = array<i64: 1, 1>, filters_last, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x4x7x8xf32>, tensor<4x1x1x6xf32>, tensor<6xf32>) -> tensor<?x6x4x4xf32>
  return %0 : tensor<?x6x4x4xf32>
}

// -----

// One strided axis of a dynamic extent: its slice is dynamic too.
// CHECK-LABEL: func.func @one_axis
// CHECK:         %[[S:.+]] = tessel.slice %arg0[%{{.+}}, %{{.+}}] {axes = array<i64: 3>, steps = array<i64: 3>} : (tensor<1x2x5x?xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x2x5x?xf32>
// CHECK:         tessel.conv %[[S]], %arg1 {{.*}}strides = array<i64: 1, 1>}
func.func @one_axis(%x: tensor<1x2x5x?xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x5x?xf32> {
  %0 = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 3>} : (tensor<1x2x5x?xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x5x?xf32>
  return %0 : tensor<1x3x5x?xf32>
}

// -----

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     tessel.slice
// CHECK:         strides = array<i64: 2, 2>
// CHECK:         strides = array<i64: 2, 2>
// CHECK:         strides = array<i64: 1, 1>
func.func @left_alone(%x: tensor<1x2x8x8xf32>, %w3: tensor<3x2x3x3xf32>, %w1: tensor<3x2x1x1xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x5x5xf32>, tensor<1x3x8x8xf32>) {
  %0 = tessel.conv %x, %w3 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x4x4xf32>
  %1 = tessel.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x8x8xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x5x5xf32>
  %2 = tessel.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x8x8xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x8x8xf32>
  return %0, %1, %2 : tensor<1x3x4x4xf32>, tensor<1x3x5x5xf32>, tensor<1x3x8x8xf32>
}
