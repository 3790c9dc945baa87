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

// -----

// Integer constants fold, as the shape arithmetic of exporters needs: a
// Gather of a static Shape, an Unsqueeze (a reshape), a Concat and a Mul
// become one constant.
// CHECK-LABEL: func.func @shape_arithmetic_folds
// CHECK-NOT:     tessel.shape
// CHECK-NOT:     tessel.gather
// CHECK-NOT:     tessel.concat
// CHECK-NOT:     tessel.mul
// CHECK:         %[[C:.+]] = tessel.constant dense<[6, 2, 4]> : tensor<3xi64>
// CHECK:         return %[[C]]
func.func @shape_arithmetic_folds(%x: tensor<?x3x4xf32>) -> tensor<3xi64> {
  %s = tessel.shape %x {start = 1 : i64, end = 3 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
  %i = tessel.constant dense<0> : tensor<i64>
  %c = tessel.gather %s[%i] {axis = 0 : i64} : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
  %u = tessel.reshape %c : (tensor<i64>) -> tensor<1xi64>
  %two = tessel.constant dense<2> : tensor<1xi64>
  %m = tessel.mul %u, %two : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %tail = tessel.constant dense<[2, 4]> : tensor<2xi64>
  %r = tessel.concat %m, %tail {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

// Broadcasting, signed and unsigned division; division by zero and
// INT_MIN / -1 are left to the kernel (its defined result).
// CHECK-LABEL: func.func @integer_binary_folds
// CHECK-DAG:     tessel.constant dense<{{\[\[}}11, 12], [13, 14]]> : tensor<2x2xi32>
// CHECK-DAG:     tessel.constant dense<[-2, 2]> : tensor<2xi32>
// CHECK-DAG:     tessel.constant dense<[2147483645, 2]> : tensor<2xi32>
// CHECK:         tessel.div
// CHECK:         tessel.div
func.func @integer_binary_folds() -> (tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %a = tessel.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %ten = tessel.constant dense<10> : tensor<i32>
  %sum = tessel.add %a, %ten : (tensor<2x2xi32>, tensor<i32>) -> tensor<2x2xi32>
  %n = tessel.constant dense<[-5, 5]> : tensor<2xi32>
  %d = tessel.constant dense<2> : tensor<2xi32>
  %sdiv = tessel.div %n, %d : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %udiv = tessel.div %n, %d {is_unsigned} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %z = tessel.constant dense<0> : tensor<2xi32>
  %byzero = tessel.div %n, %z : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %min = tessel.constant dense<[-2147483648, 4]> : tensor<2xi32>
  %m1 = tessel.constant dense<-1> : tensor<2xi32>
  %overflow = tessel.div %min, %m1 : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %sum, %sdiv, %udiv, %byzero, %overflow : tensor<2x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @gather_rows_folds
// CHECK:         tessel.constant dense<{{\[\[}}5, 6], [1, 2]]> : tensor<2x2xi64>
func.func @gather_rows_folds() -> tensor<2x2xi64> {
  %t = tessel.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %i = tessel.constant dense<[-1, 0]> : tensor<2xi64>
  %g = tessel.gather %t[%i] {axis = 0 : i64} : (tensor<3x2xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  return %g : tensor<2x2xi64>
}

// -----

// A static dim of a Shape whose other dims are dynamic folds when gathered.
// CHECK-LABEL: func.func @gather_static_dim_of_shape
// CHECK:         %[[C:.+]] = tessel.constant dense<128> : tensor<i64>
// CHECK:         return %[[C]]
func.func @gather_static_dim_of_shape(%x: tensor<?x128xf32>) -> tensor<i64> {
  %s = tessel.shape %x {start = 0 : i64, end = 2 : i64} : (tensor<?x128xf32>) -> tensor<2xi64>
  %i = tessel.constant dense<1> : tensor<i64>
  %g = tessel.gather %s[%i] {axis = 0 : i64} : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
  return %g : tensor<i64>
}

// -----

// Integer constants cast between integer types (shape arithmetic: int64 to
// int32 and back); a cast to the same type is the input.
// CHECK-LABEL: func.func @cast_folds
// CHECK-SAME:    (%[[X:.+]]: tensor<2xf32>)
// CHECK-DAG:     %[[C:.+]] = tessel.constant dense<[-1, 7]> : tensor<2xi32>
// CHECK-DAG:     %[[U:.+]] = tessel.constant dense<255> : tensor<1xi32>
// CHECK:         return %[[C]], %[[U]], %[[X]]
func.func @cast_folds(%x: tensor<2xf32>) -> (tensor<2xi32>, tensor<1xi32>, tensor<2xf32>) {
  %a = tessel.constant dense<[-1, 7]> : tensor<2xi64>
  %b = tessel.cast %a : (tensor<2xi64>) -> tensor<2xi32>
  %u = tessel.constant dense<-1> : tensor<1xi8>
  %v = tessel.cast %u {input_unsigned} : (tensor<1xi8>) -> tensor<1xi32>
  %y = tessel.cast %x : (tensor<2xf32>) -> tensor<2xf32>
  return %b, %v, %y : tensor<2xi32>, tensor<1xi32>, tensor<2xf32>
}

// -----

// Comparisons and bool logic of integer/bool constants fold, unsigned
// where marked; Where of constants selects, with numpy broadcasting.
// CHECK-LABEL: func.func @compare_logic_where_fold
// CHECK-DAG:     %[[EQ:.+]] = tessel.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG:     %[[LTS:.+]] = tessel.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG:     %[[LTU:.+]] = tessel.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG:     %[[AND:.+]] = tessel.constant dense<false> : tensor<3xi1>
// CHECK-DAG:     %[[W:.+]] = tessel.constant dense<{{\[\[}}7, -1, 7], [7, -1, 7]]> : tensor<2x3xi64>
// CHECK-NOT:     tessel.equal
// CHECK-NOT:     tessel.less
// CHECK-NOT:     tessel.and
// CHECK-NOT:     tessel.not
// CHECK-NOT:     tessel.where
// Not(Equal) is the unsigned Less here: one constant.
// CHECK:         return %[[EQ]], %[[LTS]], %[[LTU]], %[[AND]], %[[LTU]], %[[W]]
func.func @compare_logic_where_fold()
    -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2x3xi64>) {
  %a = tessel.constant dense<[1, -1, -2]> : tensor<3xi64>
  %b = tessel.constant dense<-1> : tensor<i64>
  %c = tessel.constant dense<7> : tensor<2x1xi64>
  %0 = tessel.equal %a, %b : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %1 = tessel.less %a, %b : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  // Unsigned: -1 is the largest, -2 the next.
  %2 = tessel.less %a, %b {is_unsigned} : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %3 = tessel.and %0, %1 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %4 = tessel.not %0 : tensor<3xi1>
  %5 = tessel.where %4, %c, %a : (tensor<3xi1>, tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2x3xi64>
}

// -----

// not(not(x)) is x; Where with an all-true (all-false) condition is x (y)
// when no broadcasting changes it.
// CHECK-LABEL: func.func @not_not_where_splat
// CHECK-SAME:    (%[[M:[^:]+]]: tensor<?x4xi1>, %[[X:[^:]+]]: tensor<?x4xf32>, %[[Y:[^:]+]]: tensor<?x4xf32>)
// CHECK-NEXT:    return %[[M]], %[[X]], %[[Y]]
func.func @not_not_where_splat(%m: tensor<?x4xi1>, %x: tensor<?x4xf32>, %y: tensor<?x4xf32>)
    -> (tensor<?x4xi1>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %t = tessel.constant dense<true> : tensor<1xi1>
  %f = tessel.constant dense<false> : tensor<4xi1>
  %0 = tessel.not %m : tensor<?x4xi1>
  %1 = tessel.not %0 : tensor<?x4xi1>
  %2 = tessel.where %t, %x, %y : (tensor<1xi1>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %3 = tessel.where %f, %x, %y : (tensor<4xi1>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1, %2, %3 : tensor<?x4xi1>, tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// Integer reductions of small constants fold: sums and products wrap in the
// element type, unsigned max compares unsigned, an empty sum is 0; float
// reductions and means stay.
// CHECK-LABEL: func.func @reduce_integer_constants
// CHECK-DAG:     %[[P:.+]] = tessel.constant dense<[6, 120]> : tensor<2xi64>
// CHECK-DAG:     %[[S:.+]] = tessel.constant dense<{{\[\[}}5, 7, 9]]> : tensor<1x3xi64>
// CHECK-DAG:     %[[W:.+]] = tessel.constant dense<-2> : tensor<i8>
// CHECK-DAG:     %[[U:.+]] = tessel.constant dense<-1> : tensor<i8>
// CHECK-DAG:     %[[E:.+]] = tessel.constant dense<0> : tensor<i64>
// CHECK:         %[[F:.+]] = tessel.reduce_sum %{{.+}} {{.*}} : (tensor<2xf32>) -> tensor<f32>
// CHECK:         %[[M:.+]] = tessel.reduce_mean %{{.+}} {{.*}} : (tensor<2x3xi64>) -> tensor<2xi64>
// CHECK:         return %[[P]], %[[S]], %[[W]], %[[U]], %[[E]], %[[F]], %[[M]]
func.func @reduce_integer_constants() -> (tensor<2xi64>, tensor<1x3xi64>, tensor<i8>, tensor<i8>, tensor<i64>, tensor<f32>, tensor<2xi64>) {
  %x = tessel.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %p = tessel.reduce_prod %x {axes = array<i64: 1>, keepdims = false, acc_type = i64} : (tensor<2x3xi64>) -> tensor<2xi64>
  %s = tessel.reduce_sum %x {axes = array<i64: 0>, keepdims = true, acc_type = i64} : (tensor<2x3xi64>) -> tensor<1x3xi64>
  %b = tessel.constant dense<[127, 127]> : tensor<2xi8>
  %w = tessel.reduce_sum %b {axes = array<i64: 0>, keepdims = false, acc_type = i32} : (tensor<2xi8>) -> tensor<i8>
  %v = tessel.constant dense<[-1, 3]> : tensor<2xi8>
  %u = tessel.reduce_max %v {axes = array<i64: 0>, keepdims = false, acc_type = i8, is_unsigned} : (tensor<2xi8>) -> tensor<i8>
  %z = tessel.constant dense<> : tensor<0xi64>
  %e = tessel.reduce_sum %z {axes = array<i64: 0>, keepdims = false, acc_type = i64} : (tensor<0xi64>) -> tensor<i64>
  %f = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %g = tessel.reduce_sum %f {axes = array<i64: 0>, keepdims = false, acc_type = f32} : (tensor<2xf32>) -> tensor<f32>
  %m = tessel.reduce_mean %x {axes = array<i64: 1>, keepdims = false, acc_type = i64} : (tensor<2x3xi64>) -> tensor<2xi64>
  return %p, %s, %w, %u, %e, %g, %m : tensor<2xi64>, tensor<1x3xi64>, tensor<i8>, tensor<i8>, tensor<i64>, tensor<f32>, tensor<2xi64>
}

// -----

// count_out_of_range folds where the indices are constant and the dims
// they meet static (here 2 of 4 outside [-3, 3), and in tuples entry 0
// against dim 0 (2) and entry 1 against dim 1 (3)); a check of a count of
// 0 disappears, one of any other count stays (partitioning reports it).
// CHECK-LABEL: func.func @index_checks
// CHECK-DAG:     %[[TWO:.+]] = tessel.constant dense<2> : tensor<i64>
// CHECK-DAG:     %[[ONE:.+]] = tessel.constant dense<1> : tensor<i64>
// CHECK:         tessel.assert_zero %[[TWO]], "bad" : tensor<i64>
// CHECK-NOT:     tessel.assert_zero
// CHECK:         %[[D:.+]] = tessel.count_out_of_range %arg0[%{{.+}}] {axis = 0 : i64} : (tensor<?x3xf32>, tensor<4xi64>) -> tensor<i64>
// CHECK:         return %[[ONE]], %[[D]]
func.func @index_checks(%x: tensor<?x3xf32>) -> (tensor<i64>, tensor<i64>) {
  %i = tessel.constant dense<[-4, -3, 2, 3]> : tensor<4xi64>
  %n = tessel.count_out_of_range %x[%i] {axis = 1 : i64} : (tensor<?x3xf32>, tensor<4xi64>) -> tensor<i64>
  tessel.assert_zero %n, "bad" : tensor<i64>
  %y = tessel.constant dense<2> : tensor<1xi32>
  %c = tessel.constant dense<[[-3, 2]]> : tensor<1x2xi64>
  %s = tessel.constant dense<0.0> : tensor<2x3xf32>
  %z = tessel.count_out_of_range %s[%y] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<i64>
  tessel.assert_zero %z, "fine" : tensor<i64>
  %t = tessel.count_out_of_range %s[%c] {axis = 0 : i64, tuples} : (tensor<2x3xf32>, tensor<1x2xi64>) -> tensor<i64>
  %d = tessel.count_out_of_range %x[%i] {axis = 0 : i64} : (tensor<?x3xf32>, tensor<4xi64>) -> tensor<i64>
  return %t, %d : tensor<i64>, tensor<i64>
}
