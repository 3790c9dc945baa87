// --tessel-quantize=prequantized: a contraction of a pre-quantized (QDQ)
// model, whose input is DequantizeLinear of 8-bit integers per tensor and
// whose weight is DequantizeLinear of a constant with per-channel scales
// (the importer's mul(sub(cast<f32>(q), z), s)), computes on the integers:
// the input as u8 (an i8 one + 128), the weight less its zero point as i8,
// i32 sums, and the scales and zero point's compensation in the f32
// epilogue. Other forms are left as the model has them.
// RUN: tessel-opt %s --split-input-file --tessel-quantize="prequantized=true" --canonicalize | FileCheck %s

// u8 input, zero point 3, scale 0.5; weights [[1, -2], [3, 4]] (K x N) with
// column scales 0.25 and 0.125: y = acc * [0.125, 0.0625] - 3 * [4, 2] *
// [0.125, 0.0625].
// CHECK-LABEL: func.func @matmul_u8
// CHECK-DAG:     %[[W:.+]] = tessel.constant dense<{{\[\[}}1, -2], [3, 4]]> : tensor<2x2xi8>
// CHECK-DAG:     %[[S:.+]] = tessel.constant dense<[1.250000e-01, 6.250000e-02]> : tensor<2xf32>
// CHECK-DAG:     %[[O:.+]] = tessel.constant dense<[-1.500000e+00, -3.750000e-01]> : tensor<2xf32>
// CHECK:         %[[ACC:.+]] = tessel.matmul %arg0, %[[W]] {acc_type = i32, input_unsigned} : (tensor<4x2xi8>, tensor<2x2xi8>) -> tensor<4x2xi32>
// CHECK:         %[[F:.+]] = tessel.cast %[[ACC]] : (tensor<4x2xi32>) -> tensor<4x2xf32>
// CHECK:         %[[M:.+]] = tessel.mul %[[F]], %[[S]]
// CHECK:         tessel.add %[[M]], %[[O]]
// CHECK-NOT:     tessel.sub
func.func @matmul_u8(%xq: tensor<4x2xi8>) -> tensor<4x2xf32> {
  %z = tessel.constant dense<3> : tensor<i8>
  %s = tessel.constant dense<0.5> : tensor<f32>
  %x = tessel.cast %xq {input_unsigned} : (tensor<4x2xi8>) -> tensor<4x2xf32>
  %zf = tessel.cast %z {input_unsigned} : (tensor<i8>) -> tensor<f32>
  %xc = tessel.sub %x, %zf : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  %xd = tessel.mul %xc, %s : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  %wq = tessel.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi8>
  %ws = tessel.constant dense<[[0.25, 0.125]]> : tensor<1x2xf32>
  %w = tessel.cast %wq : (tensor<2x2xi8>) -> tensor<2x2xf32>
  %wd = tessel.mul %w, %ws : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %y = tessel.matmul %xd, %wd : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32> loc("m"("MatMul"("m.onnx":0:0)))
  return %y : tensor<4x2xf32>
}

// -----

