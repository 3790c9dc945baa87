// --tessel-memref-copy-to-linalg: every memref.copy becomes a linalg.generic
// copy (identity maps, all-parallel loops, the body yields its input) from the
// source into the target; other ops are left alone.
// RUN: tessel-opt %s --split-input-file --tessel-memref-copy-to-linalg --mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @copy_dynamic
// CHECK-SAME:    (%[[SRC:[^:]+]]: memref<?x4xf32>, %[[DST:[^:]+]]: memref<?x4xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[SRC]] : memref<?x4xf32>) outs(%[[DST]] : memref<?x4xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @copy_dynamic(%src: memref<?x4xf32>, %dst: memref<?x4xf32>) {
  memref.copy %src, %dst : memref<?x4xf32> to memref<?x4xf32>
  return
}

// -----

// A strided view (what bufferization copies out of) keeps its layout.
// CHECK-LABEL: func.func @copy_strided
// CHECK-SAME:    (%[[A:[^:]+]]: memref<8x8xf32>, %[[DST:[^:]+]]: memref<2x3xf32>)
// CHECK:         %[[V:.+]] = memref.subview %[[A]][1, 2] [2, 3] [1, 1]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[V]] : memref<2x3xf32, strided<[8, 1], offset: 10>>) outs(%[[DST]] : memref<2x3xf32>)
// CHECK-NOT:     memref.copy
func.func @copy_strided(%a: memref<8x8xf32>, %dst: memref<2x3xf32>) {
  %v = memref.subview %a[1, 2] [2, 3] [1, 1] : memref<8x8xf32> to memref<2x3xf32, strided<[8, 1], offset: 10>>
  memref.copy %v, %dst : memref<2x3xf32, strided<[8, 1], offset: 10>> to memref<2x3xf32>
  return
}

// -----

// Rank 0 and integer element types; two copies in one function.
// CHECK-LABEL: func.func @copy_scalar_and_ints
// CHECK-SAME:    (%[[A:[^:]+]]: memref<f32>, %[[B:[^:]+]]: memref<f32>, %[[I:[^:]+]]: memref<3xi8>, %[[J:[^:]+]]: memref<3xi8>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%[[A]] : memref<f32>) outs(%[[B]] : memref<f32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[J]] : memref<3xi8>) outs(%[[I]] : memref<3xi8>)
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: i8, %{{.+}}: i8):
// CHECK-NEXT:      linalg.yield %[[IN]] : i8
// CHECK-NOT:     memref.copy
func.func @copy_scalar_and_ints(%a: memref<f32>, %b: memref<f32>, %i: memref<3xi8>, %j: memref<3xi8>) {
  memref.copy %a, %b : memref<f32> to memref<f32>
  memref.copy %j, %i : memref<3xi8> to memref<3xi8>
  return
}

// -----

// Nothing to do without a copy.
// CHECK-LABEL: func.func @no_copy
// CHECK-NEXT:    memref.store
// CHECK-NEXT:    return
func.func @no_copy(%a: memref<4xf32>, %v: f32, %i: index) {
  memref.store %v, %a[%i] : memref<4xf32>
  return
}
