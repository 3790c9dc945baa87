// --tessel-tile-and-vectorize on stages (linalg on memrefs) for 128-bit SIMD
// (4 f32 lanes): a reduction whose output's last loop is contiguous in its
// inputs gets a 4 x 8 register tile (tile loops peeled: full tiles
// unmasked, the last partial ones masked). Inside a tile every other loop
// has extent 1, so each operand becomes a 1- or 2-d view and the tile an
// outer-product update; the output tile travels through the reduction loops
// as an iter_arg (read before, written after). A width stride of 2 reads one
// contiguous vector and keeps every other element (vector.shuffle).
// Elementwise ops get tiles of two vectors along the output's last loop.
// Reductions it cannot tile are interchanged (output width innermost).
// RUN: tessel-opt %s --split-input-file --tessel-tile-and-vectorize=vector-bits=128 --canonicalize --cse --mlir-print-local-scope | FileCheck %s
// With AVX-512's 32 registers the register tile has 8 rows, not 4:
// RUN: tessel-opt %s --split-input-file --tessel-tile-and-vectorize=vector-bits=512 --canonicalize --cse --mlir-print-local-scope | FileCheck %s --check-prefix=V512

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[A:[^:]+]]: memref<8x16xf32>, %[[B:[^:]+]]: memref<16x16xf32>, %[[C:[^:]+]]: memref<8x16xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for %[[M:.+]] = %{{.+}} to %{{.+}} step %c4
// CHECK:           scf.for %[[N:.+]] = %{{.+}} to %{{.+}} step %c8
// CHECK:             %[[CT:.+]] = memref.subview %[[C]][%[[M]], %[[N]]] [4, 8] [1, 1]
// CHECK:             %[[INIT:.+]] = vector.transfer_read %[[CT]][%c0, %c0], %{{.+}} {in_bounds = [true, true]} : {{.+}}, vector<4x8xf32>
// CHECK:             %[[SUM:.+]] = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %c1 iter_args(%[[ACC:.+]] = %[[INIT]]) -> (vector<4x8xf32>)
// CHECK-DAG:           %[[AK:.+]] = memref.subview %[[A]][%[[M]], %[[K]]] [4, 1] [1, 1] : memref<8x16xf32> to memref<4xf32, strided<[16], offset: ?>>
// CHECK-DAG:           %[[BK:.+]] = memref.subview %[[B]][%[[K]], %[[N]]] [1, 8] [1, 1] : memref<16x16xf32> to memref<8xf32, strided<[1], offset: ?>>
// CHECK-DAG:           memref.load %[[AK]][%c0]
// CHECK-DAG:           memref.load %[[AK]][%c3]
// CHECK-DAG:           vector.transfer_read %[[BK]][%c0]{{.*}} vector<8xf32>
// CHECK:               %[[P:.+]] = arith.mulf {{.*}} : vector<4x8xf32>
// CHECK:               %[[NEXT:.+]] = arith.addf %[[ACC]], %[[P]] : vector<4x8xf32>
// CHECK:               scf.yield %[[NEXT]]
// CHECK:             vector.transfer_write %[[SUM]], %[[CT]][%c0, %c0] {in_bounds = [true, true]}
// CHECK-NOT:     vector.create_mask
// CHECK-NOT:     vector.constant_mask
// CHECK:         return
func.func @matmul(%a: memref<8x16xf32>, %b: memref<16x16xf32>, %c: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x16xf32>, memref<16x16xf32>) outs(%c : memref<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A dynamic M and N = 10: the M loop runs whole tiles of 4 rows up to
// M - M mod 4, then the rows left over one at a time, unmasked (a batch of
// 1 would otherwise be one tile masked along 3 of its 4 rows); in each,
// the last N tile (2 wide) is masked. Masked tiles keep their accumulators
// in registers too.
// CHECK-LABEL: func.func @matmul_dynamic(
// CHECK-SAME:    %[[A:[^:]+]]: memref<?x16xf32>, %{{[^:]+}}: memref<16x10xf32>, %[[C:[^:]+]]: memref<?x10xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         %[[DIM:.+]] = memref.dim %[[A]]
// CHECK:         %[[WHOLE:.+]] = affine.apply affine_map<()[s0] -> ((s0 floordiv 4) * 4)>()[%[[DIM]]]
// CHECK-DAG:     %[[ROWMASK:.+]] = vector.constant_mask [2] : vector<8xi1>
// CHECK-DAG:     %[[MASK:.+]] = vector.constant_mask [4, 2] : vector<4x8xi1>
// CHECK:         scf.for %[[M:.+]] = %{{.+}} to %[[WHOLE]] step %c4
// CHECK:           memref.subview %[[C]][%[[M]], 0] [4, 10] [1, 1]
// CHECK:           vector.transfer_read {{.+}} {in_bounds = [true, true]} : memref<4x8xf32, strided<[10, 1], offset: ?>>, vector<4x8xf32>
// CHECK:           scf.for {{.+}} iter_args
// CHECK:           vector.transfer_read {{.+}}, %[[MASK]] {in_bounds = [true, true]} : memref<4x2xf32, strided<[10, 1], offset: ?>>, vector<4x8xf32>
// CHECK:           vector.transfer_write {{.+}}, %[[MASK]] {in_bounds
// CHECK:         scf.for %{{.+}} = %[[WHOLE]] to %[[DIM]] step %c4
// CHECK:           scf.for %{{.+}} = %c0 to %{{.+}} step %c1
// CHECK:             vector.transfer_read {{.+}} {in_bounds = [true]} : memref<8xf32, strided<[1], offset: ?>>, vector<8xf32>
// CHECK:             vector.transfer_read {{.+}}, %[[ROWMASK]] {in_bounds = [true]} : memref<2xf32, strided<[1], offset: ?>>, vector<8xf32>
// CHECK-NOT:     vector.create_mask
// CHECK:         return
func.func @matmul_dynamic(%a: memref<?x16xf32>, %b: memref<16x10xf32>, %c: memref<?x10xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x16xf32>, memref<16x10xf32>) outs(%c : memref<?x10xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Conv: the tile rows are output channels (the input does not use them), the
// vectors run along the output width; inside a tile the input index
// ow + kw is a plain, unit-stride row of 8 at column ow + kw, and the weights
// a column of 4.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x2x6x18xf32>, %[[W:[^:]+]]: memref<8x2x3x3xf32>, %[[Y:[^:]+]]: memref<1x8x4x16xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for %[[F:.+]] = %{{.+}} to %{{.+}} step %c4
// CHECK:           scf.for %[[OH:.+]] = %{{.+}} to %{{.+}} step %c1
// CHECK:             scf.for %[[OW:.+]] = %{{.+}} to %{{.+}} step %c8
// CHECK:               %[[YT:.+]] = memref.subview %[[Y]][0, %[[F]], %[[OH]], %[[OW]]] [1, 4, 1, 8] [1, 1, 1, 1] : memref<1x8x4x16xf32> to memref<4x8xf32, strided<[64, 1], offset: ?>>
// CHECK:               vector.transfer_read %[[YT]]{{.*}} vector<4x8xf32>
// CHECK:               scf.for %[[CI:.+]] = {{.+}} iter_args
// CHECK:                 scf.for %[[KH:[^ ]+]] = {{.+}} iter_args
// CHECK:                   %[[ROW:.+]] = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%[[OH]], %[[KH]])
// CHECK:                   scf.for %[[KW:[^ ]+]] = {{.+}} iter_args
// CHECK:                     %[[COL:.+]] = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%[[OW]], %[[KW]])
// CHECK:                     memref.subview %[[X]][0, %[[CI]], %[[ROW]], %[[COL]]] [1, 1, 1, 8] [1, 1, 1, 1]
// CHECK:                     memref.subview %[[W]][%[[F]], %[[CI]], %[[KH]], %[[KW]]] [4, 1, 1, 1] [1, 1, 1, 1] : memref<8x2x3x3xf32> to memref<4xf32, strided<[18], offset: ?>>
// CHECK:                     arith.mulf {{.*}} : vector<4x8xf32>
// CHECK:               vector.transfer_write %{{.+}}, %[[YT]]
func.func @conv(%x: memref<1x2x6x18xf32>, %w: memref<8x2x3x3xf32>, %y: memref<1x8x4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>, affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>, affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x2x6x18xf32>, memref<8x2x3x3xf32>) outs(%y : memref<1x8x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Width stride 2: 8 outputs read the 15 contiguous inputs from their first
// to their last (a read of 16 under a mask of 15: LLVM would scalarize a
// vector of 15), and keep every other one.
// CHECK-LABEL: func.func @conv_stride2(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x2x9x33xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         affine.apply affine_map<(d0, d1) -> (d0 * 2 + d1)>
// CHECK:         %[[ROW:.+]] = memref.subview %[[X]][0, %{{.+}}, %{{.+}}, %{{.+}}] [1, 1, 1, 15] [1, 1, 1, 1]
// CHECK:         %[[MASK:.+]] = vector.constant_mask [15] : vector<16xi1>
// CHECK:         %[[WIDE:.+]] = vector.transfer_read %[[ROW]][%c0, %c0, %c0, %c0], %{{.+}}, %[[MASK]] {in_bounds = [true]} : {{.+}}, vector<16xf32>
// CHECK:         vector.shuffle %[[WIDE]], %[[WIDE]] [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
func.func @conv_stride2(%x: memref<1x2x9x33xf32>, %w: memref<8x2x3x3xf32>, %y: memref<1x8x4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>, affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>, affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x2x9x33xf32>, memref<8x2x3x3xf32>) outs(%y : memref<1x8x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An index that is not linear in the loops (here ow floordiv 2 + kw) gets no
// register tile; the output width loop goes innermost instead.
// CHECK-LABEL: func.func @pool_floordiv(
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
// CHECK-SAME:      affine_map<(d0, d1, d2) -> (d0, d2 floordiv 2 + d1)>
// CHECK-SAME:      affine_map<(d0, d1, d2) -> (d1)>
// CHECK-SAME:      affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-SAME:      iterator_types = ["parallel", "reduction", "parallel"]
func.func @pool_floordiv(%x: memref<4x10xf32>, %window: memref<3xf32>, %y: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(r, ow, kw) -> (r, ow floordiv 2 + kw)>, affine_map<(r, ow, kw) -> (kw)>, affine_map<(r, ow, kw) -> (r, ow)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %window : memref<4x10xf32>, memref<3xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%a: f32, %w: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Max pooling 3x3, stride 2: the rows are output rows (the input uses every
// output loop); each of the 4 rows is read contiguously and shuffled, then
// inserted into the 4 x 8 tile.
// CHECK-LABEL: func.func @maxpool_stride2(
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for {{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (vector<4x8xf32>)
// CHECK:           scf.for {{.+}} iter_args(%[[ACC2:.+]] = %[[ACC]]) -> (vector<4x8xf32>)
// CHECK-COUNT-4:     vector.shuffle %{{.+}}, %{{.+}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>, vector<16xf32>
// CHECK:             %[[MAX:.+]] = arith.maximumf %{{.+}}, %[[ACC2]] : vector<4x8xf32>
// CHECK:             scf.yield %[[MAX]]
func.func @maxpool_stride2(%x: memref<1x1x9x17xf32>, %window: memref<3x3xf32>, %y: memref<1x1x4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %window : memref<1x1x9x17xf32>, memref<3x3xf32>) outs(%y : memref<1x1x4x8xf32>) {
  ^bb0(%a: f32, %w: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Elementwise: the output's last loop in tiles of two vectors, every other
// loop by 1, each tile one vector op (LLVM's loop vectorizer gives up on
// bodies such as erf's polynomial).
// CHECK-LABEL: func.func @relu(
// CHECK:         scf.for %{{.+}} = %c0 to %c4 step %c1
// CHECK:           scf.for %{{.+}} = %c0 to %c16 step %c8
// CHECK:             %[[X:.+]] = vector.transfer_read {{.+}} : memref<8xf32, strided<[1], offset: ?>>, vector<8xf32>
// CHECK:             %[[M:.+]] = arith.maximumf %[[X]], %{{.+}} : vector<8xf32>
// CHECK:             vector.transfer_write %[[M]]
// CHECK-NOT:     linalg.generic
func.func @relu(%x: memref<4x16xf32>, %y: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Elementwise with a row operand (broadcast along the vectors) and a width
// of 10: one full tile, then a masked one of 2 lanes.
// CHECK-LABEL: func.func @bias_partial(
// CHECK:         %[[MASK:.+]] = vector.constant_mask [2] : vector<8xi1>
// CHECK:         scf.for
// CHECK:           %[[X:.+]] = vector.transfer_read %{{.+}} {in_bounds = [true]} : memref<8xf32, strided<[1], offset: ?>>, vector<8xf32>
// CHECK:           %[[R:.+]] = vector.transfer_read {{.+}} : memref<f32, strided<[], offset: ?>>, vector<f32>
// CHECK:           %[[RB:.+]] = vector.broadcast %[[R]] : vector<f32> to vector<8xf32>
// CHECK:           arith.subf %[[X]], %[[RB]] : vector<8xf32>
// CHECK:           vector.transfer_read %{{.+}}, %[[MASK]] {in_bounds = [true]} : memref<2xf32, strided<[1], offset: ?>>, vector<8xf32>
// CHECK:           vector.transfer_write %{{.+}}, %[[MASK]] {in_bounds = [true]} : vector<8xf32>, memref<2xf32, strided<[1], offset: ?>>
func.func @bias_partial(%x: memref<3x10xf32>, %row: memref<3xf32>, %y: memref<3x10xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %row : memref<3x10xf32>, memref<3xf32>) outs(%y : memref<3x10xf32>) {
  ^bb0(%a: f32, %r: f32, %b: f32):
    %s = arith.subf %a, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Integer division stays scalar: a masked lane would divide by zero.
// CHECK-LABEL: func.func @int_div(
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
func.func @int_div(%x: memref<4x10xi32>, %d: memref<4x10xi32>, %y: memref<4x10xi32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %d : memref<4x10xi32>, memref<4x10xi32>) outs(%y : memref<4x10xi32>) {
  ^bb0(%a: i32, %b: i32, %c: i32):
    %q = arith.divsi %a, %b : i32
    linalg.yield %q : i32
  }
  return
}

// -----

// A MatMul's B slice out of a wide weight (rows 4 KiB apart, all in one L1
// set) that 4 row blocks re-read is first copied to a contiguous buffer on
// the stack; the register tiles read the copy.
// CHECK-LABEL: func.func @matmul_wide_b(
// CHECK-SAME:    %[[A:[^:]+]]: memref<16x64xf32>, %[[B:[^:]+]]: memref<64x32xf32, strided<[1024, 1], offset: ?>>
// CHECK:         %[[P:.+]] = memref.alloca() {alignment = 64 : i64} : memref<64x32xf32>
// CHECK:         linalg.copy ins(%[[B]] : {{.+}}) outs(%[[P]] : memref<64x32xf32>)
// CHECK:         memref.subview %[[P]]
// CHECK-NOT:     memref.subview %[[B]]
func.func @matmul_wide_b(%a: memref<16x64xf32>, %b: memref<64x32xf32, strided<[1024, 1], offset: ?>>, %c: memref<16x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x64xf32>, memref<64x32xf32, strided<[1024, 1], offset: ?>>) outs(%c : memref<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The same B, contiguous already (its own buffer): read in place.
// CHECK-LABEL: func.func @matmul_contiguous_b(
// CHECK-NOT:     memref.alloca
// CHECK-NOT:     linalg.copy
// V512-LABEL:  func.func @matmul_contiguous_b(
// V512:          scf.for %{{.+}} = %c0 to %c16 step %c8
// V512:            vector.transfer_read {{.+}} : memref<8x32xf32, strided<[32, 1], offset: ?>>, vector<8x32xf32>
func.func @matmul_contiguous_b(%a: memref<16x64xf32>, %b: memref<64x32xf32>, %c: memref<16x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x64xf32>, memref<64x32xf32>) outs(%c : memref<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Seq-first activations ([S, B, K] x [K, N], B a batch of unknown extent):
// the rows of the register tile are S, the static loop of extent 8, not the
// batch (1 at run time in the usual export), so the 4-row tiles are full.
// CHECK-LABEL: func.func @rows_skip_batch(
// CHECK:         scf.for %{{.+}} = %c0 to %c8 step %c4
// CHECK:           scf.for %{{.+}} = %c0 to %{{.+}} step %c1
// CHECK:             vector.transfer_read {{.+}} vector<4x8xf32>
#sbk = affine_map<(s, b, n, k) -> (s, b, k)>
#kn = affine_map<(s, b, n, k) -> (k, n)>
#sbn = affine_map<(s, b, n, k) -> (s, b, n)>
func.func @rows_skip_batch(%a: memref<8x?x16xf32>, %w: memref<16x8xf32>, %c: memref<8x?x8xf32>) {
  linalg.generic {indexing_maps = [#sbk, #kn, #sbn], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %w : memref<8x?x16xf32>, memref<16x8xf32>) outs(%c : memref<8x?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A strided B slice too large to pack (128 x 128 floats, 64 KiB) is split
// along n into chunks whose slice fits 32 KiB (64 columns), each packed.
// The buffer is allocated once, at the function's entry: an alloca in the
// chunk loop would take more stack every iteration.
// CHECK-LABEL: func.func @matmul_chunked_b(
// CHECK-SAME:    %{{[^:]+}}: memref<16x128xf32>, %[[B:[^:]+]]: memref<128x128xf32, strided<[4096, 1], offset: ?>>
// CHECK-NOT:     scf.for
// CHECK:         %[[P:.+]] = memref.alloca() {alignment = 64 : i64} : memref<128x64xf32>
// CHECK:         scf.for %[[J:.+]] = %c0 to %c128 step %c64
// CHECK:           %[[SLICE:.+]] = memref.subview %[[B]][0, %[[J]]] [128, 64] [1, 1]
// CHECK:           linalg.copy ins(%[[SLICE]] : {{.+}}) outs(%[[P]] : memref<128x64xf32>)
func.func @matmul_chunked_b(%a: memref<16x128xf32>, %b: memref<128x128xf32, strided<[4096, 1], offset: ?>>, %c: memref<16x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x128xf32>, memref<128x128xf32, strided<[4096, 1], offset: ?>>) outs(%c : memref<16x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A 1x1 Conv on a 7x7 image: its unit kh, kw loops are dropped (the weight
// becomes a 2-d view), then rows and columns merge into one loop of 49
// pixels, so the vectors run over 49 contiguous outputs, not rows of 7.
// CHECK-LABEL: func.func @conv1x1_narrow(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x8x7x7xf32>, %[[W:[^:]+]]: memref<16x8x1x1xf32>, %[[Y:[^:]+]]: memref<1x16x7x7xf32>
// CHECK-DAG:     %[[W2:.+]] = memref.subview %[[W]][0, 0, 0, 0] [16, 8, 1, 1] [1, 1, 1, 1] : memref<16x8x1x1xf32> to memref<16x8xf32, strided<[8, 1]>>
// CHECK-DAG:     %[[XM:.+]] = memref.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : memref<1x8x7x7xf32> into memref<1x8x49xf32>
// CHECK-DAG:     %[[YM:.+]] = memref.collapse_shape %[[Y]] {{\[}}[0], [1], [2, 3]] : memref<1x16x7x7xf32> into memref<1x16x49xf32>
// CHECK:         scf.for %{{.+}} = %c0 to %c16 step %c4
// CHECK:           scf.for %{{.+}} = %c0 to %c48 step %c8
// CHECK:             memref.subview %[[YM]]
func.func @conv1x1_narrow(%x: memref<1x8x7x7xf32>, %w: memref<16x8x1x1xf32>, %y: memref<1x16x7x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, ci, oh + kh, ow + kw)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (co, ci, kh, kw)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, co, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x8x7x7xf32>, memref<16x8x1x1xf32>) outs(%y : memref<1x16x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The same with the weights a workgroup's view of 16 filters out of more
// (a strided layout): the unit dims still drop (a rank-reducing subview),
// and the pixels still merge.
// CHECK-LABEL: func.func @conv1x1_narrow_view(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x8x7x7xf32>, %[[W:[^:]+]]: memref<16x8x1x1xf32, strided<[64, 1, 1, 1], offset: ?>>
// CHECK-DAG:     memref.subview %[[W]][0, 0, 0, 0] [16, 8, 1, 1] [1, 1, 1, 1] : memref<16x8x1x1xf32, strided<[64, 1, 1, 1], offset: ?>> to memref<16x8xf32, strided<[64, 1], offset: ?>>
// CHECK-DAG:     memref.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : memref<1x8x7x7xf32> into memref<1x8x49xf32>
// CHECK:         scf.for %{{.+}} = %c0 to %c48 step %c8
func.func @conv1x1_narrow_view(%x: memref<1x8x7x7xf32>, %w: memref<16x8x1x1xf32, strided<[64, 1, 1, 1], offset: ?>>, %y: memref<1x16x7x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, ci, oh + kh, ow + kw)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (co, ci, kh, kw)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, co, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x8x7x7xf32>, memref<16x8x1x1xf32, strided<[64, 1, 1, 1], offset: ?>>) outs(%y : memref<1x16x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A 1x1 Conv with filters-last weights summing 256 channels puts its
// vectors along the output channels: its rows stay the 7 pixels of an
// image row (merged, they would be 49 rows in tiles of 4 with one left
// over), and the tile is transposed in and out.
// CHECK-LABEL: func.func @conv1x1_filters_last(
// CHECK-NOT:     memref.collapse_shape
// CHECK:         vector.transpose
func.func @conv1x1_filters_last(%x: memref<1x256x7x7xf32>, %w: memref<256x1x1x16xf32>, %y: memref<1x16x7x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, ci, oh + kh, ow + kw)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (ci, kh, kw, co)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, co, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x256x7x7xf32>, memref<256x1x1x16xf32>) outs(%y : memref<1x16x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Summing 8 channels, two transposes would cost more than the tile's
// multiply-adds: the vectors run along the pixels, merged into 49, and
// nothing is transposed.
// CHECK-LABEL: func.func @conv1x1_filters_last_few_steps(
// CHECK:         memref.collapse_shape %{{.+}} {{\[}}[0], [1], [2, 3]] : memref<1x8x7x7xf32> into memref<1x8x49xf32>
// CHECK-NOT:     vector.transpose
func.func @conv1x1_filters_last_few_steps(%x: memref<1x8x7x7xf32>, %w: memref<8x1x1x16xf32>, %y: memref<1x16x7x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, ci, oh + kh, ow + kw)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (ci, kh, kw, co)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, co, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x8x7x7xf32>, memref<8x1x1x16xf32>) outs(%y : memref<1x16x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A 3x3 Conv on the same image keeps its rows: its input index oh + kh is
// a window, not a plain loop.
// CHECK-LABEL: func.func @conv3x3_narrow(
// CHECK-NOT:     memref.collapse_shape
func.func @conv3x3_narrow(%x: memref<1x8x9x9xf32>, %w: memref<16x8x3x3xf32>, %y: memref<1x16x7x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, ci, oh + kh, ow + kw)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (co, ci, kh, kw)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, co, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x8x9x9xf32>, memref<16x8x3x3xf32>) outs(%y : memref<1x16x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A 3x3 Conv on a 3x3 image with its weights' filters last (C x KH x KW x
// F): 3 columns would fill 3 of 4 lanes, so the vectors run along the 16
// output channels instead: a tile of 3 columns (rows) by 8 channels (two
// vectors), each step one contiguous weight vector and a scalar of the
// input per column. The output tile is read and written transposed, once.
// CHECK-LABEL: func.func @conv3x3_channel_vectors(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x8x5x5xf32>, %[[W:[^:]+]]: memref<8x3x3x16xf32>, %[[Y:[^:]+]]: memref<1x16x3x3xf32>)
// CHECK:         scf.for %[[F:.+]] = %c0 to %c16 step %c8
// CHECK:           scf.for %[[OH:.+]] = %c0 to %c3 step %c1
// CHECK:             %[[YT:.+]] = memref.subview %[[Y]][0, %[[F]], %[[OH]], 0] [1, 8, 1, 3] [1, 1, 1, 1] : memref<1x16x3x3xf32> to memref<8x3xf32, strided<[9, 1], offset: ?>>
// CHECK:             %[[INIT:.+]] = vector.transfer_read %[[YT]]{{.*}} vector<8x3xf32>
// CHECK:             %[[T:.+]] = vector.transpose %[[INIT]], [1, 0] : vector<8x3xf32> to vector<3x8xf32>
// CHECK:             %[[SUM:.+]] = scf.for %[[C:[^ ]+]] = {{.+}} iter_args(%{{.+}} = %[[T]]) -> (vector<3x8xf32>)
// CHECK:               scf.for %[[KH:[^ ]+]] = {{.+}} -> (vector<3x8xf32>)
// CHECK:                 scf.for %[[KW:[^ ]+]] = {{.+}} -> (vector<3x8xf32>)
// CHECK-DAG:               %[[XR:.+]] = memref.subview %{{.+}} : memref<1x1x1x3xf32, {{.+}}> to memref<3xf32, strided<[1], offset: ?>>
// CHECK-DAG:               %[[WV:.+]] = memref.subview %[[W]][%[[C]], %[[KH]], %[[KW]], %[[F]]] [1, 1, 1, 8] [1, 1, 1, 1] : memref<8x3x3x16xf32> to memref<8xf32, strided<[1], offset: ?>>
// CHECK-DAG:               memref.load %[[XR]][%c0]
// CHECK-DAG:               memref.load %[[XR]][%c2]
// CHECK-DAG:               vector.transfer_read %[[WV]][%c0]{{.*}} vector<8xf32>
// CHECK:                   arith.mulf {{.*}} : vector<3x8xf32>
// CHECK:             %[[OUT:.+]] = vector.transpose %[[SUM]], [1, 0] : vector<3x8xf32> to vector<8x3xf32>
// CHECK:             vector.transfer_write %[[OUT]], %[[YT]]
// CHECK-NOT:     vector.create_mask
// CHECK-NOT:     vector.constant_mask
func.func @conv3x3_channel_vectors(%x: memref<1x8x5x5xf32>, %w: memref<8x3x3x16xf32>, %y: memref<1x16x3x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, ci, oh + kh, ow + kw)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (ci, kh, kw, co)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, co, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x8x5x5xf32>, memref<8x3x3x16xf32>) outs(%y : memref<1x16x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Channels the workgroup tiles leave at a run-time count (a share of 20
// here) still take the vectors: full tiles of 8, then one masked.
// CHECK-LABEL: func.func @conv_channel_vectors_dynamic(
// CHECK:         scf.for %{{.+}} = %c0 to %[[FULL:.+]] step %c8
// CHECK:           vector.transfer_read {{.+}} : memref<8xf32, strided<[1], offset: ?>>, vector<8xf32>
// CHECK:         scf.for %{{.+}} = %[[FULL]] to %{{.+}} step %c8
// CHECK:           %[[MASK:.+]] = vector.create_mask %{{.+}} : vector<8xi1>
// CHECK:           vector.transfer_read {{.+}}, %[[MASK]] {{.+}} : memref<?xf32, strided<[1], offset: ?>>, vector<8xf32>
func.func @conv_channel_vectors_dynamic(%x: memref<1x8x5x5xf32>, %w: memref<8x3x3x?xf32>, %y: memref<1x?x3x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, ci, oh + kh, ow + kw)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (ci, kh, kw, co)>, affine_map<(n, co, oh, ow, ci, kh, kw) -> (n, co, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x8x5x5xf32>, memref<8x3x3x?xf32>) outs(%y : memref<1x?x3x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
