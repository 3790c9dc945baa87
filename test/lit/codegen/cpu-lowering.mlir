// --tessel-shared-lowering then --tessel-cpu-lowering: only the LLVM dialect
// is left. Each stage is an llvm.func taking every memref argument as the
// expanded descriptor of the kernel ABI (allocated and aligned pointers,
// offset, sizes, strides; a rank-0 memref is 3 scalars), workspaces last.
// RUN: tessel-opt %s --split-input-file --tessel-shared-lowering --tessel-cpu-lowering | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-shared-lowering --tessel-cpu-lowering | FileCheck %s --check-prefix=NONE

// NONE-NOT: func.func
// NONE-NOT: func.return
// NONE-NOT: memref.
// NONE-NOT: linalg.
// NONE-NOT: arith.
// NONE-NOT: math.
// NONE-NOT: scf.
// NONE-NOT: cf.
// NONE-NOT: affine.
// NONE-NOT: tensor.
// NONE-NOT: bufferization.
// NONE-NOT: tessel.{{[a-z_]+}} %
// NONE-NOT: unrealized_conversion_cast

// Sigmoid and tanh fuse into one stage, on vectors (a row of 4 floats is a
// masked tile of 8 lanes); tanh is expanded into exp and a polynomial
// (tanh-accuracy.test), and exp into a
// polynomial on the vectors (no libm call, no llvm.intr.exp, which LLVM
// would split into a call per lane).
// CHECK-LABEL: llvm.func @activations_s0
// CHECK-SAME:    (%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64)
// CHECK-SAME:    tessel.kernel_of = "activations"
// CHECK:         llvm.intr.masked.load {{.+}} -> vector<8xf32>
// CHECK-NOT:     llvm.intr.exp
// CHECK:         llvm.intr.fma({{.+}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK-NOT:     llvm.intr.exp
// CHECK:         llvm.intr.masked.store {{.+}} : vector<8xf32>, vector<8xi1> into !llvm.ptr
// CHECK:         llvm.return
// CHECK-NOT:     llvm.func @activations_s1
// CHECK-NOT:     @tanhf
func.func @activations(%in: memref<?x4xf32>, %out: memref<?x4xf32>) {
  %0 = bufferization.to_tensor %in restrict : memref<?x4xf32> to tensor<?x4xf32>
  %1 = tessel.sigmoid %0 : tensor<?x4xf32>
  %2 = tessel.tanh %1 : tensor<?x4xf32>
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<?x4xf32>, memref<?x4xf32>) -> ()
  return
}

// -----

// Rank-0 output: 3 scalars.
// CHECK-LABEL: llvm.func @dot_s0
// CHECK-SAME:    (%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64)
// CHECK-SAME:    attributes
// CHECK:         llvm.store
// CHECK-LABEL: llvm.func @dot_s1
// CHECK:         llvm.fmul
// CHECK:         llvm.fadd
// CHECK-NOT:     llvm.func @dot_s2
func.func @dot(%a: memref<3xf32>, %b: memref<3xf32>, %out: memref<f32>) {
  %0 = bufferization.to_tensor %a restrict : memref<3xf32> to tensor<3xf32>
  %1 = bufferization.to_tensor %b restrict : memref<3xf32> to tensor<3xf32>
  %2 = tessel.matmul %0, %1 : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<f32>, memref<f32>) -> ()
  return
}

// -----

// Softmax: one stage without workspaces. Each workgroup (a tile of rows)
// takes its maximum, exponentials, sum and quotients in stack temporaries;
// the six trailing scalars are the workgroup id and count.
// CHECK-LABEL: llvm.func @softmax_s0
// CHECK-SAME:    %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64)
// CHECK-SAME:    tessel.kernel_of = "softmax"
// CHECK-SAME:    tessel.workspace_dims = []
// CHECK:         llvm.alloca
// CHECK:         llvm.intr.maximum
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fadd
// CHECK:         llvm.fdiv
// CHECK-NOT:     llvm.func @softmax_s1
func.func @softmax(%in: memref<?x2x2xf32>, %out: memref<?x2x2xf32>) {
  %0 = bufferization.to_tensor %in restrict : memref<?x2x2xf32> to tensor<?x2x2xf32>
  %1 = tessel.softmax %0 {axis = 2 : i64} : tensor<?x2x2xf32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<?x2x2xf32>, memref<?x2x2xf32>) -> ()
  return
}

// -----

// Integer division stays signed down to LLVM.
// CHECK-LABEL: llvm.func @int_div_s0
// CHECK:         llvm.sdiv %{{.+}}, %{{.+}} : i32
// CHECK-NOT:     llvm.udiv
func.func @int_div(%a: memref<2x3xi32>, %b: memref<3xi32>, %out: memref<2x3xi32>) {
  %0 = bufferization.to_tensor %a restrict : memref<2x3xi32> to tensor<2x3xi32>
  %1 = bufferization.to_tensor %b restrict : memref<3xi32> to tensor<3xi32>
  %2 = tessel.div %0, %1 : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<2x3xi32>, memref<2x3xi32>) -> ()
  return
}

// -----

// A padded, grouped convolution, both poolings and a concat in one kernel
// lower completely too.
// CHECK-LABEL: llvm.func @conv_pool_s0
// CHECK-DAG:     llvm.intr.maximum
// CHECK-DAG:     llvm.sitofp %{{.+}} : i64 to f32
// CHECK-DAG:     llvm.func @conv_pool_s1(
func.func @conv_pool(%x: memref<?x4x6x6xf32>, %w: memref<4x2x3x3xf32>, %b: memref<4xf32>, %out: memref<?x4x12x3xf32>) {
  %0 = bufferization.to_tensor %x restrict : memref<?x4x6x6xf32> to tensor<?x4x6x6xf32>
  %1 = bufferization.to_tensor %w restrict : memref<4x2x3x3xf32> to tensor<4x2x3x3xf32>
  %2 = bufferization.to_tensor %b restrict : memref<4xf32> to tensor<4xf32>
  %3 = tessel.conv %0, %1, %2 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2 : i64}
      : (tensor<?x4x6x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<?x4x6x6xf32>
  %4 = tessel.average_pool %3 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false}
      : (tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
  %5 = tessel.max_pool %4 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true}
      : (tensor<?x4x6x6xf32>) -> tensor<?x4x3x3xf32>
  %6 = tessel.concat %5, %5, %5, %5 {axis = 2 : i64} : (tensor<?x4x3x3xf32>, tensor<?x4x3x3xf32>, tensor<?x4x3x3xf32>, tensor<?x4x3x3xf32>) -> tensor<?x4x12x3xf32>
  bufferization.materialize_in_destination %6 in restrict writable %out : (tensor<?x4x12x3xf32>, memref<?x4x12x3xf32>) -> ()
  return
}
