// --tessel-distribute-to-workgroups on stages (linalg on memrefs): every
// stage gets the workgroup id (x, y, z) and count (x, y, z) as six trailing
// index arguments; a stage with enough work has up to three work dims
// (outer first) tiled, each tile loop replaced by the iteration of the
// workgroup's id on its axis, and records its launch: per axis
// [tile, work dim] and the workgroup size 1, 1, 1.
// RUN: tessel-opt %s --split-input-file --tessel-distribute-to-workgroups="max-workgroups=64 min-work=1024 vector-bits=256" --canonicalize --mlir-print-local-scope | FileCheck %s

// A batched MatMul-like op with a dynamic batch: its columns first, in
// tiles of 2 vectors (16 f32) that divide 48 (z, 3 workgroups: each reads
// one slab of the weights), the batch in tiles of 1 (x), then rows in a
// multiple of the register tile's 4 rows that divides 64 (y).
// CHECK-LABEL: func.func @rows(
// CHECK-SAME:    %[[A:[^:]+]]: memref<?x64x32xf32>, %[[B:[^:]+]]: memref<32x48xf32>, %[[C:[^:]+]]: memref<?x64x48xf32>,
// CHECK-SAME:    %[[X:[^:]+]]: index, %[[Y:[^:]+]]: index, %[[Z:[^:]+]]: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %{{[^:]+}}: index)
// CHECK-SAME:    tessel.workgroup_count = [array<i64: 1, 0>, array<i64: 4, 1>, array<i64: 16, 2>]
// CHECK-SAME:    tessel.workgroup_size = array<i64: 1, 1, 1>
// CHECK-NOT:     scf.for
// CHECK-DAG:     %[[ROW:.+]] = arith.muli %[[Y]], %c4
// CHECK-DAG:     %[[COL:.+]] = arith.muli %[[Z]], %c16
// CHECK:         %[[CT:.+]] = memref.subview %[[C]][%[[X]], %[[ROW]], %[[COL]]] [1, 4, 16] [1, 1, 1]
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%[[CT]] :
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @rows(%a: memref<?x64x32xf32>, %b: memref<32x48xf32>, %c: memref<?x64x48xf32>)
    attributes {tessel.work_dims = [array<i64: 0, 0>, array<i64: -1, 64>, array<i64: -1, 48>]} {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x64x32xf32>, memref<32x48xf32>) outs(%c : memref<?x64x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Elementwise over 8 x 16 x 1024 (131072 iterations, 128 workgroups'
// worth, capped at 64): dim 0 in tiles of 1 (8 workgroups), then dim 1 in
// tiles of 2 (8 more), the last dim not at all.
// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME:    tessel.workgroup_count = [array<i64: 1, 0>, array<i64: 2, 1>, array<i64>]
// CHECK:         memref.subview %{{.+}}[%{{.+}}, %{{.+}}, 0] [1, 2, 1024] [1, 1, 1]
// CHECK:         memref.subview %{{.+}}[%{{.+}}, %{{.+}}, 0] [1, 2, 1024] [1, 1, 1]
// CHECK:         linalg.generic
#id = affine_map<(i, j, k) -> (i, j, k)>
func.func @elementwise(%x: memref<8x16x1024xf32>, %y: memref<8x16x1024xf32>)
    attributes {tessel.work_dims = [array<i64: -1, 8>, array<i64: -1, 16>, array<i64: -1, 1024>]} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<8x16x1024xf32>) outs(%y : memref<8x16x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// Too little work for two workgroups: nothing is split, one workgroup.
// CHECK-LABEL: func.func @small(
// CHECK-SAME:    %{{[^:]+}}: memref<4x8xf32>, %{{[^:]+}}: memref<4x8xf32>, %{{[^:]+}}: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %{{[^:]+}}: index, %{{[^:]+}}: index)
// CHECK-SAME:    tessel.workgroup_count = [array<i64>, array<i64>, array<i64>]
// CHECK-NOT:     memref.subview
// CHECK:         linalg.generic
#id2 = affine_map<(i, j) -> (i, j)>
func.func @small(%x: memref<4x8xf32>, %y: memref<4x8xf32>)
    attributes {tessel.work_dims = [array<i64: -1, 4>, array<i64: -1, 8>]} {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}

// -----

// The only work dim is the output's last one (a 1 x 1000 Gemm row as a
// vector-matrix product): split in multiples of 2 vectors (16 f32). No
// such tile divides 1000, so the tiles are ceil(1000 / 64) rounded up to
// 16, the last of the 63 partial.
// CHECK-LABEL: func.func @row_vector(
// CHECK-SAME:    %{{[^:]+}}: memref<512xf32>, %{{[^:]+}}: memref<512x1000xf32>, %[[O:[^:]+]]: memref<1000xf32>, %[[X:[^:]+]]: index
// CHECK-SAME:    tessel.workgroup_count = [array<i64: 16, 0>, array<i64>, array<i64>]
// CHECK:         %[[OFF:.+]] = arith.muli %[[X]], %c16
// CHECK:         %[[SIZE:.+]] = affine.min affine_map<()[s0] -> (-s0 + 1000, 16)>()[%[[OFF]]]
// CHECK:         memref.subview %[[O]][%[[OFF]]] [%[[SIZE]]] [1]
#v = affine_map<(n, k) -> (k)>
#w = affine_map<(n, k) -> (k, n)>
#o = affine_map<(n, k) -> (n)>
func.func @row_vector(%v: memref<512xf32>, %w: memref<512x1000xf32>, %o: memref<1000xf32>)
    attributes {tessel.work_dims = [array<i64: -1, 1000>]} {
  linalg.generic {indexing_maps = [#v, #w, #o], iterator_types = ["parallel", "reduction"]}
      ins(%v, %w : memref<512xf32>, memref<512x1000xf32>) outs(%o : memref<1000xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row reduction (softmax's max) has one work dim, which is also the
// output's last: it is split once (in tiles of 2 vectors), not twice.
// CHECK-LABEL: func.func @row_max(
// CHECK-SAME:    tessel.workgroup_count = [array<i64: 16, 0>, array<i64>, array<i64>]
#in = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
func.func @row_max(%x: memref<1024x64xf32>, %m: memref<1024xf32>)
    attributes {tessel.work_dims = [array<i64: -1, 1024>]} {
  linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1024x64xf32>) outs(%m : memref<1024xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  }
  return
}
