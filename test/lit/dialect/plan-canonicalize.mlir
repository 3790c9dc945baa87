// The plan's folders: dims resolve to the extents that defined them, views
// of views collapse, constant reshape dims fold, and checks known to hold
// disappear while the others stay even without users.
// RUN: tessel-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @dim_folds_to_its_definition
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3xf32>)
// CHECK:         %[[N:.+]] = plan.dim %[[X]][0]
// CHECK:         %[[Y:.+]] = plan.dispatch @k(%[[X]]) dims(%[[N]])
// CHECK:         %[[V:.+]] = plan.view %[[Y]] dims(%[[N]])
// CHECK-NOT:     plan.dim
// CHECK:         return %[[V]], %[[N]], %[[N]]
func.func @dim_folds_to_its_definition(%x: tensor<?x3xf32>) -> (tensor<?x1x3xf32>, index, index) {
  %n = plan.dim %x[0] : tensor<?x3xf32>
  %y = plan.dispatch @k(%x) dims(%n) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %v = plan.view %y dims(%n) : tensor<?x3xf32> -> tensor<?x1x3xf32>
  %a = plan.dim %y[0] : tensor<?x3xf32>
  %b = plan.dim %v[0] : tensor<?x1x3xf32>
  return %v, %a, %b : tensor<?x1x3xf32>, index, index
}

// -----

// CHECK-LABEL: func.func @static_dim_folds
// CHECK:         %[[C:.+]] = arith.constant 3 : index
// CHECK:         return %[[C]]
func.func @static_dim_folds(%x: tensor<?x3xf32>) -> index {
  %d = plan.dim %x[1] : tensor<?x3xf32>
  return %d : index
}

// -----

// CHECK-LABEL: func.func @view_of_view
// CHECK-SAME:    (%[[X:.+]]: tensor<2x6xf32>)
// CHECK:         %[[V:.+]] = plan.view %[[X]] : tensor<2x6xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    return %[[V]]
func.func @view_of_view(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %a = plan.view %x : tensor<2x6xf32> -> tensor<12xf32>
  %b = plan.view %a : tensor<12xf32> -> tensor<3x4xf32>
  return %b : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @view_to_itself
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3xf32>)
// CHECK-NOT:     plan.view
// CHECK:         return %[[X]]
func.func @view_to_itself(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %n = plan.dim %x[0] : tensor<?x3xf32>
  %v = plan.view %x dims(%n) : tensor<?x3xf32> -> tensor<?x3xf32>
  return %v : tensor<?x3xf32>
}

// -----

// 0 copies the source dim, -1 takes the rest: (2, 3, 4) to (0, -1) is (2, 12).
// CHECK-LABEL: func.func @constant_reshape_dims_fold
// CHECK-NOT:     plan.reshape_dims
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C12:.+]] = arith.constant 12 : index
// CHECK:         return %[[C2]], %[[C12]]
func.func @constant_reshape_dims_fold() -> (index, index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %m1 = arith.constant -1 : index
  %d:2 = plan.reshape_dims(%c2, %c3, %c4) to(%c0, %m1) : index, index
  return %d#0, %d#1 : index, index
}

// -----

// An invalid constant reshape (24 elements into 5 x 5) is not folded: the
// run-time check reports it. A dispatch nobody reads is dead (it is pure).
// CHECK-LABEL: func.func @invalid_reshape_dims_stay
// CHECK:         plan.reshape_dims
// CHECK-NOT:     plan.dispatch
func.func @invalid_reshape_dims_stay(%x: tensor<2xf32>) {
  %y = plan.dispatch @k(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %d:2 = plan.reshape_dims(%c2, %c3, %c4) to(%c5, %c5) : index, index
  return
}

// -----

// A reshape_dims with a run-time value keeps its checks without users.
// CHECK-LABEL: func.func @reshape_dims_without_users_stay
// CHECK:         plan.reshape_dims
func.func @reshape_dims_without_users_stay(%x: tensor<?x4xf32>, %s: tensor<1xi64>) {
  %n = plan.dim %x[0] : tensor<?x4xf32>
  %c4 = arith.constant 4 : index
  %v = plan.input_values %s : tensor<1xi64> -> index
  %d = plan.reshape_dims(%n, %c4) to(%v) : index
  return
}

// -----

// CHECK-LABEL: func.func @assert_eq
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3xf32>, %[[Y:.+]]: tensor<?x3xf32>)
// CHECK:         %[[N:.+]] = plan.dim %[[X]][0]
// CHECK:         %[[M:.+]] = plan.dim %[[Y]][0]
// CHECK-NEXT:    plan.assert_eq %[[N]], %[[M]], "unknown"
// CHECK-NEXT:    return
func.func @assert_eq(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) {
  %n = plan.dim %x[0] : tensor<?x3xf32>
  %m = plan.dim %y[0] : tensor<?x3xf32>
  %c3 = arith.constant 3 : index
  %three = plan.dim %x[1] : tensor<?x3xf32>
  plan.assert_eq %n, %n, "same value"
  plan.assert_eq %three, %c3, "equal constants"
  plan.assert_eq %n, %m, "unknown"
  return
}

