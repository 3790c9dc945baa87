// --tessel-form-workgroup-groups on linalg on tensors: which ops one
// workgroup computes together (tessel.workgroup_group, the same id on every
// op of a group), the loops of the group's root a target may split
// (tessel.workgroup_loops), and the bytes of the group's workgroup
// temporaries per unit tile (tessel.workgroup_temp_bytes).
// RUN: tessel-opt %s --split-input-file --tessel-form-workgroup-groups --mlir-print-local-scope | FileCheck %s

// A Relu of a MatMul's result, used by nothing else, updates it in place
// (its destination becomes the MatMul's result): the fill, the MatMul and
// the Relu are one group on one buffer, with no temporary.
// CHECK-LABEL: func.func @epilogue(
// CHECK:         %[[F:.+]] = linalg.fill {tessel.workgroup_group = 0 : i64}
// CHECK:         %[[P:.+]] = linalg.generic {{.+}} outs(%[[F]] : tensor<8x16xf32>) attrs =  {tessel.workgroup_group = 0 : i64}
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[P]] : tensor<8x16xf32>)
// CHECK-SAME:      tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0, 1>, tessel.workgroup_temp_bytes = 0 : i64
// CHECK-NEXT:    ^bb0(%[[OUT:.+]]: f32):
// CHECK-NEXT:      arith.maximumf %[[OUT]]
#ma = affine_map<(m, n, k) -> (m, k)>
#mb = affine_map<(m, n, k) -> (k, n)>
#mc = affine_map<(m, n, k) -> (m, n)>
#mn = affine_map<(m, n) -> (m, n)>
func.func @epilogue(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %p = linalg.generic {indexing_maps = [#ma, #mb, #mc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#mn, #mn], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// A row sum and the division by it: the sum reads whole rows, so only the
// rows may be split (loop 1 of the division is read by the sum as its
// reduction). The sum is a temporary of the workgroup: 4 bytes a row.
// CHECK-LABEL: func.func @normalize(
// CHECK:         linalg.fill {tessel.workgroup_group = 0 : i64}
// CHECK:         linalg.generic {{.+}} attrs =  {tessel.workgroup_group = 0 : i64}
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0>, tessel.workgroup_temp_bytes = 4 : i64
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

// -----

// A value the kernel also returns is not fused into its reader: it roots
// a group of its own (the later op first: group 0).
// CHECK-LABEL: func.func @shared(
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_group = 1 : i64, tessel.workgroup_loops = array<i64: 0>
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0>
#v = affine_map<(i) -> (i)>
func.func @shared(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<64xf32>
  %b = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %n = math.exp %v : f32
    linalg.yield %n : f32
  } -> tensor<64xf32>
  return %a, %b : tensor<64xf32>, tensor<64xf32>
}

// -----

// A window read (a convolution's input) would make neighbouring
// workgroups compute the same producer elements: the producer stays a
// group of its own.
// CHECK-LABEL: func.func @window(
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_group = 1 : i64
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_group = 0 : i64
#x = affine_map<(o, k) -> (o + k)>
#w = affine_map<(o, k) -> (k)>
#y = affine_map<(o, k) -> (o)>
#v = affine_map<(i) -> (i)>
func.func @window(%x: tensor<10xf32>, %w: tensor<3xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<10xf32>
  %r = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%x : tensor<10xf32>) outs(%e : tensor<10xf32>) {
  ^bb0(%v: f32, %out: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<10xf32>
  %c = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "reduction"]}
      ins(%r, %w : tensor<10xf32>, tensor<3xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// A temporary of run-time length is fused when the loops it follows can
// be split: a target must split the run-time loop 1 (4 bytes per unit
// tile).
// CHECK-LABEL: func.func @dynamic_row(
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_group = 0 : i64}
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0, 1>, tessel.workgroup_temp_bytes = 4 : i64
#in2 = affine_map<(r, c) -> (r, c)>
func.func @dynamic_row(%x: tensor<32x?xf32>, %o: tensor<32x?xf32>) -> tensor<32x?xf32> {
  %e = linalg.generic {indexing_maps = [#in2, #in2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x?xf32>) outs(%o : tensor<32x?xf32>) {
  ^bb0(%v: f32, %out: f32):
    %n = math.exp %v : f32
    linalg.yield %n : f32
  } -> tensor<32x?xf32>
  %d = linalg.generic {indexing_maps = [#in2, #in2, #in2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %e : tensor<32x?xf32>, tensor<32x?xf32>) outs(%o : tensor<32x?xf32>) {
  ^bb0(%v: f32, %t: f32, %out: f32):
    %q = arith.divf %v, %t : f32
    linalg.yield %q : f32
  } -> tensor<32x?xf32>
  return %d : tensor<32x?xf32>
}

// -----

// A pad by a constant becomes a fill of the padded tensor and a copy into
// its interior, two groups a target can split.
// CHECK-LABEL: func.func @pad(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x6xf32>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<6x10xf32>
// CHECK:         %[[F:.+]] = linalg.fill {tessel.workgroup_group = 1 : i64, tessel.workgroup_loops = array<i64: 0, 1>, tessel.workgroup_temp_bytes = 0 : i64} ins(%{{.+}} : f32) outs(%[[E]] : tensor<6x10xf32>)
// CHECK:         %[[S:.+]] = tensor.extract_slice %[[F]][1, 2] [4, 6] [1, 1]
// CHECK:         %[[C:.+]] = linalg.copy {tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0, 1>, tessel.workgroup_temp_bytes = 0 : i64} ins(%[[X]] : tensor<4x6xf32>) outs(%[[S]] : tensor<4x6xf32>)
// CHECK:         tensor.insert_slice %[[C]] into %[[F]][1, 2] [4, 6] [1, 1]
// CHECK-NOT:     tensor.pad
func.func @pad(%x: tensor<4x6xf32>) -> tensor<6x10xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 2] high[1, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<4x6xf32> to tensor<6x10xf32>
  return %p : tensor<6x10xf32>
}

// -----

// A pad read by a window whose channels are a parallel loop (a depthwise
// Conv) joins its reader's group: each workgroup pads its own tile. Per
// unit tile a window of 3 rows and 3 columns: 9 elements, 36 bytes.
// CHECK-LABEL: func.func @pad_depthwise(
// CHECK:         tensor.pad
// CHECK:         } {tessel.workgroup_group = 0 : i64}
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     linalg.copy
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_group = 0 : i64, tessel.workgroup_loops = array<i64: 0, 1, 2, 3>, tessel.workgroup_temp_bytes = 36 : i64
#dwx = affine_map<(n, c, h, w, kh, kw) -> (n, c, h + kh, w + kw)>
#dww = affine_map<(n, c, h, w, kh, kw) -> (kh, kw, c)>
#dwy = affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>
func.func @pad_depthwise(%x: tensor<1x8x6x6xf32>, %w: tensor<3x3x8xf32>, %init: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
  %c = linalg.generic {indexing_maps = [#dwx, #dww, #dwy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %w : tensor<1x8x8x8xf32>, tensor<3x3x8xf32>) outs(%init : tensor<1x8x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x6x6xf32>
  return %c : tensor<1x8x6x6xf32>
}

// -----

// A strided window (a pooling of 3 at stride 2): T output rows read
// 2 * (T - 1) + 3 rows, at most 3 per unit tile; 9 elements, 36 bytes.
// CHECK-LABEL: func.func @pad_strided_window(
// CHECK:         } {tessel.workgroup_group = 0 : i64}
// CHECK:         tessel.workgroup_temp_bytes = 36 : i64
#px = affine_map<(n, c, h, w, kh, kw) -> (n, c, h * 2 + kh, w * 2 + kw)>
#pk = affine_map<(n, c, h, w, kh, kw) -> (kh, kw)>
#py = affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>
func.func @pad_strided_window(%x: tensor<1x8x7x7xf32>, %k: tensor<3x3xf32>, %init: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %low = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %l: index, %m: index):
    tensor.yield %low : f32
  } : tensor<1x8x7x7xf32> to tensor<1x8x9x9xf32>
  %r = linalg.generic {indexing_maps = [#px, #pk, #py], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%p, %k : tensor<1x8x9x9xf32>, tensor<3x3xf32>) outs(%init : tensor<1x8x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// -----

// A Conv sums its input channels: every workgroup would copy all of them,
// so the pad stays out of the group (a fill and a copy of their own).
// CHECK-LABEL: func.func @pad_summed_channels(
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.fill {tessel.workgroup_group = 2 : i64
// CHECK:         linalg.copy {tessel.workgroup_group = 1 : i64
// CHECK:         linalg.generic
// CHECK-SAME:      tessel.workgroup_group = 0 : i64
#cx = affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>
#cw = affine_map<(n, f, h, w, c, kh, kw) -> (c, kh, kw, f)>
#cy = affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>
func.func @pad_summed_channels(%x: tensor<1x8x6x6xf32>, %w: tensor<8x3x3x4xf32>, %init: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
  %c = linalg.generic {indexing_maps = [#cx, #cw, #cy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%p, %w : tensor<1x8x8x8xf32>, tensor<8x3x3x4xf32>) outs(%init : tensor<1x4x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x6x6xf32>
  return %c : tensor<1x4x6x6xf32>
}
