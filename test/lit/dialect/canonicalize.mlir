// The graph dialect's folders: identity disappears, reshape chains collapse,
// a reshape to its own type disappears, and a reshaped constant becomes a
// constant of the new shape.
// RUN: tessel-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @identity_folds
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NOT:     tessel.identity
// CHECK:         %[[R:.+]] = tessel.relu %[[X]] : tensor<?x4xf32>
// CHECK-NOT:     tessel.identity
// CHECK:         return %[[R]], %[[X]]
func.func @identity_folds(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %0 = tessel.identity %x : tensor<?x4xf32>
  %1 = tessel.identity %0 : tensor<?x4xf32>
  %2 = tessel.relu %1 : tensor<?x4xf32>
  %3 = tessel.identity %2 : tensor<?x4xf32>
  return %3, %1 : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// reshape(reshape(x)) is one reshape of x; the inner one is then dead.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME:    (%[[X:.+]]: tensor<2x6xf32>)
// CHECK-NEXT:    %[[R:.+]] = tessel.reshape %[[X]] : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %0 = tessel.reshape %x : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = tessel.reshape %0 : (tensor<12xf32>) -> tensor<4x3xf32>
  %2 = tessel.reshape %1 : (tensor<4x3xf32>) -> tensor<3x4xf32>
  return %2 : tensor<3x4xf32>
}

// -----

// An inner reshape with another use stays for that use.
// CHECK-LABEL: func.func @reshape_of_shared_reshape
// CHECK-SAME:    (%[[X:.+]]: tensor<2x6xf32>)
// CHECK-DAG:     %[[A:.+]] = tessel.reshape %[[X]] : (tensor<2x6xf32>) -> tensor<12xf32>
// CHECK-DAG:     %[[B:.+]] = tessel.reshape %[[X]] : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK:         return %[[A]], %[[B]]
func.func @reshape_of_shared_reshape(%x: tensor<2x6xf32>) -> (tensor<12xf32>, tensor<3x4xf32>) {
  %0 = tessel.reshape %x : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = tessel.reshape %0 : (tensor<12xf32>) -> tensor<3x4xf32>
  return %0, %1 : tensor<12xf32>, tensor<3x4xf32>
}

// -----

// A chain that returns to the input's type is no reshape at all, also with
// a dynamic batch.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NOT:     tessel.reshape
// CHECK:         return %[[X]]
func.func @reshape_round_trip(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = tessel.reshape %x : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
  %1 = tessel.reshape %0 : (tensor<?x2x2xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME:    (%[[X:.+]]: tensor<2x6xf32>)
// CHECK-NEXT:    return %[[X]]
func.func @reshape_same_type(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %0 = tessel.reshape %x : (tensor<2x6xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// A dynamic reshape that changes the shape stays.
// CHECK-LABEL: func.func @reshape_dynamic_kept
// CHECK:         tessel.reshape %{{.+}} : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
func.func @reshape_dynamic_kept(%x: tensor<?x4xf32>) -> tensor<?x2x2xf32> {
  %0 = tessel.reshape %x : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
  return %0 : tensor<?x2x2xf32>
}

// -----

// A reshape whose shape is an operand checks the values at run time: it
// stays even to its own type or on a constant, and a reshape of it is not
// merged into it (nor it into a reshape of its own input).
// CHECK-LABEL: func.func @reshape_shape_operand_kept
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<2x6xf32>, %[[S:[^:]+]]: tensor<2xi64>)
// CHECK-NEXT:    %[[K:.+]] = tessel.constant dense<{{.+}}> : tensor<6xf32>
// CHECK-NEXT:    %[[A:.+]] = tessel.reshape %[[X]], %[[S]] : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<2x6xf32>
// CHECK-NEXT:    %[[B:.+]] = tessel.reshape %[[A]] : (tensor<2x6xf32>) -> tensor<12xf32>
// CHECK-NEXT:    %[[C:.+]] = tessel.reshape %[[X]] : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %[[D:.+]] = tessel.reshape %[[C]], %[[S]] : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK-NEXT:    %[[E:.+]] = tessel.reshape %[[K]], %[[S]] : (tensor<6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[D]], %[[E]]
func.func @reshape_shape_operand_kept(%x: tensor<2x6xf32>, %s: tensor<2xi64>)
    -> (tensor<2x6xf32>, tensor<12xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = tessel.reshape %x, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<2x6xf32>
  %1 = tessel.reshape %0 : (tensor<2x6xf32>) -> tensor<12xf32>
  %2 = tessel.reshape %x : (tensor<2x6xf32>) -> tensor<3x4xf32>
  %3 = tessel.reshape %2, %s : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %c = tessel.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %4 = tessel.reshape %c, %s : (tensor<6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0, %1, %3, %4 : tensor<2x6xf32>, tensor<12xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// Row-major order is kept.
// CHECK-LABEL: func.func @reshape_constant
// CHECK-NEXT:    %[[C:.+]] = tessel.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NEXT:    return %[[C]]
func.func @reshape_constant() -> tensor<3x2xf32> {
  %c = tessel.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %0 = tessel.reshape %c : (tensor<6xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_splat_constant
// CHECK-NEXT:    %[[C:.+]] = tessel.constant dense<7> : tensor<2x1x3xi64>
// CHECK-NEXT:    return %[[C]]
func.func @reshape_splat_constant() -> tensor<2x1x3xi64> {
  %c = tessel.constant dense<7> : tensor<6xi64>
  %0 = tessel.reshape %c : (tensor<6xi64>) -> tensor<3x2xi64>
  %1 = tessel.reshape %0 : (tensor<3x2xi64>) -> tensor<2x1x3xi64>
  return %1 : tensor<2x1x3xi64>
}

// -----

// Elementwise and other ops have no folders: they stay even on constants.
// CHECK-LABEL: func.func @no_fold
// CHECK:         tessel.add
// CHECK:         tessel.transpose
func.func @no_fold() -> tensor<3x2xf32> {
  %c = tessel.constant dense<1.0> : tensor<2x3xf32>
  %0 = tessel.add %c, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tessel.transpose %0 {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}
