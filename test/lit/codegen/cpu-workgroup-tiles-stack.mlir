// --tessel-cpu-workgroup-tiles keeps a group's workgroup temporaries within
// max-temp-bytes of stack: it halves split tiles, splits loops the cost
// model left whole while an axis is free, and fails closed when even one
// row per workgroup needs more. Here the cost model alone would not split
// (min-work is above the work); the row sums need 4 bytes a row.
// RUN: tessel-opt %s --tessel-form-workgroup-groups --tessel-cpu-workgroup-tiles="max-temp-bytes=40 min-work=100000" | FileCheck %s --check-prefix=FORTY
// RUN: tessel-opt %s --tessel-form-workgroup-groups --tessel-cpu-workgroup-tiles="max-temp-bytes=12 min-work=100000" | FileCheck %s --check-prefix=TWELVE
// RUN: not tessel-opt %s --tessel-form-workgroup-groups --tessel-cpu-workgroup-tiles="max-temp-bytes=2 min-work=100000" 2>&1 | FileCheck %s --check-prefix=TWO

// 32 rows whole would need 128 bytes: split in 17, then 9 (36 bytes).
// FORTY: tessel.workgroup_tiles = array<i64: 9, 0>
// 9, then 5, then 3 rows (12 bytes).
// TWELVE: tessel.workgroup_tiles = array<i64: 3, 0>
// TWO: error: the workgroup temporaries of this group need 4 bytes of stack at the least, over the CPU's 2
#in = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
func.func @normalize(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %s = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x64xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<32xf32>
  %o = tensor.empty() : tensor<32x64xf32>
  %d = linalg.generic {indexing_maps = [#in, #row, #in], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<32x64xf32>, tensor<32xf32>) outs(%o : tensor<32x64xf32>) {
  ^bb0(%v: f32, %t: f32, %out: f32):
    %q = arith.divf %v, %t : f32
    linalg.yield %q : f32
  } -> tensor<32x64xf32>
  return %d : tensor<32x64xf32>
}
