// Every graph op parses, verifies and prints back in its custom form, and the
// printed form (and the generic form) parses again to the same ops.
// RUN: tessel-opt %s --split-input-file | tessel-opt --split-input-file | FileCheck %s
// RUN: tessel-opt %s --split-input-file --mlir-print-op-generic | tessel-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @constant
// CHECK:         %[[C:.+]] = tessel.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK:         %[[I:.+]] = tessel.constant dense<{{\[}}[1, 2, 3]]> : tensor<1x3xi64>
// CHECK:         %[[S:.+]] = tessel.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         return %[[C]], %[[I]], %[[S]]
func.func @constant() -> (tensor<2xf32>, tensor<1x3xi64>, tensor<f32>) {
  %0 = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = tessel.constant dense<[[1, 2, 3]]> : tensor<1x3xi64>
  %2 = tessel.constant dense<0.0> : tensor<f32>
  return %0, %1, %2 : tensor<2xf32>, tensor<1x3xi64>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @identity
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK:         %[[R:.+]] = tessel.identity %[[X]] : tensor<?x4xf32>
// CHECK:         return %[[R]]
func.func @identity(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = tessel.identity %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @binary
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x3x4xf32>, %[[B:[^:]+]]: tensor<4xf32>, %[[C:[^:]+]]: tensor<3x1xf32>, %[[I:[^:]+]]: tensor<2x1xi32>, %[[J:[^:]+]]: tensor<1x5xi32>)
// CHECK:         %[[A:.+]] = tessel.add %[[X]], %[[B]] : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
// CHECK:         %[[S:.+]] = tessel.sub %[[C]], %[[A]] : (tensor<3x1xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
// CHECK:         %[[M:.+]] = tessel.mul %[[S]], %[[S]] : (tensor<?x3x4xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
// CHECK:         %[[D:.+]] = tessel.div %[[M]], %[[C]] : (tensor<?x3x4xf32>, tensor<3x1xf32>) -> tensor<?x3x4xf32>
// CHECK:         %[[II:.+]] = tessel.add %[[I]], %[[J]] : (tensor<2x1xi32>, tensor<1x5xi32>) -> tensor<2x5xi32>
// CHECK:         return %[[D]], %[[II]]
func.func @binary(%x: tensor<?x3x4xf32>, %b: tensor<4xf32>, %c: tensor<3x1xf32>,
                  %i: tensor<2x1xi32>, %j: tensor<1x5xi32>)
    -> (tensor<?x3x4xf32>, tensor<2x5xi32>) {
  %0 = tessel.add %x, %b : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  %1 = tessel.sub %c, %0 : (tensor<3x1xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  %2 = tessel.mul %1, %1 : (tensor<?x3x4xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  %3 = tessel.div %2, %c : (tensor<?x3x4xf32>, tensor<3x1xf32>) -> tensor<?x3x4xf32>
  %4 = tessel.add %i, %j : (tensor<2x1xi32>, tensor<1x5xi32>) -> tensor<2x5xi32>
  return %3, %4 : tensor<?x3x4xf32>, tensor<2x5xi32>
}

// -----

// CHECK-LABEL: func.func @activations
// CHECK-SAME:    (%[[X:.+]]: tensor<?x8xf16>)
// CHECK:         %[[R:.+]] = tessel.relu %[[X]] : tensor<?x8xf16>
// CHECK:         %[[S:.+]] = tessel.sigmoid %[[R]] : tensor<?x8xf16>
// CHECK:         %[[T:.+]] = tessel.tanh %[[S]] : tensor<?x8xf16>
// CHECK:         return %[[T]]
func.func @activations(%x: tensor<?x8xf16>) -> tensor<?x8xf16> {
  %0 = tessel.relu %x : tensor<?x8xf16>
  %1 = tessel.sigmoid %0 : tensor<?x8xf16>
  %2 = tessel.tanh %1 : tensor<?x8xf16>
  return %2 : tensor<?x8xf16>
}

// -----

// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3x5xf32>)
// CHECK:         %[[A:.+]] = tessel.softmax %[[X]] {axis = 2 : i64} : tensor<?x3x5xf32>
// CHECK:         %[[B:.+]] = tessel.softmax %[[A]] {axis = 0 : i64} : tensor<?x3x5xf32>
// CHECK:         return %[[B]]
func.func @softmax(%x: tensor<?x3x5xf32>) -> tensor<?x3x5xf32> {
  %0 = tessel.softmax %x {axis = 2 : i64} : tensor<?x3x5xf32>
  %1 = tessel.softmax %0 {axis = 0 : i64} : tensor<?x3x5xf32>
  return %1 : tensor<?x3x5xf32>
}

// -----

// Contractions whose result is their accumulator: bf16 operands with f32
// sums (mixed precision), i8 operands with i32 sums (int8 quantization).
// CHECK-LABEL: func.func @matmul_bf16_f32
// CHECK:         tessel.matmul %{{.+}}, %{{.+}} {acc_type = f32} : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xf32>
func.func @matmul_bf16_f32(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) -> tensor<2x4xf32> {
  %0 = tessel.matmul %a, %b {acc_type = f32} : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_int8
// CHECK:         tessel.matmul %{{.+}}, %{{.+}} {acc_type = i32} : (tensor<2x3xi8>, tensor<3x4xi8>) -> tensor<2x4xi32>
// CHECK:         tessel.conv %{{.+}}, %{{.+}} {acc_type = i32, {{.*}}} : (tensor<1x2x4x4xi8>, tensor<3x2x1x1xi8>) -> tensor<1x3x4x4xi32>
func.func @matmul_int8(%a: tensor<2x3xi8>, %b: tensor<3x4xi8>, %x: tensor<1x2x4x4xi8>, %w: tensor<3x2x1x1xi8>) -> (tensor<2x4xi32>, tensor<1x3x4x4xi32>) {
  %0 = tessel.matmul %a, %b {acc_type = i32} : (tensor<2x3xi8>, tensor<3x4xi8>) -> tensor<2x4xi32>
  %1 = tessel.conv %x, %w {acc_type = i32, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<3x2x1x1xi8>) -> tensor<1x3x4x4xi32>
  return %0, %1 : tensor<2x4xi32>, tensor<1x3x4x4xi32>
}

// -----

// CHECK-LABEL: func.func @matmul_2d
// CHECK:         tessel.matmul %{{.+}}, %{{.+}} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
func.func @matmul_2d(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = tessel.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Batch dims broadcast: [?, 1] against [5] gives [?, 5].
// CHECK-LABEL: func.func @matmul_batched
// CHECK-SAME:    (%[[A:[^:]+]]: tensor<?x1x2x3xf32>, %[[B:[^:]+]]: tensor<5x3x4xf32>)
// CHECK:         %[[R:.+]] = tessel.matmul %[[A]], %[[B]] : (tensor<?x1x2x3xf32>, tensor<5x3x4xf32>) -> tensor<?x5x2x4xf32>
// CHECK:         return %[[R]]
func.func @matmul_batched(%a: tensor<?x1x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<?x5x2x4xf32> {
  %0 = tessel.matmul %a, %b : (tensor<?x1x2x3xf32>, tensor<5x3x4xf32>) -> tensor<?x5x2x4xf32>
  return %0 : tensor<?x5x2x4xf32>
}

// -----

// numpy rank-1 operands: vector * matrix, matrix * vector, vector * vector,
// and a vector against a batched matrix.
// CHECK-LABEL: func.func @matmul_vectors
// CHECK:         tessel.matmul %{{.+}}, %{{.+}} : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
// CHECK:         tessel.matmul %{{.+}}, %{{.+}} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?xf32>
// CHECK:         tessel.matmul %{{.+}}, %{{.+}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
// CHECK:         tessel.matmul %{{.+}}, %{{.+}} : (tensor<3xf32>, tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK:         tessel.matmul %{{.+}}, %{{.+}} : (tensor<4x3xi64>, tensor<3xi64>) -> tensor<4xi64>
func.func @matmul_vectors(%v: tensor<3xf32>, %m: tensor<3x4xf32>, %n: tensor<?x3xf32>,
                          %t: tensor<2x3x4xf32>, %im: tensor<4x3xi64>, %iv: tensor<3xi64>)
    -> (tensor<4xf32>, tensor<?xf32>, tensor<f32>, tensor<2x4xf32>, tensor<4xi64>) {
  %0 = tessel.matmul %v, %m : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  %1 = tessel.matmul %n, %v : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?xf32>
  %2 = tessel.matmul %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %3 = tessel.matmul %v, %t : (tensor<3xf32>, tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %4 = tessel.matmul %im, %iv : (tensor<4x3xi64>, tensor<3xi64>) -> tensor<4xi64>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<?xf32>, tensor<f32>, tensor<2x4xf32>, tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @gemm
// CHECK-SAME:    (%[[A:[^:]+]]: tensor<?x3xf32>, %[[B:[^:]+]]: tensor<4x3xf32>, %[[C:[^:]+]]: tensor<4xf32>, %[[AT:[^:]+]]: tensor<3x?xf32>, %[[C2:[^:]+]]: tensor<1x1xf32>)
// CHECK:         %[[G0:.+]] = tessel.gemm %[[A]], %[[B]] {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = false, trans_b = true} : (tensor<?x3xf32>, tensor<4x3xf32>) -> tensor<?x4xf32>
// CHECK:         %[[G1:.+]] = tessel.gemm %[[A]], %[[B]], %[[C]] {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_a = false, trans_b = true} : (tensor<?x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK:         %[[G2:.+]] = tessel.gemm %[[AT]], %[[B]], %[[C2]] {alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, trans_a = true, trans_b = true} : (tensor<3x?xf32>, tensor<4x3xf32>, tensor<1x1xf32>) -> tensor<?x4xf32>
// CHECK:         return %[[G0]], %[[G1]], %[[G2]]
func.func @gemm(%a: tensor<?x3xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>,
                %at: tensor<3x?xf32>, %c2: tensor<1x1xf32>)
    -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %0 = tessel.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
      : (tensor<?x3xf32>, tensor<4x3xf32>) -> tensor<?x4xf32>
  %1 = tessel.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_a = false, trans_b = true}
      : (tensor<?x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %2 = tessel.gemm %at, %b, %c2 {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = true, trans_b = true}
      : (tensor<3x?xf32>, tensor<4x3xf32>, tensor<1x1xf32>) -> tensor<?x4xf32>
  return %0, %1, %2 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @conv
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x4x9x9xf32>, %[[W:[^:]+]]: tensor<6x4x3x3xf32>, %[[B:[^:]+]]: tensor<6xf32>, %[[WG:[^:]+]]: tensor<6x2x3x3xf32>)
// CHECK:         %[[C0:.+]] = tessel.conv %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x4x9x9xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<?x6x9x9xf32>
// CHECK:         %[[C1:.+]] = tessel.conv %[[X]], %[[WG]] {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 1, 2, 0>, strides = array<i64: 2, 3>} : (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x5x3xf32>
// CHECK:         %[[C2:.+]] = tessel.conv %[[X]], %[[W]] {dilations = array<i64: 2, 3>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<?x4x9x9xf32>, tensor<6x4x3x3xf32>) -> tensor<?x6x5x3xf32>
// CHECK:         return %[[C0]], %[[C1]], %[[C2]]
func.func @conv(%x: tensor<?x4x9x9xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>,
                %wg: tensor<6x2x3x3xf32>)
    -> (tensor<?x6x9x9xf32>, tensor<?x6x5x3xf32>, tensor<?x6x5x3xf32>) {
  // 3x3, pad 1: same size.
  %0 = tessel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<?x4x9x9xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<?x6x9x9xf32>
  // 2 groups, strides (2, 3), pads h:(0,2) w:(1,0): h = (9+2-3)/2+1 = 5, w = (9+1-3)/3+1 = 3.
  %1 = tessel.conv %x, %wg {strides = array<i64: 2, 3>, pads = array<i64: 0, 1, 2, 0>, dilations = array<i64: 1, 1>, group = 2 : i64}
      : (tensor<?x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<?x6x5x3xf32>
  // dilations (2, 3): spans 5 and 7.
  %2 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 3>, group = 1 : i64}
      : (tensor<?x4x9x9xf32>, tensor<6x4x3x3xf32>) -> tensor<?x6x5x3xf32>
  return %0, %1, %2 : tensor<?x6x9x9xf32>, tensor<?x6x5x3xf32>, tensor<?x6x5x3xf32>
}

// -----

// A 1-D convolution (rank 3).
// CHECK-LABEL: func.func @conv_1d
// CHECK:         tessel.conv %{{.+}}, %{{.+}} {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<1x2x10xf32>, tensor<3x2x4xf32>) -> tensor<1x3x4xf32>
func.func @conv_1d(%x: tensor<1x2x10xf32>, %w: tensor<3x2x4xf32>) -> tensor<1x3x4xf32> {
  %0 = tessel.conv %x, %w {strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, group = 1 : i64}
      : (tensor<1x2x10xf32>, tensor<3x2x4xf32>) -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @pooling
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3x7x7xf32>)
// CHECK:         %[[M:.+]] = tessel.max_pool %[[X]] {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x3x7x7xf32>) -> tensor<?x3x4x4xf32>
// CHECK:         %[[A:.+]] = tessel.average_pool %[[X]] {ceil_mode = true, count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x3x7x7xf32>) -> tensor<?x3x4x4xf32>
// CHECK:         %[[G:.+]] = tessel.global_average_pool %[[X]] : (tensor<?x3x7x7xf32>) -> tensor<?x3x1x1xf32>
// CHECK:         return %[[M]], %[[A]], %[[G]]
func.func @pooling(%x: tensor<?x3x7x7xf32>)
    -> (tensor<?x3x4x4xf32>, tensor<?x3x4x4xf32>, tensor<?x3x1x1xf32>) {
  %0 = tessel.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false}
      : (tensor<?x3x7x7xf32>) -> tensor<?x3x4x4xf32>
  // ceil_mode: (7-2)/2 rounds up to 3, plus 1.
  %1 = tessel.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true}
      : (tensor<?x3x7x7xf32>) -> tensor<?x3x4x4xf32>
  %2 = tessel.global_average_pool %x : (tensor<?x3x7x7xf32>) -> tensor<?x3x1x1xf32>
  return %0, %1, %2 : tensor<?x3x4x4xf32>, tensor<?x3x4x4xf32>, tensor<?x3x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x3x4x4xf32>, %[[S:[^:]+]]: tensor<3xf32>, %[[B:[^:]+]]: tensor<3xf32>, %[[M:[^:]+]]: tensor<3xf32>, %[[V:[^:]+]]: tensor<3xf32>)
// CHECK:         %[[R:.+]] = tessel.batch_norm %[[X]], %[[S]], %[[B]], %[[M]], %[[V]] {epsilon = 9.99999974E-6 : f32} : (tensor<?x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x4x4xf32>
// CHECK:         return %[[R]]
func.func @batch_norm(%x: tensor<?x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>,
                      %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x3x4x4xf32> {
  %0 = tessel.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-5 : f32}
      : (tensor<?x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x4x4xf32>
  return %0 : tensor<?x3x4x4xf32>
}

// -----

// Rank 2 (N, C) is the smallest input.
// CHECK-LABEL: func.func @batch_norm_2d
// CHECK:         tessel.batch_norm {{.*}} : (tensor<2x5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>) -> tensor<2x5xf64>
func.func @batch_norm_2d(%x: tensor<2x5xf64>, %s: tensor<5xf64>) -> tensor<2x5xf64> {
  %0 = tessel.batch_norm %x, %s, %s, %s, %s {epsilon = 1.0e-3 : f32}
      : (tensor<2x5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>) -> tensor<2x5xf64>
  return %0 : tensor<2x5xf64>
}

// -----

// CHECK-LABEL: func.func @reshape
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x3x4xf32>, %[[Y:[^:]+]]: tensor<2x6xi8>)
// CHECK:         %[[A:.+]] = tessel.reshape %[[X]] : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
// CHECK:         %[[B:.+]] = tessel.reshape %[[Y]] : (tensor<2x6xi8>) -> tensor<3x2x2xi8>
// CHECK:         return %[[A]], %[[B]]
func.func @reshape(%x: tensor<?x3x4xf32>, %y: tensor<2x6xi8>) -> (tensor<?x12xf32>, tensor<3x2x2xi8>) {
  %0 = tessel.reshape %x : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  %1 = tessel.reshape %y : (tensor<2x6xi8>) -> tensor<3x2x2xi8>
  return %0, %1 : tensor<?x12xf32>, tensor<3x2x2xi8>
}

// -----

// A target shape known only at run time is an operand: the result dims it
// gives are dynamic, and a static one is what the values must give.
// CHECK-LABEL: func.func @reshape_shape_operand
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x3x4xf32>, %[[S:[^:]+]]: tensor<3xi64>, %[[T:[^:]+]]: tensor<2xi64>, %[[Y:[^:]+]]: tensor<2x6xi8>)
// CHECK:         %[[A:.+]] = tessel.reshape %[[X]], %[[S]] : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK:         %[[B:.+]] = tessel.reshape %[[X]], %[[T]] {allowzero} : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
// CHECK:         %[[C:.+]] = tessel.reshape %[[Y]], %[[T]] : (tensor<2x6xi8>, tensor<2xi64>) -> tensor<3x4xi8>
// CHECK:         return %[[A]], %[[B]], %[[C]]
func.func @reshape_shape_operand(%x: tensor<?x3x4xf32>, %s: tensor<3xi64>, %t: tensor<2xi64>, %y: tensor<2x6xi8>)
    -> (tensor<?x?x?xf32>, tensor<?x12xf32>, tensor<3x4xi8>) {
  %0 = tessel.reshape %x, %s : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %1 = tessel.reshape %x, %t {allowzero} : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
  %2 = tessel.reshape %y, %t : (tensor<2x6xi8>, tensor<2xi64>) -> tensor<3x4xi8>
  return %0, %1, %2 : tensor<?x?x?xf32>, tensor<?x12xf32>, tensor<3x4xi8>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3x4xf32>)
// CHECK:         %[[T:.+]] = tessel.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : (tensor<?x3x4xf32>) -> tensor<4x?x3xf32>
// CHECK:         return %[[T]]
func.func @transpose(%x: tensor<?x3x4xf32>) -> tensor<4x?x3xf32> {
  %0 = tessel.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<?x3x4xf32>) -> tensor<4x?x3xf32>
  return %0 : tensor<4x?x3xf32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK-SAME:    (%[[A:[^:]+]]: tensor<?x2xf32>, %[[B:[^:]+]]: tensor<?x3xf32>, %[[C:[^:]+]]: tensor<4x3xf32>)
// CHECK:         %[[X:.+]] = tessel.concat %[[A]], %[[B]], %[[A]] {axis = 1 : i64} : (tensor<?x2xf32>, tensor<?x3xf32>, tensor<?x2xf32>) -> tensor<?x7xf32>
// CHECK:         %[[Y:.+]] = tessel.concat %[[B]], %[[C]] {axis = 0 : i64} : (tensor<?x3xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
// CHECK:         return %[[X]], %[[Y]]
func.func @concat(%a: tensor<?x2xf32>, %b: tensor<?x3xf32>, %c: tensor<4x3xf32>)
    -> (tensor<?x7xf32>, tensor<?x3xf32>) {
  %0 = tessel.concat %a, %b, %a {axis = 1 : i64} : (tensor<?x2xf32>, tensor<?x3xf32>, tensor<?x2xf32>) -> tensor<?x7xf32>
  %1 = tessel.concat %b, %c {axis = 0 : i64} : (tensor<?x3xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %0, %1 : tensor<?x7xf32>, tensor<?x3xf32>
}

// -----

// CHECK-LABEL: func.func @max_pool_with_indices(
// CHECK: %{{.+}}, %{{.+}} = tessel.max_pool_with_indices %{{.+}} {ceil_mode = true, column_major, dilations = array<i64: 1, 1>, is_unsigned, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x1x5x5xi8>) -> (tensor<?x1x3x3xi8>, tensor<?x1x3x3xi64>)
func.func @max_pool_with_indices(%x: tensor<?x1x5x5xi8>) -> (tensor<?x1x3x3xi8>, tensor<?x1x3x3xi64>) {
  %0, %1 = tessel.max_pool_with_indices %x {ceil_mode = true, column_major, dilations = array<i64: 1, 1>, is_unsigned, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x1x5x5xi8>) -> (tensor<?x1x3x3xi8>, tensor<?x1x3x3xi64>)
  return %0, %1 : tensor<?x1x3x3xi8>, tensor<?x1x3x3xi64>
}

// -----

// CHECK-LABEL: func.func @clip
// CHECK:         tessel.clip %{{.+}} min %{{.+}} max %{{.+}} : (tensor<?x8xf32>, tensor<f32>, tensor<f32>) -> tensor<?x8xf32>
// CHECK:         tessel.clip %{{.+}} max %{{.+}} {is_unsigned} : (tensor<4xi8>, tensor<i8>) -> tensor<4xi8>
func.func @clip(%x: tensor<?x8xf32>, %lo: tensor<f32>, %hi: tensor<f32>, %i: tensor<4xi8>, %m: tensor<i8>) -> (tensor<?x8xf32>, tensor<4xi8>) {
  %0 = tessel.clip %x min %lo max %hi : (tensor<?x8xf32>, tensor<f32>, tensor<f32>) -> tensor<?x8xf32>
  %1 = tessel.clip %i max %m {is_unsigned} : (tensor<4xi8>, tensor<i8>) -> tensor<4xi8>
  return %0, %1 : tensor<?x8xf32>, tensor<4xi8>
}

// -----

// CHECK-LABEL: func.func @shape_and_gather
// CHECK:         tessel.shape %{{.+}} {end = 2 : i64, start = 0 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
// CHECK:         tessel.gather %{{.+}}[%{{.+}}] {axis = 1 : i64} : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x2x4xf32>
func.func @shape_and_gather(%x: tensor<?x3x4xf32>, %i: tensor<2xi64>) -> (tensor<2xi64>, tensor<?x2x4xf32>) {
  %0 = tessel.shape %x {start = 0 : i64, end = 2 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
  %1 = tessel.gather %x[%i] {axis = 1 : i64} : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x2x4xf32>
  return %0, %1 : tensor<2xi64>, tensor<?x2x4xf32>
}

// -----

// CHECK-LABEL: func.func @index_checks
// CHECK:         %[[N:.+]] = tessel.count_out_of_range %{{.+}}[%{{.+}}] {axis = 1 : i64} : (tensor<?x3x4xf32>, tensor<2xi32>) -> tensor<i64>
// CHECK:         tessel.assert_zero %[[N]], "indices outside [-n, n) for n = dim 1 of input 0" : tensor<i64>
// CHECK:         tessel.count_out_of_range %{{.+}}[%{{.+}}] {axis = 1 : i64, tuples} : (tensor<?x3x4xf32>, tensor<5x2xi64>) -> tensor<i64>
func.func @index_checks(%x: tensor<?x3x4xf32>, %i: tensor<2xi32>, %t: tensor<5x2xi64>) -> tensor<i64> {
  %0 = tessel.count_out_of_range %x[%i] {axis = 1 : i64} : (tensor<?x3x4xf32>, tensor<2xi32>) -> tensor<i64>
  tessel.assert_zero %0, "indices outside [-n, n) for n = dim 1 of input 0" : tensor<i64>
  %1 = tessel.count_out_of_range %x[%t] {axis = 1 : i64, tuples} : (tensor<?x3x4xf32>, tensor<5x2xi64>) -> tensor<i64>
  return %1 : tensor<i64>
}

// -----

// CHECK-LABEL: func.func @if_and_loop
// CHECK:         %[[R:.+]] = tessel.if %{{.+}} : tensor<i1> -> tensor<?xf32> {
// CHECK-NEXT:      tessel.yield %{{.+}} : tensor<2xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tessel.yield %{{.+}} : tensor<?xf32>
// CHECK-NEXT:    }
// CHECK:         %{{.+}}:2 = tessel.loop trip(%{{.+}} : tensor<i64>) carried(%[[R]] : tensor<?xf32>) -> tensor<?xf32>, tensor<?x?xf32> {
// CHECK-NEXT:    ^bb0(%{{.+}}: tensor<i64>, %[[C:.+]]: tensor<i1>, %[[Y:.+]]: tensor<?xf32>):
// CHECK-NEXT:      tessel.yield %[[C]], %[[Y]], %[[Y]] : tensor<i1>, tensor<?xf32>, tensor<?xf32>
func.func @if_and_loop(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<?xf32>,
                       %n: tensor<i64>) -> tensor<?x?xf32> {
  %r = tessel.if %c : tensor<i1> -> tensor<?xf32> {
    tessel.yield %a : tensor<2xf32>
  } else {
    tessel.yield %b : tensor<?xf32>
  }
  %y, %s = tessel.loop trip(%n : tensor<i64>) carried(%r : tensor<?xf32>)
      -> tensor<?xf32>, tensor<?x?xf32> {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<?xf32>):
    tessel.yield %ci, %yi, %yi : tensor<i1>, tensor<?xf32>, tensor<?xf32>
  }
  return %s : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @dispatch_region
// CHECK:         %[[R:.+]] = tessel.dispatch_region -> tensor<?x8xf32> {
// CHECK-NEXT:      %[[S:.+]] = tessel.add
// CHECK-NEXT:      %[[T:.+]] = tessel.relu %[[S]] : tensor<?x8xf32>
// CHECK-NEXT:      tessel.yield %[[T]] : tensor<?x8xf32>
// CHECK-NEXT:    }
func.func @dispatch_region(%a: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %r = tessel.dispatch_region -> tensor<?x8xf32> {
    %s = tessel.add %a, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    %t = tessel.relu %s : tensor<?x8xf32>
    tessel.yield %t : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

// -----

// An Expand whose result has static dims its shape operand does not show
// (the importer knew those elements of a computed shape; the shape contract
// checks them at run time).
// CHECK-LABEL: func.func @expand_known_dims
// CHECK:         tessel.expand %{{.+}}, %{{.+}} : (tensor<?x?xi64>, tensor<4xi64>) -> tensor<1x?x?x?xi64>
func.func @expand_known_dims(%x: tensor<?x?xi64>, %s: tensor<4xi64>) -> tensor<1x?x?x?xi64> {
  %0 = tessel.expand %x, %s : (tensor<?x?xi64>, tensor<4xi64>) -> tensor<1x?x?x?xi64>
  return %0 : tensor<1x?x?x?xi64>
}
