// --tessel-shared-lowering on kernels in destination-passing style (as the
// partitioner writes them): inputs are read in place, the result is computed
// directly into the output argument, temporaries become trailing workspace
// arguments owned by the runtime (tessel.workspace_dims names the argument
// dim each dynamic workspace dim equals), and each linalg op on memrefs
// becomes a stage function <kernel>_s<N> (its leading parallel loops, which
// a GPU maps to threads, in tessel.work_dims). Targets tile and lower the
// stages. Nothing is left on tensors, and nothing is allocated, freed or
// copied with memref.copy.
// RUN: tessel-opt %s --split-input-file --tessel-shared-lowering --mlir-print-local-scope | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-shared-lowering | FileCheck %s --check-prefix=NONE

// NONE-NOT: tensor<
// NONE-NOT: tessel.{{[a-z_]+}} %
// NONE-NOT: bufferization.
// NONE-NOT: memref.alloc
// NONE-NOT: memref.dealloc
// NONE-NOT: memref.copy

// An elementwise op is one stage that reads %in and writes %out, over the
// output's iteration space (dim 0 is dim 0 of argument 0).
// CHECK-LABEL: func.func @relu_s0
// CHECK-SAME:    (%[[IN:[^:]+]]: memref<?x4xf32>, %[[OUT:[^:]+]]: memref<?x4xf32>)
// CHECK-SAME:    attributes {tessel.kernel_of = "relu", tessel.work_dims = [array<i64: 0, 0>, array<i64: -1, 4>], tessel.workspace_dims = []}
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[IN]] : memref<?x4xf32>) outs(%[[OUT]] : memref<?x4xf32>)
// CHECK:           arith.maximumf
// CHECK:         return
// CHECK-NOT:     func.func @relu_s1
func.func @relu(%in: memref<?x4xf32>, %out: memref<?x4xf32>) {
  %0 = bufferization.to_tensor %in restrict : memref<?x4xf32> to tensor<?x4xf32>
  %1 = tessel.relu %0 : tensor<?x4xf32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<?x4xf32>, memref<?x4xf32>) -> ()
  return
}

// -----

