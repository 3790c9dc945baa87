// --tessel-gpu-math-to-intrinsics maps the f32 LLVM math intrinsics to the
// vendor's own (no device library is linked): exp2, sqrt and floor directly,
// exp as exp2(x * log2(e)); of f64, sqrt and floor. Other types are left
// alone; an unknown vendor is an error.
// RUN: tessel-opt %s --split-input-file --tessel-gpu-math-to-intrinsics=vendor=nvidia | FileCheck %s --check-prefixes=CHECK,NV
// RUN: tessel-opt %s --split-input-file --tessel-gpu-math-to-intrinsics=vendor=amd | FileCheck %s --check-prefixes=CHECK,AMD
// The default vendor is nvidia.
// RUN: tessel-opt %s --split-input-file --tessel-gpu-math-to-intrinsics | FileCheck %s --check-prefixes=CHECK,NV
// RUN: not tessel-opt %s --split-input-file --tessel-gpu-math-to-intrinsics=vendor=intel 2>&1 | FileCheck %s --check-prefix=VENDOR

// VENDOR: error: unknown GPU vendor 'intel'

// CHECK-LABEL: llvm.func @f32_math(
// CHECK-SAME:    %[[X:[^:]+]]: f32)
// CHECK:         %[[LOG2E:.+]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK:         %[[SCALED:.+]] = llvm.fmul %[[X]], %[[LOG2E]] : f32
// NV:            %[[E:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[SCALED]]) : (f32) -> f32
// NV:            %[[E2:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[E]]) : (f32) -> f32
// NV:            %[[S:.+]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.f"(%[[E2]]) : (f32) -> f32
// NV:            %[[F:.+]] = llvm.call_intrinsic "llvm.nvvm.floor.f"(%[[S]]) : (f32) -> f32
// AMD:           %[[E:.+]] = llvm.call_intrinsic "llvm.amdgcn.exp2"(%[[SCALED]]) : (f32) -> f32
// AMD:           %[[E2:.+]] = llvm.call_intrinsic "llvm.amdgcn.exp2"(%[[E]]) : (f32) -> f32
// AMD:           %[[S:.+]] = llvm.call_intrinsic "llvm.amdgcn.sqrt"(%[[E2]]) : (f32) -> f32
// AMD:           %[[F:.+]] = llvm.call_intrinsic "llvm.floor"(%[[S]]) : (f32) -> f32
// CHECK:         llvm.return %[[F]] : f32
// CHECK-NOT:     llvm.intr.
// CHECK:       }
llvm.func @f32_math(%x: f32) -> f32 {
  %0 = llvm.intr.exp(%x) : (f32) -> f32
  %1 = llvm.intr.exp2(%0) : (f32) -> f32
  %2 = llvm.intr.sqrt(%1) : (f32) -> f32
  %3 = llvm.intr.floor(%2) : (f32) -> f32
  llvm.return %3 : f32
}

// -----

// f64 sqrt and floor map to the vendor's f64 instructions; f64 exp and exp2
// (expanded before this pass runs) and vectors have no mapping and stay.
// CHECK-LABEL: llvm.func @f64_math(
// CHECK-SAME:    %[[Y:[^:]+]]: f64)
// CHECK-NEXT:    %[[A:.+]] = llvm.intr.exp(%[[Y]]) : (f64) -> f64
// CHECK-NEXT:    %[[B:.+]] = llvm.intr.exp2(%[[A]]) : (f64) -> f64
// NV-NEXT:       %[[C:.+]] = llvm.call_intrinsic "llvm.nvvm.sqrt.rn.d"(%[[B]]) : (f64) -> f64
// NV-NEXT:       %[[D:.+]] = llvm.call_intrinsic "llvm.nvvm.floor.d"(%[[C]]) : (f64) -> f64
// AMD-NEXT:      %[[C:.+]] = llvm.call_intrinsic "llvm.sqrt"(%[[B]]) : (f64) -> f64
// AMD-NEXT:      %[[D:.+]] = llvm.call_intrinsic "llvm.floor"(%[[C]]) : (f64) -> f64
// CHECK-NEXT:    llvm.return %[[D]] : f64
// CHECK-NOT:     llvm.fmul
llvm.func @f64_math(%y: f64) -> f64 {
  %0 = llvm.intr.exp(%y) : (f64) -> f64
  %1 = llvm.intr.exp2(%0) : (f64) -> f64
  %2 = llvm.intr.sqrt(%1) : (f64) -> f64
  %3 = llvm.intr.floor(%2) : (f64) -> f64
  llvm.return %3 : f64
}

// CHECK-LABEL: llvm.func @vector_math(
// CHECK-NEXT:    llvm.intr.sqrt(%{{.+}}) : (vector<2xf32>) -> vector<2xf32>
llvm.func @vector_math(%v: vector<2xf32>) -> vector<2xf32> {
  %0 = llvm.intr.sqrt(%v) : (vector<2xf32>) -> vector<2xf32>
  llvm.return %0 : vector<2xf32>
}

// -----

// Inside a gpu.module (where the GPU pipeline runs it), other intrinsics
// are untouched.
// CHECK-LABEL: gpu.module @tessel_kernels
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME:    %[[X:[^:]+]]: f32)
// CHECK-DAG:     %[[M:.+]] = llvm.intr.maxnum(%[[X]], %[[X]]) : (f32, f32) -> f32
// CHECK-DAG:     %[[LOG2E:.+]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK:         %[[SCALED:.+]] = llvm.fmul %[[M]], %[[LOG2E]] : f32
// NV:            llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[SCALED]])
// AMD:           llvm.call_intrinsic "llvm.amdgcn.exp2"(%[[SCALED]])
// CHECK-NOT:     llvm.intr.exp
module attributes {gpu.container_module} {
  gpu.module @tessel_kernels {
    llvm.func @k(%x: f32) -> f32 {
      %m = llvm.intr.maxnum(%x, %x) : (f32, f32) -> f32
      %e = llvm.intr.exp(%m) : (f32) -> f32
      llvm.return %e : f32
    }
  }
}

// -----

// log(x) = log2(x) * ln(2); log2 directly (powf's expansion needs log).
// CHECK-LABEL: llvm.func @f32_log(
// CHECK-SAME:    %[[X:[^:]+]]: f32)
// CHECK:         %[[LN2:.+]] = llvm.mlir.constant(0.693147182 : f32) : f32
// NV:            %[[L:.+]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[X]]) : (f32) -> f32
// AMD:           %[[L:.+]] = llvm.call_intrinsic "llvm.amdgcn.log"(%[[X]]) : (f32) -> f32
// CHECK:         %[[LN:.+]] = llvm.fmul %[[L]], %[[LN2]] : f32
// NV:            %[[L2:.+]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[LN]]) : (f32) -> f32
// AMD:           %[[L2:.+]] = llvm.call_intrinsic "llvm.amdgcn.log"(%[[LN]]) : (f32) -> f32
// CHECK:         llvm.return %[[L2]] : f32
// CHECK-NOT:     llvm.intr.
llvm.func @f32_log(%x: f32) -> f32 {
  %0 = llvm.intr.log(%x) : (f32) -> f32
  %1 = llvm.intr.log2(%0) : (f32) -> f32
  llvm.return %1 : f32
}
