// --tessel-convert-graph-to-linalg on the element-indexing ops: one
// parallel generic over the result whose body reads the data with
// tensor.extract at computed coordinates.
// RUN: tessel-opt %s --split-input-file --tessel-convert-graph-to-linalg --mlir-print-local-scope | FileCheck %s

// GatherElements: the result has the indices' shape; the axis coordinate
// is the index, negative from the end and clamped into [0, n); every other
// coordinate is the result's own.
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x5xf32>, %[[I:[^:]+]]: tensor<?x3xi32>)
// CHECK:         %[[N:.+]] = tensor.dim %[[I]], %{{.+}} : tensor<?x3xi32>
// CHECK:         %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK:         %[[K:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x5xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[I]] : tensor<?x3xi32>) outs(%[[E]] : tensor<?x3xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: i32,
// CHECK:           %[[ROW:.+]] = linalg.index 0 : index
// CHECK:           %[[RAW:.+]] = arith.index_cast %[[IN]] : i32 to index
// CHECK:           %[[NEG:.+]] = arith.cmpi slt, %[[RAW]]
// CHECK:           %[[WRAP:.+]] = arith.addi %[[RAW]], %[[K]]
// CHECK:           %[[SEL:.+]] = arith.select %[[NEG]], %[[WRAP]], %[[RAW]]
// CHECK:           %[[LAST:.+]] = arith.subi %[[K]]
// CHECK:           %[[HI:.+]] = arith.minsi %[[SEL]], %[[LAST]]
// CHECK:           %[[AT:.+]] = arith.maxsi %{{.+}}, %[[HI]]
// CHECK:           %[[V:.+]] = tensor.extract %[[X]][%[[ROW]], %[[AT]]]
// CHECK:           linalg.yield %[[V]] : f32
func.func @gather_elements(%x: tensor<?x5xf32>, %i: tensor<?x3xi32>) -> tensor<?x3xf32> {
  %0 = tessel.gather_elements %x[%i] {axis = 1 : i64} : (tensor<?x5xf32>, tensor<?x3xi32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// CountOutOfRange: one reduction over the indices into a scalar: an index
// below -n or above n - 1 adds 1. The compares are in the indices' width:
// for int32 indices the bounds clamp to int32's range. Index tuples meet
// the dim of their entry (the last loop): the bounds are selected by
// linalg.index.
// CHECK-LABEL: func.func @count_out_of_range
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x5xf32>, %[[I:[^:]+]]: tensor<?x3xi32>, %[[T:[^:]+]]: tensor<4x2xi64>)
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x5xf32>
// CHECK:         %[[N:.+]] = arith.index_cast %[[D]] : index to i64
// CHECK:         %[[NEG:.+]] = arith.subi %{{.+}}, %[[N]] : i64
// CHECK:         %[[LAST:.+]] = arith.subi %[[N]], %{{.+}} : i64
// CHECK:         %[[LO64:.+]] = arith.maxsi %[[NEG]], %c-2147483648_i64 : i64
// CHECK:         %[[LOW:.+]] = arith.trunci %[[LO64]] : i64 to i32
// CHECK:         %[[HI64:.+]] = arith.minsi %[[LAST]], %c2147483647_i64 : i64
// CHECK:         %[[HIGH:.+]] = arith.trunci %[[HI64]] : i64 to i32
// CHECK:         %[[Z:.+]] = linalg.fill ins(%{{.+}} : i64) outs(%{{.+}} : tensor<i64>) -> tensor<i64>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>]
// CHECK-SAME:      iterator_types = ["reduction", "reduction"]
// CHECK-SAME:      ins(%[[I]] : tensor<?x3xi32>) outs(%[[Z]] : tensor<i64>)
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: i32, %[[ACC:[^:]+]]: i64):
// CHECK-NEXT:      %[[BELOW:.+]] = arith.cmpi slt, %[[IN]], %[[LOW]] : i32
// CHECK-NEXT:      %[[ABOVE:.+]] = arith.cmpi sgt, %[[IN]], %[[HIGH]] : i32
// CHECK-NEXT:      %[[OUT:.+]] = arith.ori %[[BELOW]], %[[ABOVE]] : i1
// CHECK-NEXT:      %[[ONE:.+]] = arith.extui %[[OUT]] : i1 to i64
// CHECK-NEXT:      %[[SUM:.+]] = arith.addi %[[ACC]], %[[ONE]] : i64
// CHECK-NEXT:      linalg.yield %[[SUM]] : i64
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[T]] : tensor<4x2xi64>)
// CHECK-NEXT:    ^bb0(%[[IN2:[^:]+]]: i64,
// CHECK:           %[[J:.+]] = linalg.index 1 : index
// CHECK:           %[[IS1:.+]] = arith.cmpi eq, %[[J]], %{{.+}} : index
// CHECK:           %[[L:.+]] = arith.select %[[IS1]], %{{.+}}, %{{.+}} : i64
// CHECK:           arith.cmpi slt, %[[IN2]], %[[L]] : i64
func.func @count_out_of_range(%x: tensor<?x5xf32>, %i: tensor<?x3xi32>, %t: tensor<4x2xi64>) -> (tensor<i64>, tensor<i64>) {
  %0 = tessel.count_out_of_range %x[%i] {axis = 0 : i64} : (tensor<?x5xf32>, tensor<?x3xi32>) -> tensor<i64>
  %1 = tessel.count_out_of_range %x[%t] {axis = 0 : i64, tuples} : (tensor<?x5xf32>, tensor<4x2xi64>) -> tensor<i64>
  return %0, %1 : tensor<i64>, tensor<i64>
}

