// --tessel-tile-and-vectorize puts a contraction's initializer (a bias
// broadcast, a fill) and its elementwise epilogues into its register tiles:
// the accumulators start from the initializer's vector, the epilogue runs
// on them after the reduction loop, and each tile is stored once. A masked
// partial tile forwards the same way. An epilogue that reads the i32 sums
// of an integer contraction into a buffer of its own leaves their
// temporary unread, and it goes. A per-channel [C, 1] operand read at
// (c, 0) is viewed as [C]. An epilogue that reads the output at another
// place than it writes (a transpose) stays a separate op.
// RUN: tessel-opt %s --split-input-file --tessel-tile-and-vectorize=vector-bits=128 --canonicalize --cse --mlir-print-local-scope | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-tile-and-vectorize="vector-bits=512 int8-dot=true" --canonicalize --cse --mlir-print-local-scope | FileCheck %s --check-prefix=DOT

// CHECK-LABEL: func.func @matmul_bias_relu(
// CHECK-SAME:    %{{[^:]+}}: memref<8x16xf32>, %{{[^:]+}}: memref<16x16xf32>, %[[BIAS:[^:]+]]: memref<16xf32>, %[[C:[^:]+]]: memref<8x16xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for %[[M:.+]] = %{{.+}} to %{{.+}} step %c4
// CHECK:           scf.for %[[N:.+]] = %{{.+}} to %{{.+}} step %c8
// CHECK-DAG:         %[[BT:.+]] = memref.subview %[[BIAS]][%[[N]]] [8] [1]
// CHECK-DAG:         %[[CT:.+]] = memref.subview %[[C]][%[[M]], %[[N]]] [4, 8] [1, 1]
// CHECK:             %[[B:.+]] = vector.transfer_read %[[BT]]
// CHECK:             %[[INIT:.+]] = vector.broadcast %[[B]] : vector<8xf32> to vector<4x8xf32>
// CHECK-NOT:         vector.transfer_read %[[CT]]
// CHECK:             %[[SUM:.+]] = scf.for {{.+}} iter_args(%{{.+}} = %[[INIT]]) -> (vector<4x8xf32>)
// CHECK:               scf.yield
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[RELU:.+]] = arith.maximumf %[[SUM]], %{{.+}} : vector<4x8xf32>
// CHECK-NEXT:        vector.transfer_write %[[RELU]], %[[CT]][%c0, %c0] {in_bounds = [true, true]}
// CHECK-NOT:     vector.transfer_write
// CHECK:         return

