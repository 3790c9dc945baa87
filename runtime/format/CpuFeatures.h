//===- CpuFeatures.h - x86-64 features a CPU binary may need ----*- C++ -*-===//
//
// The instruction-set extensions tessel-compile records for the CPU binary
// (Artifact::cpuFeatures) and the runtime checks before loading it, so that
// code built with `--mcpu native` on an AVX-512 machine reports what is
// missing on another machine instead of dying on an illegal instruction.
// Each name is both an LLVM subtarget feature and a GCC
// __builtin_cpu_supports name; together they cover the x86-64 levels v2 to
// v4 and the AVX-512 extensions LLVM's code generators use.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FORMAT_CPUFEATURES_H
#define TESSEL_RUNTIME_FORMAT_CPUFEATURES_H

#define TESSEL_X86_FEATURES(X)                                                 \
  X("sse4.1")                                                                  \
  X("sse4.2")                                                                  \
  X("popcnt")                                                                  \
  X("avx")                                                                     \
  X("avx2")                                                                    \
  X("fma")                                                                     \
  X("f16c")                                                                    \
  X("bmi")                                                                     \
  X("bmi2")                                                                    \
  X("movbe")                                                                   \
  X("avx512f")                                                                 \
  X("avx512vl")                                                                \
  X("avx512bw")                                                                \
  X("avx512dq")                                                                \
  X("avx512cd")                                                                \
  X("avx512vnni")                                                              \
  X("avx512bf16")                                                              \
  X("avx512vbmi")                                                              \
  X("avx512vbmi2")                                                             \
  X("avx512ifma")                                                              \
  X("avx512vpopcntdq")                                                         \
  X("avx512bitalg")                                                            \
  X("gfni")                                                                    \
  X("vpclmulqdq")

#endif // TESSEL_RUNTIME_FORMAT_CPUFEATURES_H
