// --tessel-shared-lowering, then the CPU's stage pipeline (its workgroup
// tiles, --tessel-tile-and-fuse-workgroups, --tessel-stages), on kernels in
// destination-passing style (as the partitioner writes them): inputs are
// read in place, the result is computed directly into the output argument,
// temporaries between stages become trailing workspace arguments owned by
// the runtime (tessel.workspace_dims names the argument dim each dynamic
// workspace dim equals), and each top-level op on memrefs becomes a stage
// function <kernel>_s<N> (its work sizes in tessel.work_dims). A group is
// one stage, an scf.forall whose bounds are the work sizes: these kernels
// are small, so the CPU splits only the run-time batch (in tiles of at
// least 32768 iterations) and leaves the other dims whole (step = bound).
// Nothing is left on tensors; nothing is allocated but a workgroup's
// temporaries inside its forall; nothing is freed or copied with
// memref.copy.
// RUN: tessel-opt %s --split-input-file --tessel-shared-lowering --tessel-cpu-workgroup-tiles --tessel-tile-and-fuse-workgroups --tessel-stages --mlir-print-local-scope | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-shared-lowering --tessel-cpu-workgroup-tiles --tessel-tile-and-fuse-workgroups --tessel-stages | FileCheck %s --check-prefix=NONE

// NONE-NOT: tensor<
// NONE-NOT: tessel.{{[a-z_]+}} %
// NONE-NOT: bufferization.
// NONE-NOT: memref.dealloc
// NONE-NOT: tessel.workgroup
// NONE-NOT: memref.copy

// An elementwise op is one stage that reads %in and writes %out, over the
// output's iteration space (dim 0 is dim 0 of argument 1, the output).
// CHECK-LABEL: func.func @relu_s0
// CHECK-SAME:    (%[[IN:[^:]+]]: memref<?x4xf32>, %[[OUT:[^:]+]]: memref<?x4xf32>)
// CHECK-SAME:    attributes {tessel.kernel_of = "relu", tessel.work_dims = [array<i64: 1, 0>, array<i64: -1, 4>], tessel.workspace_dims = []}
// CHECK:         %[[N:.+]] = memref.dim %[[OUT]]
// CHECK:         scf.forall (%[[I:.+]], %{{.+}}) = (0, 0) to (%[[N]], 4) step (8192, 4)
// CHECK:           %[[X:.+]] = memref.subview %[[IN]][%[[I]], 0]
// CHECK:           %[[Y:.+]] = memref.subview %[[OUT]][%[[I]], 0]
// CHECK:           linalg.generic
// CHECK-SAME:        iterator_types = ["parallel", "parallel"]
// CHECK-SAME:        ins(%[[X]] : {{.+}}) outs(%[[Y]] :
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

// Gemm: one stage over the rows and columns of %out; each workgroup
// broadcasts the bias into its tile of %out, then accumulates the products
// there (a reduction over K after the parallel loops over M and N).
// CHECK-LABEL: func.func @gemm_s0
// CHECK-SAME:    (%[[A:[^:]+]]: memref<?x3xf32>, %[[B:[^:]+]]: memref<4x3xf32>, %[[C:[^:]+]]: memref<4xf32>, %[[OUT:[^:]+]]: memref<?x4xf32>)
// CHECK-SAME:    tessel.kernel_of = "gemm", tessel.work_dims = [array<i64: 3, 0>, array<i64: -1, 4>], tessel.workspace_dims = []
// CHECK:         %[[M:.+]] = memref.dim %[[OUT]], %{{.+}} : memref<?x4xf32>
// CHECK:         scf.forall (%[[I:.+]], %{{.+}}) = (0, 0) to (%[[M]], 4) step (2732, 4)
// CHECK:           %[[T:.+]] = memref.subview %[[OUT]][%[[I]], 0]
// CHECK:           linalg.generic
// CHECK-SAME:        indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:        ins(%[[C]] : memref<4xf32>) outs(%[[T]] :
// CHECK:           linalg.generic
// CHECK-SAME:        indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:        iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:        outs(%[[T]] :
// CHECK:             arith.mulf
// CHECK:             arith.addf
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK-NOT:     func.func @gemm_s1
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