// -----

// A positive constant target value is the dim it gives: its uses take the
// constant, and the op stays for its checks.
// CHECK-LABEL: func.func @reshape_dims_forward_constants
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK:         %[[D:.+]]:2 = plan.reshape_dims
// CHECK:         return %[[D]]#0, %[[C4]]
func.func @reshape_dims_forward_constants(%x: tensor<?x4xf32>, %s: tensor<1xi64>) -> (index, index) {
  %n = plan.dim %x[0] : tensor<?x4xf32>
  %c4 = arith.constant 4 : index
  %v = plan.input_values %s : tensor<1xi64> -> index
  %d:2 = plan.reshape_dims(%n, %c4) to(%v, %c4) : index, index
  return %d#0, %d#1 : index, index
}

// -----

// Host values that are all constants are a weight; one computed stays.
// CHECK-LABEL: func.func @host_values_of_constants
// CHECK:         %[[W:.+]] = plan.weight {value = dense<[3, -1]> : tensor<2xi64>} : tensor<2xi64>
// CHECK:         %[[H:.+]] = plan.host_values %{{.+}}, %{{.+}} : tensor<2xi64>
// CHECK:         return %[[W]], %[[H]]
func.func @host_values_of_constants(%x: tensor<?x4xf32>) -> (tensor<2xi64>, tensor<2xi64>) {
  %c3 = arith.constant 3 : index
  %m1 = arith.constant -1 : index
  %n = plan.dim %x[0] : tensor<?x4xf32>
  %w = plan.host_values %c3, %m1 : tensor<2xi64>
  %h = plan.host_values %n, %m1 : tensor<2xi64>
  return %w, %h : tensor<2xi64>, tensor<2xi64>
}

// -----

// A dim is never negative: comparisons its sign decides fold (a Slice end
// that is a sequence length does not count from the end); others stay.
// CHECK-LABEL: func.func @extent_sign
// CHECK-DAG:     %[[F:.+]] = arith.constant false
// CHECK-DAG:     %[[T:.+]] = arith.constant true
// CHECK:         %[[N:.+]] = plan.dim
// CHECK:         %[[K:.+]] = arith.cmpi sgt, %[[N]], %{{.+}} : index
// CHECK:         %[[M:.+]] = arith.maxsi %[[N]], %{{.+}} : index
// CHECK:         return %[[F]], %[[T]], %[[K]], %[[N]], %[[M]]
func.func @extent_sign(%x: tensor<?x4xf32>) -> (i1, i1, i1, index, index) {
  %n = plan.dim %x[0] : tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lt = arith.cmpi slt, %n, %c0 : index
  %ge = arith.cmpi sge, %n, %c0 : index
  %gt = arith.cmpi sgt, %n, %c1 : index
  %m0 = arith.maxsi %n, %c0 : index
  %m1 = arith.maxsi %n, %c1 : index
  return %lt, %ge, %gt, %m0, %m1 : i1, i1, i1, index, index
}

// -----

// A reshape_dims that repeats an earlier one (same operands) is that one:
// its dims and checks are the same. One with other values stays.
// CHECK-LABEL: func.func @repeated_reshape_dims
// CHECK:         %[[A:.+]]:2 = plan.reshape_dims
// CHECK:         %[[B:.+]]:2 = plan.reshape_dims
// CHECK-NOT:     plan.reshape_dims
// CHECK:         return %[[A]]#0, %[[A]]#0, %[[B]]#0
func.func @repeated_reshape_dims(%x: tensor<?x4xf32>, %s: tensor<2xi64>) -> (index, index, index) {
  %n = plan.dim %x[0] : tensor<?x4xf32>
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %v:2 = plan.input_values %s : tensor<2xi64> -> index, index
  %a:2 = plan.reshape_dims(%n, %c4) to(%v#0, %v#1) : index, index
  %b:2 = plan.reshape_dims(%n, %c4) to(%v#0, %v#1) : index, index
  %c:2 = plan.reshape_dims(%n, %c4) to(%v#1, %v#0) : index, index
  return %a#0, %b#0, %c#0 : index, index, index
}
