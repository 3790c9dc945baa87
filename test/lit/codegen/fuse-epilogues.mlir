// --tessel-fuse-epilogues (bufferized kernels): a temporary written by a
// contraction and its initialization and read by one elementwise epilogue
// goes away; they all work on the epilogue's output (the epilogue in
// place) and are one stage group, which --tessel-outline-stages keeps in one
// stage.
// RUN: tessel-opt %s --split-input-file --tessel-fuse-epilogues | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-fuse-epilogues --tessel-outline-stages | FileCheck %s --check-prefix=STAGES

#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @gemm_relu(
// CHECK-SAME:    %[[A:[^:]+]]: memref<?x8xf32>, %[[B:[^:]+]]: memref<8x16xf32>, %[[BIAS:[^:]+]]: memref<16xf32>, %[[OUT:[^:]+]]: memref<?x16xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.+}} ins(%[[BIAS]] : memref<16xf32>) outs(%[[OUT]] : memref<?x16xf32>)
// CHECK-SAME:      attrs =  {tessel.stage_group = 0 : i64}
// CHECK:         linalg.generic {{.+}} ins(%[[A]], %[[B]] : memref<?x8xf32>, memref<8x16xf32>) outs(%[[OUT]] : memref<?x16xf32>)
// CHECK-SAME:      attrs =  {tessel.stage_group = 0 : i64}
// CHECK:         linalg.generic {{.+}} ins(%[[OUT]] : memref<?x16xf32>) outs(%[[OUT]] : memref<?x16xf32>)
// CHECK-SAME:      attrs =  {tessel.stage_group = 0 : i64}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.maximumf
// STAGES-LABEL:  func.func @gemm_relu_s0(
// STAGES-COUNT-3: linalg.generic
// STAGES-NOT:    tessel.stage_group
// STAGES:        return
// STAGES-NOT:    func.func @gemm_relu_s1
func.func @gemm_relu(%a: memref<?x8xf32>, %b: memref<8x16xf32>, %bias: memref<16xf32>, %out: memref<?x16xf32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %m = memref.dim %a, %c0 : memref<?x8xf32>
  %t = memref.alloc(%m) : memref<?x16xf32>
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<16xf32>) outs(%t : memref<?x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x8xf32>, memref<8x16xf32>) outs(%t : memref<?x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<?x16xf32>) outs(%out : memref<?x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.maximumf %x, %cst : f32
    linalg.yield %r : f32
  }
  memref.dealloc %t : memref<?x16xf32>
  return
}

// -----

#id = affine_map<(m, n) -> (m, n)>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// Left alone: the product is read twice (by the epilogue and by a second
// output), so it must stay a buffer of its own.
// CHECK-LABEL: func.func @read_twice(
// CHECK:         memref.alloc
// CHECK-NOT:     tessel.stage_group
func.func @read_twice(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %out: memref<4x16xf32>, %copy: memref<4x16xf32>) {
  %cst = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<4x16xf32>
  linalg.fill ins(%cst : f32) outs(%t : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%t : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x16xf32>) outs(%out : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %r = arith.maximumf %x, %cst : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x16xf32>) outs(%copy : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
