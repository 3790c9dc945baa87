// --tessel-quantize (format int8): a contraction with a constant weight and a
// calibrated input range A computes on int8 with i32 sums: the input is
// quantized symmetrically (x * 127 / A, rounded, saturated by the cast)
// and read as u8 with zero point 128 (a padded Conv pads with it),
// the weight per output channel at compile time (max |w| / 127), and the
// sums dequantized by one constant per channel (A / 127 * s_w * alpha)
// before the bias. The first and last contractions stay f32 unless
// `lower` names them; so do contractions without a range, kept ones, and
// forms the pass does not handle (a weight computed at run time).
// RUN: tessel-opt %s --split-input-file --tessel-quantize="amax=g=2.54,m=1.27,c=12.7,w=1,p=1.27,t=2.54,d0=1,d=1,e=1,d1=1 lower=g,m,c,p,t,e" --canonicalize | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-quantize="amax=g=2.54,m=1.27,c=12.7,w=1" | FileCheck %s --check-prefix=EDGES
// RUN: tessel-opt %s --split-input-file --tessel-quantize="amax=g=2.54,m=1.27,c=12.7 keep-fp32=Gemm lower=g,m,c" | FileCheck %s --check-prefix=KEEP
// RUN: not tessel-opt %s --split-input-file --tessel-quantize="amax=g" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tessel-opt %s --split-input-file --tessel-quantize="amax=g=2.54 lower=g,mm" 2>&1 | FileCheck %s --check-prefix=BAD-LOWER
// RUN: tessel-opt %s --split-input-file --tessel-quantize="format=fp8-e4m3 amax=g=2.54 lower=g" | FileCheck %s --check-prefix=FP8
// RUN: not tessel-opt %s --split-input-file --tessel-quantize="format=fp4" 2>&1 | FileCheck %s --check-prefix=BAD-FORMAT
// RUN: tessel-opt %s --split-input-file --tessel-quantize="amax=g=-0.55:2.0 lower=g" --canonicalize | FileCheck %s --check-prefix=ASYM
// RUN: tessel-opt %s --split-input-file --tessel-quantize="amax=g=0:2.55,m=0:1.27,c=0:12.75 lower=g,m,c" --canonicalize | FileCheck %s --check-prefix=U8

// Asymmetric [-0.55, 2.0]: s = 0.01, u8 with z = round(0.55 / s) = 55;
// the sums carry z * sum_k Wq[k, c] (column sums 159 and 95), taken out
// by offset[c] = -55 * colsum[c] * scale[c], scale = 0.01 * s_w * alpha:
// [0.01 / 127 * 2, 0.01 * 2 / 127 * 2] and the offsets -55 * [159, 95] * scale.
// ASYM-LABEL: func.func @gemm
// ASYM-DAG:     %[[INV:.+]] = tessel.constant dense<1.000000e+02> : tensor<f32>
// ASYM-DAG:     %[[Z:.+]] = tessel.constant dense<5.500000e+01> : tensor<f32>
// ASYM-DAG:     %[[SCALE:.+]] = tessel.constant dense<[1.57480{{[0-9]+}}E-4, 3.14960{{[0-9]+}}E-4]> : tensor<2xf32>
// ASYM-DAG:     %[[OFF:.+]] = tessel.constant dense<[-1.3771{{[0-9]+}}, -1.6456{{[0-9]+}}]> : tensor<2xf32>
// ASYM:         %[[S:.+]] = tessel.mul %arg0, %[[INV]]
// ASYM:         %[[R:.+]] = tessel.round %[[S]]
// ASYM:         %[[Q0:.+]] = tessel.add %[[R]], %[[Z]]
// ASYM:         %[[Q:.+]] = tessel.cast %[[Q0]] {result_unsigned} : (tensor<?x2xf32>) -> tensor<?x2xi8>
// ASYM:         %[[ACC:.+]] = tessel.matmul %[[Q]], %{{.+}} {acc_type = i32, input_unsigned}
// ASYM:         %[[F:.+]] = tessel.cast %[[ACC]]
// ASYM:         %[[Y:.+]] = tessel.mul %[[F]], %[[SCALE]]
// ASYM:         %[[Y2:.+]] = tessel.add %[[Y]], %[[OFF]]
// ASYM:         tessel.add %[[Y2]], %arg1

