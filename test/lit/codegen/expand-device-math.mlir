// GPU kernels link no device library: --tessel-map-stages-to-gpu expands
// math.erf into MLIR's f32 polynomial (fma, no call) and math.powf into
// exp(y * log|x|) with C's signs and special cases (ExpandDeviceMath.cpp).
// f64 exp and log are expanded into f64 arithmetic (ExpandDeviceMathF64.cpp;
// the GPU node tests check their values), and with them f64 tanh. An f64
// erf or powf has no expansion: an error at the ONNX node.
// RUN: tessel-opt %s --split-input-file --tessel-map-stages-to-gpu --verify-diagnostics | FileCheck %s

// CHECK-LABEL: gpu.func @erf_s0(
// CHECK-NOT:     math.erf
// CHECK:         math.fma
// CHECK-NOT:     math.erf
// CHECK:         gpu.return
func.func @erf_s0(%arg0: memref<4xf32>, %arg1: memref<4xf32>) attributes {tessel.kernel_of = "erf"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %arg0[%i] : memref<4xf32>
    %e = math.erf %v : f32
    memref.store %e, %arg1[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// |x| is a select (the GPU conversions would make fabs a library call);
// odd = y integral and floor(y / 2) != y / 2.
// CHECK-LABEL: gpu.func @pow_s0(
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG:     %[[NAN:.+]] = arith.constant 0x7FC00000 : f32
// CHECK:         %[[X:.+]] = memref.load %{{.+}}[%{{.+}}] : memref<4xf32>
// CHECK:         %[[Y:.+]] = memref.load %{{.+}}[%{{.+}}] : memref<4xf32>
// CHECK:         %[[NEG:.+]] = arith.cmpf olt, %[[X]], %[[ZERO]] : f32
// CHECK:         %[[MX:.+]] = arith.negf %[[X]] : f32
// CHECK:         %[[ABS:.+]] = arith.select %[[NEG]], %[[MX]], %[[X]] : f32
// CHECK:         %[[LOG:.+]] = math.log %[[ABS]] : f32
// CHECK:         %[[P:.+]] = arith.mulf %[[Y]], %[[LOG]] : f32
// CHECK:         %[[MAG:.+]] = math.exp %[[P]] : f32
// CHECK:         %[[FY:.+]] = math.floor %[[Y]] : f32
// CHECK:         %[[INT:.+]] = arith.cmpf oeq, %[[FY]], %[[Y]] : f32
// CHECK:         %[[H:.+]] = arith.mulf %[[Y]], %[[HALF]] : f32
// CHECK:         %[[FH:.+]] = math.floor %[[H]] : f32
// CHECK:         %[[NE:.+]] = arith.cmpf one, %[[FH]], %[[H]] : f32
// CHECK:         %[[ODD:.+]] = arith.andi %[[INT]], %[[NE]] : i1
// CHECK:         %[[NMAG:.+]] = arith.negf %[[MAG]] : f32
// CHECK:         %[[FLIP:.+]] = arith.andi %[[NEG]], %[[ODD]] : i1
// CHECK:         %[[R1:.+]] = arith.select %[[FLIP]], %[[NMAG]], %[[MAG]] : f32
// CHECK:         %[[FRAC:.+]] = arith.xori %[[INT]], %{{.+}} : i1
// CHECK:         %[[BAD:.+]] = arith.andi %[[NEG]], %[[FRAC]] : i1
// CHECK:         %[[R2:.+]] = arith.select %[[BAD]], %[[NAN]], %[[R1]] : f32
// CHECK-DAG:     %[[Y0:.+]] = arith.cmpf oeq, %[[Y]], %[[ZERO]] : f32
// CHECK-DAG:     %[[X1:.+]] = arith.cmpf oeq, %[[X]], %[[ONE]] : f32
// CHECK:         %[[UNIT:.+]] = arith.ori %{{.+}}, %{{.+}} : i1
// CHECK:         %[[R:.+]] = arith.select %[[UNIT]], %[[ONE]], %[[R2]] : f32
// CHECK:         memref.store %[[R]]
// CHECK-NOT:     math.powf
func.func @pow_s0(%arg0: memref<4xf32>, %arg1: memref<4xf32>, %arg2: memref<4xf32>) attributes {tessel.kernel_of = "pow"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %x = memref.load %arg0[%i] : memref<4xf32>
    %y = memref.load %arg1[%i] : memref<4xf32>
    %p = math.powf %x, %y : f32
    memref.store %p, %arg2[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

func.func @erf64_s0(%arg0: memref<4xf64>, %arg1: memref<4xf64>) attributes {tessel.kernel_of = "erf64"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %arg0[%i] : memref<4xf64>
    // expected-error @+1 {{'math.erf' on 'f64' has no GPU expansion (GPU kernels link no device library, and this op has no expansion for this type)}}
    %e = math.erf %v : f64
    memref.store %e, %arg1[%i] : memref<4xf64>
    scf.reduce
  }
  return
}

// -----

// f64 exp: k = floor(x log2(e) + 1/2) on x clamped to [-746, 710], r = x - k
// ln 2 in two fma (Cody-Waite), a degree-13 polynomial (14 coefficients in
// Horner: 13 fma), 2^k as two powers of two from exponent bits; then 0, +inf and
// NaN. f64 log: the exponent and mantissa from the bits, 2 atanh(s) as an
// odd series (11 coefficients, 10 fma), e ln 2 in two fma; then -inf, +inf and NaN.
// CHECK-LABEL: gpu.func @exp64_s0(
// CHECK:         %[[X:.+]] = memref.load %{{.+}} : memref<4xf64>
// CHECK:         %[[KF:.+]] = math.floor %{{.+}} : f64
// CHECK-COUNT-2: math.fma %[[KF]]
// CHECK-COUNT-13: math.fma
// CHECK:         %[[K:.+]] = arith.fptosi %[[KF]] : f64 to i64
// CHECK:         arith.shli %{{.+}}, %c52_i64 : i64
// CHECK:         arith.shli %{{.+}}, %c52_i64 : i64
// CHECK:         %[[UNO:.+]] = arith.cmpf uno, %[[X]], %[[X]] : f64
// CHECK:         %[[E:.+]] = arith.select %[[UNO]], %[[X]], %{{.+}} : f64
// CHECK:         %[[BITS:.+]] = arith.bitcast %{{.+}} : f64 to i64
// CHECK:         arith.shrui %[[BITS]], %c52_i64 : i64
// CHECK:         %[[S:.+]] = arith.divf
// CHECK:         %[[S2:.+]] = arith.mulf %[[S]], %[[S]] : f64
// CHECK-COUNT-10: math.fma %{{.+}}, %[[S2]]
// CHECK:         arith.cmpf ult, %[[E]]
// CHECK:         memref.store
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.log
// CHECK:         gpu.return
func.func @exp64_s0(%arg0: memref<4xf64>, %arg1: memref<4xf64>) attributes {tessel.kernel_of = "exp64"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %arg0[%i] : memref<4xf64>
    %e = math.exp %v : f64
    %l = math.log %e : f64
    memref.store %l, %arg1[%i] : memref<4xf64>
    scf.reduce
  }
  return
}

// -----

// tanh: a = |x| (a bit mask); below 0.4 a times the Maclaurin polynomial in
// a^2 (7 coefficients for f32: 6 fma); above, 1 - 2 / (exp(2a) + 1); the
// sign of x copied back with bit operations.
// CHECK-LABEL: gpu.func @tanh32_s0(
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[CUT:.+]] = arith.constant 4.000000e-01 : f32
// CHECK:         %[[X:.+]] = memref.load %{{.+}} : memref<4xf32>
// CHECK:         %[[A:.+]] = arith.bitcast %{{.+}} : i32 to f32
// CHECK:         %[[A2:.+]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-COUNT-6: math.fma {{.+}}, %[[A2]], {{.+}} : f32
// CHECK:         %[[SMALL:.+]] = arith.mulf %[[A]], %{{.+}} : f32
// CHECK:         %[[TWOA:.+]] = arith.addf %[[A]], %[[A]] : f32
// CHECK:         %[[E:.+]] = math.exp %[[TWOA]] : f32
// CHECK:         %[[E1:.+]] = arith.addf %[[E]], %[[ONE]] : f32
// CHECK:         %[[Q:.+]] = arith.divf %[[TWO]], %[[E1]] : f32
// CHECK:         %[[LARGE:.+]] = arith.subf %[[ONE]], %[[Q]] : f32
// CHECK:         %[[LT:.+]] = arith.cmpf olt, %[[A]], %[[CUT]] : f32
// CHECK:         %[[T:.+]] = arith.select %[[LT]], %[[SMALL]], %[[LARGE]] : f32
// CHECK:         arith.bitcast %[[X]] : f32 to i32
// CHECK-NOT:     math.tanh
// CHECK:         gpu.return
func.func @tanh32_s0(%arg0: memref<4xf32>, %arg1: memref<4xf32>) attributes {tessel.kernel_of = "tanh32"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %arg0[%i] : memref<4xf32>
    %t = math.tanh %v : f32
    memref.store %t, %arg1[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// f64 round (half away from zero) and round-half-even: MLIR expands
// roundeven into round and arithmetic; round of f64 (MLIR's expansion is
// f32 only) becomes floor(|x|), one more where |x| - floor(|x|) >= 1/2 (exact,
// so 0.49999999999999994 stays 0), and x's sign. No math.round or
// math.roundeven reaches the vendor conversions (NVVM has no f64 round).
// CHECK-LABEL: gpu.func @round64_s0(
// CHECK-NOT:     math.round
// CHECK:         math.floor %{{.+}} : f64
// CHECK:         arith.cmpf oge, %{{.+}}, %cst{{.*}} : f64
// CHECK-NOT:     math.round
// CHECK:         gpu.return
func.func @round64_s0(%arg0: memref<4xf64>, %arg1: memref<4xf64>, %arg2: memref<4xf64>) attributes {tessel.kernel_of = "round64"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %arg0[%i] : memref<4xf64>
    %r = math.round %v : f64
    %e = math.roundeven %v : f64
    memref.store %r, %arg1[%i] : memref<4xf64>
    memref.store %e, %arg2[%i] : memref<4xf64>
    scf.reduce
  }
  return
}
