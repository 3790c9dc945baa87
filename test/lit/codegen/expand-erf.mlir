// --tessel-expand-erf: f32 erf (scalar or vector) becomes MLIR's polynomial
// approximation in arith (and fma), so that CPU loops over it vectorize; an
// f64 erf keeps its libm call.
// RUN: tessel-opt %s --tessel-expand-erf | FileCheck %s

// CHECK-LABEL: func.func @scalar
// CHECK-NOT:     math.erf
// CHECK:         math.fma
// CHECK:         return
func.func @scalar(%x: f32) -> f32 {
  %0 = math.erf %x : f32
  return %0 : f32
}

// CHECK-LABEL: func.func @vector
// CHECK-NOT:     math.erf
// CHECK:         math.fma {{.+}} : vector<8xf32>
// CHECK:         return
func.func @vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.erf %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// CHECK-LABEL: func.func @double
// CHECK:         math.erf %{{.+}} : f64
func.func @double(%x: f64) -> f64 {
  %0 = math.erf %x : f64
  return %0 : f64
}
