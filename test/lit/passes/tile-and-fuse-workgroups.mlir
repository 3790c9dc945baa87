// --tessel-tile-and-fuse-workgroups: each group root is tiled into an
// scf.forall over its workgroup loops with the tiles a target recorded (0:
// one tile of the whole extent, step = bound), and its group's producers
// are fused into the tile; the grouping attributes are consumed.
// RUN: tessel-opt %s --split-input-file --tessel-tile-and-fuse-workgroups --cse --canonicalize --mlir-print-local-scope -verify-diagnostics | FileCheck %s

// A MatMul with its fill and in-place Relu, rows in tiles of 4, columns
// whole: the fill, the product and the Relu of a tile all work on the
// root's output tile (the forall's shared output, the kernel's destination).
// CHECK-LABEL: func.func @epilogue(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<8x4xf32>, %[[B:[^:]+]]: tensor<4x16xf32>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<8x16xf32>
// CHECK:         scf.forall (%[[I:.+]], %{{.+}}) = (0, 0) to (8, 16) step (4, 16) shared_outs(%[[O:.+]] = %[[E]])
// CHECK:           %[[AT:.+]] = tensor.extract_slice %[[A]][%[[I]], 0] [4, 4] [1, 1]
// CHECK:           %[[OT:.+]] = tensor.extract_slice %[[O]][%[[I]], 0] [4, 16] [1, 1]
// CHECK:           %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[OT]] : tensor<4x16xf32>)
// CHECK:           %[[P:.+]] = linalg.generic {{.+}} ins(%[[AT]], %{{.+}} : tensor<4x4xf32>, tensor<4x16xf32>) outs(%[[F]] : tensor<4x16xf32>)
// CHECK:           %[[R:.+]] = linalg.generic {{.+}} outs(%[[P]] : tensor<4x16xf32>)
// CHECK:             arith.maximumf
// CHECK:           tensor.parallel_insert_slice %[[R]] into %[[O]][%[[I]], 0] [4, 16] [1, 1]
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK-NOT:     tessel.workgroup
#ma = affine_map<(m, n, k) -> (m, k)>
#mb = affine_map<(m, n, k) -> (k, n)>
#mc = affine_map<(m, n, k) -> (m, n)>
#mn = affine_map<(m, n) -> (m, n)>
func.func @epilogue(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill {tessel.workgroup_group = 0 : i64} ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %p = linalg.generic {indexing_maps = [#ma, #mb, #mc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f : tensor<8x16xf32>) attrs = {tessel.workgroup_group = 0 : i64} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#mn], iterator_types = ["parallel", "parallel"]}
      outs(%p : tensor<8x16xf32>) attrs = {tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0, 1>,
                                           tessel.workgroup_temp_bytes = 0 : i64, tessel.workgroup_tiles = array<i64: 4, 0>} {
  ^bb0(%out: f32):
    %m = arith.maximumf %out, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// A row sum fused as an input: a temporary of the workgroup (a slice of
// an empty tensor, which bufferizes to the workgroup's own buffer of the
// tile's rows), over run-time rows in tiles of 2.
// CHECK-LABEL: func.func @normalize(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<?x64xf32>
// CHECK:         %[[N:.+]] = tensor.dim %[[X]], %c0
// CHECK:         scf.forall (%{{.+}}) = (0) to (%[[N]]) step (2) shared_outs
// CHECK-NOT:     scf.forall
// CHECK:           %[[T:.+]] = tensor.extract_slice %{{.+}}[%{{.+}}] [%{{.+}}] [1] : tensor<?xf32> to tensor<?xf32>
// CHECK:           %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[T]] : tensor<?xf32>)
// CHECK:           %[[S:.+]] = linalg.generic {{.+}} outs(%[[F]] : tensor<?xf32>)
// CHECK:           linalg.generic {{.+}} ins(%{{.+}}, %[[S]] : tensor<?x64xf32>, tensor<?xf32>)
// CHECK:             arith.divf
#in = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
func.func @normalize(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill {tessel.workgroup_group = 0 : i64} ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x64xf32>) outs(%f : tensor<?xf32>) attrs = {tessel.workgroup_group = 0 : i64} {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %o = tensor.empty(%n) : tensor<?x64xf32>
  %d = linalg.generic {indexing_maps = [#in, #row, #in], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<?x64xf32>, tensor<?xf32>) outs(%o : tensor<?x64xf32>)
      attrs = {tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0>,
               tessel.workgroup_temp_bytes = 4 : i64, tessel.workgroup_tiles = array<i64: 2, 0>} {
  ^bb0(%v: f32, %t: f32, %out: f32):
    %q = arith.divf %v, %t : f32
    linalg.yield %q : f32
  } -> tensor<?x64xf32>
  return %d : tensor<?x64xf32>
}

// -----

// A single op with no tiles stays as it is: the stage is the op.
// CHECK-LABEL: func.func @whole(
// CHECK-NOT:     scf.forall
// CHECK:         linalg.generic
// CHECK-NOT:     tessel.workgroup
#v = affine_map<(i) -> (i)>
func.func @whole(%x: tensor<64xf32>, %o: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%o : tensor<64xf32>)
      attrs = {tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0>, tessel.workgroup_temp_bytes = 0 : i64} {
  ^bb0(%v: f32, %out: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

#v2 = affine_map<(i, j) -> (i, j)>
func.func @not_a_workgroup_loop(%x: tensor<4x64xf32>, %o: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{loop 1 is split but is not a workgroup loop}}
  %r = linalg.generic {indexing_maps = [#v2, #v2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%o : tensor<4x64xf32>)
      attrs = {tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0>,
               tessel.workgroup_temp_bytes = 0 : i64, tessel.workgroup_tiles = array<i64: 0, 16>} {
  ^bb0(%v: f32, %out: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

#in3 = affine_map<(r, c) -> (r, c)>
#row3 = affine_map<(r, c) -> (r)>
func.func @temporary_needs_split(%x: tensor<?x64xf32>, %o: tensor<?x64xf32>, %init: tensor<?xf32>) -> tensor<?x64xf32> {
  %s = linalg.generic {indexing_maps = [#in3, #row3], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x64xf32>) outs(%init : tensor<?xf32>) attrs = {tessel.workgroup_group = 0 : i64} {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  // expected-error @+1 {{the target left dynamic workgroup loop 0 whole, but the group's temporaries need it split}}
  %d = linalg.generic {indexing_maps = [#in3, #row3, #in3], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<?x64xf32>, tensor<?xf32>) outs(%o : tensor<?x64xf32>)
      attrs = {tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0>,
               tessel.workgroup_temp_bytes = 4 : i64, tessel.workgroup_tiles = array<i64: 0, 0>} {
  ^bb0(%v: f32, %t: f32, %out: f32):
    %q = arith.divf %v, %t : f32
    linalg.yield %q : f32
  } -> tensor<?x64xf32>
  return %d : tensor<?x64xf32>
}

// -----

// tessel.workgroup_order tags the forall's dims in its order (the columns
// first: the grid's fastest axis), and is consumed.
// CHECK-LABEL: func.func @order(
// CHECK:         scf.forall ({{.+}}) = (0, 0) to (8, 64) step (4, 16)
// CHECK:         } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
// CHECK-NOT:     tessel.workgroup
#v4 = affine_map<(i, j) -> (i, j)>
func.func @order(%x: tensor<8x64xf32>, %o: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %r = linalg.generic {indexing_maps = [#v4, #v4], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%o : tensor<8x64xf32>)
      attrs = {tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0, 1>,
               tessel.workgroup_order = array<i64: 1, 0>,
               tessel.workgroup_temp_bytes = 0 : i64, tessel.workgroup_tiles = array<i64: 4, 16>} {
  ^bb0(%v: f32, %out: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

#v5 = affine_map<(i, j) -> (i, j)>
func.func @order_outside_loops(%x: tensor<8x64xf32>, %o: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{tessel.workgroup_order names loop 1 twice or outside the workgroup loops}}
  %r = linalg.generic {indexing_maps = [#v5, #v5], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%o : tensor<8x64xf32>)
      attrs = {tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0>,
               tessel.workgroup_order = array<i64: 1, 0>,
               tessel.workgroup_temp_bytes = 0 : i64, tessel.workgroup_tiles = array<i64: 4, 0>} {
  ^bb0(%v: f32, %out: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// A pad in the group: each tile of 2 output rows pads its own 4 input rows
// (a halo of 2 shared with the next tile) in a temporary of the
// workgroup: the border slabs take the value, the source rows the tile
// covers (clamped to the source) are copied between them.
// CHECK-LABEL: func.func @pad_in_tile(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x8x6x6xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         scf.forall (%{{.+}}, %[[C:.+]], %[[H:.+]], %{{.+}}) = (0, 0, 0, 0) to (1, 8, 6, 6) step (1, 4, 2, 6)
// CHECK:           %[[LO:.+]] = affine.max affine_map<()[s0] -> (0, s0 - 1)>()[%[[H]]]
// CHECK:           %[[B:.+]] = affine.min affine_map<()[s0] -> (6, s0)>()[%[[LO]]]
// CHECK:           %[[HI:.+]] = affine.min affine_map<()[s0] -> (6, s0 + 3)>()[%[[H]]]
// CHECK:           %[[E:.+]] = affine.max affine_map<()[s0, s1] -> (s1, s0)>()[%[[HI]], %[[B]]]
// CHECK:           %[[N:.+]] = affine.apply affine_map<()[s0, s1] -> (s0 - s1)>()[%[[E]], %[[B]]]
// CHECK:           %[[TO:.+]] = affine.apply affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%[[B]], %[[H]]]
// CHECK:           %[[T:.+]] = tensor.empty() : tensor<1x4x4x8xf32>
// CHECK:           tensor.extract_slice %[[T]][0, 0, 0, 0] [1, 4, %[[TO]], 8]
// CHECK:           linalg.fill
// CHECK:           linalg.fill
// CHECK:           tensor.extract_slice %{{.+}}[0, 0, 0, 0] [1, 4, 4, 1]
// CHECK:           linalg.fill
// CHECK:           tensor.extract_slice %{{.+}}[0, 0, 0, 7] [1, 4, 4, 1]
// CHECK:           linalg.fill
// CHECK:           %[[S:.+]] = tensor.extract_slice %[[X]][0, %[[C]], %[[B]], 0] [1, 4, %[[N]], 6]
// CHECK:           %[[I:.+]] = tensor.extract_slice %{{.+}}[0, 0, %[[TO]], 1] [1, 4, %[[N]], 6]
// CHECK:           %[[CP:.+]] = linalg.copy ins(%[[S]] : tensor<1x4x?x6xf32>) outs(%[[I]] : tensor<1x4x?x6xf32>)
// CHECK:           %[[P:.+]] = tensor.insert_slice %[[CP]] into %{{.+}}[0, 0, %[[TO]], 1] [1, 4, %[[N]], 6]
// CHECK:           linalg.generic {{.+}} ins(%[[P]], %{{.+}} : tensor<1x4x4x8xf32>, tensor<3x3x4xf32>)
#tdx = affine_map<(n, c, h, w, kh, kw) -> (n, c, h + kh, w + kw)>
#tdw = affine_map<(n, c, h, w, kh, kw) -> (kh, kw, c)>
#tdy = affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>
func.func @pad_in_tile(%x: tensor<1x8x6x6xf32>, %w: tensor<3x3x8xf32>, %init: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } {tessel.workgroup_group = 0 : i64} : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
  %c = linalg.generic {indexing_maps = [#tdx, #tdw, #tdy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %w : tensor<1x8x8x8xf32>, tensor<3x3x8xf32>) outs(%init : tensor<1x8x6x6xf32>)
      attrs = {tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0, 1, 2, 3>,
               tessel.workgroup_temp_bytes = 36 : i64, tessel.workgroup_tiles = array<i64: 0, 4, 2, 0, 0, 0>} {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x6x6xf32>
  return %c : tensor<1x8x6x6xf32>
}
