// The graph dialect holds normalized (non-negative) softmax axes; a negative
// one is rejected with its value as written.
// RUN: tessel-opt %s --verify-diagnostics

func.func @softmax_negative_axis(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'tessel.softmax' op axis -1 is out of range for rank 2}}
  %0 = tessel.softmax %a {axis = -1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
