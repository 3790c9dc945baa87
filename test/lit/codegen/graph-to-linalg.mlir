// --tessel-convert-graph-to-linalg: each graph op becomes linalg on tensors
// with the indexing maps of its ONNX semantics; dynamic result dims are
// read from the operands with tensor.dim. Ops it cannot lower are errors.
// RUN: tessel-opt %s --split-input-file --tessel-convert-graph-to-linalg --verify-diagnostics --mlir-print-local-scope | FileCheck %s

// numpy broadcasting: trailing dims aligned, a static 1 becomes the constant
// index 0; the dynamic batch comes from the operand that has it.
// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x3x4xf32>, %[[B:[^:]+]]: tensor<4xf32>, %[[C:[^:]+]]: tensor<3x1xf32>,
// CHECK-SAME:    %[[S1:[^:]+]]: tensor<1x3x4xf32>, %[[S2:[^:]+]]: tensor<2x3x1xf32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x4xf32>
// CHECK:         %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x3x4xf32>
// CHECK:         %[[A:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[B]] : tensor<?x3x4xf32>, tensor<4xf32>) outs(%[[E]] : tensor<?x3x4xf32>)
// CHECK-NEXT:    ^bb0(%[[L:[^:]+]]: f32, %[[R:[^:]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[S:.+]] = arith.addf %[[L]], %[[R]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         %[[D2:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x3x4xf32>
// CHECK:         %[[E2:.+]] = tensor.empty(%[[D2]]) : tensor<?x3x4xf32>
// CHECK:         %[[Q:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[C]], %[[A]] : tensor<3x1xf32>, tensor<?x3x4xf32>) outs(%[[E2]] : tensor<?x3x4xf32>)
// CHECK:           arith.divf
// CHECK:         %[[E3:.+]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[S1]], %[[S2]] : tensor<1x3x4xf32>, tensor<2x3x1xf32>) outs(%[[E3]] : tensor<2x3x4xf32>)
// CHECK:           arith.mulf
// CHECK-NOT:     tessel.
// CHECK:         return %[[Q]],
func.func @add_broadcast(%x: tensor<?x3x4xf32>, %b: tensor<4xf32>, %c: tensor<3x1xf32>,
                         %s1: tensor<1x3x4xf32>, %s2: tensor<2x3x1xf32>)
    -> (tensor<?x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = tessel.add %x, %b : (tensor<?x3x4xf32>, tensor<4xf32>) -> tensor<?x3x4xf32>
  %1 = tessel.div %c, %0 : (tensor<3x1xf32>, tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  %2 = tessel.mul %s1, %s2 : (tensor<1x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
  return %1, %2 : tensor<?x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @float_arith
// CHECK:         linalg.generic
// CHECK:           arith.subf
// CHECK:         linalg.generic
// CHECK:           arith.mulf
// CHECK:         linalg.generic
// CHECK:           arith.divf
func.func @float_arith(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = tessel.sub %a, %b : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %1 = tessel.mul %0, %b : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %2 = tessel.div %1, %b : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  return %2 : tensor<2x3xf64>
}

// -----

// Integers use integer arithmetic; Div is signed.
// CHECK-LABEL: func.func @integer_arith
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x5xi32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      outs(%[[E]] : tensor<2x5xi32>)
// CHECK:           arith.addi
// CHECK:         linalg.generic
// CHECK:           arith.subi
// CHECK:         linalg.generic
// CHECK:           arith.muli
// CHECK:         linalg.generic
// CHECK:           arith.divsi
func.func @integer_arith(%i: tensor<2x1xi32>, %j: tensor<1x5xi32>) -> tensor<2x5xi32> {
  %0 = tessel.add %i, %j : (tensor<2x1xi32>, tensor<1x5xi32>) -> tensor<2x5xi32>
  %1 = tessel.sub %0, %j : (tensor<2x5xi32>, tensor<1x5xi32>) -> tensor<2x5xi32>
  %2 = tessel.mul %1, %i : (tensor<2x5xi32>, tensor<2x1xi32>) -> tensor<2x5xi32>
  %3 = tessel.div %2, %0 : (tensor<2x5xi32>, tensor<2x5xi32>) -> tensor<2x5xi32>
  return %3 : tensor<2x5xi32>
}

// -----

// Integer Div never traps (docs/design.md, "Integer division"): the divisor
// becomes 1 where it is 0 or -1, then x / 0 = 0 and x / -1 = 0 - x
// (wrapping: INT_MIN / -1 = INT_MIN). Unsigned: x / 0 = 0.
// CHECK-LABEL: func.func @integer_div_defined
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[L:[^:]+]]: i32, %[[R:[^:]+]]: i32, %{{.+}}: i32):
// CHECK-DAG:       %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-DAG:       %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-DAG:       %[[M1:.+]] = arith.constant -1 : i32
// CHECK:           %[[ISZ:.+]] = arith.cmpi eq, %[[R]], %[[ZERO]] : i32
// CHECK:           %[[ISM1:.+]] = arith.cmpi eq, %[[R]], %[[M1]] : i32
// CHECK:           %[[SPECIAL:.+]] = arith.ori %[[ISZ]], %[[ISM1]] : i1
// CHECK:           %[[SAFE:.+]] = arith.select %[[SPECIAL]], %[[ONE]], %[[R]] : i32
// CHECK:           %[[Q:.+]] = arith.divsi %[[L]], %[[SAFE]] : i32
// CHECK:           %[[NEG:.+]] = arith.subi %[[ZERO]], %[[L]] : i32
// CHECK:           %[[Q1:.+]] = arith.select %[[ISM1]], %[[NEG]], %[[Q]] : i32
// CHECK:           %[[Y:.+]] = arith.select %[[ISZ]], %[[ZERO]], %[[Q1]] : i32
// CHECK:           linalg.yield %[[Y]] : i32
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[UL:[^:]+]]: i8, %[[UR:[^:]+]]: i8, %{{.+}}: i8):
// CHECK-DAG:       %[[UZERO:.+]] = arith.constant 0 : i8
// CHECK-DAG:       %[[UONE:.+]] = arith.constant 1 : i8
// CHECK:           %[[UISZ:.+]] = arith.cmpi eq, %[[UR]], %[[UZERO]] : i8
// CHECK:           %[[USAFE:.+]] = arith.select %[[UISZ]], %[[UONE]], %[[UR]] : i8
// CHECK:           %[[UQ:.+]] = arith.divui %[[UL]], %[[USAFE]] : i8
// CHECK:           %[[UY:.+]] = arith.select %[[UISZ]], %[[UZERO]], %[[UQ]] : i8
// CHECK:           linalg.yield %[[UY]] : i8
func.func @integer_div_defined(%a: tensor<4xi32>, %b: tensor<4xi32>,
                               %c: tensor<4xi8>, %d: tensor<4xi8>)
    -> (tensor<4xi32>, tensor<4xi8>) {
  %0 = tessel.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = tessel.div %c, %d {is_unsigned} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0, %1 : tensor<4xi32>, tensor<4xi8>
}

