// --tessel-spirv-exact-f64 marks f64 float arithmetic (scalars and vectors,
// GL Fma included) no_contraction, which the serializer writes as
// OpDecorate NoContraction; f32 is left to the driver.
// RUN: tessel-opt %s --pass-pipeline='builtin.module(spirv.module(tessel-spirv-exact-f64))' | FileCheck %s

// CHECK-LABEL: spirv.func @f(
// CHECK:         spirv.GL.Fma {{.+}} {no_contraction} : f64
// CHECK:         spirv.FMul {{.+}} {no_contraction} : f64
// CHECK:         spirv.FAdd {{.+}} {no_contraction} : f64
// CHECK:         spirv.FMul %{{[^ ]+}}, %{{[^ ]+}} : f32
// CHECK:         spirv.FSub {{.+}} {no_contraction} : vector<2xf64>
// CHECK:         spirv.FNegate {{.+}} {no_contraction} : f64
// CHECK:         spirv.IAdd %{{[^ ]+}}, %{{[^ ]+}} : i32
spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Float64], []> {
  spirv.func @f(%a: f64, %b: f64, %c: f32, %v: vector<2xf64>, %i: i32) -> f64 "None" {
    %0 = spirv.GL.Fma %a, %b, %a : f64
    %1 = spirv.FMul %0, %b : f64
    %2 = spirv.FAdd %1, %a : f64
    %3 = spirv.FMul %c, %c : f32
    %4 = spirv.FSub %v, %v : vector<2xf64>
    %5 = spirv.FNegate %2 : f64
    %6 = spirv.IAdd %i, %i : i32
    spirv.ReturnValue %5 : f64
  }
}
