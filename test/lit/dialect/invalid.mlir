// Each verifier error of the graph dialect, one case per error.
// RUN: tessel-opt %s --split-input-file --verify-diagnostics

// Operands that do not broadcast (numpy rules, trailing dims aligned).
func.func @add_no_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tessel.add' op operands don't have broadcast-compatible shapes}}
  %0 = tessel.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @sub_bad_result(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tessel.sub' op result type '2x4' not broadcast compatible with broadcasted operands's shapes '2x3'}}
  %0 = tessel.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @mul_mixed_types(%a: tensor<2x3xf32>, %b: tensor<3xf16>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tessel.mul' op requires the same element type for all operands and results}}
  %0 = tessel.mul %a, %b : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @relu_integer(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // expected-error @+1 {{'tessel.relu' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<2x3xi32>'}}
  %0 = tessel.relu %a : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

func.func @constant_dynamic() -> tensor<?xf32> {
  // expected-error @+1 {{'tessel.constant' op result #0 must be statically shaped tensor of any type values, but got 'tensor<?xf32>'}}
  %0 = "tessel.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @constant_type_mismatch() -> tensor<2xf32> {
  // expected-error @+1 {{'tessel.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "tessel.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @softmax_axis(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tessel.softmax' op axis 2 is out of range for rank 2}}
  %0 = tessel.softmax %a {axis = 2 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @matmul_scalar(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tessel.matmul' op operands must have rank >= 1}}
  %0 = tessel.matmul %a, %a : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Integer operands may give the accumulator's type, never another.
func.func @matmul_integer_result(%a: tensor<2x3xi8>, %b: tensor<3x5xi8>) -> tensor<2x5xi32> {
  // expected-error @+1 {{'tessel.matmul' op result element type 'i32' must be the operands' 'i8' or the accumulator type}}
  %0 = tessel.matmul %a, %b : (tensor<2x3xi8>, tensor<3x5xi8>) -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

// -----

func.func @matmul_mixed_operands(%a: tensor<2x3xi8>, %b: tensor<3x5xi32>) -> tensor<2x5xi32> {
  // expected-error @+1 {{'tessel.matmul' op operands must have one element type, not 'i8' and 'i32'}}
  %0 = tessel.matmul %a, %b {acc_type = i32} : (tensor<2x3xi8>, tensor<3x5xi32>) -> tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

// -----

// u8 activations (input_unsigned) are integers; a float input has no sign to drop.
func.func @matmul_unsigned_float(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'tessel.matmul' op input_unsigned needs integer operands}}
  %0 = tessel.matmul %a, %b {input_unsigned} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @conv_unsigned_float(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'tessel.conv' op input_unsigned needs integer operands}}
  %0 = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, input_unsigned, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// A Conv pads with its input's zero point: an integer input's value.
func.func @conv_zero_point_float(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'tessel.conv' op input_zero_point needs an integer input}}
  %0 = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, input_zero_point = 0 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x6x6xf32>
  return %0 : tensor<1x3x6x6xf32>
}

// -----

// 128 is a u8's (input_unsigned), not an i8's.
func.func @conv_zero_point_range(%x: tensor<1x2x4x4xi8>, %w: tensor<3x2x1x1xi8>) -> tensor<1x3x6x6xi32> {
  // expected-error @+1 {{'tessel.conv' op input_zero_point 128 is outside the input's range [-128, 127]}}
  %0 = tessel.conv %x, %w {acc_type = i32, dilations = array<i64: 1, 1>, group = 1 : i64, input_zero_point = 128 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<3x2x1x1xi8>) -> tensor<1x3x6x6xi32>
  return %0 : tensor<1x3x6x6xi32>
}

// -----

// Widening only to the declared accumulator.
func.func @matmul_float_widening(%a: tensor<2x3xbf16>, %b: tensor<3x5xbf16>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'tessel.matmul' op result element type 'f32' must be the operands' 'bf16' or the accumulator type}}
  %0 = tessel.matmul %a, %b : (tensor<2x3xbf16>, tensor<3x5xbf16>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @conv_integer_result(%x: tensor<1x2x4x4xi8>, %w: tensor<3x2x1x1xi8>) -> tensor<1x3x4x4xi16> {
  // expected-error @+1 {{'tessel.conv' op result element type 'i16' must be the operands' 'i8' or the accumulator type}}
  %0 = tessel.conv %x, %w {acc_type = i32, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi8>, tensor<3x2x1x1xi8>) -> tensor<1x3x4x4xi16>
  return %0 : tensor<1x3x4x4xi16>
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'tessel.matmul' op contraction dims differ: 3 vs 4}}
  %0 = tessel.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x2x3xf32>, %b: tensor<3x3x5xf32>) -> tensor<2x2x5xf32> {
  // expected-error @+1 {{'tessel.matmul' op batch dims do not broadcast: 2 vs 3}}
  %0 = tessel.matmul %a, %b : (tensor<2x2x3xf32>, tensor<3x3x5xf32>) -> tensor<2x2x5xf32>
  return %0 : tensor<2x2x5xf32>
}

// -----

// A rank-1 lhs is a row vector whose dim is dropped from the result.
func.func @matmul_vector_result(%a: tensor<3xf32>, %b: tensor<3x5xf32>) -> tensor<1x5xf32> {
  // expected-error @+1 {{'tessel.matmul' op result has rank 2, expected 1}}
  %0 = tessel.matmul %a, %b : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<1x5xf32>
  return %0 : tensor<1x5xf32>
}

// -----

func.func @matmul_result_dim(%a: tensor<?x2x3xf32>, %b: tensor<3x5xf32>) -> tensor<?x2x4xf32> {
  // expected-error @+1 {{'tessel.matmul' op result dim 2 is 4, expected 5}}
  %0 = tessel.matmul %a, %b : (tensor<?x2x3xf32>, tensor<3x5xf32>) -> tensor<?x2x4xf32>
  return %0 : tensor<?x2x4xf32>
}

// -----

func.func @gemm_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+1 {{'tessel.gemm' op A and B must have rank 2}}
  %0 = tessel.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// trans_b: B is [N, K], so K is B's dim 1 (5), not its dim 0.
func.func @gemm_contraction(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tessel.gemm' op contraction dims differ: 3 vs 5}}
  %0 = tessel.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gemm_c_rank(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>, %c: tensor<1x2x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'tessel.gemm' op C must have rank <= 2}}
  %0 = tessel.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x5xf32>, tensor<1x2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// A rank-1 C is aligned with N (5), so [2] does not broadcast.
func.func @gemm_c_broadcast(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>, %c: tensor<2xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'tessel.gemm' op C does not broadcast to [M, N]}}
  %0 = tessel.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x5xf32>, tensor<2xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// trans_a: A is [K, M], so M is 3.
func.func @gemm_result(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'tessel.gemm' op result dim 0 is 2, expected 3}}
  %0 = tessel.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = true, trans_b = false} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @conv_weight_rank(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op input and weight must have the same rank >= 3}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

