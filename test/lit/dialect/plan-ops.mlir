// Every plan op parses, verifies and prints back in its custom form, and the
// printed form (and the generic form) parses again to the same ops.
// RUN: tessel-opt %s --split-input-file | tessel-opt --split-input-file | FileCheck %s
// RUN: tessel-opt %s --split-input-file --mlir-print-op-generic | tessel-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @dispatch_and_view
// CHECK-SAME:    (%[[X:.+]]: tensor<?x784xf32>)
// CHECK:         %[[W:.+]] = plan.weight {value = dense<1.000000e+00> : tensor<784x10xf32>} : tensor<784x10xf32>
// CHECK:         %[[N:.+]] = plan.dim %[[X]][0] : tensor<?x784xf32>
// CHECK:         %[[Y:.+]] = plan.dispatch @k0(%[[X]], %[[W]]) dims(%[[N]]) : (tensor<?x784xf32>, tensor<784x10xf32>) -> tensor<?x10xf32>
// CHECK:         %[[V:.+]] = plan.view %[[Y]] dims(%[[N]]) : tensor<?x10xf32> -> tensor<?x2x5xf32>
// CHECK:         return %[[V]]
func.func @dispatch_and_view(%x: tensor<?x784xf32>) -> tensor<?x2x5xf32> {
  %w = plan.weight {value = dense<1.0> : tensor<784x10xf32>} : tensor<784x10xf32>
  %n = plan.dim %x[0] : tensor<?x784xf32>
  %y = plan.dispatch @k0(%x, %w) dims(%n) : (tensor<?x784xf32>, tensor<784x10xf32>) -> tensor<?x10xf32>
  %v = plan.view %y dims(%n) : tensor<?x10xf32> -> tensor<?x2x5xf32>
  return %v : tensor<?x2x5xf32>
}

// -----

// A dispatch with several results and no dynamic dims.
// CHECK-LABEL: func.func @several_results
// CHECK:         %{{.+}}:2 = plan.dispatch @k1(%{{.+}}) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
func.func @several_results(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  %y, %m = plan.dispatch @k1(%x) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
  return %m : tensor<3xf32>
}

// -----

// Host shape ops: read an input's values, reshape with ONNX semantics, check.
// CHECK-LABEL: func.func @host_shape_ops
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3x4xf32>, %[[S:.+]]: tensor<2xi64>)
// CHECK:         %[[V:.+]]:2 = plan.input_values %[[S]] : tensor<2xi64> -> index, index
// CHECK:         %[[D:.+]]:2 = plan.reshape_dims(%{{.+}}, %{{.+}}, %{{.+}}) to(%[[V]]#0, %[[V]]#1) {allowzero} : index, index
// CHECK:         plan.assert_eq %[[D]]#1, %{{.+}}, "dim 1 must be 12"
func.func @host_shape_ops(%x: tensor<?x3x4xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %n = plan.dim %x[0] : tensor<?x3x4xf32>
  %v:2 = plan.input_values %s : tensor<2xi64> -> index, index
  %d:2 = plan.reshape_dims(%n, %c3, %c4) to(%v#0, %v#1) {allowzero} : index, index
  plan.assert_eq %d#1, %c12, "dim 1 must be 12"
  %r = plan.view %x dims(%d#0, %d#1) : tensor<?x3x4xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @host_values
// CHECK:         %[[N:.+]] = plan.dim
// CHECK:         %[[T:.+]] = plan.host_values %[[N]], %{{.+}} : tensor<2xi64>
// CHECK:         plan.dispatch @k0(%[[T]])
func.func @host_values(%x: tensor<?x4xf32>) -> tensor<2xi64> {
  %n = plan.dim %x[0] : tensor<?x4xf32>
  %c = arith.constant -1 : index
  %t = plan.host_values %n, %c : tensor<2xi64>
  %y = plan.dispatch @k0(%t) : (tensor<2xi64>) -> tensor<2xi64>
  return %y : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @if_and_loop
// CHECK:         %[[R:.+]], %[[RD:.+]] = plan.if %{{.+}} : tensor<i1> -> tensor<?xf32> dims(index) {
// CHECK-NEXT:      plan.yield %{{.+}} : tensor<2xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      plan.yield %{{.+}} : tensor<?xf32>
// CHECK-NEXT:    }
// CHECK:         %{{.+}}:2, %{{.+}}:3 = plan.loop trip(%{{.+}} : tensor<i64>) carried(%[[R]] : tensor<?xf32>) -> tensor<?xf32>, tensor<?x?xf32> dims(index, index, index) {
// CHECK-NEXT:    ^bb0(%{{.+}}: tensor<i64>, %[[C:.+]]: tensor<i1>, %[[Y:.+]]: tensor<?xf32>, %{{.+}}: index, %{{.+}}: index):
// CHECK-NEXT:      plan.yield %[[C]], %[[Y]], %[[Y]] : tensor<i1>, tensor<?xf32>, tensor<?xf32>
func.func @if_and_loop(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<?xf32>,
                       %n: tensor<i64>) -> tensor<?x?xf32> {
  %r, %rd = plan.if %c : tensor<i1> -> tensor<?xf32> dims(index) {
    plan.yield %a : tensor<2xf32>
  } else {
    plan.yield %b : tensor<?xf32>
  }
  %res:2, %dims:3 = plan.loop trip(%n : tensor<i64>) carried(%r : tensor<?xf32>)
      -> tensor<?xf32>, tensor<?x?xf32> dims(index, index, index) {
  ^bb0(%i: tensor<i64>, %ci: tensor<i1>, %yi: tensor<?xf32>, %ii: index, %d: index):
    plan.yield %ci, %yi, %yi : tensor<i1>, tensor<?xf32>, tensor<?xf32>
  }
  return %res#1 : tensor<?x?xf32>
}

// -----

// A value a dispatch computed, read back into the shape program.
// CHECK-LABEL: func.func @tensor_values
// CHECK:         %[[V:.+]]:2 = plan.tensor_values %{{.+}} : tensor<2xi64> -> index, index
// CHECK:         plan.view %{{.+}} dims(%[[V]]#0, %[[V]]#1)
func.func @tensor_values(%x: tensor<12xf32>, %t: tensor<2xi64>) -> tensor<?x?xf32> {
  %s = plan.dispatch @k(%t) : (tensor<2xi64>) -> tensor<2xi64>
  %v:2 = plan.tensor_values %s : tensor<2xi64> -> index, index
  %r = plan.view %x dims(%v#0, %v#1) : tensor<12xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