// Softmax is one stage without workspaces: each workgroup (4096 rows)
// takes the maxima, the exponentials, their sums and the quotients in its
// own temporaries (allocations inside the forall, which the target places),
// and writes only %out. The exponentials, read by the sum and by the
// division, are computed once.
// CHECK-LABEL: func.func @softmax_s0
// CHECK-SAME:    (%[[IN:[^:]+]]: memref<?x2x2xf32>, %[[OUT:[^:]+]]: memref<?x2x2xf32>)
// CHECK-SAME:    tessel.kernel_of = "softmax", tessel.work_dims = [array<i64: 1, 0>, array<i64: -1, 2>], tessel.workspace_dims = []
// CHECK:         scf.forall ({{.+}}) = (0, 0) to (%{{.+}}, 2) step (4096, 2)
// CHECK:           %[[MAX:.+]] = memref.alloc(%{{.+}}) {{.+}} : memref<?x2xf32>
// CHECK:           linalg.fill ins(%{{.+}} : f32) outs(%[[MAX]] : memref<?x2xf32>)
// CHECK:           linalg.generic
// CHECK-SAME:        iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:             arith.maximumf
// CHECK:           %[[EXP:.+]] = memref.alloc(%{{.+}}) {{.+}} : memref<?x2x2xf32>
// CHECK:           linalg.generic
// CHECK:             math.exp
// CHECK:           %[[SUM:.+]] = memref.alloc(%{{.+}}) {{.+}} : memref<?x2xf32>
// CHECK:           linalg.generic
// CHECK-SAME:        ins(%[[EXP]] : memref<?x2x2xf32>) outs(%[[SUM]] : memref<?x2xf32>)
// CHECK:             arith.addf
// CHECK:           linalg.generic
// CHECK-SAME:        ins(%[[EXP]], %[[SUM]] : memref<?x2x2xf32>, memref<?x2xf32>) outs(%{{.+}} :
// CHECK:             arith.divf
// CHECK-NOT:       math.exp
// CHECK-NOT:     func.func @softmax_s1
func.func @softmax(%in: memref<?x2x2xf32>, %out: memref<?x2x2xf32>) {
  %0 = bufferization.to_tensor %in restrict : memref<?x2x2xf32> to tensor<?x2x2xf32>
  %1 = tessel.softmax %0 {axis = 2 : i64} : tensor<?x2x2xf32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<?x2x2xf32>, memref<?x2x2xf32>) -> ()
  return
}

// -----

// A padded convolution pads into a workspace: fill it with zeros, copy the
// input into its interior (through a subview), then, per workgroup, zero
// its tile of %out (no bias) and convolve from the workspace into it.
// CHECK-LABEL: func.func @conv_s0
// CHECK-SAME:    (%{{[^:]+}}: memref<?x2x5x5xf32>, %{{[^:]+}}: memref<3x2x3x3xf32>, %{{[^:]+}}: memref<?x3x5x5xf32>, %[[PAD:[^:]+]]: memref<?x2x7x7xf32>)
// CHECK-SAME:    tessel.workspace_dims = {{\[\[}}array<i64: 0, 0>, array<i64: -1, -1>, array<i64: -1, -1>, array<i64: -1, -1>]]
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         scf.forall
// CHECK:           %[[PT:.+]] = memref.subview %[[PAD]]
// CHECK:           linalg.fill ins(%[[ZERO]] : f32) outs(%[[PT]] :
// CHECK-LABEL: func.func @conv_s1
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x2x5x5xf32>, %{{[^:]+}}: memref<3x2x3x3xf32>, %{{[^:]+}}: memref<?x3x5x5xf32>, %[[PAD:[^:]+]]: memref<?x2x7x7xf32>)
// CHECK:         %[[V:.+]] = memref.subview %[[PAD]][0, 0, 1, 1] [%{{.+}}, 2, 5, 5] [1, 1, 1, 1]
// CHECK:         scf.forall
// CHECK:           %[[XT:.+]] = memref.subview %[[X]]
// CHECK:           %[[VT:.+]] = memref.subview %[[V]]
// CHECK:           linalg.copy ins(%[[XT]] : {{.+}}) outs(%[[VT]] :
// CHECK-LABEL: func.func @conv_s2
// CHECK-SAME:    (%{{[^:]+}}: memref<?x2x5x5xf32>, %[[W:[^:]+]]: memref<3x2x3x3xf32>, %[[OUT:[^:]+]]: memref<?x3x5x5xf32>, %[[PAD:[^:]+]]: memref<?x2x7x7xf32>)
// CHECK-SAME:    tessel.work_dims = [array<i64: 2, 0>, array<i64: -1, 3>, array<i64: -1, 5>, array<i64: -1, 5>]
// CHECK:         scf.forall
// CHECK:           %[[P:.+]] = memref.subview %[[PAD]]
// CHECK:           %[[T:.+]] = memref.subview %[[OUT]]
// CHECK:           linalg.fill ins(%{{.+}} : f32) outs(%[[T]] :
// CHECK:           linalg.generic
// CHECK-SAME:        affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
// CHECK-SAME:        iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:        ins(%[[P]], %[[W]] : {{.+}}) outs(%[[T]] :
// CHECK:             arith.mulf
// CHECK-NOT:     func.func @conv_s3
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