// fp8 (E4M3, largest 448) by conversion: the input scaled by 448 / 2.54,
// cast to float8 and back (format 17), scaled back; the weight rounded to
// float8 with the per-tensor scale 2 / 448 at compile time (0.25 is
// exact, as is every value here); the Gemm itself stays f32.
// FP8-LABEL: func.func @gemm
// FP8:         %[[S:.+]] = tessel.mul %arg0, %{{.+}} : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
// FP8:         %[[D:.+]] = tessel.cast %[[S]] {result_format = 17 : i32} : (tensor<?x2xf32>) -> tensor<?x2xi8>
// FP8:         %[[U:.+]] = tessel.cast %[[D]] {input_format = 17 : i32} : (tensor<?x2xi8>) -> tensor<?x2xf32>
// FP8:         %[[X:.+]] = tessel.mul %[[U]], %{{.+}} : (tensor<?x2xf32>, tensor<f32>) -> tensor<?x2xf32>
// FP8:         %[[W:.+]] = tessel.constant dense<{{\[\[}}1.000000e+00, -5.000000e-01], [2.500000e-01, 2.000000e+00]]> : tensor<2x2xf32>
// FP8:         tessel.gemm %[[X]], %[[W]], %arg1 {alpha = 2.000000e+00 : f32, {{.*}}} : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>

