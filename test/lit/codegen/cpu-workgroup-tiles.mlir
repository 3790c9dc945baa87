// --tessel-cpu-workgroup-tiles on grouped linalg on tensors
// (--tessel-form-workgroup-groups first): each group root gets
// tessel.workgroup_tiles, one size per loop (0: whole), splitting at most
// three of its workgroup loops for about max-workgroups workgroups of at
// least min-work iterations each.
// RUN: tessel-opt %s --split-input-file --tessel-form-workgroup-groups --tessel-cpu-workgroup-tiles="max-workgroups=64 min-work=1024 vector-bits=256" | FileCheck %s

// A batched MatMul-like op with a dynamic batch: its columns first, in
// tiles of 2 vectors (16 f32) that divide 48 (3 workgroups: each reads one
// slab of the weights), the batch in tiles of 1, then rows in a multiple of
// the register tile's 4 rows that divides 64. The grid's fastest axis is
// the split loop that partitions the least input data (the columns: 1536
// weights against 2048 static elements of the rows), then loop order.
// CHECK-LABEL: func.func @rows(
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_order = array<i64: 2, 0, 1>
// CHECK-SAME:      tessel.workgroup_tiles = array<i64: 1, 4, 16, 0>
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @rows(%a: tensor<?x64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<?x64x48xf32>) -> tensor<?x64x48xf32> {
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<?x64x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x64x48xf32>
  return %0 : tensor<?x64x48xf32>
}

// -----

// Elementwise over 8 x 16 x 1024 (131072 iterations, 128 workgroups'
// worth, capped at 64): dim 0 in tiles of 1 (8 workgroups), then dim 1 in
// tiles of 2 (8 more), the last dim not at all.
// CHECK-LABEL: func.func @elementwise(
// CHECK:         tessel.workgroup_tiles = array<i64: 1, 2, 0>
#id = affine_map<(i, j, k) -> (i, j, k)>
func.func @elementwise(%x: tensor<8x16x1024xf32>, %y: tensor<8x16x1024xf32>) -> tensor<8x16x1024xf32> {
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x16x1024xf32>) outs(%y : tensor<8x16x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<8x16x1024xf32>
  return %0 : tensor<8x16x1024xf32>
}

// -----

