// --tessel-map-stages-to-gpu: every stage becomes a gpu.func kernel of the
// same name and signature in gpu.module @tessel_kernels, with a fixed block
// size of 256. The top-level scf.parallel becomes one work item per thread:
// id = block_id.x * 256 + thread_id.x, delinearized innermost-first with
// remui/divui (unsigned: both are never negative), guarded by id < the loop's trip count. A stage without a
// parallel loop runs on thread 0. A stage that is a workgroup forall runs
// one tile per block instead (see the last case). math.tanh is expanded
// (exp stays; expand-device-math.mlir has the expansion).
// RUN: tessel-opt %s --split-input-file --tessel-map-stages-to-gpu | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-map-stages-to-gpu | FileCheck %s --check-prefix=NONE
// The block size is the target's mapping's (`threads`, 256 by default):
// RUN: tessel-opt %s --split-input-file --tessel-map-stages-to-gpu="threads=64" | FileCheck %s --check-prefix=T64
// T64-LABEL: gpu.func @one_s0(
// T64-SAME:    known_block_size = array<i32: 64, 1, 1>
// T64:         arith.constant 64 : index
// T64-LABEL: gpu.func @rows_s0
// T64-SAME:    tessel.workgroup_size = array<i64: 64, 1, 1>
// RUN: not tessel-opt %s --split-input-file --tessel-map-stages-to-gpu="threads=2048" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: tessel-map-stages-to-gpu: threads must be in [1, 1024]

// NONE-NOT: func.func
// NONE-NOT: scf.parallel
// NONE-NOT: scf.reduce
// NONE-NOT: math.tanh
// NONE-NOT: gpu.block_dim
// NONE-NOT: gpu.grid_dim

// 2-D loop with a dynamic outer bound: trip count dim * 4; the inner index
// is id rem 4, the outer id div 4.
// CHECK:       module attributes {gpu.container_module}
// CHECK:       gpu.module @tessel_kernels
// CHECK-LABEL: gpu.func @k_s0(
// CHECK-SAME:    %[[IN:[^:]+]]: memref<?x4xf32>, %[[OUT:[^:]+]]: memref<?x4xf32>) kernel
// CHECK-SAME:    known_block_size = array<i32: 256, 1, 1>
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG:     %[[C256:.+]] = arith.constant 256 : index
// CHECK:         %[[BID:.+]] = gpu.block_id x
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK:         %[[BASE:.+]] = arith.muli %[[BID]], %[[C256]] : index
// CHECK:         %[[ID:.+]] = arith.addi %[[BASE]], %[[TID]] : index
// CHECK:         %[[DIM:.+]] = memref.dim %[[IN]], %[[C0]]
// CHECK:         %[[N:.+]] = arith.muli %[[DIM]], %[[C4]] : index
// CHECK:         %[[IN_RANGE:.+]] = arith.cmpi slt, %[[ID]], %[[N]] : index
// CHECK:         scf.if %[[IN_RANGE]] {
// CHECK:           %[[J:.+]] = arith.remui %[[ID]], %[[C4]] : index
// CHECK:           %[[I:.+]] = arith.divui %[[ID]], %[[C4]] : index
// CHECK:           %[[V:.+]] = memref.load %[[IN]][%[[I]], %[[J]]]
// CHECK:           math.exp
// CHECK:           memref.store %{{.+}}, %[[OUT]][%[[I]], %[[J]]]
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return
// A stage without scf.parallel: the whole body under id == 0.
// CHECK-LABEL: gpu.func @k_s1(
// CHECK-SAME:    %[[IN:[^:]+]]: memref<4xf32>, %[[ACC:[^:]+]]: memref<f32>) kernel
// CHECK-SAME:    known_block_size = array<i32: 256, 1, 1>
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C256:.+]] = arith.constant 256 : index
// CHECK:         %[[BID:.+]] = gpu.block_id x
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK:         %[[BASE:.+]] = arith.muli %[[BID]], %[[C256]] : index
// CHECK:         %[[ID:.+]] = arith.addi %[[BASE]], %[[TID]] : index
// CHECK:         %[[FIRST:.+]] = arith.cmpi eq, %[[ID]], %[[C0]] : index
// CHECK-NEXT:    scf.if %[[FIRST]] {
// CHECK-NEXT:      scf.for
// CHECK:             memref.load %[[IN]]
// CHECK:             memref.store %{{.+}}, %[[ACC]][]
// CHECK:           }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return
func.func @k_s0(%arg0: memref<?x4xf32>, %arg1: memref<?x4xf32>) attributes {tessel.kernel_of = "k"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %d0 = memref.dim %arg0, %c0 : memref<?x4xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%d0, %c4) step (%c1, %c1) {
    %v = memref.load %arg0[%i, %j] : memref<?x4xf32>
    %t = math.tanh %v : f32
    memref.store %t, %arg1[%i, %j] : memref<?x4xf32>
    scf.reduce
  }
  return
}
func.func @k_s1(%arg0: memref<4xf32>, %arg1: memref<f32>) attributes {tessel.kernel_of = "k"} {
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

// 3-D with the dynamic dim in the middle: each index is the remainder by its
// extent, the rest divided by it; the outermost is what is left.
// CHECK-LABEL: gpu.func @k3_s0(
// CHECK-SAME:    %[[A:[^:]+]]: memref<2x?x3xf32>) kernel
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK:         %[[ID:.+]] = arith.addi %{{.+}}, %{{.+}} : index
// CHECK:         %[[DIM:.+]] = memref.dim %[[A]], %[[C1]]
// CHECK:         %[[N2:.+]] = arith.muli %[[DIM]], %[[C2]] : index
// CHECK:         %[[N:.+]] = arith.muli %[[N2]], %[[C3]] : index
// CHECK:         %[[IN_RANGE:.+]] = arith.cmpi slt, %[[ID]], %[[N]] : index
// CHECK:         scf.if %[[IN_RANGE]] {
// CHECK-NEXT:      %[[K:.+]] = arith.remui %[[ID]], %[[C3]] : index
// CHECK-NEXT:      %[[R:.+]] = arith.divui %[[ID]], %[[C3]] : index
// CHECK-NEXT:      %[[J:.+]] = arith.remui %[[R]], %[[DIM]] : index
// CHECK-NEXT:      %[[I:.+]] = arith.divui %[[R]], %[[DIM]] : index
// CHECK-NEXT:      memref.store %{{.+}}, %[[A]][%[[I]], %[[J]], %[[K]]]
// CHECK-NEXT:    }
func.func @k3_s0(%arg0: memref<2x?x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %cst = arith.constant 0.0 : f32
  %d1 = memref.dim %arg0, %c1 : memref<2x?x3xf32>
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c2, %d1, %c3) step (%c1, %c1, %c1) {
    memref.store %cst, %arg0[%i, %j, %k] : memref<2x?x3xf32>
    scf.reduce
  }
  return
}

