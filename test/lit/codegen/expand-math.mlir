// --tessel-expand-math: f32 erf and exp (scalar or vector) become MLIR's
// polynomial approximations in arith (and fma), so that CPU loops over them
// vectorize; exp keeps its special cases (NaN, overflow to +inf, 0 below
// FLT_MIN) in selects around the approximation; f64 keeps its libm call.
// RUN: tessel-opt %s --tessel-expand-math | FileCheck %s

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

// CHECK-LABEL: func.func @exp_vector(
// CHECK-SAME:    %[[X:[^:]+]]: vector<8xf32>
// CHECK-DAG:     %[[INF:.+]] = arith.constant dense<0x7F800000> : vector<8xf32>
// CHECK-DAG:     %[[HI:.+]] = arith.constant dense<88.722839{{[0-9]*}}> : vector<8xf32>
// CHECK-DAG:     %[[LO:.+]] = arith.constant dense<-87.33654{{[0-9]*}}> : vector<8xf32>
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-NOT:     math.exp
// CHECK:         arith.mulf
// CHECK:         %[[UNDER:.+]] = arith.cmpf olt, %[[X]], %[[LO]]
// CHECK:         %[[R0:.+]] = arith.select %[[UNDER]], %[[ZERO]], %{{[^ ]+}} :
// CHECK:         %[[OVER:.+]] = arith.cmpf ogt, %[[X]], %[[HI]]
// CHECK:         %[[R1:.+]] = arith.select %[[OVER]], %[[INF]], %[[R0]]
// CHECK:         %[[NAN:.+]] = arith.cmpf uno, %[[X]], %[[X]]
// CHECK:         %[[R2:.+]] = arith.select %[[NAN]], %[[X]], %[[R1]]
// CHECK:         return %[[R2]]
func.func @exp_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// CHECK-LABEL: func.func @exp_double
// CHECK:         math.exp %{{.+}} : f64
// CHECK-NOT:     arith.select
func.func @exp_double(%x: f64) -> f64 {
  %0 = math.exp %x : f64
  return %0 : f64
}
