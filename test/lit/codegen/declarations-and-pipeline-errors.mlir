// Function declarations are not kernels: the stage passes leave them alone.
// RUN: tessel-opt %s --tessel-outline-stages --tessel-map-stages-to-gpu | FileCheck %s
// An unknown GPU target is a pipeline error, not a crash.
// RUN: not tessel-opt %s --tessel-gpu-lowering=target=cuda:sm_75 2>&1 | FileCheck %s --check-prefix=TARGET

// CHECK: func.func private @ext(memref<4xf32>)
// CHECK: gpu.module @tessel_kernels {
// CHECK-NEXT: }
// TARGET: error: tessel-gpu-lowering: unknown GPU target 'cuda:sm_75'
func.func private @ext(memref<4xf32>)
