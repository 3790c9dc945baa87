// --tessel-outline-stages on hand-written bufferized kernels: every
// top-level memref.alloc becomes a trailing workspace argument (its dynamic
// dims recorded as (argument, dim) pairs in tessel.workspace_dims, static
// dims as [-1, -1]), every top-level loop nest becomes a function
// <kernel>_s<N> with the pure ops it uses cloned in, and tessel.work_dims
// records the extents of the stage's top-level scf.parallel.
// RUN: tessel-opt %s --split-input-file --tessel-outline-stages -verify-diagnostics | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-outline-stages -verify-diagnostics | FileCheck %s --check-prefix=NONE

// No allocation, deallocation or original kernel is left.
// NONE-NOT: memref.alloc
// NONE-NOT: memref.dealloc
// NONE-NOT: func.func @{{[a-z_]+}}(

// Two loop nests passing a temporary with a dynamic dim taken from %arg0.
// CHECK-LABEL: func.func @k_s0(
// CHECK-SAME:    %[[IN:[^:]+]]: memref<?x4xf32>, %[[OUT:[^:]+]]: memref<?x4xf32>, %[[WS:[^:]+]]: memref<?x4xf32>)
// CHECK-SAME:    tessel.kernel_of = "k"
// CHECK-SAME:    tessel.work_dims = [array<i64: 0, 0>, array<i64: -1, 4>]
// CHECK-SAME:    tessel.workspace_dims = {{\[\[}}array<i64: 0, 0>, array<i64: -1, -1>]]
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// CHECK:         %[[D0:.+]] = memref.dim %[[IN]], %[[C0]] : memref<?x4xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         scf.parallel (%[[I:.+]], %[[J:.+]]) = (%[[C0]], %[[C0]]) to (%[[D0]], %[[C4]]) step (%[[C1]], %[[C1]])
// CHECK:           %[[V:.+]] = memref.load %[[IN]][%[[I]], %[[J]]]
// CHECK:           %[[M:.+]] = arith.mulf %[[V]], %[[TWO]] : f32
// CHECK:           memref.store %[[M]], %[[WS]][%[[I]], %[[J]]]
// CHECK:         return
// CHECK-NEXT:  }
// The second stage gets its own constants (not the f32 one it does not use).
// CHECK-LABEL: func.func @k_s1(
// CHECK-SAME:    %[[IN:[^:]+]]: memref<?x4xf32>, %[[OUT:[^:]+]]: memref<?x4xf32>, %[[WS:[^:]+]]: memref<?x4xf32>)
// CHECK-SAME:    tessel.kernel_of = "k"
// CHECK-SAME:    tessel.work_dims = [array<i64: 0, 0>]
// CHECK-SAME:    tessel.workspace_dims = {{\[\[}}array<i64: 0, 0>, array<i64: -1, -1>]]
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-NOT:     arith.constant {{.*}} : f32
// CHECK:         %[[D0:.+]] = memref.dim %[[IN]], %[[C0]] : memref<?x4xf32>
// CHECK:         scf.parallel (%[[I:.+]]) = (%[[C0]]) to (%[[D0]]) step (%[[C1]])
// CHECK:           scf.for %[[J:.+]] = %[[C0]] to %[[C4]] step %[[C1]]
// CHECK:             %[[V:.+]] = memref.load %[[WS]][%[[I]], %[[J]]]
// CHECK:             memref.store %[[V]], %[[OUT]][%[[I]], %[[J]]]
// CHECK-NOT:     memref.dealloc
// CHECK:         return
// CHECK-NEXT:  }
// CHECK-NOT:   func.func @k(
// CHECK-NOT:   func.func @k_s2
func.func @k(%arg0: memref<?x4xf32>, %arg1: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %cst = arith.constant 2.0 : f32
  %d0 = memref.dim %arg0, %c0 : memref<?x4xf32>
  %tmp = memref.alloc(%d0) : memref<?x4xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%d0, %c4) step (%c1, %c1) {
    %v = memref.load %arg0[%i, %j] : memref<?x4xf32>
    %m = arith.mulf %v, %cst : f32
    memref.store %m, %tmp[%i, %j] : memref<?x4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%d0) step (%c1) {
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %tmp[%i, %j] : memref<?x4xf32>
      memref.store %v, %arg1[%i, %j] : memref<?x4xf32>
    }
    scf.reduce
  }
  memref.dealloc %tmp : memref<?x4xf32>
  return
}

// -----