// -----

// 1-D: the id is the index itself (no remui/divui).
// CHECK-LABEL: gpu.func @one_s0(
// CHECK-SAME:    %[[A:[^:]+]]: memref<1000xf32>) kernel
// CHECK-DAG:     %[[C1000:.+]] = arith.constant 1000 : index
// CHECK:         %[[ID:.+]] = arith.addi %{{.+}}, %{{.+}} : index
// CHECK:         %[[IN_RANGE:.+]] = arith.cmpi slt, %[[ID]], %[[C1000]] : index
// CHECK:         scf.if %[[IN_RANGE]] {
// CHECK-NOT:       arith.remui
// CHECK-NOT:       arith.divui
// CHECK-NEXT:      memref.store %{{.+}}, %[[A]][%[[ID]]]
// CHECK-NEXT:    }
func.func @one_s0(%arg0: memref<1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %cst = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c1000) step (%c1) {
    memref.store %cst, %arg0[%i] : memref<1000xf32>
    scf.reduce
  }
  return
}

// -----

// A workgroup forall (rows in tiles of 4, columns whole): its split dim is
// blockIdx.x, the tile's loops run block-stride over threadIdx.x with a
// barrier after each, and the row sums of the tile live in workgroup
// (shared) memory, a view of a buffer of the full tile's 4 rows.
// CHECK-LABEL: gpu.func @rows_s0
// CHECK-SAME:    workgroup(%[[SHARED:.+]] : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME:    kernel
// CHECK-SAME:    tessel.workgroup_count = [array<i64: 4, 0>, array<i64>, array<i64>]
// CHECK-SAME:    tessel.workgroup_size = array<i64: 256, 1, 1>
// CHECK-DAG:     %[[TID:.+]] = gpu.thread_id  x
// CHECK-DAG:     %[[BID:.+]] = gpu.block_id  x
// CHECK:         %[[SUM:.+]] = memref.subview %[[SHARED]][0] [%{{.+}}] [1] : memref<4xf32, #gpu.address_space<workgroup>> to memref<?xf32, strided<[1]>, #gpu.address_space<workgroup>>
// CHECK:         scf.for %{{.+}} = %[[TID]] to %{{.+}} step %c256
// CHECK:           memref.store %{{.+}}, %[[SUM]]
// CHECK:         gpu.barrier
// CHECK:         scf.for %{{.+}} = %[[TID]] to %{{.+}} step %c256
// CHECK:           memref.load %[[SUM]]
// CHECK:         gpu.barrier
// CHECK:         gpu.return
// CHECK-NOT:     scf.forall
func.func @rows_s0(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {tessel.work_dims = [array<i64: 0, 0>, array<i64: -1, 64>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.forall (%i, %j) = (0, 0) to (%n, 64) step (4, 64) {
    %size = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 4)>(%i)[%n]
    %t = memref.alloc(%size) : memref<?xf32>
    %xs = memref.subview %x[%i, 0] [%size, 64] [1, 1] : memref<?x64xf32> to memref<?x64xf32, strided<[64, 1], offset: ?>>
    %ys = memref.subview %y[%i, 0] [%size, 64] [1, 1] : memref<?x64xf32> to memref<?x64xf32, strided<[64, 1], offset: ?>>
    scf.parallel (%r) = (%c0) to (%size) step (%c1) {
      %s = scf.for %c = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
        %v = memref.load %xs[%r, %c] : memref<?x64xf32, strided<[64, 1], offset: ?>>
        %a = arith.addf %v, %acc : f32
        scf.yield %a : f32
      }
      memref.store %s, %t[%r] : memref<?xf32>
      scf.reduce
    }
    scf.parallel (%r, %c) = (%c0, %c0) to (%size, %c64) step (%c1, %c1) {
      %v = memref.load %xs[%r, %c] : memref<?x64xf32, strided<[64, 1], offset: ?>>
      %s = memref.load %t[%r] : memref<?xf32>
      %q = arith.divf %v, %s : f32
      memref.store %q, %ys[%r, %c] : memref<?x64xf32, strided<[64, 1], offset: ?>>
      scf.reduce
    }
  } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
  return
}