// -----

// Trilu: one generic over the input keeping [.., i, j] where j - i >= k
// (upper) or <= k (lower). A run-time k is clamped to [-rows, cols] (the
// offset's range, so the same elements are kept) and compared in index
// arithmetic; without k the bound is 0.
// CHECK-LABEL: func.func @trilu
// CHECK:         %[[ROWS:.+]] = arith.index_cast %c4{{.*}} : index to i64
// CHECK:         %[[COLS:.+]] = arith.index_cast %c5{{.*}} : index to i64
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: f32, %[[K:[^:]+]]: i64,
// CHECK:           %[[I:.+]] = linalg.index 1 : index
// CHECK:           %[[J:.+]] = linalg.index 2 : index
// CHECK:           %[[OFF:.+]] = arith.subi %[[J]], %[[I]] : index
// CHECK:           %[[LOW:.+]] = arith.subi %{{.+}}, %[[ROWS]] : i64
// CHECK:           %[[LO:.+]] = arith.maxsi %[[K]], %[[LOW]] : i64
// CHECK:           %[[HI:.+]] = arith.minsi %[[LO]], %[[COLS]] : i64
// CHECK:           %[[KI:.+]] = arith.index_cast %[[HI]] : i64 to index
// CHECK:           %[[KEEP:.+]] = arith.cmpi sge, %[[OFF]], %[[KI]] : index
// CHECK:           arith.select %[[KEEP]], %[[IN]], %{{.+}} : f32
func.func @trilu(%x: tensor<?x4x5xf32>, %k: tensor<i64>) -> tensor<?x4x5xf32> {
  %0 = tessel.trilu %x k %k {upper = true} : (tensor<?x4x5xf32>, tensor<i64>) -> tensor<?x4x5xf32>
  return %0 : tensor<?x4x5xf32>
}

// CHECK-LABEL: func.func @tril
// CHECK:         linalg.generic
// CHECK:           %[[OFF:.+]] = arith.subi
// CHECK:           %[[ZERO:.+]] = arith.constant 0 : index
// CHECK:           arith.cmpi sle, %[[OFF]], %[[ZERO]] : index
func.func @tril(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = tessel.trilu %x {upper = false} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
