// --tessel-cpu-map-workgroups on stages: every stage gets the workgroup id
// (x, y, z) and count (x, y, z) as six trailing index arguments; a stage
// that is a workgroup forall runs the iteration of its workgroup, each
// split dim (step below its bound) on the next grid axis, a dim left whole
// (step = bound) at its lower bound; the workgroup's temporaries go on the
// stack. The launch is recorded per axis as [step, work dim].
// RUN: tessel-opt %s --split-input-file --tessel-cpu-map-workgroups --canonicalize --mlir-print-local-scope -verify-diagnostics | FileCheck %s

// Rows in tiles of 2 (x), columns whole; a temporary of the tile's rows.
// CHECK-LABEL: func.func @rows(
// CHECK-SAME:    %[[X:[^:]+]]: memref<?x64xf32>, %[[Y:[^:]+]]: memref<?x64xf32>,
// CHECK-SAME:    %[[IDX:[^:]+]]: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %{{[^:]+}}: index)
// CHECK-SAME:    tessel.workgroup_count = [array<i64: 2, 0>, array<i64>, array<i64>]
// CHECK-SAME:    tessel.workgroup_size = array<i64: 1, 1, 1>
// CHECK-NOT:     scf.forall
// CHECK:         %[[ROW:.+]] = arith.muli %[[IDX]], %{{.+}} : index
// CHECK:         %[[SIZE:.+]] = affine.min {{.+}}%[[ROW]]]
// CHECK:         %[[T:.+]] = memref.alloca(%[[SIZE]]) : memref<?xf32>
// CHECK:         memref.subview %[[X]][%[[ROW]], 0] [%[[SIZE]], 64]
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%[[T]] : memref<?xf32>)
// CHECK-NOT:     memref.alloc{{ }}
#in = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
func.func @rows(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {tessel.work_dims = [array<i64: 0, 0>, array<i64: -1, 64>]} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.forall (%i, %j) = (0, 0) to (%n, 64) step (2, 64) {
    %size = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 2)>(%i)[%n]
    %t = memref.alloc(%size) : memref<?xf32>
    %xs = memref.subview %x[%i, 0] [%size, 64] [1, 1] : memref<?x64xf32> to memref<?x64xf32, strided<[64, 1], offset: ?>>
    %ys = memref.subview %y[%i, 0] [%size, 64] [1, 1] : memref<?x64xf32> to memref<?x64xf32, strided<[64, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%t : memref<?xf32>)
    linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
        ins(%xs : memref<?x64xf32, strided<[64, 1], offset: ?>>) outs(%t : memref<?xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %a = arith.addf %v, %acc : f32
      linalg.yield %a : f32
    }
    linalg.generic {indexing_maps = [#in, #row, #in], iterator_types = ["parallel", "parallel"]}
        ins(%xs, %t : memref<?x64xf32, strided<[64, 1], offset: ?>>, memref<?xf32>) outs(%ys : memref<?x64xf32, strided<[64, 1], offset: ?>>) {
    ^bb0(%v: f32, %s: f32, %out: f32):
      %q = arith.divf %v, %s : f32
      linalg.yield %q : f32
    }
  } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
  return
}

// -----

// Two split dims on x and y, a dynamic one left whole (its step is its
// bound): it runs from 0.
// CHECK-LABEL: func.func @grid(
// CHECK-SAME:    %[[A:[^:]+]]: memref<?x32x48xf32>, %[[IX:[^:]+]]: index, %[[IY:[^:]+]]: index,
// CHECK-SAME:    tessel.workgroup_count = [array<i64: 8, 1>, array<i64: 16, 2>, array<i64>]
// CHECK-DAG:     %[[R:.+]] = arith.muli %[[IX]], %c8
// CHECK-DAG:     %[[C:.+]] = arith.muli %[[IY]], %c16
// CHECK:         memref.subview %[[A]][0, %[[R]], %[[C]]]
#id3 = affine_map<(a, b, c) -> (a, b, c)>
func.func @grid(%a: memref<?x32x48xf32>) attributes {tessel.work_dims = [array<i64: 0, 0>, array<i64: -1, 32>, array<i64: -1, 48>]} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x32x48xf32>
  scf.forall (%i, %j, %k) = (0, 0, 0) to (%n, 32, 48) step (%n, 8, 16) {
    %v = memref.subview %a[%i, %j, %k] [%n, 8, 16] [1, 1, 1] : memref<?x32x48xf32> to memref<?x8x16xf32, strided<[1536, 48, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id3], iterator_types = ["parallel", "parallel", "parallel"]}
        outs(%v : memref<?x8x16xf32, strided<[1536, 48, 1], offset: ?>>) {
    ^bb0(%out: f32):
      %e = math.exp %out : f32
      linalg.yield %e : f32
    }
  } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_2>]}
  return
}

// -----

// The same grid with the tags the other way round: the split dims take the
// axes in the order of their linear_dim tags (tessel.workgroup_order), so
// the columns are x, varying fastest, and the rows y.
// CHECK-LABEL: func.func @tag_order(
// CHECK-SAME:    %[[A:[^:]+]]: memref<?x32x48xf32>, %[[IX:[^:]+]]: index, %[[IY:[^:]+]]: index,
// CHECK-SAME:    tessel.workgroup_count = [array<i64: 16, 2>, array<i64: 8, 1>, array<i64>]
// CHECK-DAG:     %[[C:.+]] = arith.muli %[[IX]], %c16
// CHECK-DAG:     %[[R:.+]] = arith.muli %[[IY]], %c8
// CHECK:         memref.subview %[[A]][0, %[[R]], %[[C]]]
#id3t = affine_map<(a, b, c) -> (a, b, c)>
func.func @tag_order(%a: memref<?x32x48xf32>) attributes {tessel.work_dims = [array<i64: 0, 0>, array<i64: -1, 32>, array<i64: -1, 48>]} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x32x48xf32>
  scf.forall (%i, %j, %k) = (0, 0, 0) to (%n, 32, 48) step (%n, 8, 16) {
    %v = memref.subview %a[%i, %j, %k] [%n, 8, 16] [1, 1, 1] : memref<?x32x48xf32> to memref<?x8x16xf32, strided<[1536, 48, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id3t], iterator_types = ["parallel", "parallel", "parallel"]}
        outs(%v : memref<?x8x16xf32, strided<[1536, 48, 1], offset: ?>>) {
    ^bb0(%out: f32):
      %e = math.exp %out : f32
      linalg.yield %e : f32
    }
  } {mapping = [#gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
  return
}

// -----

// A stage without a forall is one workgroup.
// CHECK-LABEL: func.func @single(
// CHECK-SAME:    tessel.workgroup_count = [array<i64>, array<i64>, array<i64>]
func.func @single(%a: memref<4xf32>) attributes {tessel.work_dims = [array<i64: -1, 4>]} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// -----

func.func @runtime_step(%a: memref<?xf32>, %s: index) attributes {tessel.work_dims = [array<i64: 0, 0>]} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  // expected-error @+1 {{a workgroup dim split by a run-time step}}
  scf.forall (%i) = (0) to (%n) step (%s) {
    %v = memref.subview %a[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%v : memref<1xf32, strided<[1], offset: ?>>)
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}
