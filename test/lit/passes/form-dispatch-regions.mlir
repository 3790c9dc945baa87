// Elementwise chains on floats become dispatch regions: an op joins the
// region of its only user. A value used twice ends its region (the next
// region reads it), integer (shape) arithmetic and non-elementwise ops stay
// outside; a region yields its last op's value and its location names
// every op it holds.
// RUN: tessel-opt %s --split-input-file --tessel-form-dispatch-regions --mlir-print-debuginfo | FileCheck %s

// CHECK-LABEL: func.func @chain
// CHECK:         %[[M:.+]] = tessel.matmul %[[X:arg0]], %arg2
// CHECK-NEXT:    %[[R:.+]] = tessel.dispatch_region -> tensor<?x8xf32> {
// CHECK-NEXT:      %[[S:.+]] = tessel.add %[[M]], %arg1 : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32> loc(#[[ADD:.+]])
// CHECK-NEXT:      %[[T:.+]] = tessel.tanh %[[S]] : tensor<?x8xf32> loc(#[[TANH:.+]])
// CHECK-NEXT:      %[[U:.+]] = tessel.mul %[[T]], %[[X]] : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> loc(#[[MUL:.+]])
// CHECK-NEXT:      tessel.yield %[[U]] : tensor<?x8xf32> loc(#[[REGION:.+]])
// CHECK-NEXT:    } loc(#[[REGION]])
// CHECK-NEXT:    %[[R2:.+]] = tessel.dispatch_region -> tensor<?x8xf32> {
// CHECK-NEXT:      %[[V:.+]] = tessel.relu %[[R]]
// CHECK-NEXT:      %[[W2:.+]] = tessel.add %[[R]], %[[V]]
// CHECK-NEXT:      tessel.yield %[[W2]]
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R2]]
// CHECK:       #[[ADD]] = loc("a")
// CHECK:       #[[REGION]] = loc(fused<"tessel.dispatch_region">[#[[ADD]], #[[TANH]], #[[MUL]]])
func.func @chain(%x: tensor<?x8xf32>, %b: tensor<8xf32>, %w: tensor<8x8xf32>) -> tensor<?x8xf32> {
  %m = tessel.matmul %x, %w : (tensor<?x8xf32>, tensor<8x8xf32>) -> tensor<?x8xf32>
  %s = tessel.add %m, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32> loc("a")
  %t = tessel.tanh %s : tensor<?x8xf32> loc("t")
  %u = tessel.mul %t, %x : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32> loc("m")
  // %u has two users: it ends its region; relu joins the final add's.
  %v = tessel.relu %u : tensor<?x8xf32>
  %y = tessel.add %u, %v : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
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