// Two workspaces, in allocation order; a dim of the second argument, and a
// static workspace.
// CHECK-LABEL: func.func @two_s0(
// CHECK-SAME:    %{{[^:]+}}: memref<3x?xf32>, %{{[^:]+}}: memref<?x5xf32>, %{{[^:]+}}: memref<?x?xf32>, %{{[^:]+}}: memref<8xf32>)
// CHECK-SAME:    tessel.work_dims = [array<i64: 1, 0>]
// CHECK-SAME:    tessel.workspace_dims = {{\[\[}}array<i64: 1, 0>, array<i64: 0, 1>], [array<i64: -1, -1>]]
// CHECK-LABEL: func.func @two_s1(
// CHECK-SAME:    tessel.work_dims = [array<i64: -1, 8>]
// CHECK-NOT:   func.func @two_s2
func.func @two(%arg0: memref<3x?xf32>, %arg1: memref<?x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 0.0 : f32
  %n = memref.dim %arg1, %c0 : memref<?x5xf32>
  %m = memref.dim %arg0, %c1 : memref<3x?xf32>
  %a = memref.alloc(%n, %m) : memref<?x?xf32>
  %b = memref.alloc() : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %cst, %a[%i, %c0] : memref<?x?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %cst, %b[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// A single stage, no workspace: the kernel becomes @single_s0 alone.
// CHECK-LABEL: func.func @single_s0(
// CHECK-SAME:    %[[A:[^:]+]]: memref<6xf32>)
// CHECK-SAME:    tessel.kernel_of = "single"
// CHECK-SAME:    tessel.work_dims = [array<i64: -1, 6>]
// CHECK-SAME:    tessel.workspace_dims = []
// CHECK:         scf.parallel
// CHECK:           memref.store %{{.+}}, %[[A]][%{{.+}}] : memref<6xf32>
// CHECK:         return
// CHECK-NOT:   func.func @single_s1
// CHECK-NOT:   func.func @single(
func.func @single(%arg0: memref<6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c6) step (%c1) {
    memref.store %cst, %arg0[%i] : memref<6xf32>
    scf.reduce
  }
  return
}

// -----

// A scalar read from an argument no stage writes (a Slice's bound) is not a
// stage: each stage that uses it reads it again.
// CHECK-LABEL: func.func @read_only_scalar_s0(
// CHECK-SAME:    %[[A0:[^:]+]]: memref<1xi64>
// CHECK:         %[[V:.+]] = memref.load %[[A0]]
// CHECK:         scf.parallel
// CHECK:           arith.addi %{{.+}}, %[[V]]
// CHECK-LABEL: func.func @read_only_scalar_s1(
// CHECK:         memref.load %[[A1:[^\[]+]]
// CHECK:         scf.parallel
// CHECK-NOT:   func.func @read_only_scalar(
func.func @read_only_scalar(%arg0: memref<1xi64>, %arg1: memref<4xi64>, %arg2: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = memref.load %arg0[%c0] : memref<1xi64>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %x = memref.load %arg1[%i] : memref<4xi64>
    %y = arith.addi %x, %b : i64
    memref.store %y, %arg2[%i] : memref<4xi64>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %b, %arg1[%i] : memref<4xi64>
    scf.reduce
  }
  return
}

// -----

// A stage without a parallel loop (a sequential reduction) has no work dims.
// CHECK-LABEL: func.func @serial_s0(
// CHECK-SAME:    tessel.kernel_of = "serial"
// CHECK-SAME:    tessel.work_dims = []
// CHECK:         scf.for
// CHECK-NOT:     scf.parallel
func.func @serial(%arg0: memref<4xf32>, %arg1: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %arg0[%i] : memref<4xf32>
    %s = memref.load %arg1[] : memref<f32>
    %r = arith.addf %s, %v : f32
    memref.store %r, %arg1[] : memref<f32>
  }
  return
}

// -----

// expected-error @+1 {{an allocation inside a loop cannot become a workspace}}
func.func @alloc_in_loop(%arg0: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<4xf32>
    memref.copy %arg0, %t : memref<4xf32> to memref<4xf32>
    memref.dealloc %t : memref<4xf32>
  }
  return
}

// -----

func.func @workspace_dim_not_arg_dim(%arg0: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = memref.dim %arg0, %c0 : memref<?xf32>
  %n = arith.addi %d, %c1 : index
  // expected-error @+1 {{workspace dim 1 is not a dim of a kernel argument}}
  %t = memref.alloc(%n) : memref<2x?xf32>
  scf.parallel (%i) = (%c0) to (%d) step (%c1) {
    %v = memref.load %arg0[%i] : memref<?xf32>
    memref.store %v, %t[%c0, %i] : memref<2x?xf32>
    scf.reduce
  }
  return
}

// -----

func.func @workspace_dim_of_function_arg(%arg0: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{workspace dim 0 is not a dim of a kernel argument}}
  %t = memref.alloc(%n) : memref<?xf32>
  memref.copy %arg0, %t : memref<?xf32> to memref<?xf32>
  return
}

// -----

func.func @extent_not_arg_dim(%arg0: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d = memref.dim %arg0, %c0 : memref<?xf32>
  %n = arith.divui %d, %c2 : index
  %cst = arith.constant 0.0 : f32
  // expected-error @+1 {{a parallel loop extent is not a constant or an argument dim}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %cst, %arg0[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

func.func @extent_with_offset(%arg0: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 0.0 : f32
  // expected-error @+1 {{a parallel loop extent is not a constant or an argument dim}}
  scf.parallel (%i) = (%c1) to (%c8) step (%c1) {
    memref.store %cst, %arg0[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// A value read from memory a stage writes cannot cross stages.
func.func @value_across_stages(%arg0: memref<4xf32>, %arg1: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %first = memref.load %arg1[%c0] : memref<4xf32>
  // expected-error @+1 {{a stage uses a value another stage defines}}
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %first, %arg1[%i] : memref<4xf32>
    scf.reduce
  }
  return
}