// Gemm: B = [[1, -0.5], [0.25, 2]] has column maxima 1 and 2: scales
// 1/127 and 2/127, so column 0 is [127, 32] (0.25 * 127 = 31.75) and
// column 1 is [-32, 127]; alpha 2 goes into the output scale:
// 2.54 / 127 * [1/127, 2/127] * 2 = [3.1496e-4, 6.2992e-4]. The input is
// u8 with zero point 128 (the levels of i8; u8 x i8 is the operand pair of
// vpdpbusd), taken out of the sums by -128 * [159, 95] * scale.
// CHECK-LABEL: func.func @gemm
// CHECK-DAG:     %[[WQ:.+]] = tessel.constant dense<{{\[\[}}127, -32], [32, 127]]> : tensor<2x2xi8>
// CHECK-DAG:     %[[INV:.+]] = tessel.constant dense<5.000000e+01> : tensor<f32>
// CHECK-DAG:     %[[Z:.+]] = tessel.constant dense<1.280000e+02> : tensor<f32>
// CHECK-DAG:     %[[SCALE:.+]] = tessel.constant dense<[3.1496063{{[0-9]}}E-4, 6.2992126{{[0-9]}}E-4]> : tensor<2xf32>
// CHECK-DAG:     %[[OFF:.+]] = tessel.constant dense<[-6.41007{{[0-9]+}}, -7.65984{{[0-9]+}}]> : tensor<2xf32>
// CHECK:         %[[S:.+]] = tessel.mul %arg0, %[[INV]]
// CHECK:         %[[R:.+]] = tessel.round %[[S]] : tensor<?x2xf32>
// CHECK:         %[[Q0:.+]] = tessel.add %[[R]], %[[Z]]
// CHECK:         %[[Q:.+]] = tessel.cast %[[Q0]] {result_unsigned} : (tensor<?x2xf32>) -> tensor<?x2xi8>
// CHECK:         %[[ACC:.+]] = tessel.matmul %[[Q]], %[[WQ]] {acc_type = i32, input_unsigned} : (tensor<?x2xi8>, tensor<2x2xi8>) -> tensor<?x2xi32>
// CHECK:         %[[F:.+]] = tessel.cast %[[ACC]] : (tensor<?x2xi32>) -> tensor<?x2xf32>
// CHECK:         %[[Y:.+]] = tessel.mul %[[F]], %[[SCALE]]
// CHECK:         %[[Y2:.+]] = tessel.add %[[Y]], %[[OFF]]
// CHECK:         tessel.add %[[Y2]], %arg1
// An asymmetric range from 0 (a ReLU's output) is quantized unsigned: u8
// with s = HI / 255 and zero point 0 (the cast saturates at 0 and 255),
// read unsigned by the contraction, with no offset to correct; a Conv's
// padding reads the u8 zero, which is the real 0.
// U8-LABEL: func.func @gemm
// U8-DAG:     %[[INV:.+]] = tessel.constant dense<1.000000e+02> : tensor<f32>
// U8-DAG:     %[[SCALE:.+]] = tessel.constant dense<[1.57480{{[0-9]+}}E-4, 3.14960{{[0-9]+}}E-4]> : tensor<2xf32>
// U8:         %[[S:.+]] = tessel.mul %arg0, %[[INV]]
// U8:         %[[R:.+]] = tessel.round %[[S]]
// U8:         %[[Q:.+]] = tessel.cast %[[R]] {result_unsigned} : (tensor<?x2xf32>) -> tensor<?x2xi8>
// U8:         %[[ACC:.+]] = tessel.matmul %[[Q]], %{{.+}} {acc_type = i32, input_unsigned} : (tensor<?x2xi8>, tensor<2x2xi8>) -> tensor<?x2xi32>
// U8:         %[[F:.+]] = tessel.cast %[[ACC]]
// U8:         %[[Y:.+]] = tessel.mul %[[F]], %[[SCALE]]
// U8-NEXT:    tessel.add %[[Y]], %arg1
// EDGES-LABEL: func.func @gemm
// EDGES:         tessel.gemm %arg0
// KEEP-LABEL:  func.func @gemm
// KEEP:          tessel.gemm %arg0
func.func @gemm(%x: tensor<?x2xf32>, %c: tensor<2xf32>) -> tensor<?x2xf32> {
  %b = tessel.constant dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %0 = tessel.gemm %x, %b, %c {alpha = 2.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<?x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<?x2xf32> loc("g"("Gemm"("m.onnx":0:0)))
  return %0 : tensor<?x2xf32>
}

// (One module: `lower` must name contractions of it, or the pass fails.)

// Three MatMuls: without `lower`, only the middle one is quantized; one
// whose weight is computed at run time stays f32 either way.
// CHECK-LABEL: func.func @chain
// CHECK:         tessel.matmul %{{.+}}, %{{.+}} {acc_type = i32, input_unsigned} : (tensor<4x3xi8>, tensor<3x3xi8>) -> tensor<4x3xi32>
// CHECK:         tessel.matmul %{{.+}}, %arg1 : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
// CHECK:         tessel.conv %{{.+}}, %{{.+}} {acc_type = i32, {{.*}}} : (tensor<1x1x2x2xi8>, tensor<2x1x1x1xi8>) -> tensor<1x2x2x2xi32>
// U8-LABEL: func.func @chain
// U8:         tessel.matmul %{{.+}}, %{{.+}} {acc_type = i32, input_unsigned} : (tensor<4x3xi8>, tensor<3x3xi8>) -> tensor<4x3xi32>
// U8:         tessel.conv %{{.+}}, %{{.+}} {acc_type = i32, {{.*}}input_unsigned{{.*}}} : (tensor<1x1x2x2xi8>, tensor<2x1x1x1xi8>) -> tensor<1x2x2x2xi32>
// EDGES-LABEL: func.func @chain
// EDGES:         tessel.matmul %arg0, %{{.+}} : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
// EDGES:         tessel.matmul %{{.+}}, %arg1 : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
// EDGES:         tessel.conv %arg2, %{{.+}} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
func.func @chain(%x: tensor<4x3xf32>, %v: tensor<3x3xf32>, %i: tensor<1x1x2x2xf32>) -> (tensor<4x3xf32>, tensor<1x2x2x2xf32>) {
  %w = tessel.constant dense<0.5> : tensor<3x3xf32>
  %k = tessel.constant dense<[[[[1.0]]], [[[-3.0]]]]> : tensor<2x1x1x1xf32>
  %a = tessel.matmul %x, %w : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32> loc("m"("MatMul"("m.onnx":0:0)))
  %b = tessel.matmul %a, %v : (tensor<4x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32> loc("w"("MatMul"("m.onnx":0:0)))
  %c = tessel.conv %i, %k {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32> loc("c"("Conv"("m.onnx":0:0)))
  return %b, %c : tensor<4x3xf32>, tensor<1x2x2x2xf32>
}

// A 1x1 Conv of stride 1 (no padding) reads its input as u8 with zero
// point 128 like a MatMul, and its filters-last weights [C, 1, 1, F] become
// filters-first [F, C, 1, 1] (a filter's input channels contiguous: the
// rows of the CPU's dot-product tiles). Filter scales max|w| / 127 = 1, 2,
// 1; offsets -128 * [159, -63, -63] * 0.01 * s_w.
// CHECK-LABEL: func.func @conv1x1
// CHECK-DAG:     %[[OFF:.+]] = tessel.constant dense<{{\[\[\[}}-1.6025{{[0-9]+}}]], {{\[\[}}1.2699{{[0-9]+}}]], {{\[\[}}0.63496{{[0-9]+}}]]]> : tensor<3x1x1xf32>
// CHECK-DAG:     %[[W:.+]] = tessel.constant dense<{{\[\[\[\[}}127]], {{\[\[}}32]]], {{\[\[\[}}-127]], {{\[\[}}64]]], {{\[\[\[}}64]], {{\[\[}}-127]]]]> : tensor<3x2x1x1xi8>
// CHECK:         %[[Q:.+]] = tessel.cast %{{.+}} {result_unsigned} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xi8>
// CHECK:         %[[ACC:.+]] = tessel.conv %[[Q]], %[[W]] {acc_type = i32, dilations = array<i64: 1, 1>, group = 1 : i64, input_unsigned, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xi8>, tensor<3x2x1x1xi8>) -> tensor<1x3x2x2xi32>
// CHECK:         tessel.add %{{.+}}, %[[OFF]]
func.func @conv1x1(%i: tensor<1x2x2x2xf32>) -> tensor<1x3x2x2xf32> {
  %k = tessel.constant dense<[[[[1.0, -2.0, 0.5]]], [[[0.25, 1.0, -1.0]]]]> : tensor<2x1x1x3xf32>
  %c = tessel.conv %i, %k {dilations = array<i64: 1, 1>, filters_last, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x1x1x3xf32>) -> tensor<1x3x2x2xf32> loc("p"("Conv"("m.onnx":0:0)))
  return %c : tensor<1x3x2x2xf32>
}

// A padded 3x3 Conv pads with the zero point (input_zero_point), and its
// kernel rows of 3 taps become 4 (the 4th weight 0, one more column of
// padding on the right: the output's width is unchanged), 4 contiguous
// bytes of an input row per group of the CPU's dot products.
// CHECK-LABEL: func.func @conv3x3_padded
// CHECK-DAG:     %[[W:.+]] = tessel.constant dense<{{\[\[\[}}[127, -127], [127, -127], [127, -127], [0, 0]], {{\[}}[127, -127], [127, -127], [127, -127], [0, 0]], {{\[}}[127, -127], [127, -127], [127, -127], [0, 0]]]]> : tensor<1x3x4x2xi8>
// CHECK:         tessel.conv %{{.+}}, %[[W]] {acc_type = i32, dilations = array<i64: 1, 1>, filters_last, group = 1 : i64, input_unsigned, input_zero_point = 128 : i64, pads = array<i64: 1, 1, 1, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xi8>, tensor<1x3x4x2xi8>) -> tensor<1x2x3x3xi32>
func.func @conv3x3_padded(%i: tensor<1x1x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %k = tessel.constant dense<[[[[1.0, -0.5], [1.0, -0.5], [1.0, -0.5]], [[1.0, -0.5], [1.0, -0.5], [1.0, -0.5]], [[1.0, -0.5], [1.0, -0.5], [1.0, -0.5]]]]> : tensor<1x3x3x2xf32>
  %c = tessel.conv %i, %k {dilations = array<i64: 1, 1>, filters_last, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x5x5xf32>, tensor<1x3x3x2xf32>) -> tensor<1x2x3x3xf32> loc("t"("Conv"("m.onnx":0:0)))
  return %c : tensor<1x2x3x3xf32>
}

// A grouped Conv (depthwise) stays f32 unless `lower` names it: it has no
// dot-product form (d); e is named.
// CHECK-LABEL: func.func @grouped
// CHECK:         tessel.conv %{{.+}} {dilations = array<i64: 1, 1>, group = 2 : i64, {{.*}}} : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    tessel.conv %{{.+}} {dilations = array<i64: 1, 1>, group = 2 : i64, {{.*}}} : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK:         tessel.conv %{{.+}} {acc_type = i32, dilations = array<i64: 1, 1>, group = 2 : i64, input_unsigned, {{.*}}} : (tensor<1x2x2x2xi8>, tensor<2x1x1x1xi8>) -> tensor<1x2x2x2xi32>
func.func @grouped(%i: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %k = tessel.constant dense<[[[[1.0]]], [[[-3.0]]]]> : tensor<2x1x1x1xf32>
  %a = tessel.conv %i, %k {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32> loc("d0"("Conv"("m.onnx":0:0)))
  %b = tessel.conv %a, %k {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32> loc("d"("Conv"("m.onnx":0:0)))
  %c = tessel.conv %b, %k {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32> loc("e"("Conv"("m.onnx":0:0)))
  %d = tessel.conv %c, %k {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32> loc("d1"("Conv"("m.onnx":0:0)))
  return %d : tensor<1x2x2x2xf32>
}

// BAD: tessel-quantize: bad amax entry 'g' (NODE=A with A >= 0, or NODE=LO:HI)
// BAD-LOWER: tessel-quantize: --lower names 'mm', which is not a Conv, MatMul or Gemm node of the model
// BAD-FORMAT: tessel-quantize: unknown format 'fp4' (int8, fp8-e4m3, fp8-e5m2)