// An i8 input (zero point -1) is read as u8: + 128 (zero point 127); a
// padded Conv pads with it. u8 weights with zero point 128 become i8; the
// Conv's weights filters-last, its 3 taps 4 (a 0 tap, pads + 1 at the end).
// CHECK-LABEL: func.func @conv_i8
// CHECK:         %[[W:.+]] = tessel.constant dense<{{\[\[\[\[}}-128], [0], [127], [0]]]]> : tensor<1x1x4x1xi8>
// CHECK:         %[[WIDE:.+]] = tessel.cast %arg0 : (tensor<1x1x1x5xi8>) -> tensor<1x1x1x5xi32>
// CHECK:         %[[SHIFT:.+]] = tessel.add %[[WIDE]], %{{.+}} : (tensor<1x1x1x5xi32>, tensor<i32>) -> tensor<1x1x1x5xi32>
// CHECK:         %[[U8:.+]] = tessel.cast %[[SHIFT]] {result_unsigned} : (tensor<1x1x1x5xi32>) -> tensor<1x1x1x5xi8>
// CHECK:         tessel.conv %[[U8]], %[[W]] {acc_type = i32, dilations = array<i64: 1, 1>, filters_last, group = 1 : i64, input_unsigned, input_zero_point = 127 : i64, pads = array<i64: 0, 1, 0, 2>, strides = array<i64: 1, 1>}
func.func @conv_i8(%xq: tensor<1x1x1x5xi8>) -> tensor<1x1x1x5xf32> {
  %z = tessel.constant dense<-1> : tensor<i8>
  %s = tessel.constant dense<0.5> : tensor<f32>
  %x = tessel.cast %xq : (tensor<1x1x1x5xi8>) -> tensor<1x1x1x5xf32>
  %zf = tessel.cast %z : (tensor<i8>) -> tensor<f32>
  %xc = tessel.sub %x, %zf : (tensor<1x1x1x5xf32>, tensor<f32>) -> tensor<1x1x1x5xf32>
  %xd = tessel.mul %xc, %s : (tensor<1x1x1x5xf32>, tensor<f32>) -> tensor<1x1x1x5xf32>
  %wq = tessel.constant dense<[[[[0, 128, 255]]]]> : tensor<1x1x1x3xi8>
  %wz = tessel.constant dense<128> : tensor<1xi8>
  %ws = tessel.constant dense<0.25> : tensor<1xf32>
  %w = tessel.cast %wq {input_unsigned} : (tensor<1x1x1x3xi8>) -> tensor<1x1x1x3xf32>
  %wzf = tessel.cast %wz {input_unsigned} : (tensor<1xi8>) -> tensor<1xf32>
  %wzr = tessel.reshape %wzf : (tensor<1xf32>) -> tensor<1x1x1x1xf32>
  %wc = tessel.sub %w, %wzr : (tensor<1x1x1x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x3xf32>
  %wsr = tessel.reshape %ws : (tensor<1xf32>) -> tensor<1x1x1x1xf32>
  %wd = tessel.mul %wc, %wsr : (tensor<1x1x1x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x3xf32>
  %y = tessel.conv %xd, %wd {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x1x5xf32>, tensor<1x1x1x3xf32>) -> tensor<1x1x1x5xf32> loc("c"("Conv"("m.onnx":0:0)))
  return %y : tensor<1x1x1x5xf32>
}

// -----

// Left alone: a weight whose integers less the zero point leave i8 (u8
// 255 with zero point 0), and an input scale per channel.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     acc_type = i32
// CHECK:         return
func.func @left_alone(%xq: tensor<4x2xi8>) -> (tensor<4x2xf32>, tensor<4x2xf32>) {
  %s = tessel.constant dense<0.5> : tensor<f32>
  %x = tessel.cast %xq {input_unsigned} : (tensor<4x2xi8>) -> tensor<4x2xf32>
  %xd = tessel.mul %x, %s : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  %wq = tessel.constant dense<[[1, -1], [3, 4]]> : tensor<2x2xi8>
  %ws = tessel.constant dense<0.25> : tensor<f32>
  %w = tessel.cast %wq {input_unsigned} : (tensor<2x2xi8>) -> tensor<2x2xf32>
  %wd = tessel.mul %w, %ws : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %y = tessel.matmul %xd, %wd : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32> loc("m"("MatMul"("m.onnx":0:0)))
  %sc = tessel.constant dense<[[0.5, 0.25]]> : tensor<1x2xf32>
  %xd2 = tessel.mul %x, %sc : (tensor<4x2xf32>, tensor<1x2xf32>) -> tensor<4x2xf32>
  %wq2 = tessel.constant dense<[[1, -1], [3, 4]]> : tensor<2x2xi8>
  %w2 = tessel.cast %wq2 : (tensor<2x2xi8>) -> tensor<2x2xf32>
  %wd2 = tessel.mul %w2, %ws : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %y2 = tessel.matmul %xd2, %wd2 : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32> loc("n"("MatMul"("m.onnx":0:0)))
  return %y, %y2 : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// MatMulInteger's body: (A - 3) @ W in i32, W a folded constant; the u8
// contraction less 3 * sum_k W[k, n] = 3 * [4, 2], exactly.
// CHECK-LABEL: func.func @matmul_integer
// CHECK-DAG:     %[[W:.+]] = tessel.constant dense<{{\[\[}}1, -2], [3, 4]]> : tensor<2x2xi8>
// CHECK-DAG:     %[[O:.+]] = tessel.constant dense<[-12, -6]> : tensor<2xi32>
// CHECK:         %[[ACC:.+]] = tessel.matmul %arg0, %[[W]] {acc_type = i32, input_unsigned} : (tensor<4x2xi8>, tensor<2x2xi8>) -> tensor<4x2xi32>
// CHECK:         tessel.add %[[ACC]], %[[O]] : (tensor<4x2xi32>, tensor<2xi32>) -> tensor<4x2xi32>
func.func @matmul_integer(%aq: tensor<4x2xi8>) -> tensor<4x2xi32> {
  %z = tessel.constant dense<3> : tensor<i8>
  %a = tessel.cast %aq {input_unsigned} : (tensor<4x2xi8>) -> tensor<4x2xi32>
  %zi = tessel.cast %z {input_unsigned} : (tensor<i8>) -> tensor<i32>
  %ac = tessel.sub %a, %zi : (tensor<4x2xi32>, tensor<i32>) -> tensor<4x2xi32>
  %w = tessel.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
  %y = tessel.matmul %ac, %w : (tensor<4x2xi32>, tensor<2x2xi32>) -> tensor<4x2xi32> loc("m"("MatMulInteger"("m.onnx":0:0)))
  return %y : tensor<4x2xi32>
}
