// --tessel-convert-graph-to-linalg on a reduction whose axes are known only
// at run time: one generic for any choice of axes, with a parallel loop per
// result dim (O_d: 1 where reduced, else n_d) and a reduction loop per
// window dim (R_d = n_d - O_d + 1), reading the input at o + r; a slice of
// the input gives the window its extents. It accumulates in the result,
// and a mean divides in place by the window's element count.
// RUN: tessel-opt %s --split-input-file --tessel-convert-graph-to-linalg --canonicalize --cse --mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @reduce_mean_runtime_axes
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x4xf32>, %[[A:[^:]+]]: tensor<1xi64>)
// CHECK:         %[[AXIS:.+]] = tensor.extract %[[A]][%{{.+}}] : tensor<1xi64>
// CHECK:         %[[E:.+]] = tensor.empty(%{{.+}}, %{{.+}}) : tensor<?x?xf32>
// CHECK:         %[[R0:.+]] = arith.minsi %{{.+}}, %{{.+}} : index
// CHECK:         %[[R1:.+]] = arith.minsi %{{.+}}, %c4 : index
// CHECK:         %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<?x?xf32>)
// CHECK:         %[[W:.+]] = tensor.extract_slice %[[X]][0, 0] [%[[R0]], %[[R1]]] [1, 1]
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0 + d2, d1 + d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<?x4xf32>, tensor<?x?xf32>) outs(%[[INIT]] : tensor<?x?xf32>)
// CHECK:           arith.addf
// CHECK:         %[[N:.+]] = arith.muli %[[R0]], %[[R1]] : index
// CHECK:         %[[NI:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK:         %[[NF:.+]] = arith.sitofp %[[NI]] : i64 to f32
// CHECK:         %[[MEAN:.+]] = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      outs(%[[SUM]] : tensor<?x?xf32>)
// CHECK:           arith.divf %{{.+}}, %[[NF]] : f32
// CHECK:         return %[[MEAN]]
func.func @reduce_mean_runtime_axes(%x: tensor<?x4xf32>, %a: tensor<1xi64>) -> tensor<?x?xf32> {
  %0 = tessel.reduce_mean %x axes %a {acc_type = f32, axes = array<i64>, keepdims = true} : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A product starts from 1 and multiplies; an input with a static empty dim
// has nothing to read, so the result is the fill alone.
// CHECK-LABEL: func.func @reduce_prod_empty
// CHECK:         %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[F:.+]] = linalg.fill ins(%[[ONE]] : f32)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[F]]
func.func @reduce_prod_empty(%x: tensor<2x0x4xf32>, %a: tensor<1xi64>) -> tensor<?x?x?xf32> {
  %0 = tessel.reduce_prod %x axes %a {acc_type = f32, axes = array<i64>, keepdims = true} : (tensor<2x0x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}