// Too little work for two workgroups: nothing is split.
// CHECK-LABEL: func.func @small(
// CHECK:         tessel.workgroup_tiles = array<i64: 0, 0>
#id2 = affine_map<(i, j) -> (i, j)>
func.func @small(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The only workgroup loop is the output's last one (a 1 x 1000 Gemm row as
// a vector-matrix product): split in multiples of 2 vectors (16 f32). No
// such tile divides 1000, so the tiles are ceil(1000 / 64) rounded up to
// 16, the last of the 63 partial.
// CHECK-LABEL: func.func @row_vector(
// CHECK:         tessel.workgroup_tiles = array<i64: 16, 0>
#v = affine_map<(n, k) -> (k)>
#w = affine_map<(n, k) -> (k, n)>
#o = affine_map<(n, k) -> (n)>
func.func @row_vector(%v: tensor<512xf32>, %w: tensor<512x1000xf32>, %o: tensor<1000xf32>) -> tensor<1000xf32> {
  %0 = linalg.generic {indexing_maps = [#v, #w, #o], iterator_types = ["parallel", "reduction"]}
      ins(%v, %w : tensor<512xf32>, tensor<512x1000xf32>) outs(%o : tensor<1000xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

// -----

// A row reduction (softmax's max) has one workgroup loop, which is also
// the output's last: it is split once (in tiles of 2 vectors), not twice.
// CHECK-LABEL: func.func @row_max(
// CHECK:         tessel.workgroup_tiles = array<i64: 16, 0>
#in = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
func.func @row_max(%x: tensor<1024x64xf32>, %m: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1024x64xf32>) outs(%m : tensor<1024xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// -----

// A contraction's epilogue (a Relu in place over a MatMul's result) roots
// their group; its tiles are the MatMul's: the columns, which partition
// the larger operand, in tiles of 2 vectors (64 workgroups). The Relu
// alone, all parallel, would be split along its rows (tiles [1, 0]).
// CHECK-LABEL: func.func @epilogue(
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-NOT:       tessel.workgroup_tiles
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%{{.+}} : tensor<64x1024xf32>)
// CHECK-SAME:      tessel.workgroup_tiles = array<i64: 0, 16>
#ma = affine_map<(m, n, k) -> (m, k)>
#mb = affine_map<(m, n, k) -> (k, n)>
#mc = affine_map<(m, n, k) -> (m, n)>
#mn = affine_map<(m, n) -> (m, n)>
func.func @epilogue(%a: tensor<64x64xf32>, %b: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %p = linalg.generic {indexing_maps = [#ma, #mb, #mc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x1024xf32>) outs(%f : tensor<64x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x1024xf32>
  %r = linalg.generic {indexing_maps = [#mn, #mn], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x1024xf32>
  return %r : tensor<64x1024xf32>
}

// -----

// A 3x3 Conv at 7x7 with filters-last weights (ResNet-50's layer4): the
// output channels split first (they partition the 2.4M weights), then the
// output rows; the rows are the grid's fastest axis, so that the
// workgroups of one channel slice run one after the other and read its
// weights once from memory (the slowest axis, they streamed all the
// weights once per row tile).
// CHECK-LABEL: func.func @conv_order(
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_order = array<i64: 2, 1>
// CHECK-SAME:      tessel.workgroup_tiles = array<i64: 0, 16, 4, 0, 0, 0, 0>
#cin = affine_map<(n, o, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#cw = affine_map<(n, o, h, w, c, kh, kw) -> (c, kh, kw, o)>
#cout = affine_map<(n, o, h, w, c, kh, kw) -> (n, o, h, w)>
func.func @conv_order(%x: tensor<1x512x9x9xf32>, %w: tensor<512x3x3x512xf32>, %y: tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32> {
  %0 = linalg.generic {indexing_maps = [#cin, #cw, #cout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x512x9x9xf32>, tensor<512x3x3x512xf32>) outs(%y : tensor<1x512x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x512x7x7xf32>
  return %0 : tensor<1x512x7x7xf32>
}

// -----

// The same Conv with 256 output channels: 16 channel tiles leave 4
// workgroups' worth for the 7 rows, which nothing but 1 and 7 divides; a
// tile of 1 (7 workgroups, up to twice the wanted count) keeps every tile
// full, where tiles of 2 would leave a partial one of run-time sizes.
// CHECK-LABEL: func.func @conv_full_rows(
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_tiles = array<i64: 0, 16, 1, 0, 0, 0, 0>
#fin = affine_map<(n, o, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#fw = affine_map<(n, o, h, w, c, kh, kw) -> (c, kh, kw, o)>
#fout = affine_map<(n, o, h, w, c, kh, kw) -> (n, o, h, w)>
func.func @conv_full_rows(%x: tensor<1x512x9x9xf32>, %w: tensor<512x3x3x256xf32>, %y: tensor<1x256x7x7xf32>) -> tensor<1x256x7x7xf32> {
  %0 = linalg.generic {indexing_maps = [#fin, #fw, #fout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : tensor<1x512x9x9xf32>, tensor<512x3x3x256xf32>) outs(%y : tensor<1x256x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x256x7x7xf32>
  return %0 : tensor<1x256x7x7xf32>
}

// -----

// An int8 MatMul whose epilogue reads its i32 sums as an input and writes a
// new f32 tensor (not in place): the split is counted on the MatMul (the
// register tile's multiples: rows of 4, 16 columns), not on the epilogue's
// own loops, which alone gave rows in tiles of 2 and left the weights whole.
// CHECK-LABEL: func.func @int8_epilogue(
// CHECK:         linalg.generic
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_tiles = array<i64: 32, 16>
#qa = affine_map<(m, n, k) -> (m, k)>
#qb = affine_map<(m, n, k) -> (k, n)>
#qc = affine_map<(m, n, k) -> (m, n)>
#qid = affine_map<(m, n) -> (m, n)>
func.func @int8_epilogue(%x: tensor<64x256xi8>, %w: tensor<256x512xi8>, %y: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<64x512xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<64x512xi32>) -> tensor<64x512xi32>
  %p = linalg.generic {indexing_maps = [#qa, #qb, #qc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x256xi8>, tensor<256x512xi8>) outs(%f : tensor<64x512xi32>) {
  ^bb0(%u: i8, %v: i8, %acc: i32):
    %0 = arith.extui %u : i8 to i32
    %1 = arith.extsi %v : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %acc, %2 : i32
    linalg.yield %3 : i32
  } -> tensor<64x512xi32>
  %r = linalg.generic {indexing_maps = [#qid, #qid], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<64x512xi32>) outs(%y : tensor<64x512xf32>) {
  ^bb0(%s: i32, %out: f32):
    %0 = arith.sitofp %s : i32 to f32
    linalg.yield %0 : f32
  } -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}