// Gemm: the bias is broadcast into %out, then the products accumulate there
// (a reduction over K after the parallel loops over M and N).
// CHECK-LABEL: func.func @gemm_s0
// CHECK-SAME:    (%{{[^:]+}}: memref<?x3xf32>, %{{[^:]+}}: memref<4x3xf32>, %[[C:[^:]+]]: memref<4xf32>, %[[OUT:[^:]+]]: memref<?x4xf32>)
// CHECK-SAME:    tessel.kernel_of = "gemm"
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[C]] : memref<4xf32>) outs(%[[OUT]] : memref<?x4xf32>)
// CHECK-LABEL: func.func @gemm_s1
// CHECK-SAME:    (%[[A:[^:]+]]: memref<?x3xf32>, %[[B:[^:]+]]: memref<4x3xf32>, %{{[^:]+}}: memref<4xf32>, %[[OUT:[^:]+]]: memref<?x4xf32>)
// CHECK-SAME:    tessel.work_dims = [array<i64: 0, 0>, array<i64: -1, 4>]
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<?x3xf32>, memref<4x3xf32>) outs(%[[OUT]] : memref<?x4xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     func.func @gemm_s2
func.func @gemm(%a: memref<?x3xf32>, %b: memref<4x3xf32>, %c: memref<4xf32>, %out: memref<?x4xf32>) {
  %0 = bufferization.to_tensor %a restrict : memref<?x3xf32> to tensor<?x3xf32>
  %1 = bufferization.to_tensor %b restrict : memref<4x3xf32> to tensor<4x3xf32>
  %2 = bufferization.to_tensor %c restrict : memref<4xf32> to tensor<4xf32>
  %3 = tessel.gemm %0, %1, %2 {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
      : (tensor<?x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  bufferization.materialize_in_destination %3 in restrict writable %out : (tensor<?x4xf32>, memref<?x4xf32>) -> ()
  return
}

// -----

// Softmax needs two temporaries, the [N, 2] reductions and the [N, 2, 2]
// exponentials: they become workspace arguments whose dynamic dim is dim 0
// of argument 0 (static dims are [-1, -1]). The max and the sum reuse one
// workspace; only the last stage writes %out.
// CHECK-LABEL: func.func @softmax_s0
// CHECK-SAME:    (%{{[^:]+}}: memref<?x2x2xf32>, %{{[^:]+}}: memref<?x2x2xf32>, %[[RED:[^:]+]]: memref<?x2xf32>, %{{[^:]+}}: memref<?x2x2xf32>)
// CHECK-SAME:    tessel.kernel_of = "softmax"
// CHECK-SAME:    tessel.workspace_dims = {{\[\[}}array<i64: 0, 0>, array<i64: -1, -1>], [array<i64: 0, 0>, array<i64: -1, -1>, array<i64: -1, -1>]]
// CHECK:         %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         linalg.fill ins(%[[NINF]] : f32) outs(%[[RED]] : memref<?x2xf32>)
// CHECK-LABEL: func.func @softmax_s1
// CHECK-SAME:    (%[[IN:[^:]+]]: memref<?x2x2xf32>, %{{[^:]+}}: memref<?x2x2xf32>, %[[RED:[^:]+]]: memref<?x2xf32>, %{{[^:]+}}: memref<?x2x2xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[IN]] : memref<?x2x2xf32>) outs(%[[RED]] : memref<?x2xf32>)
// CHECK:           arith.maximumf
// CHECK-LABEL: func.func @softmax_s2
// CHECK-SAME:    (%[[IN:[^:]+]]: memref<?x2x2xf32>, %{{[^:]+}}: memref<?x2x2xf32>, %[[RED:[^:]+]]: memref<?x2xf32>, %[[EXP:[^:]+]]: memref<?x2x2xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[IN]], %[[RED]] : memref<?x2x2xf32>, memref<?x2xf32>) outs(%[[EXP]] : memref<?x2x2xf32>)
// CHECK:           math.exp
// CHECK-LABEL: func.func @softmax_s3
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : memref<?x2xf32>)
// CHECK-LABEL: func.func @softmax_s4
// CHECK-SAME:    (%{{[^:]+}}: memref<?x2x2xf32>, %{{[^:]+}}: memref<?x2x2xf32>, %[[RED:[^:]+]]: memref<?x2xf32>, %[[EXP:[^:]+]]: memref<?x2x2xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[EXP]] : memref<?x2x2xf32>) outs(%[[RED]] : memref<?x2xf32>)
// CHECK:           arith.addf
// CHECK-LABEL: func.func @softmax_s5
// CHECK-SAME:    (%{{[^:]+}}: memref<?x2x2xf32>, %[[OUT:[^:]+]]: memref<?x2x2xf32>, %[[RED:[^:]+]]: memref<?x2xf32>, %[[EXP:[^:]+]]: memref<?x2x2xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[EXP]], %[[RED]] : memref<?x2x2xf32>, memref<?x2xf32>) outs(%[[OUT]] : memref<?x2x2xf32>)
// CHECK:           arith.divf
// CHECK-NOT:     func.func @softmax_s6
func.func @softmax(%in: memref<?x2x2xf32>, %out: memref<?x2x2xf32>) {
  %0 = bufferization.to_tensor %in restrict : memref<?x2x2xf32> to tensor<?x2x2xf32>
  %1 = tessel.softmax %0 {axis = 2 : i64} : tensor<?x2x2xf32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<?x2x2xf32>, memref<?x2x2xf32>) -> ()
  return
}

// -----

// A padded convolution pads into a workspace: fill it with zeros, copy the
// input into its interior (through a subview), then convolve from it into
// %out, which is first zeroed (no bias).
// CHECK-LABEL: func.func @conv_s0
// CHECK-SAME:    (%{{[^:]+}}: memref<?x2x5x5xf32>, %{{[^:]+}}: memref<3x2x3x3xf32>, %{{[^:]+}}: memref<?x3x5x5xf32>, %[[PAD:[^:]+]]: memref<?x2x7x7xf32>)
// CHECK-SAME:    tessel.workspace_dims = {{\[\[}}array<i64: 0, 0>, array<i64: -1, -1>, array<i64: -1, -1>, array<i64: -1, -1>]]
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.map outs(%[[PAD]] : memref<?x2x7x7xf32>)
// CHECK:           linalg.yield %[[ZERO]]
// CHECK-LABEL: func.func @conv_s1
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x2x5x5xf32>, %{{[^:]+}}: memref<3x2x3x3xf32>, %{{[^:]+}}: memref<?x3x5x5xf32>, %[[PAD:[^:]+]]: memref<?x2x7x7xf32>)
// CHECK:         %[[V:.+]] = memref.subview %[[PAD]][0, 0, 1, 1] [%{{.+}}, 2, 5, 5] [1, 1, 1, 1]
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[X]] : memref<?x2x5x5xf32>) outs(%[[V]] :
// CHECK-LABEL: func.func @conv_s2
// CHECK-SAME:    (%{{[^:]+}}: memref<?x2x5x5xf32>, %{{[^:]+}}: memref<3x2x3x3xf32>, %[[OUT:[^:]+]]: memref<?x3x5x5xf32>, %{{[^:]+}}: memref<?x2x7x7xf32>)
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%[[OUT]] : memref<?x3x5x5xf32>)
// CHECK-LABEL: func.func @conv_s3
// CHECK-SAME:    (%{{[^:]+}}: memref<?x2x5x5xf32>, %[[W:[^:]+]]: memref<3x2x3x3xf32>, %[[OUT:[^:]+]]: memref<?x3x5x5xf32>, %[[PAD:[^:]+]]: memref<?x2x7x7xf32>)
// CHECK-SAME:    tessel.work_dims = [array<i64: 3, 0>, array<i64: -1, 3>, array<i64: -1, 5>, array<i64: -1, 5>]
// CHECK:         linalg.generic
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[PAD]], %[[W]] : memref<?x2x7x7xf32>, memref<3x2x3x3xf32>) outs(%[[OUT]] : memref<?x3x5x5xf32>)
// CHECK:           arith.mulf
// CHECK-NOT:     func.func @conv_s4
func.func @conv(%x: memref<?x2x5x5xf32>, %w: memref<3x2x3x3xf32>, %out: memref<?x3x5x5xf32>) {
  %0 = bufferization.to_tensor %x restrict : memref<?x2x5x5xf32> to tensor<?x2x5x5xf32>
  %1 = bufferization.to_tensor %w restrict : memref<3x2x3x3xf32> to tensor<3x2x3x3xf32>
  %2 = tessel.conv %0, %1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<?x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<?x3x5x5xf32>
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<?x3x5x5xf32>, memref<?x3x5x5xf32>) -> ()
  return
}

