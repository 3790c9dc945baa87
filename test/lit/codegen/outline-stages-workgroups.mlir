// --tessel-outline-stages on a kernel tiled into workgroups: the forall is
// one stage whose work dims are its bounds (a run-time bound is a dim of a
// kernel argument), split or whole alike; the workgroup's temporaries stay
// inside the forall, while a temporary between stages becomes a workspace.
// RUN: tessel-opt %s --split-input-file --tessel-outline-stages -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @k_s0(
// CHECK-SAME:    %[[X:[^:]+]]: memref<?x64xf32>, %{{[^:]+}}: memref<?x64xf32>, %[[WS:[^:]+]]: memref<?x64xf32>)
// CHECK-SAME:    tessel.work_dims = [array<i64: 0, 0>, array<i64: -1, 64>]
// CHECK-SAME:    tessel.workspace_dims = {{\[\[}}array<i64: 0, 0>, array<i64: -1, -1>]]
// CHECK:         scf.forall
// CHECK:           memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK-LABEL: func.func @k_s1(
// CHECK-SAME:    tessel.work_dims = [array<i64: 2, 0>, array<i64: -1, 64>]
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.copy
#in = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
func.func @k(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %ws = memref.alloc(%n) : memref<?x64xf32>
  scf.forall (%i, %j) = (0, 0) to (%n, 64) step (2, 64) {
    %size = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 2)>(%i)[%n]
    %t = memref.alloc(%size) : memref<?xf32>
    %xs = memref.subview %x[%i, 0] [%size, 64] [1, 1] : memref<?x64xf32> to memref<?x64xf32, strided<[64, 1], offset: ?>>
    %ws_tile = memref.subview %ws[%i, 0] [%size, 64] [1, 1] : memref<?x64xf32> to memref<?x64xf32, strided<[64, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%t : memref<?xf32>)
    linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
        ins(%xs : memref<?x64xf32, strided<[64, 1], offset: ?>>) outs(%t : memref<?xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %a = arith.addf %v, %acc : f32
      linalg.yield %a : f32
    }
    linalg.generic {indexing_maps = [#in, #row, #in], iterator_types = ["parallel", "parallel"]}
        ins(%xs, %t : memref<?x64xf32, strided<[64, 1], offset: ?>>, memref<?xf32>) outs(%ws_tile : memref<?x64xf32, strided<[64, 1], offset: ?>>) {
    ^bb0(%v: f32, %s: f32, %out: f32):
      %q = arith.divf %v, %s : f32
      linalg.yield %q : f32
    }
  } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
  linalg.copy ins(%ws : memref<?x64xf32>) outs(%y : memref<?x64xf32>)
  return
}

// -----

// A bound computed in the kernel is not a size the plan knows.
func.func @computed(%x: memref<?xf32>, %b: memref<index>) {
  %n = memref.load %b[] : memref<index>
  // expected-error @+1 {{a workgroup dim is not a constant or an argument dim}}
  scf.forall (%i) = (0) to (%n) step (4) {
    %zero = arith.constant 0.0 : f32
    %v = memref.subview %x[%i] [4] [1] : memref<?xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%v : memref<4xf32, strided<[1], offset: ?>>)
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}
