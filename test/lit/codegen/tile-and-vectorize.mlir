// --tessel-tile-and-vectorize on stages (linalg on memrefs) for 128-bit SIMD
// (4 f32 lanes): a reduction whose output's last loop is contiguous in its
// inputs gets a 4 x 8 register tile, with full tiles unmasked and their
// accumulators carried through the reduction loops (read before, written
// after); partial tiles are peeled off and masked. Conv indices such as
// oh + kh become plain loads inside a tile. A width-strided Conv is only
// interchanged (output width innermost); elementwise ops are left alone.
// RUN: tessel-opt %s --split-input-file --tessel-tile-and-vectorize=vector-bits=128 --canonicalize --cse --mlir-print-local-scope -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[A:[^:]+]]: memref<8x16xf32>, %[[B:[^:]+]]: memref<16x16xf32>, %[[C:[^:]+]]: memref<8x16xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for %[[M:.+]] = %{{.+}} to %{{.+}} step %c4
// CHECK:           scf.for %[[N:.+]] = %{{.+}} to %{{.+}} step %c8
// CHECK:             %[[INIT:.+]] = vector.transfer_read %[[C]][%[[M]], %[[N]]], %{{.+}} {in_bounds = [true, true]} : memref<8x16xf32>, vector<4x8xf32>
// CHECK:             %[[SUM:.+]] = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %c1 iter_args(%[[ACC:.+]] = %[[INIT]]) -> (vector<4x8xf32>)
// CHECK-DAG:           vector.transfer_read %[[A]][%[[M]], %[[K]]]{{.*}} vector<4x1xf32>
// CHECK-DAG:           vector.transfer_read %[[B]][%[[K]], %[[N]]]{{.*}} vector<1x8xf32>
// CHECK:               arith.mulf {{.*}} : vector<4x8x1xf32>
// CHECK:               %[[NEXT:.+]] = arith.addf %[[ACC]], %{{.+}} : vector<4x8xf32>
// CHECK:               scf.yield %[[NEXT]]
// CHECK:             vector.transfer_write %[[SUM]], %[[C]][%[[M]], %[[N]]] {in_bounds = [true, true]}
// CHECK-NOT:     vector.create_mask
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

// A dynamic M and N = 10: the M loop runs whole tiles up to M - M mod 4,
// then one masked remainder; within it the last N tile is masked too.
// CHECK-LABEL: func.func @matmul_dynamic(
// CHECK-SAME:    %[[A:[^:]+]]: memref<?x16xf32>, %{{[^:]+}}: memref<16x10xf32>, %[[C:[^:]+]]: memref<?x10xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         %[[DIM:.+]] = memref.dim %[[A]]
// CHECK:         %[[WHOLE:.+]] = affine.apply affine_map<()[s0] -> ((s0 floordiv 4) * 4)>()[%[[DIM]]]
// CHECK:         scf.for %[[M:.+]] = %{{.+}} to %[[WHOLE]] step %c4
// CHECK:           vector.transfer_read %[[C]][%[[M]], %c0], %{{[^,]+}} {in_bounds
// CHECK:           vector.transfer_write %{{.+}}, %[[C]][%[[M]], %c0] {in_bounds
// CHECK:           vector.transfer_read %[[C]][%[[M]], %c8], %{{.+}}, %[[MASK:[^ ]+]] {in_bounds
// CHECK:           vector.transfer_write %{{.+}}, %[[C]][%[[M]], %c8], %[[MASK]]
// CHECK:         scf.for %{{.+}} = %[[WHOLE]] to %[[DIM]] step %c4
// CHECK:           vector.create_mask
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
// ow + kw is a plain, unit-stride load at column ow + kw.
// CHECK-LABEL: func.func @conv(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1x2x6x18xf32>, %[[W:[^:]+]]: memref<8x2x3x3xf32>, %[[Y:[^:]+]]: memref<1x8x4x16xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for %[[F:.+]] = %{{.+}} to %{{.+}} step %c4
// CHECK:           scf.for %[[OH:.+]] = %{{.+}} to %{{.+}} step %c1
// CHECK:             scf.for %[[OW:.+]] = %{{.+}} to %{{.+}} step %c8
// CHECK:               vector.transfer_read %[[Y]][%c0, %[[F]], %[[OH]], %[[OW]]]{{.*}} vector<1x4x1x8xf32>
// CHECK:               scf.for %[[CI:.+]] = {{.+}} iter_args
// CHECK:                 scf.for %[[KH:.+]] = {{.+}} iter_args
// CHECK:                   %[[ROW:.+]] = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%[[OH]], %[[KH]])
// CHECK:                   scf.for %[[KW:.+]] = {{.+}} iter_args
// CHECK:                     %[[COL:.+]] = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%[[OW]], %[[KW]])
// CHECK:                     vector.transfer_read %[[X]][%c0, %[[CI]], %[[ROW]], %[[COL]]]{{.*}} vector<1x1x1x8xf32>
// CHECK:                     vector.transfer_read %[[W]][%[[F]], %[[CI]], %[[KH]], %[[KW]]]{{.*}} vector<4x1x1x1xf32>
// CHECK:               vector.transfer_write %{{.+}}, %[[Y]][%c0, %[[F]], %[[OH]], %[[OW]]]
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

// Width stride 2: no register tile, the output width loop goes innermost.
// CHECK-LABEL: func.func @conv_stride2(
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d2 * 2 + d4, d6 * 2 + d5)>
// CHECK-SAME:      affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d6)>
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]
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

// Elementwise: untouched (LLVM's loop vectorizer takes it).
// CHECK-LABEL: func.func @relu(
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
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