// -----

// A 2-D workgroup temporary: the attribution is flat (4 x 8 = 32 elements)
// and viewed in the tile's shape, so that every target indexes workgroup
// memory the way it indexes the kernel's arguments (SPIR-V has no
// multi-dimensional views).
// CHECK-LABEL: gpu.func @tile2d_s0
// CHECK-SAME:    workgroup(%[[FLAT:.+]] : memref<32xf32, #gpu.address_space<workgroup>>)
// CHECK:         %[[TILE:.+]] = memref.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [4, 8] : memref<32xf32, #gpu.address_space<workgroup>> into memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.subview %[[TILE]][0, 0] [%{{.+}}, 8] [1, 1]
func.func @tile2d_s0(%x: memref<?x8xf32>, %y: memref<?x8xf32>) attributes {tessel.work_dims = [array<i64: 0, 0>, array<i64: -1, 8>]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %x, %c0 : memref<?x8xf32>
  scf.forall (%i, %j) = (0, 0) to (%n, 8) step (4, 8) {
    %size = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 4)>(%i)[%n]
    %t = memref.alloc(%size) : memref<?x8xf32>
    %xs = memref.subview %x[%i, 0] [%size, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
    %ys = memref.subview %y[%i, 0] [%size, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
    scf.parallel (%r, %c) = (%c0, %c0) to (%size, %c8) step (%c1, %c1) {
      %v = memref.load %xs[%r, %c] : memref<?x8xf32, strided<[8, 1], offset: ?>>
      memref.store %v, %t[%r, %c] : memref<?x8xf32>
      scf.reduce
    }
    scf.parallel (%r, %c) = (%c0, %c0) to (%size, %c8) step (%c1, %c1) {
      %v = memref.load %t[%r, %c] : memref<?x8xf32>
      memref.store %v, %ys[%r, %c] : memref<?x8xf32, strided<[8, 1], offset: ?>>
      scf.reduce
    }
  } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
  return
}