func.func @conv_window_attrs(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op expected 2 strides and dilations and 4 pads}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

func.func @conv_stride_zero(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op strides and dilations must be >= 1}}
  %0 = tessel.conv %x, %w {strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

func.func @conv_dilation_zero(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op strides and dilations must be >= 1}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 0>, group = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

func.func @conv_negative_pad(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op pads must be >= 0}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, -1, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

func.func @conv_group_filters(%x: tensor<1x4x5x5xf32>, %w: tensor<6x1x3x3xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op group 4 does not divide 6 filters}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x5x5xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// With filters_last the weight is C/group x KH x KW x F: 4 x 3 x 3 x 6
// here, so 6 channels per group is wrong.
func.func @conv_filters_last_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<6x3x3x6xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op weight has 6 channels per group, input has 4 channels in 1 groups}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, filters_last} : (tensor<1x4x5x5xf32>, tensor<6x3x3x6xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// The weight's rows (6) may be padded beyond the filters, never short.
func.func @conv_filters_last_rows(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x6xf32>) -> tensor<1x8x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op with filters_last the weight's last dim (6) must hold the result's 8 filters, both static}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, filters_last} : (tensor<1x4x5x5xf32>, tensor<4x3x3x6xf32>) -> tensor<1x8x3x3xf32>
  return %0 : tensor<1x8x3x3xf32>
}

