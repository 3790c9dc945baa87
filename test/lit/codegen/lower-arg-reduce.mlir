// --tessel-convert-graph-to-linalg on ArgMax/ArgMin: one generic with the
// axis innermost carries the extreme value and its index (filled with the
// identity and 0); a NaN beats any number unless one was found first (or,
// with select_last_index, always); a second generic puts the indices into
// the result's shape (the axis kept as 1 or dropped).
// RUN: tessel-opt %s --split-input-file --tessel-convert-graph-to-linalg --mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @argmax
// CHECK:         %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[V0:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<?x5xf32>)
// CHECK:         %[[I0:.+]] = linalg.fill ins(%{{.+}} : i64) outs(%{{.+}} : tensor<?x5xi64>)
// CHECK:         %[[SEARCH:.+]]:2 = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      outs(%[[V0]], %[[I0]] : tensor<?x5xf32>, tensor<?x5xi64>)
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: f32, %[[BEST:[^:]+]]: f32, %[[AT:[^:]+]]: i64):
// CHECK-NEXT:      %[[GT:.+]] = arith.cmpf ogt, %[[IN]], %[[BEST]] : f32
// CHECK-NEXT:      %[[NAN:.+]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
// CHECK-NEXT:      %[[NUM:.+]] = arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK-NEXT:      %[[FIRSTNAN:.+]] = arith.andi %[[NAN]], %[[NUM]] : i1
// CHECK-NEXT:      %[[TAKE:.+]] = arith.ori %[[GT]], %[[FIRSTNAN]] : i1
// CHECK-NEXT:      %[[K:.+]] = linalg.index 2 : index
// CHECK-NEXT:      %[[K64:.+]] = arith.index_cast %[[K]] : index to i64
// CHECK-NEXT:      %[[V:.+]] = arith.select %[[TAKE]], %[[IN]], %[[BEST]] : f32
// CHECK-NEXT:      %[[I:.+]] = arith.select %[[TAKE]], %[[K64]], %[[AT]] : i64
// CHECK-NEXT:      linalg.yield %[[V]], %[[I]] : f32, i64
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[SEARCH]]#1 : tensor<?x5xi64>) outs(%{{.+}} : tensor<?x1x5xi64>)
func.func @argmax(%x: tensor<?x4x5xf32>) -> tensor<?x1x5xi64> {
  %0 = tessel.arg_max %x {axis = 1 : i64, keepdims = true} : (tensor<?x4x5xf32>) -> tensor<?x1x5xi64>
  return %0 : tensor<?x1x5xi64>
}

// -----

// Unsigned, the last of equal minima: the identity is the largest uint8
// (-1 as i8), and an equal element replaces the best (ule).
// CHECK-LABEL: func.func @argmin_unsigned_last
// CHECK:         %[[MAX:.+]] = arith.constant -1 : i8
// CHECK:         linalg.fill ins(%[[MAX]] : i8)
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["reduction"]
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: i8, %[[BEST:[^:]+]]: i8, %{{.+}}: i64):
// CHECK-NEXT:      arith.cmpi ule, %[[IN]], %[[BEST]] : i8
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.+}} : tensor<i64>)
func.func @argmin_unsigned_last(%x: tensor<6xi8>) -> tensor<i64> {
  %0 = tessel.arg_min %x {axis = 0 : i64, keepdims = false, select_last_index, is_unsigned} : (tensor<6xi8>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// The last of equal maxima, NaN included: >= (oge) or any NaN.
// CHECK-LABEL: func.func @argmax_last
// CHECK:         ^bb0(%[[IN:[^:]+]]: f32, %[[BEST:[^:]+]]: f32, %{{.+}}: i64):
// CHECK-NEXT:      %[[GE:.+]] = arith.cmpf oge, %[[IN]], %[[BEST]] : f32
// CHECK-NEXT:      %[[NAN:.+]] = arith.cmpf uno, %[[IN]], %[[IN]] : f32
// CHECK-NEXT:      arith.ori %[[GE]], %[[NAN]] : i1
func.func @argmax_last(%x: tensor<3x7xf32>) -> tensor<3xi64> {
  %0 = tessel.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index} : (tensor<3x7xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
