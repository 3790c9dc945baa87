// --tessel-gpu-workgroup-tiles on grouped linalg on tensors: a block
// computes about 256 elements of its root's workgroup loops, innermost
// first (a loop that fits stays whole), at most three loops split; with
// workgroup temporaries the tile shrinks to fit 32 KiB of shared memory
// and the run-time loops, which the temporaries need split, go first. A row
// reduction of a block with fewer rows than threads is marked for
// --tessel-gpu-split-reductions with the lanes each row gets.
// RUN: tessel-opt %s --split-input-file --tessel-form-workgroup-groups --tessel-gpu-workgroup-tiles | FileCheck %s

// [?, 64, 56, 56]: the 56 columns whole, rows in 4s (224 elements), then
// one channel and one image per block.
// CHECK-LABEL: func.func @image(
// CHECK:         tessel.workgroup_tiles = array<i64: 1, 1, 4, 0>
#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @image(%x: tensor<?x64x56x56xf32>, %o: tensor<?x64x56x56xf32>) -> tensor<?x64x56x56xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<?x64x56x56xf32>) outs(%o : tensor<?x64x56x56xf32>) {
  ^bb0(%v: f32, %out: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  } -> tensor<?x64x56x56xf32>
  return %r : tensor<?x64x56x56xf32>
}

// -----

// Rows normalized by their sums over [?, 1024]: only the rows may be split;
// each row needs 4 bytes of sum, so 256 rows per block fit easily.
// CHECK-LABEL: func.func @normalize(
// CHECK:         linalg.generic
// CHECK-NOT:     tessel.gpu_reduction_lanes
// CHECK:         tessel.workgroup_temp_bytes = 4 : i64, tessel.workgroup_tiles = array<i64: 256, 0>
#in = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
func.func @normalize(%x: tensor<?x1024xf32>, %init: tensor<?xf32>, %o: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %s = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x1024xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %d = linalg.generic {indexing_maps = [#in, #row, #in], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<?x1024xf32>, tensor<?xf32>) outs(%o : tensor<?x1024xf32>) {
  ^bb0(%v: f32, %t: f32, %out: f32):
    %q = arith.divf %v, %t : f32
    linalg.yield %q : f32
  } -> tensor<?x1024xf32>
  return %d : tensor<?x1024xf32>
}

// -----

// The exponentials of a row are a temporary too, once for each of their two
// reads (the sum and the division; 4 KiB each) plus the sum: 8196 bytes a
// row, so 3 rows fit in 32 KiB of shared memory, and the row sums get 64
// lanes each (85 threads a row to spare; 64 divides 1024).
// CHECK-LABEL: func.func @softmax_like(
// CHECK:         linalg.generic
// CHECK-NOT:       tessel.gpu_reduction_lanes
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      tessel.gpu_reduction_lanes = 64 : i64
// CHECK:         tessel.workgroup_temp_bytes = 8196 : i64, tessel.workgroup_tiles = array<i64: 3, 0>
#in = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
func.func @softmax_like(%x: tensor<?x1024xf32>, %init: tensor<?xf32>, %o: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %e = linalg.generic {indexing_maps = [#in, #in], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x1024xf32>) outs(%o : tensor<?x1024xf32>) {
  ^bb0(%v: f32, %out: f32):
    %x2 = math.exp %v : f32
    linalg.yield %x2 : f32
  } -> tensor<?x1024xf32>
  %s = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%e : tensor<?x1024xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %d = linalg.generic {indexing_maps = [#in, #row, #in], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : tensor<?x1024xf32>, tensor<?xf32>) outs(%o : tensor<?x1024xf32>) {
  ^bb0(%v: f32, %t: f32, %out: f32):
    %q = arith.divf %v, %t : f32
    linalg.yield %q : f32
  } -> tensor<?x1024xf32>
  return %d : tensor<?x1024xf32>
}

// -----

// A padded window's temporary over four workgroup loops: after the run-time
// batch, the columns and the rows are split, the 10 channels stay whole
// and scale the temporary, so the batch's tile halves until it fits:
// 100 bytes per unit tile (5 x 5 window rows and columns) x 10 channels x
// 32 images = 32000 bytes (256 images would need 256000).
// CHECK-LABEL: func.func @whole_loop_temporary(
// CHECK:         tessel.workgroup_temp_bytes = 100 : i64, tessel.workgroup_tiles = array<i64: 32, 0, 1, 1, 0, 0>
#wx = affine_map<(n, c, h, w, kh, kw) -> (n, c, h + kh, w + kw)>
#wk = affine_map<(n, c, h, w, kh, kw) -> (kh, kw)>
#wy = affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>
func.func @whole_loop_temporary(%x: tensor<?x10x5x12xf32>, %k: tensor<5x5xf32>, %init: tensor<?x10x3x13xf32>) -> tensor<?x10x3x13xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 2, 4] high[0, 0, 0, 1] {
  ^bb0(%i: index, %j: index, %l: index, %m: index):
    tensor.yield %zero : f32
  } : tensor<?x10x5x12xf32> to tensor<?x10x7x17xf32>
  %r = linalg.generic {indexing_maps = [#wx, #wk, #wy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %k : tensor<?x10x7x17xf32>, tensor<5x5xf32>) outs(%init : tensor<?x10x3x13xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.addf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<?x10x3x13xf32>
  return %r : tensor<?x10x3x13xf32>
}

// -----

// A depthwise 3x3 Conv of 960 channels on a padded 7x7 plane: the batch,
// the columns and the rows took the three splits and the 960 channels,
// left whole, would need 34560 bytes with every split at 1. The rows (7,
// the first of the shortest split loops) go whole in place of the
// channels: one channel, one column of 7 per block.
// CHECK-LABEL: func.func @swap_whole_loop(
// CHECK:         tessel.workgroup_temp_bytes = 36 : i64, tessel.workgroup_tiles = array<i64: 1, 1, 0, 1, 0, 0>
#sx = affine_map<(n, c, h, w, kh, kw) -> (n, c, h + kh, w + kw)>
#sw = affine_map<(n, c, h, w, kh, kw) -> (kh, kw, c)>
#sy = affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>
func.func @swap_whole_loop(%x: tensor<?x960x7x7xf32>, %w: tensor<3x3x960xf32>, %init: tensor<?x960x7x7xf32>) -> tensor<?x960x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %l: index, %m: index):
    tensor.yield %zero : f32
  } : tensor<?x960x7x7xf32> to tensor<?x960x9x9xf32>
  %c = linalg.generic {indexing_maps = [#sx, #sw, #sy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %w : tensor<?x960x9x9xf32>, tensor<3x3x960xf32>) outs(%init : tensor<?x960x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x960x7x7xf32>
  return %c : tensor<?x960x7x7xf32>
}
