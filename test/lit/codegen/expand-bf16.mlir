// --tessel-expand-bf16 rewrites f32 <-> bf16 conversions into integer ops
// (the CPU code links no compiler-rt), and leaves other float ops alone.
// RUN: tessel-opt %s --tessel-expand-bf16 | FileCheck %s

// CHECK-LABEL: func.func @convert
// CHECK-NOT:     arith.truncf
// CHECK-NOT:     arith.extf
// CHECK:         arith.bitcast %{{.+}} : f32 to i32
// CHECK:         arith.maximumf
func.func @convert(%x: f32, %y: bf16) -> (bf16, f32, f32) {
  %t = arith.truncf %x : f32 to bf16
  %e = arith.extf %y : bf16 to f32
  %m = arith.maximumf %x, %e : f32
  return %t, %e, %m : bf16, f32, f32
}
