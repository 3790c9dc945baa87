// --tessel-tile-and-vectorize with the x86 dot products (int8-dot: vpdpbusd,
// bf16-dot: vdpbf16ps): a MatMul-like register tile whose sums are
// u8 x i8 -> i32 or bf16 x bf16 -> f32 steps its reduction by groups (4
// bytes, 2 bf16). Per row, the group of the row operand (4 contiguous
// bytes) is broadcast as one i32 lane; the group's rows of the vector
// operand are interleaved (vector.interleave) so that each 32-bit lane holds
// one column's group; one intrinsic call per row and vector, each output
// vector an accumulator of its own across the reduction. Partial tiles of
// static extents read their vectors masked; a last partial group (K = 10:
// 8 + 2) runs one step at a time as an ordinary tile (no intrinsic). A Conv
// with kernel rows of 4 taps (Quantize widens 3x3 ones) takes the input as
// the rows (the group: 4 taps of one row, contiguous) and filters-last
// weights as the vectors, the outputs along the channels; inside another
// reduction (the kernel's rows) a group that does not divide its extent
// (bf16 3 taps) keeps an ordinary tile. Other bodies (i8 x i8, f32) and a
// target without the instruction keep ordinary tiles.
// RUN: tessel-opt %s --split-input-file --tessel-tile-and-vectorize="vector-bits=512 int8-dot=true bf16-dot=true" --canonicalize --cse --mlir-print-local-scope | FileCheck %s
// RUN: tessel-opt %s --split-input-file --tessel-tile-and-vectorize="vector-bits=256 int8-dot=true bf16-dot=true" --canonicalize --cse | FileCheck %s --check-prefix=V256
// RUN: tessel-opt %s --split-input-file --tessel-tile-and-vectorize="vector-bits=512" --canonicalize --cse | FileCheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @u8_i8(
// CHECK:         scf.for %[[K:.+]] = %c0 to %c8 step %c4 iter_args(
// CHECK-COUNT-3:   vector.interleave
// CHECK:           vector.broadcast %{{.+}} : vector<1xi32> to vector<16xi32>
// CHECK-COUNT-16:  llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.+}}, %{{.+}}, %{{.+}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// CHECK:           scf.yield
// The last two k, one at a time, widened multiply-adds:
// CHECK:         arith.extui %{{.+}} : vector<8x32xi8> to vector<8x32xi32>
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         return
// V256-LABEL: func.func @u8_i8(
// V256-COUNT-8: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.256"
// NONE-LABEL: func.func @u8_i8(
// NONE-NOT:     llvm.call_intrinsic
func.func @u8_i8(%a: memref<8x10xi8>, %b: memref<10x32xi8>, %c: memref<8x32xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x10xi8>, memref<10x32xi8>) outs(%c : memref<8x32xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// CHECK-LABEL: func.func @bf16(
// CHECK:         scf.for %{{.+}} = %c0 to %c16 step %c2 iter_args(
// CHECK:           vector.interleave %{{.+}}, %{{.+}} : vector<32xi16> -> vector<64xi16>
// CHECK-COUNT-16:  llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"(%{{.+}}, %{{.+}}, %{{.+}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// NONE-LABEL: func.func @bf16(
// NONE-NOT:     llvm.call_intrinsic
func.func @bf16(%a: memref<8x16xbf16>, %b: memref<16x32xbf16>, %c: memref<8x32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x16xbf16>, memref<16x32xbf16>) outs(%c : memref<8x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye fastmath<contract> : f32
    %s = arith.addf %acc, %p fastmath<contract> : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Signed i8 x i8 has no vpdpbusd form (its first operand is unsigned).
// CHECK-LABEL: func.func @i8_i8(
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         return
func.func @i8_i8(%a: memref<8x8xi8>, %b: memref<8x32xi8>, %c: memref<8x32xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x8xi8>, memref<8x32xi8>) outs(%c : memref<8x32xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// A 1x1 Conv with filters-first weights: the weights (input 1, signed) are
// the rows, the pixels of the u8 input the vectors (vpdpbusd's unsigned
// operand: the interleaved pixels come first). Its unit kh, kw loops stay
// at 0. W = 40: a full tile of 32 pixels, then a partial one of 8 whose
// pixel rows are read masked (transfer_read, padding 0) and which has one
// output vector, bounded too.
// CHECK-LABEL: func.func @conv1x1(
// CHECK-COUNT-16: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:         vector.transfer_read %{{.+}}, %c0_i8 : memref<1x4x1x8xi8, {{.+}}>, vector<32xi8>
// CHECK-COUNT-8:  llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         return
func.func @conv1x1(%x: memref<1x8x2x40xi8>, %w: memref<16x8x1x1xi8>, %y: memref<1x16x2x40xi32>) {
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>, affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>, affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x8x2x40xi8>, memref<16x8x1x1xi8>) outs(%y : memref<1x16x2x40xi32>) {
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %ae = arith.extui %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// CHECK-LABEL: func.func @conv3x3_taps4(
// CHECK:         vector.transfer_read %{{.+}} : memref<16xi32, strided<[16], offset: ?>>, vector<16xi32>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-COUNT-3:     vector.interleave
// CHECK-COUNT-8:     llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK:         vector.transfer_write %{{.+}} : vector<16xi32>, memref<16xi32, strided<[16], offset: ?>>
// NONE-LABEL: func.func @conv3x3_taps4(
// NONE-NOT:     llvm.call_intrinsic
func.func @conv3x3_taps4(%x: memref<1x8x6x7xi8>, %w: memref<8x3x4x32xi8>, %y: memref<1x32x4x4xi32>) {
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>, affine_map<(n, f, oh, ow, c, kh, kw) -> (c, kh, kw, f)>, affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x8x6x7xi8>, memref<8x3x4x32xi8>) outs(%y : memref<1x32x4x4xi32>) {
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %ae = arith.extui %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// Three taps in pairs would leave a partial pair inside the kernel-row loop.
// CHECK-LABEL: func.func @conv3x3_bf16_taps3(
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         return
func.func @conv3x3_bf16_taps3(%x: memref<1x1x6x6xbf16>, %w: memref<1x3x3x16xbf16>, %y: memref<1x16x4x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>, affine_map<(n, f, oh, ow, c, kh, kw) -> (c, kh, kw, f)>, affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x1x6x6xbf16>, memref<1x3x3x16xbf16>) outs(%y : memref<1x16x4x4xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A sequence-first activation [S, B, K] with a run-time B: its rows are a
// run-time stride apart, and only the group's dim (K) and the vectors' and
// outputs' dims need static strides.
// CHECK-LABEL: func.func @seq_first(
// CHECK:         scf.for %{{.+}} = %c0 to %c64 step %c4 iter_args(
// CHECK-COUNT-16:  llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
func.func @seq_first(%a: memref<8x?x64xi8>, %b: memref<64x32xi8>, %y: memref<8x?x32xi32>) {
  linalg.generic {indexing_maps = [affine_map<(s, t, n, k) -> (s, t, k)>, affine_map<(s, t, n, k) -> (k, n)>, affine_map<(s, t, n, k) -> (s, t, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x?x64xi8>, memref<64x32xi8>) outs(%y : memref<8x?x32xi32>) {
  ^bb0(%x: i8, %w: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %we = arith.extsi %w : i8 to i32
    %p = arith.muli %xe, %we : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