// -----

// The bias has one value per filter, not per padded row.
func.func @conv_filters_last_bias(%x: tensor<1x4x5x5xf32>, %w: tensor<4x3x3x6xf32>, %b: tensor<6xf32>) -> tensor<1x4x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op bias dim 0 is 6, expected 4}}
  %0 = tessel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64, filters_last} : (tensor<1x4x5x5xf32>, tensor<4x3x3x6xf32>, tensor<6xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

func.func @conv_group_zero(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op group 0 does not divide 6 filters}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 0 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// With 2 groups each filter sees 4 / 2 = 2 channels.
func.func @conv_group_channels(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op weight has 4 channels per group, input has 4 channels in 2 groups}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

func.func @conv_channels(%x: tensor<?x4x5x5xf32>, %w: tensor<6x3x3x3xf32>) -> tensor<?x6x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op weight has 3 channels per group, input has 4 channels in 1 groups}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x5x5xf32>, tensor<6x3x3x3xf32>) -> tensor<?x6x3x3xf32>
  return %0 : tensor<?x6x3x3xf32>
}

// -----

func.func @conv_bias(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x6x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op bias dim 0 is 4, expected 6}}
  %0 = tessel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>, tensor<4xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// Without pads a 3x3 window over 5x5 gives 3x3.
