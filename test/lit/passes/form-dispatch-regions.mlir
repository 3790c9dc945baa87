// Elementwise ops and reductions on floats become dispatch regions: an op
// joins a region when every user of it is in that region. A Conv, MatMul or
// Gemm joins a region of elementwise ops that consume it (its epilogue),
// which then takes no other member: what comes before the contraction is
// its input. A value used in two regions (or by an op that cannot join
// one) ends its region and the next region reads it; integer (shape)
// arithmetic and other ops stay outside; a region yields its last op's
// value and its location names every op it holds.
// RUN: tessel-opt %s --split-input-file --tessel-form-dispatch-regions --mlir-print-debuginfo | FileCheck %s

// CHECK-LABEL: func.func @chain
// CHECK-NEXT:    %[[R:.+]] = tessel.dispatch_region -> tensor<?x8xf32> {
// CHECK-NEXT:      %[[M:.+]] = tessel.matmul %[[X:arg0]], %arg2 : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32> loc(#[[MM:.+]])
// CHECK-NEXT:      %[[S:.+]] = tessel.add %[[M]], %arg1 : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32> loc(#[[ADD:.+]])
// CHECK-NEXT:      %[[T:.+]] = tessel.tanh %[[S]] : tensor<?x8xf32> loc(#[[TANH:.+]])
// CHECK-NEXT:      %[[U:.+]] = tessel.mul %[[T]], %[[X]] : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> loc(#[[MUL:.+]])
// CHECK-NEXT:      %[[V:.+]] = tessel.relu %[[U]] : tensor<?x8xf32> loc(#[[RELU:.+]])
// CHECK-NEXT:      %[[W:.+]] = tessel.add %[[U]], %[[V]] : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> loc(#[[ADD2:.+]])
// CHECK-NEXT:      tessel.yield %[[W]] : tensor<?x8xf32> loc(#[[REGION:.+]])
// CHECK-NEXT:    } loc(#[[REGION]])
// CHECK-NEXT:    %[[R2:.+]] = tessel.dispatch_region -> tensor<?x8xf32> {
// CHECK-NEXT:      %[[Z:.+]] = tessel.matmul %[[R]], %arg2
// CHECK-NEXT:      tessel.sigmoid %[[R]]
// CHECK-NEXT:      tessel.add %[[Z]]
// CHECK-NEXT:      tessel.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R2]]
// CHECK:       #[[MM]] = loc("mm")
// CHECK:       #[[REGION]] = loc(fused<"tessel.dispatch_region">[#[[MM]], #[[ADD]], #[[TANH]], #[[MUL]], #[[RELU]], #[[ADD2]]])
func.func @chain(%x: tensor<?x8xf32>, %b: tensor<8xf32>, %w: tensor<8x8xf32>) -> tensor<?x8xf32> {
  %m = tessel.matmul %x, %w : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32> loc("mm")
  %s = tessel.add %m, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32> loc("a")
  %t = tessel.tanh %s : tensor<?x8xf32> loc("t")
  %u = tessel.mul %t, %x : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> loc("m")
  // %u has two users, both in the final add's region: it joins it too.
  %v = tessel.relu %u : tensor<?x8xf32> loc("r")
  %y = tessel.add %u, %v : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> loc("y")
  // %y is read by a MatMul and by the sigmoid, in one region: the MatMul
  // and the sigmoid are both the final add's.
  %z = tessel.matmul %y, %w : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
  %g = tessel.sigmoid %y : tensor<?x8xf32>
  %o = tessel.add %z, %g : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %o : tensor<?x8xf32>
}

// -----