// -----

// relu = max(x, 0); sigmoid = 1 / (1 + exp(-x)); tanh.
// CHECK-LABEL: func.func @activations
// CHECK-SAME:    (%[[X:.+]]: tensor<?x8xf32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x8xf32>
// CHECK:         %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x8xf32>
// CHECK:         %[[R:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<?x8xf32>) outs(%[[E]] : tensor<?x8xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:[^:]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[M:.+]] = arith.maximumf %[[IN]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[M]]
// CHECK:         %[[S:.+]] = linalg.generic {{.*}} ins(%[[R]] : tensor<?x8xf32>)
// CHECK-NEXT:    ^bb0(%[[IN2:[^:]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[NEG:.+]] = arith.negf %[[IN2]] : f32
// CHECK-NEXT:      %[[EXP:.+]] = math.exp %[[NEG]] : f32
// CHECK-NEXT:      %[[DEN:.+]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK-NEXT:      %[[SIG:.+]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK-NEXT:      linalg.yield %[[SIG]]
// CHECK:         linalg.generic {{.*}} ins(%[[S]] : tensor<?x8xf32>)
// CHECK-NEXT:    ^bb0(%[[IN3:[^:]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[T:.+]] = math.tanh %[[IN3]] : f32
// CHECK-NEXT:      linalg.yield %[[T]]
func.func @activations(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = tessel.relu %x : tensor<?x8xf32>
  %1 = tessel.sigmoid %0 : tensor<?x8xf32>
  %2 = tessel.tanh %1 : tensor<?x8xf32>
  return %2 : tensor<?x8xf32>
}

// -----