func.func @conv_result(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x5x5xf32> {
  // expected-error @+1 {{'tessel.conv' op result dim 2 is 5, expected 3}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x5x5xf32>
  return %0 : tensor<1x6x5x5xf32>
}

// -----

// Pads are all begins, then all ends: h (1, 1) and w (0, 0), so the height is
// (9 + 2 - 3) / 2 + 1 = 5 and the width (9 - 3) / 3 + 1 = 3.
func.func @conv_result_strided(%x: tensor<?x4x9x9xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<?x6x5x2xf32> {
  // expected-error @+1 {{'tessel.conv' op result dim 3 is 2, expected 3}}
  %0 = tessel.conv %x, %w {strides = array<i64: 2, 3>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x9x9xf32>, tensor<6x4x3x3xf32>) -> tensor<?x6x5x2xf32>
  return %0 : tensor<?x6x5x2xf32>
}

// -----
func.func @pool_rank(%a: tensor<4x5xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'tessel.max_pool' op input must have rank >= 3}}
  %0 = tessel.max_pool %a {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, ceil_mode = false} : (tensor<4x5xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @pool_kernel_dims(%a: tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{'tessel.max_pool' op expected 2 kernel dims}}
  %0 = tessel.max_pool %a {kernel_shape = array<i64: 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

func.func @pool_pads(%a: tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{'tessel.average_pool' op expected 2 strides and dilations and 4 pads}}
  %0 = tessel.average_pool %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

func.func @pool_stride_zero(%a: tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{'tessel.max_pool' op strides and dilations must be >= 1}}
  %0 = tessel.max_pool %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// ceil_mode: (5 - 2) / 2 rounds up, so 3 windows, not 2.
func.func @pool_ceil_mode(%a: tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{'tessel.average_pool' op result dim 2 is 2, expected 3}}
  %0 = tessel.average_pool %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// Without ceil_mode the last partial window is dropped: 2 windows.
func.func @pool_floor_mode(%a: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'tessel.max_pool' op result dim 2 is 3, expected 2}}
  %0 = tessel.max_pool %a {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// With ceil_mode a window that would start in the end padding is dropped
// (as in ONNX's shape inference and PyTorch): (4 + 1 - 2) / 2 rounds up to
// 2, plus 1 is 3 windows, but the third would start at 4, past the input.
func.func @pool_ceil_mode_start(%a: tensor<1x1x4xf32>) -> tensor<1x1x3xf32> {
  // expected-error @+1 {{'tessel.max_pool' op result dim 2 is 3, expected 2}}
  %0 = tessel.max_pool %a {kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 0, 1>, dilations = array<i64: 1>, ceil_mode = true} : (tensor<1x1x4xf32>) -> tensor<1x1x3xf32>
  return %0 : tensor<1x1x3xf32>
}

// -----

func.func @global_pool_rank(%a: tensor<2x5xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'tessel.global_average_pool' op input must have rank >= 3}}
  %0 = tessel.global_average_pool %a : (tensor<2x5xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @global_pool_result(%a: tensor<?x2x5x5xf32>) -> tensor<?x2x1x5xf32> {
  // expected-error @+1 {{'tessel.global_average_pool' op result dim 3 is 5, expected 1}}
  %0 = tessel.global_average_pool %a : (tensor<?x2x5x5xf32>) -> tensor<?x2x1x5xf32>
  return %0 : tensor<?x2x1x5xf32>
}

// -----

func.func @batch_norm_rank(%x: tensor<3xf32>, %s: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'tessel.batch_norm' op input must have rank >= 2}}
  %0 = tessel.batch_norm %x, %s, %s, %s, %s {epsilon = 1.0e-5 : f32}
      : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @batch_norm_scale(%x: tensor<2x3xf32>, %s: tensor<4xf32>, %v: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tessel.batch_norm' op scale dim 0 is 4, expected 3}}
  %0 = tessel.batch_norm %x, %s, %v, %v, %v {epsilon = 1.0e-5 : f32}
      : (tensor<2x3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @batch_norm_variance(%x: tensor<2x3xf32>, %v: tensor<3xf32>, %bad: tensor<1x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tessel.batch_norm' op variance has rank 2, expected 1}}
  %0 = tessel.batch_norm %x, %v, %v, %v, %bad {epsilon = 1.0e-5 : f32}
      : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @batch_norm_result(%x: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'tessel.batch_norm' op result dim 0 is 3, expected 2}}
  %0 = tessel.batch_norm %x, %v, %v, %v, %v {epsilon = 1.0e-5 : f32}
      : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

func.func @reshape_count(%a: tensor<2x6xf32>) -> tensor<5x2xf32> {
  // expected-error @+1 {{'tessel.reshape' op reshape of 12 elements into 10}}
  %0 = tessel.reshape %a : (tensor<2x6xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

func.func @reshape_element_type(%a: tensor<2x6xf32>) -> tensor<12xi32> {
  // expected-error @+1 {{'tessel.reshape' op failed to verify that all of {input, result} have same element type}}
  %0 = tessel.reshape %a : (tensor<2x6xf32>) -> tensor<12xi32>
  return %0 : tensor<12xi32>
}

// -----

func.func @reshape_allowzero_without_shape(%a: tensor<2x6xf32>) -> tensor<12xf32> {
  // expected-error @+1 {{'tessel.reshape' op allowzero needs a shape operand}}
  %0 = tessel.reshape %a {allowzero} : (tensor<2x6xf32>) -> tensor<12xf32>
  return %0 : tensor<12xf32>
}

// -----

func.func @reshape_shape_length(%a: tensor<2x6xf32>, %s: tensor<3xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tessel.reshape' op shape has 3 entries for a result of rank 2}}
  %0 = tessel.reshape %a, %s : (tensor<2x6xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @reshape_shape_dynamic_length(%a: tensor<2x6xf32>, %s: tensor<?xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tessel.reshape' op shape must have a static length}}
  %0 = tessel.reshape %a, %s : (tensor<2x6xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @reshape_shape_i32(%a: tensor<2x6xf32>, %s: tensor<2xi32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tessel.reshape' op operand #1 must be 1D tensor of 64-bit signless integer values, but got 'tensor<2xi32>'}}
  %0 = tessel.reshape %a, %s : (tensor<2x6xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @reshape_shape_rank2(%a: tensor<2x6xf32>, %s: tensor<1x2xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tessel.reshape' op operand #1 must be 1D tensor of 64-bit signless integer values, but got 'tensor<1x2xi64>'}}
  %0 = tessel.reshape %a, %s : (tensor<2x6xf32>, tensor<1x2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Static on both sides, the element counts are known even with an operand.
func.func @reshape_shape_count(%a: tensor<2x6xf32>, %s: tensor<2xi64>) -> tensor<5x2xf32> {
  // expected-error @+1 {{'tessel.reshape' op reshape of 12 elements into 10}}
  %0 = tessel.reshape %a, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

func.func @transpose_perm_size(%a: tensor<2x3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'tessel.transpose' op perm has 2 entries for rank 3}}
  %0 = tessel.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_repeated(%a: tensor<2x3x4xf32>) -> tensor<4x3x4xf32> {
  // expected-error @+1 {{'tessel.transpose' op perm is not a permutation}}
  %0 = tessel.transpose %a {perm = array<i64: 2, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<4x3x4xf32>
  return %0 : tensor<4x3x4xf32>
}

// -----

func.func @transpose_out_of_range(%a: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  // expected-error @+1 {{'tessel.transpose' op perm is not a permutation}}
  %0 = tessel.transpose %a {perm = array<i64: 3, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

func.func @transpose_result(%a: tensor<?x3x4xf32>) -> tensor<4x3x?xf32> {
  // expected-error @+1 {{'tessel.transpose' op result dim 0 is 4, expected 3}}
  %0 = tessel.transpose %a {perm = array<i64: 1, 2, 0>} : (tensor<?x3x4xf32>) -> tensor<4x3x?xf32>
  return %0 : tensor<4x3x?xf32>
}

// -----

func.func @concat_no_inputs() -> tensor<2x3xf32> {
  // expected-error @+1 {{'tessel.concat' op expected 1 or more operands, but found 0}}
  %0 = tessel.concat {axis = 0 : i64} : () -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'tessel.concat' op axis 2 is out of range for rank 2}}
  %0 = tessel.concat %a, %b {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// The graph dialect holds normalized axes: a negative one is rejected.
func.func @concat_negative_axis(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'tessel.concat' op axis -1 is out of range for rank 2}}
  %0 = tessel.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'tessel.concat' op inputs differ in rank}}
  %0 = tessel.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_dim(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'tessel.concat' op inputs differ in dim 1}}
  %0 = tessel.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @concat_result(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{'tessel.concat' op result dim 0 is 5, expected 4}}
  %0 = tessel.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'tessel.concat' op requires the same element type for all operands and results}}
  %0 = tessel.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @max_pool_indices_shape(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{'tessel.max_pool_with_indices' op indices must have the result's shape}}
  %0, %1 = tessel.max_pool_with_indices %x {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x3xi64>)
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// Dynamic dims. A result dim is dynamic exactly where the extent the op
// implies is: a static result over a dynamic extent is never checked...
func.func @transpose_static_result_of_dynamic(%a: tensor<?x3xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'tessel.transpose' op result dim 1 is 4, expected ?}}
  %0 = tessel.transpose %a {perm = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// ... and a dynamic result over a static extent has no operand dim to come
// from.
func.func @global_average_pool_dynamic_result(%x: tensor<?x3x4x4xf32>) -> tensor<?x3x?x?xf32> {
  // expected-error @+1 {{'tessel.global_average_pool' op result dim 2 is ?, expected 1}}
  %0 = tessel.global_average_pool %x : (tensor<?x3x4x4xf32>) -> tensor<?x3x?x?xf32>
  return %0 : tensor<?x3x?x?xf32>
}

// -----

func.func @matmul_dynamic_result_of_static(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<?x3x5xf32> {
  // expected-error @+1 {{'tessel.matmul' op result dim 0 is ?, expected 2}}
  %0 = tessel.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<?x3x5xf32>
  return %0 : tensor<?x3x5xf32>
}

// -----

// Operand dims that nothing checks at run time must be static: Conv's
// input channels against its weights...
func.func @conv_dynamic_channels(%x: tensor<1x?x5x5xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op weight has 3 channels per group, input has ? channels in 1 groups (both must be static: the run time does not check them)}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x?x5x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// ... a Conv bias against the filters...
func.func @conv_dynamic_bias(%x: tensor<1x3x5x5xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<?xf32>) -> tensor<1x2x3x3xf32> {
  // expected-error @+1 {{'tessel.conv' op bias dim 0 is ?, expected 2 (both must be static: the run time does not check them)}}
  %0 = tessel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>, tensor<?xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// ... BatchNormalization's vectors against the input's channels (either
// side dynamic)...
func.func @batch_norm_dynamic_channels(%x: tensor<2x?x4xf32>, %s: tensor<3xf32>) -> tensor<2x?x4xf32> {
  // expected-error @+1 {{'tessel.batch_norm' op scale dim 0 is 3, expected ? (both must be static: the run time does not check them)}}
  %0 = tessel.batch_norm %x, %s, %s, %s, %s {epsilon = 1.0e-5 : f32}
      : (tensor<2x?x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x?x4xf32>
  return %0 : tensor<2x?x4xf32>
}

// -----

func.func @batch_norm_dynamic_vector(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %m: tensor<?xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{'tessel.batch_norm' op mean dim 0 is ?, expected 3 (both must be static: the run time does not check them)}}
  %0 = tessel.batch_norm %x, %s, %s, %m, %s {epsilon = 1.0e-5 : f32}
      : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<?xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// ... and Gemm's C against [M, N] where one side is static.
func.func @gemm_c_static_against_dynamic_m(%a: tensor<?x3xf32>, %b: tensor<3x4xf32>, %c: tensor<5x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'tessel.gemm' op C does not broadcast to [M, N]: its dim 0 is 5, M and N are ? and 4}}
  %0 = tessel.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false}
      : (tensor<?x3xf32>, tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @gemm_c_dynamic_against_static_n(%a: tensor<?x3xf32>, %b: tensor<3x4xf32>, %c: tensor<?xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'tessel.gemm' op C does not broadcast to [M, N]: its dim 0 is ?, M and N are ? and 4}}
  %0 = tessel.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false}
      : (tensor<?x3xf32>, tensor<3x4xf32>, tensor<?xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Add/Sub/Mul/Div: a static result dim over dynamic operand dims is never
// checked at run time...
func.func @add_static_result_of_dynamic(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tessel.add' op result dim 0 is 4, expected ?}}
  %0 = tessel.add %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ... and a dynamic result dim over static ones has no operand dim to come
// from.
func.func @div_dynamic_result_of_static(%a: tensor<2x3xi32>, %b: tensor<3xi32>) -> tensor<?x3xi32> {
  // expected-error @+1 {{'tessel.div' op result dim 0 is ?, expected 2}}
  %0 = tessel.div %a, %b : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<?x3xi32>
  return %0 : tensor<?x3xi32>
}

// -----

func.func @clip_bound_not_scalar(%x: tensor<4xf32>, %lo: tensor<1xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tessel.clip' op min must be a scalar of the element type 'f32'}}
  %0 = tessel.clip %x min %lo : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @shape_out_of_range(%x: tensor<2x3xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{'tessel.shape' op dims [0, 3) of a rank-2 tensor}}
  %0 = tessel.shape %x {start = 0 : i64, end = 3 : i64} : (tensor<2x3xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

func.func @gather_axis(%x: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tessel.gather' op axis 2 is out of range for rank 2}}
  %0 = tessel.gather %x[%i] {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @gather_elements_indices_exceed(%x: tensor<2x3xf32>, %i: tensor<2x4xi64>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tessel.gather_elements' op indices dim 1 (4) exceeds the data's (3)}}
  %0 = tessel.gather_elements %x[%i] {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @count_out_of_range_axis(%x: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<i64> {
  // expected-error @+1 {{'tessel.count_out_of_range' op axis 2 is out of range for rank 2}}
  %0 = tessel.count_out_of_range %x[%i] {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @count_out_of_range_dynamic_tuples(%x: tensor<2x3xf32>, %i: tensor<2x?xi64>) -> tensor<i64> {
  // expected-error @+1 {{'tessel.count_out_of_range' op index tuples need a static last dim of at least 1}}
  %0 = tessel.count_out_of_range %x[%i] {axis = 0 : i64, tuples} : (tensor<2x3xf32>, tensor<2x?xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @count_out_of_range_long_tuples(%x: tensor<2x3xf32>, %i: tensor<4x2xi64>) -> tensor<i64> {
  // expected-error @+1 {{'tessel.count_out_of_range' op tuples of 2 indices from dim 1 do not fit data of rank 2}}
  %0 = tessel.count_out_of_range %x[%i] {axis = 1 : i64, tuples} : (tensor<2x3xf32>, tensor<4x2xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @reduce_dynamic_axes_drop_dims(%x: tensor<2x3xf32>, %a: tensor<1xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{'tessel.reduce_sum' op with dynamic_axes must keep the reduced dims}}
  %0 = tessel.reduce_sum %x axes %a {acc_type = f32, axes = array<i64>, keepdims = false} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @reduce_dynamic_and_static_axes(%x: tensor<2x3xf32>, %a: tensor<1xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'tessel.reduce_max' op has both axes and dynamic_axes}}
  %0 = tessel.reduce_max %x axes %a {acc_type = f32, axes = array<i64: 0>, keepdims = true} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @squeeze_rank(%x: tensor<2x1x3xf32>, %a: tensor<1xi64>) -> tensor<?x?x?xf32> {
  // expected-error @+1 {{'tessel.squeeze' op result has rank 3, expected 2}}
  %0 = tessel.squeeze %x axes %a : (tensor<2x1x3xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

func.func @unsqueeze_dynamic_count(%x: tensor<2x3xf32>, %a: tensor<?xi64>) -> tensor<?x?x?xf32> {
  // expected-error @+1 {{'tessel.unsqueeze' op axes must have a static length of at least 1}}
  %0 = tessel.unsqueeze %x axes %a : (tensor<2x3xf32>, tensor<?xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

func.func @compare_not_bool(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'tessel.less' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = tessel.less %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @where_bad_result(%c: tensor<?x1xi1>, %x: tensor<4xf32>, %y: tensor<f32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tessel.where' op result dim 0 is 2, expected ?}}
  %0 = tessel.where %c, %x, %y : (tensor<?x1xi1>, tensor<4xf32>, tensor<f32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @where_mixed_types(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'tessel.where' op failed to verify that all of {x, y, result} have same element type}}
  %0 = tessel.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_f16_in_f16(%x: tensor<2x3xf16>) -> tensor<2x1xf16> {
  // expected-error @+1 {{'tessel.reduce_sum' op accumulates in 'f16', expected 'f32' for 'f16'}}
  %0 = tessel.reduce_sum %x {axes = array<i64: 1>, keepdims = true, acc_type = f16} : (tensor<2x3xf16>) -> tensor<2x1xf16>
  return %0 : tensor<2x1xf16>
}

// -----

func.func @reduce_unsorted_axes(%x: tensor<2x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'tessel.reduce_max' op axes must be sorted and unique}}
  %0 = tessel.reduce_max %x {axes = array<i64: 1, 0>, keepdims = false, acc_type = f32} : (tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_bad_result(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'tessel.reduce_mean' op result dim 1 is 3, expected 1}}
  %0 = tessel.reduce_mean %x {axes = array<i64: 1>, keepdims = true, acc_type = f32} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

func.func @narrow_accumulator(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tessel.matmul' op accumulator type 'f16' cannot hold sums of 'f32'}}
  %0 = tessel.matmul %a, %b {acc_type = f16} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @integer_accumulator_for_floats(%x: tensor<1x1x3x3xf16>, %w: tensor<1x1x2x2xf16>) -> tensor<1x1x2x2xf16> {
  // expected-error @+1 {{'tessel.conv' op accumulator type 'i32' cannot hold sums of 'f16'}}
  %0 = tessel.conv %x, %w {acc_type = i32, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xf16>, tensor<1x1x2x2xf16>) -> tensor<1x1x2x2xf16>
  return %0 : tensor<1x1x2x2xf16>
}

// -----

func.func @if_yield_count(%c: tensor<i1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tessel.if' op the else branch yields 0 values for 1 results}}
  %r = tessel.if %c : tensor<i1> -> tensor<2xf32> {
    tessel.yield %a : tensor<2xf32>
  } else {
    tessel.yield
  }
  return %r : tensor<2xf32>
}

// -----

func.func @if_yield_extent(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tessel.if' op the else branch yields 'tensor<3xf32>' for result 0 of type 'tensor<2xf32>'}}
  %r = tessel.if %c : tensor<i1> -> tensor<2xf32> {
    tessel.yield %a : tensor<2xf32>
  } else {
    tessel.yield %b : tensor<3xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @if_condition_elements(%c: tensor<2xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tessel.if' op the condition must have one element, not 2}}
  %r = tessel.if %c : tensor<2xi1> -> tensor<2xf32> {
    tessel.yield %a : tensor<2xf32>
  } else {
    tessel.yield %a : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @loop_body_arguments(%n: tensor<i64>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tessel.loop' op the body takes the iteration number (tensor<i64>), the condition (tensor<i1>) and 1 carried values}}
  %y = tessel.loop trip(%n : tensor<i64>) carried(%a : tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %yi: tensor<2xf32>):
    tessel.yield %yi : tensor<2xf32>
  }
  return %y : tensor<2xf32>
}

// -----

func.func @loop_carried_type(%n: tensor<i64>, %a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tessel.loop' op the body yields 'tensor<3xf32>' for carried value 0 of type 'tensor<2xf32>'}}
  %y = tessel.loop trip(%n : tensor<i64>) carried(%a : tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %yi: tensor<2xf32>):
    tessel.yield %c, %b : tensor<i1>, tensor<3xf32>
  }
  return %y : tensor<2xf32>
}

// -----

func.func @loop_scan_rank(%n: tensor<i64>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'tessel.loop' op scan output 0: the body yields 'tensor<2xf32>', the result is 'tensor<2xf32>'}}
  %s = tessel.loop trip(%n : tensor<i64>) -> tensor<2xf32> {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>):
    tessel.yield %c, %a : tensor<i1>, tensor<2xf32>
  }
  return %s : tensor<2xf32>
}

// -----

func.func @dispatch_region_yield_type(%a: tensor<8xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'tessel.dispatch_region' op yields 'tensor<8xf32>' for results of types 'tensor<?xf32>'}}
  %r = tessel.dispatch_region -> tensor<?xf32> {
    %t = tessel.relu %a : tensor<8xf32>
    tessel.yield %t : tensor<8xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// An Expand whose static result dim contradicts a constant shape value.
func.func @expand_contradicts_shape(%x: tensor<?x3xf32>) -> tensor<2x5x3xf32> {
  %s = tessel.constant dense<[4, 1, 1]> : tensor<3xi64>
  // expected-error @+1 {{'tessel.expand' op result dim 0 is 2, expected 4}}
  %0 = tessel.expand %x, %s : (tensor<?x3xf32>, tensor<3xi64>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}