// A Conv and its epilogue (bias Add, residual Add, Relu) are one region; the
// Relu before the Conv (its input) is not, and neither is a second Conv.
// CHECK-LABEL: func.func @conv_epilogue
// CHECK:         %[[P:.+]] = tessel.dispatch_region -> tensor<1x4x8x8xf32> {
// CHECK-NEXT:      tessel.conv %arg0
// CHECK-NEXT:      tessel.relu
// CHECK-NEXT:      tessel.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[Q:.+]] = tessel.dispatch_region -> tensor<1x4x8x8xf32> {
// CHECK-NEXT:      tessel.conv %[[P]]
// CHECK-NEXT:      tessel.add
// CHECK-NEXT:      tessel.relu
// CHECK-NEXT:      tessel.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[Q]]
func.func @conv_epilogue(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %c1 = tessel.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r1 = tessel.relu %c1 : tensor<1x4x8x8xf32>
  %c2 = tessel.conv %r1, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
      : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %s = tessel.add %c2, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %y = tessel.relu %s : tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// LayerNormalization as opset-13 exporters write it (ReduceMean, Sub, Pow,
// ReduceMean, Add, Sqrt, Div, Mul, Add) after a residual Add: one region,
// the residual Add included (both its users are in it).
// CHECK-LABEL: func.func @layer_norm
// CHECK:         tessel.matmul
// CHECK-NEXT:    %[[R:.+]] = tessel.dispatch_region -> tensor<?x16x32xf32> {
// CHECK-NEXT:      tessel.add
// CHECK-NEXT:      tessel.reduce_mean
// CHECK-NEXT:      tessel.sub
// CHECK-NEXT:      tessel.pow
// CHECK-NEXT:      tessel.reduce_mean
// CHECK-NEXT:      tessel.add
// CHECK-NEXT:      tessel.sqrt
// CHECK-NEXT:      tessel.div
// CHECK-NEXT:      tessel.mul
// CHECK-NEXT:      tessel.add
// CHECK-NEXT:      tessel.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
func.func @layer_norm(%x: tensor<?x16x32xf32>, %w: tensor<32x32xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<?x16x32xf32> {
  %two = tessel.constant dense<2.0> : tensor<f32>
  %eps = tessel.constant dense<1.0e-5> : tensor<f32>
  %m = tessel.matmul %x, %w : (tensor<?x16x32xf32>, tensor<32x32xf32>) -> tensor<?x16x32xf32>
  %h = tessel.add %m, %x : (tensor<?x16x32xf32>, tensor<?x16x32xf32>) -> tensor<?x16x32xf32>
  %mean = tessel.reduce_mean %h {axes = array<i64: 2>, keepdims = true, acc_type = f32} : (tensor<?x16x32xf32>) -> tensor<?x16x1xf32>
  %d = tessel.sub %h, %mean : (tensor<?x16x32xf32>, tensor<?x16x1xf32>) -> tensor<?x16x32xf32>
  %sq = tessel.pow %d, %two : (tensor<?x16x32xf32>, tensor<f32>) -> tensor<?x16x32xf32>
  %var = tessel.reduce_mean %sq {axes = array<i64: 2>, keepdims = true, acc_type = f32} : (tensor<?x16x32xf32>) -> tensor<?x16x1xf32>
  %ve = tessel.add %var, %eps : (tensor<?x16x1xf32>, tensor<f32>) -> tensor<?x16x1xf32>
  %sd = tessel.sqrt %ve : tensor<?x16x1xf32>
  %n = tessel.div %d, %sd : (tensor<?x16x32xf32>, tensor<?x16x1xf32>) -> tensor<?x16x32xf32>
  %s = tessel.mul %n, %g : (tensor<?x16x32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  %y = tessel.add %s, %b : (tensor<?x16x32xf32>, tensor<32xf32>) -> tensor<?x16x32xf32>
  return %y : tensor<?x16x32xf32>
}

// -----

// Integer arithmetic (shapes) is left to partitioning's host evaluation.
// CHECK-LABEL: func.func @integers
// CHECK-NOT:     tessel.dispatch_region
// CHECK:         return
func.func @integers(%a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<2xi64> {
  %s = tessel.add %a, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %m = tessel.mul %s, %b : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %m : tensor<2xi64>
}