// Float Clip with bounds read from tensors: a compare and a select per
// bound (NaN stays NaN: both compares are false), which vectorizes.
// CHECK-LABEL: func.func @clip
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[X:[^:]+]]: f32, %[[LO:[^:]+]]: f32, %[[HI:[^:]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[BELOW:.+]] = arith.cmpf olt, %[[X]], %[[LO]] : f32
// CHECK-NEXT:      %[[Y:.+]] = arith.select %[[BELOW]], %[[LO]], %[[X]] : f32
// CHECK-NEXT:      %[[ABOVE:.+]] = arith.cmpf ogt, %[[Y]], %[[HI]] : f32
// CHECK-NEXT:      %[[Z:.+]] = arith.select %[[ABOVE]], %[[HI]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[Z]]
func.func @clip(%x: tensor<?x8xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<?x8xf32> {
  %0 = tessel.clip %x min %lo max %hi : (tensor<?x8xf32>, tensor<f32>, tensor<f32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Inference batch normalization: one elementwise generic,
// y = (x - mean) * scale / sqrt(variance + epsilon) + bias, the four vectors
// indexed by the channel (dim 1).
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x3x4x4xf32>, %[[S:[^:]+]]: tensor<3xf32>, %[[B:[^:]+]]: tensor<3xf32>, %[[M:[^:]+]]: tensor<3xf32>, %[[V:[^:]+]]: tensor<3xf32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x4x4xf32>
// CHECK:         %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x3x4x4xf32>
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[S]], %[[B]], %[[M]], %[[V]] : tensor<?x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<?x3x4x4xf32>)
// CHECK-NEXT:    ^bb0(%[[XI:[^:]+]]: f32, %[[SI:[^:]+]]: f32, %[[BI:[^:]+]]: f32, %[[MI:[^:]+]]: f32, %[[VI:[^:]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[EPS:.+]] = arith.constant 1.000000e-03 : f32
// CHECK-NEXT:      %[[VE:.+]] = arith.addf %[[VI]], %[[EPS]] : f32
// CHECK-NEXT:      %[[SQ:.+]] = math.sqrt %[[VE]] : f32
// CHECK-NEXT:      %[[C:.+]] = arith.subf %[[XI]], %[[MI]] : f32
// CHECK-NEXT:      %[[CS:.+]] = arith.mulf %[[C]], %[[SI]] : f32
// CHECK-NEXT:      %[[N:.+]] = arith.divf %[[CS]], %[[SQ]] : f32
// CHECK-NEXT:      %[[Y:.+]] = arith.addf %[[N]], %[[BI]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
// CHECK:         return %[[R]]
func.func @batch_norm(%x: tensor<?x3x4x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>,
                      %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x3x4x4xf32> {
  %0 = tessel.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-3 : f32}
      : (tensor<?x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3x4x4xf32>
  return %0 : tensor<?x3x4x4xf32>
}

// -----

// Softmax over a middle axis: the axis is the innermost (reduction) loop;
// max and sum are reduced into [N, 5] (filled with -inf and 0).
// CHECK-LABEL: func.func @softmax_middle_axis
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3x5xf32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x5xf32>
// CHECK:         %[[RE:.+]] = tensor.empty(%[[D]]) : tensor<?x5xf32>
// CHECK:         %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MI:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%[[RE]] : tensor<?x5xf32>)
// CHECK:         %[[MAX:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<?x3x5xf32>) outs(%[[MI]] : tensor<?x5xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[EXP:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2, d1)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<?x3x5xf32>, tensor<?x5xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:         %[[SI:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[RE]] : tensor<?x5xf32>)
// CHECK:         %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[EXP]] : tensor<?x3x5xf32>) outs(%[[SI]] : tensor<?x5xf32>)
// CHECK:           arith.addf
// CHECK:         %[[R:.+]] = linalg.generic {{.*}} ins(%[[EXP]], %[[SUM]] : tensor<?x3x5xf32>, tensor<?x5xf32>)
// CHECK:           arith.divf
// CHECK:         return %[[R]]
func.func @softmax_middle_axis(%x: tensor<?x3x5xf32>) -> tensor<?x3x5xf32> {
  %0 = tessel.softmax %x {axis = 1 : i64} : tensor<?x3x5xf32>
  return %0 : tensor<?x3x5xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_last_axis
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      outs(%{{.+}} : tensor<4xf32>)
func.func @softmax_last_axis(%x: tensor<4x7xf32>) -> tensor<4x7xf32> {
  %0 = tessel.softmax %x {axis = 1 : i64} : tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}

// -----

// Batch dims broadcast: the lhs batch of extent 1 reads index 0; loops are
// (batch0, batch1, m, n | k).
// CHECK-LABEL: func.func @matmul_batched
// CHECK-SAME:    (%[[A:[^:]+]]: tensor<?x1x2x3xf32>, %[[B:[^:]+]]: tensor<5x3x4xf32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x1x2x3xf32>
// CHECK:         %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x5x2x4xf32>
// CHECK:         %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[F:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<?x5x2x4xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<?x1x2x3xf32>, tensor<5x3x4xf32>) outs(%[[F]] : tensor<?x5x2x4xf32>)
// CHECK-NEXT:    ^bb0(%[[L:[^:]+]]: f32, %[[R:[^:]+]]: f32, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT:      %[[P:.+]] = arith.mulf %[[L]], %[[R]] fastmath<contract> : f32
// CHECK-NEXT:      %[[S:.+]] = arith.addf %[[ACC]], %[[P]] fastmath<contract> : f32
// CHECK-NEXT:      linalg.yield %[[S]]
func.func @matmul_batched(%a: tensor<?x1x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<?x5x2x4xf32> {
  %0 = tessel.matmul %a, %b : (tensor<?x1x2x3xf32>, tensor<5x3x4xf32>) -> tensor<?x5x2x4xf32>
  return %0 : tensor<?x5x2x4xf32>
}

// -----

// Rank-1 operands: matrix * vector, dot product (into a rank-0 tensor),
// vector * batched matrix, and an integer dot product.
// CHECK-LABEL: func.func @matmul_vectors
// CHECK-SAME:    (%[[V:[^:]+]]: tensor<3xf32>, %[[M:[^:]+]]: tensor<?x3xf32>, %[[T:[^:]+]]: tensor<2x3x4xf32>, %[[I:[^:]+]]: tensor<3xi32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[M]], %{{.+}} : tensor<?x3xf32>
// CHECK:         tensor.empty(%[[D]]) : tensor<?xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[M]], %[[V]] :
// CHECK:         tensor.empty() : tensor<f32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%[[V]], %[[V]] :
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[V]], %[[T]] :
// CHECK:         %[[IZ:.+]] = arith.constant 0 : i32
// CHECK:         linalg.fill ins(%[[IZ]] : i32)
// CHECK:         linalg.generic {{.*}} ins(%[[I]], %[[I]] :
// CHECK:           arith.muli
// CHECK:           arith.addi
func.func @matmul_vectors(%v: tensor<3xf32>, %m: tensor<?x3xf32>, %t: tensor<2x3x4xf32>, %i: tensor<3xi32>)
    -> (tensor<?xf32>, tensor<f32>, tensor<2x4xf32>, tensor<i32>) {
  %0 = tessel.matmul %m, %v : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?xf32>
  %1 = tessel.matmul %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %2 = tessel.matmul %v, %t : (tensor<3xf32>, tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %3 = tessel.matmul %i, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<i32>
  return %0, %1, %2, %3 : tensor<?xf32>, tensor<f32>, tensor<2x4xf32>, tensor<i32>
}

// -----

// Gemm without C accumulates into zeros; with C the init is beta * C
// broadcast to [M, N], and alpha scales each product. Loops are (m, n | k).
// CHECK-LABEL: func.func @gemm
// CHECK-SAME:    (%[[A:[^:]+]]: tensor<?x3xf32>, %[[B:[^:]+]]: tensor<4x3xf32>, %[[C:[^:]+]]: tensor<4xf32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x3xf32>
// CHECK:         %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK:         %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<?x4xf32>)
// CHECK:         %[[G0:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<?x3xf32>, tensor<4x3xf32>) outs(%[[F]] : tensor<?x4xf32>)
// CHECK-NOT:       arith.constant
// CHECK:           linalg.yield
// CHECK:         %[[E2:.+]] = tensor.empty(%{{.+}}) : tensor<?x4xf32>
// CHECK:         %[[INIT:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[C]] : tensor<4xf32>) outs(%[[E2]] : tensor<?x4xf32>)
// CHECK-NEXT:    ^bb0(%[[CIN:[^:]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      %[[BETA:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[BC:.+]] = arith.mulf %[[CIN]], %[[BETA]] : f32
// CHECK-NEXT:      linalg.yield %[[BC]]
// CHECK:         %[[G1:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<?x3xf32>, tensor<4x3xf32>) outs(%[[INIT]] : tensor<?x4xf32>)
// CHECK-NEXT:    ^bb0(%[[L:[^:]+]]: f32, %[[R:[^:]+]]: f32, %[[ACC:[^:]+]]: f32):
// CHECK-NEXT:      %[[P:.+]] = arith.mulf %[[L]], %[[R]] fastmath<contract> : f32
// CHECK-NEXT:      %[[ALPHA:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[PA:.+]] = arith.mulf %[[P]], %[[ALPHA]] fastmath<contract> : f32
// CHECK-NEXT:      %[[S:.+]] = arith.addf %[[ACC]], %[[PA]] fastmath<contract> : f32
// CHECK-NEXT:      linalg.yield %[[S]]
// CHECK:         return %[[G0]], %[[G1]]
func.func @gemm(%a: tensor<?x3xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %0 = tessel.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
      : (tensor<?x3xf32>, tensor<4x3xf32>) -> tensor<?x4xf32>
  %1 = tessel.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_a = false, trans_b = true}
      : (tensor<?x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// trans_a reads A as [K, M]; a [M, 1] C broadcasts along N; beta = 0 drops C.
// CHECK-LABEL: func.func @gemm_trans_a
// CHECK-SAME:    (%[[A:[^:]+]]: tensor<3x2xf32>, %[[B:[^:]+]]: tensor<3x4xf32>, %[[C:[^:]+]]: tensor<2x1xf32>)
// CHECK:         %[[Z:.+]] = linalg.fill
// CHECK:         %[[G0:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], {{.*}} outs(%[[Z]] : tensor<2x4xf32>)
// CHECK:         %[[INIT:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}} ins(%[[C]] : tensor<2x1xf32>)
// CHECK-NEXT:    ^bb0(%[[CIN:[^:]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:      linalg.yield %[[CIN]] : f32
// CHECK:         %[[G1:.+]] = linalg.generic {{.*}} outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK:         return %[[G0]], %[[G1]]
func.func @gemm_trans_a(%a: tensor<3x2xf32>, %b: tensor<3x4xf32>, %c: tensor<2x1xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = tessel.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 0.0 : f32, trans_a = true, trans_b = false}
      : (tensor<3x2xf32>, tensor<3x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %1 = tessel.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = true, trans_b = false}
      : (tensor<3x2xf32>, tensor<3x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Conv: the input is zero-padded; the bias is broadcast into the init; loops
// are (n, f, oh, ow | c, kh, kw).
// CHECK-LABEL: func.func @conv_bias_pads
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x4x9x9xf32>, %[[W:[^:]+]]: tensor<6x4x3x3xf32>, %[[B:[^:]+]]: tensor<6xf32>)
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1, 2] high[0, 0, 1, 0]
// CHECK:           tensor.yield %[[ZERO]] : f32
// CHECK:         } : tensor<?x4x9x9xf32> to tensor<?x4x11x11xf32>
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x4x9x9xf32>
// CHECK:         %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x6x9x9xf32>
// CHECK:         %[[INIT:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[B]] : tensor<6xf32>) outs(%[[E]] : tensor<?x6x9x9xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[P]], %[[W]] : tensor<?x4x11x11xf32>, tensor<6x4x3x3xf32>) outs(%[[INIT]] : tensor<?x6x9x9xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @conv_bias_pads(%x: tensor<?x4x9x9xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>) -> tensor<?x6x9x9xf32> {
  %0 = tessel.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 2, 1, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<?x4x9x9xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<?x6x9x9xf32>
  return %0 : tensor<?x6x9x9xf32>
}

// -----

// A quantized Conv pads with its input's zero point (u8 128: i8 -128), and
// reads the input unsigned.
// CHECK-LABEL: func.func @conv_zero_point_pads
// CHECK:         %[[ZP:.+]] = arith.constant -128 : i8
// CHECK:         tensor.pad %{{.+}} low[0, 0, 1, 1] high[0, 0, 1, 2]
// CHECK:           tensor.yield %[[ZP]] : i8
// CHECK:         linalg.generic
// CHECK:           arith.extui %{{.+}} : i8 to i32
// CHECK:           arith.extsi %{{.+}} : i8 to i32
func.func @conv_zero_point_pads(%x: tensor<1x2x5x5xi8>, %w: tensor<2x3x4x3xi8>) -> tensor<1x3x5x5xi32> {
  %0 = tessel.conv %x, %w {acc_type = i32, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 2>, dilations = array<i64: 1, 1>, group = 1 : i64, filters_last, input_unsigned, input_zero_point = 128 : i64}
      : (tensor<1x2x5x5xi8>, tensor<2x3x4x3xi8>) -> tensor<1x3x5x5xi32>
  return %0 : tensor<1x3x5x5xi32>
}

// -----

// Two groups of 3 filters over 2 channels each: the channels are viewed as
// [2 groups, 2] and the filters as [2 groups, 3], with a loop of their own
// for the group, so that every index is linear in the loops (a floordiv of
// the filter loop would be wrong in a tile that starts inside a group);
// the result is collapsed back. Strides and dilations scale the window
// indices. No pads: no tensor.pad; no bias: the init is zero-filled.
// CHECK-LABEL: func.func @conv_grouped_strided_dilated
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<1x4x9x9xf32>, %[[W:[^:]+]]: tensor<6x2x3x3xf32>)
// CHECK-NOT:     tensor.pad
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<1x6x3x3xf32>
// CHECK:         %[[XG:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 9, 9]
// CHECK:         %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
// CHECK:         %[[EG:.+]] = tensor.expand_shape %[[E]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 3, 3, 3]
// CHECK:         %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[EG]] : tensor<1x2x3x3x3xf32>)
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6 * 2, d4 * 3 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[XG]], %[[WG]] : tensor<1x2x2x9x9xf32>, tensor<2x3x2x3x3xf32>) outs(%[[F]] : tensor<1x2x3x3x3xf32>)
// CHECK:         tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x3x3x3xf32> into tensor<1x6x3x3xf32>
func.func @conv_grouped_strided_dilated(%x: tensor<1x4x9x9xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %0 = tessel.conv %x, %w {strides = array<i64: 2, 3>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 1>, group = 2 : i64}
      : (tensor<1x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// Depthwise (one filter per group) keeps the single filter loop: filter f
// reads channel f * (C/G) + c, which is linear.
// CHECK-LABEL: func.func @conv_depthwise
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 + d5, d3 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>]
// CHECK-NOT:     tensor.collapse_shape
func.func @conv_depthwise(%x: tensor<1x8x5x5xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4 : i64}
      : (tensor<1x8x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

// The same with the filters last (C/group x KH x KW x F), a dynamic batch
// and a bias: the weight's last dim is split, indexed (c, kh, kw, g, f), and
// the bias is viewed as [groups, filters].
// CHECK-LABEL: func.func @conv_filters_last
// CHECK:         tensor.expand_shape %{{.+}} {{\[}}[0], [1], [2], [3, 4]] output_shape [2, 3, 3, 2, 3] : tensor<2x3x3x6xf32> into tensor<2x3x3x2x3xf32>
// CHECK:         %[[B:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:      ins(%[[B]] : tensor<2x3xf32>) outs(%{{.+}} : tensor<?x2x3x3x3xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6 * 2, d4 * 3 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7, d1, d2)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME:      ins(%{{.+}}, %{{.+}} : tensor<?x2x2x9x9xf32>, tensor<2x3x3x2x3xf32>)
// CHECK:         tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2], [3], [4]] : tensor<?x2x3x3x3xf32> into tensor<?x6x3x3xf32>
func.func @conv_filters_last(%x: tensor<?x4x9x9xf32>, %w: tensor<2x3x3x6xf32>, %b: tensor<6xf32>) -> tensor<?x6x3x3xf32> {
  %0 = tessel.conv %x, %w, %b {strides = array<i64: 2, 3>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 1>, group = 2 : i64, filters_last}
      : (tensor<?x4x9x9xf32>, tensor<2x3x3x6xf32>, tensor<6xf32>) -> tensor<?x6x3x3xf32>
  return %0 : tensor<?x6x3x3xf32>
}

// -----

// Padded rows (8 for 6 filters): the generic reads a slice of the first 6.
// CHECK-LABEL: func.func @conv_filters_last_padded
// CHECK:         %[[S:.+]] = tensor.extract_slice %{{.+}}[0, 0, 0, 0] [2, 3, 3, 6] [1, 1, 1, 1] : tensor<2x3x3x8xf32> to tensor<2x3x3x6xf32>
// CHECK:         %[[SG:.+]] = tensor.expand_shape %[[S]] {{\[}}[0], [1], [2], [3, 4]] output_shape [2, 3, 3, 2, 3]
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%{{.+}}, %[[SG]] : tensor<1x2x2x9x9xf32>, tensor<2x3x3x2x3xf32>)
func.func @conv_filters_last_padded(%x: tensor<1x4x9x9xf32>, %w: tensor<2x3x3x8xf32>) -> tensor<1x6x3x3xf32> {
  %0 = tessel.conv %x, %w {strides = array<i64: 2, 3>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 1>, group = 2 : i64, filters_last}
      : (tensor<1x4x9x9xf32>, tensor<2x3x3x8xf32>) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

// MaxPool pads with -inf and reduces over a shape-only window operand.
// CHECK-LABEL: func.func @max_pool
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3x7x7xf32>)
// CHECK:         %[[WIN:.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:           tensor.yield %[[NINF]] : f32
// CHECK:         } : tensor<?x3x7x7xf32> to tensor<?x3x9x9xf32>
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x7x7xf32>
// CHECK:         %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x3x4x4xf32>
// CHECK:         %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<?x3x4x4xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME:      ins(%[[P]], %[[WIN]] : tensor<?x3x9x9xf32>, tensor<3x3xf32>) outs(%[[F]] : tensor<?x3x4x4xf32>)
// CHECK:           arith.maximumf
func.func @max_pool(%x: tensor<?x3x7x7xf32>) -> tensor<?x3x4x4xf32> {
  %0 = tessel.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false}
      : (tensor<?x3x7x7xf32>) -> tensor<?x3x4x4xf32>
  return %0 : tensor<?x3x4x4xf32>
}

// -----

// AveragePool with ceil_mode: the end padding grows by one so that the last
// window stays in bounds; the sum is divided by the count of real elements
// in each window (count_include_pad = false: only [0, 7) counts).
// CHECK-LABEL: func.func @average_pool_ceil
// CHECK-SAME:    (%[[X:.+]]: tensor<1x3x7x7xf32>)
// CHECK:         %[[WIN:.+]] = tensor.empty() : tensor<2x2xf32>
// CHECK:         %[[P:.+]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:         } : tensor<1x3x7x7xf32> to tensor<1x3x8x8xf32>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<1x3x4x4xf32>
// CHECK:         %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<1x3x4x4xf32>)
// CHECK:         %[[SUM:.+]] = linalg.generic {{.*}} ins(%[[P]], %[[WIN]] : tensor<1x3x8x8xf32>, tensor<2x2xf32>) outs(%[[F]] : tensor<1x3x4x4xf32>)
// CHECK:           arith.addf
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[SUM]] : tensor<1x3x4x4xf32>) outs(%[[E]] : tensor<1x3x4x4xf32>)
// CHECK:           linalg.index 2 : index
// CHECK:           arith.constant 7 : index
// CHECK:           linalg.index 3 : index
// CHECK:           arith.constant 7 : index
// CHECK:           %[[N:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK:           %[[NF:.+]] = arith.sitofp %[[N]] : i64 to f32
// CHECK:           %[[AVG:.+]] = arith.divf %{{.+}}, %[[NF]] : f32
// CHECK:           linalg.yield %[[AVG]]
func.func @average_pool_ceil(%x: tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32> {
  %0 = tessel.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false}
      : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// count_include_pad = true: the explicit pads count, so the range is [-1, 6).
// CHECK-LABEL: func.func @average_pool_count_include_pad
// CHECK:         tensor.pad %{{.+}} low[0, 0, 1] high[0, 0, 1]
// CHECK:         linalg.generic
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK:           linalg.index 2 : index
// CHECK:           arith.constant -1 : index
// CHECK:           arith.constant 6 : index
// CHECK:           arith.divf
func.func @average_pool_count_include_pad(%x: tensor<2x3x5xf32>) -> tensor<2x3x3xf32> {
  %0 = tessel.average_pool %x {kernel_shape = array<i64: 3>, strides = array<i64: 2>, pads = array<i64: 1, 1>, dilations = array<i64: 1>, ceil_mode = false, count_include_pad = true}
      : (tensor<2x3x5xf32>) -> tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// -----

// GlobalAveragePool: sum into [N, C], then divide by H * W = 49.
// CHECK-LABEL: func.func @global_average_pool
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3x7x7xf32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x7x7xf32>
// CHECK:         %[[SE:.+]] = tensor.empty(%[[D]]) : tensor<?x3xf32>
// CHECK:         %[[SF:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[SE]] : tensor<?x3xf32>)
// CHECK:         %[[SUM:.+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : tensor<?x3x7x7xf32>) outs(%[[SF]] : tensor<?x3xf32>)
// CHECK:           arith.addf
// CHECK:         %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?x3x1x1xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[SUM]] : tensor<?x3xf32>) outs(%[[E]] : tensor<?x3x1x1xf32>)
// CHECK:           %[[N:.+]] = arith.constant 4.900000e+01 : f32
// CHECK:           arith.divf %{{.+}}, %[[N]] : f32
func.func @global_average_pool(%x: tensor<?x3x7x7xf32>) -> tensor<?x3x1x1xf32> {
  %0 = tessel.global_average_pool %x : (tensor<?x3x7x7xf32>) -> tensor<?x3x1x1xf32>
  return %0 : tensor<?x3x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3x4xf32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x4xf32>
// CHECK:         %[[E:.+]] = tensor.empty(%[[D]]) : tensor<4x?x3xf32>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[X]] : tensor<?x3x4xf32>) outs(%[[E]] : tensor<4x?x3xf32>) permutation = [2, 0, 1]
// CHECK:         return %[[T]]
func.func @transpose(%x: tensor<?x3x4xf32>) -> tensor<4x?x3xf32> {
  %0 = tessel.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<?x3x4xf32>) -> tensor<4x?x3xf32>
  return %0 : tensor<4x?x3xf32>
}

// -----

// Concat inserts each input at its running offset along the axis.
// CHECK-LABEL: func.func @concat
// CHECK-SAME:    (%[[A:[^:]+]]: tensor<?x2xf32>, %[[B:[^:]+]]: tensor<?x3xf32>)
// CHECK:         %[[D:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x2xf32>
// CHECK:         %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x7xf32>
// CHECK:         %[[DA:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x2xf32>
// CHECK:         %[[I0:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [%[[DA]], 2] [1, 1] : tensor<?x2xf32> into tensor<?x7xf32>
// CHECK:         %[[DB:.+]] = tensor.dim %[[B]], %{{.+}} : tensor<?x3xf32>
// CHECK:         %[[I1:.+]] = tensor.insert_slice %[[B]] into %[[I0]][0, 2] [%[[DB]], 3] [1, 1] : tensor<?x3xf32> into tensor<?x7xf32>
// CHECK:         %[[I2:.+]] = tensor.insert_slice %[[A]] into %[[I1]][0, 5] [%{{.+}}, 2] [1, 1] : tensor<?x2xf32> into tensor<?x7xf32>
// CHECK:         return %[[I2]]
func.func @concat(%a: tensor<?x2xf32>, %b: tensor<?x3xf32>) -> tensor<?x7xf32> {
  %0 = tessel.concat %a, %b, %a {axis = 1 : i64} : (tensor<?x2xf32>, tensor<?x3xf32>, tensor<?x2xf32>) -> tensor<?x7xf32>
  return %0 : tensor<?x7xf32>
}

// -----

// The one dynamic extent of a reshape is numel(input) / 12.
// CHECK-LABEL: func.func @reshape_dynamic
// CHECK-SAME:    (%[[X:.+]]: tensor<?x3x4xf32>)
// CHECK:         %[[D0:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x4xf32>
// CHECK:         %[[M0:.+]] = arith.muli %{{.+}}, %[[D0]] : index
// CHECK:         %[[M1:.+]] = arith.muli %[[M0]], %{{.+}} : index
// CHECK:         %[[M2:.+]] = arith.muli %[[M1]], %{{.+}} : index
// CHECK:         %[[C12:.+]] = arith.constant 12 : index
// CHECK:         %[[N:.+]] = arith.divui %[[M2]], %[[C12]] : index
// CHECK:         %[[S:.+]] = tensor.from_elements %[[N]], %{{.+}} : tensor<2xindex>
// CHECK:         %[[R:.+]] = tensor.reshape %[[X]](%[[S]]) : (tensor<?x3x4xf32>, tensor<2xindex>) -> tensor<?x12xf32>
// CHECK:         return %[[R]]
func.func @reshape_dynamic(%x: tensor<?x3x4xf32>) -> tensor<?x12xf32> {
  %0 = tessel.reshape %x : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
  return %0 : tensor<?x12xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_static
// CHECK:         %[[S:.+]] = tensor.from_elements %{{.+}}, %{{.+}}, %{{.+}} : tensor<3xindex>
// CHECK:         tensor.reshape %{{.+}}(%[[S]]) : (tensor<2x6xi8>, tensor<3xindex>) -> tensor<3x2x2xi8>
func.func @reshape_static(%x: tensor<2x6xi8>) -> tensor<3x2x2xi8> {
  %0 = tessel.reshape %x : (tensor<2x6xi8>) -> tensor<3x2x2xi8>
  return %0 : tensor<3x2x2xi8>
}

// -----

// Constants become arith constants; identity is its operand.
// CHECK-LABEL: func.func @constant_identity
// CHECK-SAME:    (%[[X:.+]]: tensor<?x4xf32>)
// CHECK:         %[[C:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK:         return %[[C]], %[[X]]
func.func @constant_identity(%x: tensor<?x4xf32>) -> (tensor<2xf32>, tensor<?x4xf32>) {
  %0 = tessel.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = tessel.identity %x : tensor<?x4xf32>
  return %0, %1 : tensor<2xf32>, tensor<?x4xf32>
}

// -----

// Only the batch of a convolution may be dynamic: the lowering sets up its
// window on static spatial dims (a match failure, not a crash).
func.func @conv_dynamic_spatial(%x: tensor<1x3x?x?xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x?xf32> {
  // expected-error @+1 {{failed to legalize operation 'tessel.conv' that was explicitly marked illegal}}
  %0 = tessel.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<1x3x?x?xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x?xf32>
  return %0 : tensor<1x4x?x?xf32>
}

// -----

func.func @max_pool_dynamic_spatial(%x: tensor<?x3x?x8xf32>) -> tensor<?x3x?x4xf32> {
  // expected-error @+1 {{failed to legalize operation 'tessel.max_pool' that was explicitly marked illegal}}
  %0 = tessel.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false}
      : (tensor<?x3x?x8xf32>) -> tensor<?x3x?x4xf32>
  return %0 : tensor<?x3x?x4xf32>
}

// -----

// Along a dynamic axis, each part goes at the sum of the extents before it.
// CHECK-LABEL: func.func @concat_dynamic_axis
// CHECK-SAME:    (%[[A:[^:]+]]: tensor<?x3xf32>, %[[B:[^:]+]]: tensor<4x3xf32>)
// CHECK:         %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?x3xf32>
// CHECK:         %[[DA:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x3xf32>
// CHECK:         %[[I0:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [%[[DA]], 3] [1, 1] : tensor<?x3xf32> into tensor<?x3xf32>
// CHECK:         %[[I1:.+]] = tensor.insert_slice %[[B]] into %[[I0]][%[[DA]], 0] [4, 3] [1, 1] : tensor<4x3xf32> into tensor<?x3xf32>
// CHECK:         return %[[I1]]
func.func @concat_dynamic_axis(%a: tensor<?x3xf32>, %b: tensor<4x3xf32>) -> tensor<?x3xf32> {
  %0 = tessel.concat %a, %b {axis = 0 : i64} : (tensor<?x3xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Sqrt and Erf are math ops in a generic; Erf and Pow on f16 compute in f32
// (the math library and the GPU expansions are f32), then round back.
// CHECK-LABEL: func.func @sqrt_erf_pow
// CHECK:         linalg.generic
// CHECK:           math.sqrt %{{.+}} : f32
// CHECK:         linalg.generic
// CHECK:           %[[W:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:           %[[E:.+]] = math.erf %[[W]] : f32
// CHECK:           arith.truncf %[[E]] : f32 to f16
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           %[[X:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:           %[[Y:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:           %[[P:.+]] = math.powf %[[X]], %[[Y]] : f32
// CHECK:           arith.truncf %[[P]] : f32 to f16
// CHECK-NOT:     tessel.
func.func @sqrt_erf_pow(%x: tensor<?x4xf32>, %h: tensor<2x4xf16>, %e: tensor<4xf16>)
    -> (tensor<?x4xf32>, tensor<2x4xf16>, tensor<2x4xf16>) {
  %0 = tessel.sqrt %x : tensor<?x4xf32>
  %1 = tessel.erf %h : tensor<2x4xf16>
  %2 = tessel.pow %h, %e : (tensor<2x4xf16>, tensor<4xf16>) -> tensor<2x4xf16>
  return %0, %1, %2 : tensor<?x4xf32>, tensor<2x4xf16>, tensor<2x4xf16>
}

// -----

// Comparisons: cmpf ordered for floats, cmpi signed or (is_unsigned)
// unsigned; And/Or/Xor/Not as i1 arithmetic; Where as a select over the
// three-way broadcast.
// CHECK-LABEL: func.func @compare_logic_where
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           arith.cmpf olt, %{{.+}}, %{{.+}} : f32
// CHECK:         linalg.generic
// CHECK:           arith.cmpi ule, %{{.+}}, %{{.+}} : i8
// CHECK:         linalg.generic
// CHECK:           arith.cmpi sge, %{{.+}}, %{{.+}} : i8
// CHECK:         linalg.generic
// CHECK:           arith.xori %{{.+}}, %true : i1
// CHECK:         linalg.generic
// CHECK:           arith.andi %{{.+}}, %{{.+}} : i1
// CHECK:         %[[E:.+]] = tensor.empty(%{{.+}}) : tensor<?x4xf32>
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:           arith.select %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK-NOT:     tessel.
func.func @compare_logic_where(%x: tensor<?x4xf32>, %y: tensor<4xf32>, %a: tensor<3xi8>,
                               %b: tensor<3xi8>, %m: tensor<?x1xi1>, %z: tensor<f32>)
    -> (tensor<3xi1>, tensor<3xi1>, tensor<?x4xf32>) {
  %0 = tessel.less %x, %y : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xi1>
  %1 = tessel.less_or_equal %a, %b {is_unsigned} : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi1>
  %2 = tessel.greater_or_equal %a, %b : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi1>
  %3 = tessel.not %1 : tensor<3xi1>
  %4 = tessel.and %3, %2 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %5 = tessel.where %m, %y, %z : (tensor<?x1xi1>, tensor<4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return %1, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<?x4xf32>
}

// -----

// A reduction: the kept dims (parallel) then the reduced ones, into an
// accumulator of acc_type filled with the identity; then the result, the
// mean divided by the count and converted back, reduced dims extent 1.
// CHECK-LABEL: func.func @reduce_mean_f16
// CHECK-SAME:    (%[[X:[^:]+]]: tensor<?x3x4xf16>)
// CHECK:         %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x4xf16>
// CHECK:         %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<?x4xf32>)
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]] : tensor<?x3x4xf16>) outs(%[[INIT]] : tensor<?x4xf32>)
// CHECK:           %[[W:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:           arith.addf %{{.+}}, %[[W]] : f32
// CHECK:         %[[N:.+]] = arith.sitofp %{{.+}} : i64 to f32
// CHECK:         linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME:      ins(%[[SUM]] : tensor<?x4xf32>) outs(%{{.+}} : tensor<?x1x4xf16>)
// CHECK:           %[[M:.+]] = arith.divf %{{.+}}, %[[N]] : f32
// CHECK:           arith.truncf %[[M]] : f32 to f16
func.func @reduce_mean_f16(%x: tensor<?x3x4xf16>) -> tensor<?x1x4xf16> {
  %0 = tessel.reduce_mean %x {axes = array<i64: 1>, keepdims = true, acc_type = f32} : (tensor<?x3x4xf16>) -> tensor<?x1x4xf16>
  return %0 : tensor<?x1x4xf16>
}

// -----

// Unsigned max starts from 0 and compares unsigned; an integer sum widens
// (extsi) into its i32 accumulator and truncates back.
// CHECK-LABEL: func.func @reduce_max_sum_int
// CHECK:         %[[Z:.+]] = arith.constant 0 : i8
// CHECK:         linalg.fill ins(%[[Z]] : i8)
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK:           arith.maxui
// CHECK:         linalg.generic
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["reduction", "reduction"]
// CHECK:           %[[W:.+]] = arith.extsi %{{.+}} : i8 to i32
// CHECK:           arith.addi %{{.+}}, %[[W]] : i32
// CHECK:         linalg.generic
// CHECK:           arith.trunci %{{.+}} : i32 to i8
func.func @reduce_max_sum_int(%x: tensor<2x3xi8>) -> (tensor<2xi8>, tensor<i8>) {
  %0 = tessel.reduce_max %x {axes = array<i64: 1>, keepdims = false, acc_type = i8, is_unsigned} : (tensor<2x3xi8>) -> tensor<2xi8>
  %1 = tessel.reduce_sum %x {axes = array<i64: 0, 1>, keepdims = false, acc_type = i32} : (tensor<2x3xi8>) -> tensor<i8>
  return %0, %1 : tensor<2xi8>, tensor<i8>
}

// -----

// f16 products are summed in f32 (the default accumulator) and rounded to
// f16 once; an explicit acc_type of the element type keeps the sums in f16.
// CHECK-LABEL: func.func @matmul_f16_accumulates_in_f32
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x4xf16>
// CHECK:         %[[A:.+]] = tensor.empty() : tensor<2x4xf32>
// CHECK:         %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[A]] : tensor<2x4xf32>)
// CHECK:         %[[S:.+]] = linalg.generic {{.+}} ins(%{{.+}}, %{{.+}} : tensor<2x3xf16>, tensor<3x4xf16>) outs(%[[Z]] : tensor<2x4xf32>)
// CHECK:           arith.extf %{{.+}} : f16 to f32
// CHECK:           arith.mulf %{{.+}} : f32
// CHECK:           arith.addf %{{.+}} : f32
// CHECK:         linalg.generic {{.+}} ins(%[[S]] : tensor<2x4xf32>) outs(%[[E]] : tensor<2x4xf16>)
// CHECK:           arith.truncf %{{.+}} : f32 to f16
// CHECK-LABEL: func.func @matmul_f16_explicit_f16
// CHECK:         linalg.generic {{.+}} outs(%{{.+}} : tensor<2x4xf16>)
// CHECK-NOT:     arith.extf
// CHECK-NOT:     arith.truncf
// CHECK:         return
func.func @matmul_f16_accumulates_in_f32(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) -> tensor<2x4xf16> {
  %0 = tessel.matmul %a, %b : (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}
func.func @matmul_f16_explicit_f16(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) -> tensor<2x4xf16> {
  %0 = tessel.matmul %a, %b {acc_type = f16} : (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

// An integer contraction sums i8 x i8 products in its i32 accumulator, the
// operands sign-extended; with input_unsigned (u8 activations) the input
// is zero-extended, the weight still sign-extended. Float contractions
// mark product and sum `contract` (one fused multiply-add).
// CHECK-LABEL: func.func @int8_contractions
// CHECK:         linalg.generic
// CHECK:           %[[A:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK-NEXT:      %[[B:.+]] = arith.extsi %{{.+}} : i8 to i32
// CHECK-NEXT:      %[[P:.+]] = arith.muli %[[A]], %[[B]] : i32
// CHECK-NEXT:      arith.addi %{{.+}}, %[[P]] : i32
// CHECK:         linalg.generic
// CHECK:           %[[SA:.+]] = arith.extsi %{{.+}} : i8 to i32
// CHECK-NEXT:      %[[SB:.+]] = arith.extsi %{{.+}} : i8 to i32
// CHECK-NEXT:      arith.muli %[[SA]], %[[SB]] : i32
// CHECK:         linalg.generic
// CHECK:           arith.extui %{{.+}} : i8 to i32
// CHECK-NEXT:      arith.extsi %{{.+}} : i8 to i32
// CHECK:         linalg.generic
// CHECK:           %[[FP:.+]] = arith.mulf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK-NEXT:      arith.addf %{{.+}}, %[[FP]] fastmath<contract> : f32
func.func @int8_contractions(%x: tensor<4x3xi8>, %w: tensor<3x2xi8>, %i: tensor<1x3x2x2xi8>, %k: tensor<2x3x1x1xi8>, %f: tensor<4x3xf32>, %g: tensor<3x2xf32>)
    -> (tensor<4x2xi32>, tensor<4x2xi32>, tensor<1x2x2x2xi32>, tensor<4x2xf32>) {
  %0 = tessel.matmul %x, %w {acc_type = i32, input_unsigned} : (tensor<4x3xi8>, tensor<3x2xi8>) -> tensor<4x2xi32>
  %1 = tessel.matmul %x, %w {acc_type = i32} : (tensor<4x3xi8>, tensor<3x2xi8>) -> tensor<4x2xi32>
  %2 = tessel.conv %i, %k {acc_type = i32, dilations = array<i64: 1, 1>, group = 1 : i64, input_unsigned, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x3x2x2xi8>, tensor<2x3x1x1xi8>) -> tensor<1x2x2x2xi32>
  %3 = tessel.matmul %f, %g : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %0, %1, %2, %3 : tensor<4x2xi32>, tensor<4x2xi32>, tensor<1x2x2x2xi32>, tensor<4x2xf32>
}
