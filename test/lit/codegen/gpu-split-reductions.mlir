// --tessel-gpu-split-reductions: a row reduction marked with
// tessel.gpu_reduction_lanes = T inside a workgroup's forall becomes T
// partials per row (k = k' * T + t, lane t parallel, filled with the
// combiner's neutral element), then a combine of each row's partials, in
// lane order, into the original output. Outside a forall it stays whole.
// RUN: tessel-opt %s --split-input-file --tessel-gpu-split-reductions --mlir-print-local-scope -verify-diagnostics | FileCheck %s

// A row maximum over 1024 in 64 lanes, rows of a run-time tile.
// CHECK-LABEL: func.func @row_max(
// CHECK:         scf.forall
// CHECK:           %[[ROWS:.+]] = tensor.dim %{{.+}}, %c0{{.*}} : tensor<?xf32>
// CHECK:           %[[E:.+]] = tensor.empty(%[[ROWS]]) : tensor<?x64xf32>
// CHECK:           %[[P:.+]] = linalg.fill ins(%cst{{.*}} : f32) outs(%[[E]] : tensor<?x64xf32>)
// CHECK:           %[[R:.+]] = tensor.empty() : tensor<16x64xi1>
// CHECK:           %[[S:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2 * 64 + d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:        outs(%[[P]] : tensor<?x64xf32>)
// CHECK:             arith.maximumf
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:        ins(%[[S]] : tensor<?x64xf32>)
// CHECK:             arith.maximumf
// CHECK-NOT:     tessel.gpu_reduction_lanes
#in = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
func.func @row_max(%x: tensor<?x1024xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x1024xf32>
  %r = scf.forall (%i) = (0) to (%n) step (3) shared_outs(%o = %init) -> (tensor<?xf32>) {
    %size = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 3)>(%i)[%n]
    %xs = tensor.extract_slice %x[%i, 0] [%size, 1024] [1, 1] : tensor<?x1024xf32> to tensor<?x1024xf32>
    %os = tensor.extract_slice %o[%i] [%size] [1] : tensor<?xf32> to tensor<?xf32>
    %m = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
        ins(%xs : tensor<?x1024xf32>) outs(%os : tensor<?xf32>) attrs = {tessel.gpu_reduction_lanes = 64 : i64} {
    ^bb0(%v: f32, %acc: f32):
      %a = arith.maximumf %v, %acc : f32
      linalg.yield %a : f32
    } -> tensor<?xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %m into %o[%i] [%size] [1] : tensor<?xf32> into tensor<?xf32>
    }
  } {mapping = [#gpu.block<linear_dim_0>]}
  return %r : tensor<?xf32>
}

// -----

// Outside a workgroup forall the mark is dropped and the op stays.
// CHECK-LABEL: func.func @unfused(
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-NOT:     tessel.gpu_reduction_lanes
// CHECK-NOT:     linalg.generic
#in2 = affine_map<(r, c) -> (r, c)>
#row2 = affine_map<(r, c) -> (r)>
func.func @unfused(%x: tensor<4x64xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %m = linalg.generic {indexing_maps = [#in2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x64xf32>) outs(%init : tensor<4xf32>) attrs = {tessel.gpu_reduction_lanes = 16 : i64} {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %v, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %m : tensor<4xf32>
}