// -----

// Concat copies each input straight into its slice of %out.
// CHECK-LABEL: func.func @concat_s0
// CHECK-SAME:    (%[[A:[^:]+]]: memref<?x2xf32>, %{{[^:]+}}: memref<?x3xf32>, %[[OUT:[^:]+]]: memref<?x5xf32>)
// CHECK-SAME:    tessel.workspace_dims = []
// CHECK:         %[[V:.+]] = memref.subview %[[OUT]][0, 0] [%{{.+}}, 2] [1, 1]
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[A]] : memref<?x2xf32>) outs(%[[V]] :
// CHECK-LABEL: func.func @concat_s1
// CHECK-SAME:    (%{{[^:]+}}: memref<?x2xf32>, %[[B:[^:]+]]: memref<?x3xf32>, %[[OUT:[^:]+]]: memref<?x5xf32>)
// CHECK:         %[[V:.+]] = memref.subview %[[OUT]][0, 2] [%{{.+}}, 3] [1, 1]
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[B]] : memref<?x3xf32>) outs(%[[V]] :
func.func @concat(%a: memref<?x2xf32>, %b: memref<?x3xf32>, %out: memref<?x5xf32>) {
  %0 = bufferization.to_tensor %a restrict : memref<?x2xf32> to tensor<?x2xf32>
  %1 = bufferization.to_tensor %b restrict : memref<?x3xf32> to tensor<?x3xf32>
  %2 = tessel.concat %0, %1 {axis = 1 : i64} : (tensor<?x2xf32>, tensor<?x3xf32>) -> tensor<?x5xf32>
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<?x5xf32>, memref<?x5xf32>) -> ()
  return
}

// -----

// The copy kernel of a returned input (an identity) is a plain copy.
// CHECK-LABEL: func.func @identity_s0
// CHECK-SAME:    (%[[IN:[^:]+]]: memref<?x3xf32>, %[[OUT:[^:]+]]: memref<?x3xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[IN]] : memref<?x3xf32>) outs(%[[OUT]] : memref<?x3xf32>)
// CHECK-NEXT:      ^bb0(%[[E:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:        linalg.yield %[[E]] : f32
func.func @identity(%in: memref<?x3xf32>, %out: memref<?x3xf32>) {
  %0 = bufferization.to_tensor %in restrict : memref<?x3xf32> to tensor<?x3xf32>
  %1 = tessel.identity %0 : tensor<?x3xf32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<?x3xf32>, memref<?x3xf32>) -> ()
  return
}
