// Each verifier error of the plan dialect, one case per error.
// RUN: tessel-opt %s --split-input-file --verify-diagnostics

func.func @dim_out_of_range(%x: tensor<?x3xf32>) -> index {
  // expected-error @+1 {{'plan.dim' op dim 2 of a rank-2 tensor}}
  %d = plan.dim %x[2] : tensor<?x3xf32>
  return %d : index
}

// -----

func.func @weight_type_mismatch() -> tensor<2xf32> {
  // expected-error @+1 {{'plan.weight' op value of type 'tensor<3xf32>' for a result of type 'tensor<2xf32>'}}
  %w = plan.weight {value = dense<1.0> : tensor<3xf32>} : tensor<2xf32>
  return %w : tensor<2xf32>
}

// -----

func.func @dispatch_missing_dims(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'plan.dispatch' op has 0 result dims for 1 dynamic dims of its results}}
  %y = plan.dispatch @k(%x) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

func.func @dispatch_tied_count(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'plan.dispatch' op ties 2 results of 1}}
  %y = plan.dispatch @k(%x) {tied = array<i64: 0, -1>} : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func @dispatch_tied_no_argument(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'plan.dispatch' op ties result 0 to no argument}}
  %y = plan.dispatch @k(%x) {tied = array<i64: 1>} : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func @dispatch_tied_type(%x: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'plan.dispatch' op ties result 0 to argument 0 of another type}}
  %y = plan.dispatch @k(%x) {tied = array<i64: 0>} : (tensor<4xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

func.func @dispatch_tied_twice(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  // expected-error @+1 {{'plan.dispatch' op ties argument 0 to two results}}
  %y:2 = plan.dispatch @k(%x) {tied = array<i64: 0, 0>} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %y#0, %y#1 : tensor<3xf32>, tensor<3xf32>
}

// -----

func.func @view_changes_element_type(%x: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{'plan.view' op changes the element type from 'f32' to 'i32'}}
  %v = plan.view %x : tensor<4xf32> -> tensor<4xi32>
  return %v : tensor<4xi32>
}

// -----

func.func @view_wrong_count(%x: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'plan.view' op views 4 elements as 6}}
  %v = plan.view %x : tensor<4xf32> -> tensor<2x3xf32>
  return %v : tensor<2x3xf32>
}

// -----

func.func @view_missing_dims(%x: tensor<?xf32>) -> tensor<?x2xf32> {
  // expected-error @+1 {{'plan.view' op has 0 dims for 1 dynamic dims}}
  %v = plan.view %x : tensor<?xf32> -> tensor<?x2xf32>
  return %v : tensor<?x2xf32>
}

// -----

func.func @input_values_count(%s: tensor<3xi64>) -> index {
  // expected-error @+1 {{'plan.input_values' op has 2 results for 3 elements}}
  %v:2 = plan.input_values %s : tensor<3xi64> -> index, index
  return %v#0 : index
}

// -----

func.func @input_values_of_a_dispatch(%x: tensor<2xi64>) -> index {
  %y = plan.dispatch @k(%x) : (tensor<2xi64>) -> tensor<2xi64>
  // expected-error @+1 {{'plan.input_values' op reads a tensor that is not a model input}}
  %v:2 = plan.input_values %y : tensor<2xi64> -> index, index
  return %v#0 : index
}

// -----

func.func @input_values_rank(%s: tensor<1x2xi64>) -> index {
  // expected-error @+1 {{'plan.input_values' op reads a rank-2 tensor}}
  %v:2 = plan.input_values %s : tensor<1x2xi64> -> index, index
  return %v#0 : index
}

// -----

func.func @reshape_dims_count(%a: index, %b: index) -> index {
  // expected-error @+1 {{'plan.reshape_dims' op has 1 results for 2 values}}
  %d = plan.reshape_dims(%a) to(%a, %b) : index
  return %d : index
}

// -----

func.func @host_values_count(%a: index) -> tensor<2xi64> {
  // expected-error @+1 {{'plan.host_values' op has 1 values for 2 elements}}
  %t = plan.host_values %a : tensor<2xi64>
  return %t : tensor<2xi64>
}

// -----

func.func @if_missing_dims(%c: tensor<i1>, %a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'plan.if' op has 0 result dims for 1 dynamic dims of its results}}
  %r = plan.if %c : tensor<i1> -> tensor<?xf32> {
    plan.yield %a : tensor<?xf32>
  } else {
    plan.yield %a : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

func.func @if_yield_rank(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<1x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'plan.if' op the else branch yields 'tensor<1x2xf32>' for 'tensor<2xf32>' (value 0)}}
  %r = plan.if %c : tensor<i1> -> tensor<2xf32> {
    plan.yield %a : tensor<2xf32>
  } else {
    plan.yield %b : tensor<1x2xf32>
  }
  return %r : tensor<2xf32>
}

// -----

func.func @loop_body_dims(%n: tensor<i64>, %a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'plan.loop' op the body has 4 arguments; it needs 2 + 1 carried tensors + the iteration index + 1 dims}}
  %y, %d = plan.loop trip(%n : tensor<i64>) carried(%a : tensor<?xf32>) -> tensor<?xf32> dims(index) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %yi: tensor<?xf32>, %ii: index):
    plan.yield %c, %yi : tensor<i1>, tensor<?xf32>
  }
  return %y : tensor<?xf32>
}

// -----

func.func @tensor_values_count(%s: tensor<3xi64>) -> index {
  // expected-error @+1 {{'plan.tensor_values' op has 2 results for 3 elements}}
  %v:2 = plan.tensor_values %s : tensor<3xi64> -> index, index
  return %v#0 : index
}