func.func @matmul_bias_relu(%a: memref<8x16xf32>, %b: memref<16x16xf32>, %bias: memref<16xf32>, %c: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%bias : memref<16xf32>) outs(%c : memref<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x16xf32>, memref<16x16xf32>) outs(%c : memref<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<8x16xf32>) {
  ^bb0(%o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %o, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @matmul_partial_residual(
// CHECK-SAME:    %[[RES:[^:]+]]: memref<6x10xf32>, %[[C:[^:]+]]: memref<6x10xf32>)
// CHECK-NOT:     linalg.
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<4x8xf32>
// CHECK-DAG:     %[[CT:.+]] = memref.subview %[[C]][0, 0] [4, 8] [1, 1]
// CHECK:         %[[SUM:.+]] = scf.for {{.+}} iter_args(%{{.+}} = %[[ZERO]])
// CHECK:         %[[RT:.+]] = memref.subview %[[RES]][0, 0] [4, 8] [1, 1]
// CHECK:         %[[R:.+]] = vector.transfer_read %[[RT]]
// CHECK:         %[[ADD:.+]] = arith.addf %[[SUM]], %[[R]] : vector<4x8xf32>
// CHECK:         vector.transfer_write %[[ADD]], %[[CT]]
// The partial tile (4 x 2 of 4 x 8 lanes): one masked store.
// CHECK:         %[[CP:.+]] = memref.subview %[[C]][0, 8] [4, 2] [1, 1]
// CHECK:         %[[MASK:.+]] = vector.constant_mask [4, 2] : vector<4x8xi1>
// CHECK:         %[[PSUM:.+]] = scf.for {{.+}} iter_args(%{{.+}} = %[[ZERO]])
// CHECK:         %[[PR:.+]] = vector.transfer_read %{{.+}}, %[[MASK]]
// CHECK:         %[[PADD:.+]] = arith.addf %[[PSUM]], %[[PR]] : vector<4x8xf32>
// CHECK-NOT:     vector.transfer_write
// CHECK:         vector.transfer_write %[[PADD]], %[[CP]][%c0, %c0], %[[MASK]]

func.func @matmul_partial_residual(%a: memref<6x16xf32>, %b: memref<16x10xf32>, %res: memref<6x10xf32>, %c: memref<6x10xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<6x10xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<6x16xf32>, memref<16x10xf32>) outs(%c : memref<6x10xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%res : memref<6x10xf32>) outs(%c : memref<6x10xf32>) {
  ^bb0(%r: f32, %o: f32):
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @requantize(
// CHECK-SAME:    %[[SCALE:[^:]+]]: memref<16x1xf32>, %[[Y:[^:]+]]: memref<8x16xf32>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     linalg.
// CHECK:         %[[S:.+]] = memref.subview %[[SCALE]][0, 0] [16, 1] [1, 1] : memref<16x1xf32> to memref<16xf32, strided<[1]>>
// CHECK:         scf.for %[[M:.+]] = %{{.+}} to %{{.+}} step %c4
// CHECK:           scf.for %[[N:.+]] = %{{.+}} to %{{.+}} step %c8
// CHECK:             %[[SUMS:.+]] = scf.for {{.+}} -> (vector<4x8xi32>)
// CHECK:             %[[ST:.+]] = memref.subview %[[S]][%[[N]]] [8] [1]
// CHECK:             %[[YT:.+]] = memref.subview %[[Y]][%[[M]], %[[N]]] [4, 8] [1, 1]
// CHECK:             %[[F:.+]] = arith.sitofp %[[SUMS]] : vector<4x8xi32> to vector<4x8xf32>
// CHECK:             %[[R:.+]] = arith.mulf %[[F]], %{{.+}} : vector<4x8xf32>
// CHECK:             vector.transfer_write %[[R]], %[[YT]]
// CHECK-NOT:     memref.alloc

func.func @requantize(%a: memref<8x16xi8>, %b: memref<16x16xi8>, %scale: memref<16x1xf32>, %y: memref<8x16xf32>) {
  %c0 = arith.constant 0 : i32
  %sums = memref.alloc() : memref<8x16xi32>
  linalg.fill ins(%c0 : i32) outs(%sums : memref<8x16xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x16xi8>, memref<16x16xi8>) outs(%sums : memref<8x16xi32>) {
  ^bb0(%x: i8, %w: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %we = arith.extsi %w : i8 to i32
    %p = arith.muli %xe, %we : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n, 0)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%sums, %scale : memref<8x16xi32>, memref<16x1xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%s: i32, %k: f32, %o: f32):
    %f = arith.sitofp %s : i32 to f32
    %r = arith.mulf %f, %k : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @transposed_epilogue(
// CHECK:         scf.for
// CHECK:           vector.transfer_write
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]

func.func @transposed_epilogue(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>, %t: memref<16x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (n, m)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<16x16xf32>) outs(%t : memref<16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// With dot-product tiles (vpdpbusd) the sums stay in one 8 x 32 accumulator
// too: it starts at the fill's zeros, and requantization takes it.
// DOT-LABEL: func.func @requantize_dot(
// DOT-SAME:    %[[Y:[^:]+]]: memref<8x32xf32>)
// DOT-NOT:     memref.alloc
// DOT:         %[[ZERO:.+]] = arith.constant dense<0> : vector<8x32xi32>
// DOT:         %[[SUMS:.+]] = scf.for {{.+}} iter_args(%{{.+}} = %[[ZERO]]) -> (vector<8x32xi32>)
// DOT-COUNT-16:  llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// DOT:         }
// DOT:         %[[F:.+]] = arith.sitofp %[[SUMS]] : vector<8x32xi32> to vector<8x32xf32>
// DOT:         vector.transfer_write %{{.+}}, %[[Y]][%c0, %c0]
// DOT-NOT:     vector.transfer_write
// DOT:         return
func.func @requantize_dot(%a: memref<8x8xi8>, %b: memref<8x32xi8>, %scale: memref<32xf32>, %y: memref<8x32xf32>) {
  %c0 = arith.constant 0 : i32
  %sums = memref.alloc() : memref<8x32xi32>
  linalg.fill ins(%c0 : i32) outs(%sums : memref<8x32xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x8xi8>, memref<8x32xi8>) outs(%sums : memref<8x32xi32>) {
  ^bb0(%x: i8, %w: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %we = arith.extsi %w : i8 to i32
    %p = arith.muli %xe, %we : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%sums, %scale : memref<8x32xi32>, memref<32xf32>) outs(%y : memref<8x32xf32>) {
  ^bb0(%s: i32, %k: f32, %o: f32):
    %f = arith.sitofp %s : i32 to f32
    %r = arith.mulf %f, %k : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An epilogue operand in a buffer that may be the output's (an in-place
// result: tessel.aliased_args) keeps the epilogue out of the tiles.
// CHECK-LABEL: func.func @aliased_residual(
// CHECK-SAME:    %[[RES:[^:]+]]: memref<8x16xf32>, %[[C:[^:]+]]: memref<8x16xf32>)
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.transfer_write %{{.+}}, %{{.+}}[%c0, %c0]
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             %[[R:.+]] = memref.subview %[[RES]]
// CHECK:             vector.transfer_read %[[R]][%c0]
// CHECK:             arith.addf
func.func @aliased_residual(%a: memref<8x16xf32>, %b: memref<16x16xf32>, %res: memref<8x16xf32>, %c: memref<8x16xf32>) attributes {tessel.aliased_args = array<i64: 2, 3>} {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x16xf32>, memref<16x16xf32>) outs(%c : memref<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]}
      ins(%res : memref<8x16xf32>) outs(%c : memref<8x16xf32>) {
  ^bb0(%r: f32, %o: f32):
    %s = arith.addf %o, %r : f32
    linalg.yield %s : f32
  }
  return
}
