//===- Compile.h - The compile API: ONNX model -> .tsl artifact -*- C++ -*-===//
//
// What tessel-compile does, as a library call for tools, tests and
// embedders: import, graph passes, partition, codegen per target, artifact.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_COMPILE_H
#define TESSEL_COMPILER_COMPILE_H

#include "runtime/format/Artifact.h"

#include "mlir/IR/MLIRContext.h"

#include <functional>
#include <string>
#include <vector>

namespace tessel {

/// A stage of compileOnnxModel starts or ends. The stages, in order:
/// "import", "graph passes", "partition", "kernel lowering" (the lowering
/// every target shares), then "codegen TARGET" per target; a compile that
/// stops early (CompileOptions::emit) runs only some. Every stage that
/// begins also ends, with `ok` false when the compile fails in it.
struct CompileStageEvent {
  enum class Kind { Begin, End };
  Kind kind = Kind::Begin;
  std::string name;
  /// 1-based position of the stage, and the number of stages a full
  /// compile with these options runs.
  unsigned index = 0, count = 0;
  bool ok = true; ///< End only: whether the stage succeeded
};

struct CompileOptions {
  /// Targets to generate code for: "cpu" (default), "cuda:sm_80",
  /// "cuda:sm_90", "rocm:gfx90a", "rocm:gfx942", "vulkan".
  std::vector<std::string> targets = {"cpu"};
  /// The CPUs the cpu target compiles for, one binary each (design.md
  /// section 3): an LLVM CPU name ("x86-64-v3", "znver4", "native" for the
  /// host) and any "+feature" ("x86-64-v4+avx512bf16+avx512vnni"). The
  /// runtime runs the binary the host supports that uses the most
  /// extensions. Empty: defaultCpuVariants() (codegen/cpu/CpuBackend.h),
  /// AVX-512 with its bf16/int8 dot products, and AVX2.
  std::vector<std::string> cpus;
  /// The precision of the contractions and the ops that follow them
  /// (tessel-lower-precision, design.md "Precision lowering"): "fp32"
  /// (the model's own, the default), "bf16" or "fp16". "int8" and "fp8"
  /// are named but not implemented yet: an error.
  std::string precision = "fp32";
  /// ONNX op types or node names that stay f32 (--keep-fp32), and, for
  /// int8 and fp8, contractions quantized even when first or last
  /// (--lower).
  std::vector<std::string> keepFp32, lowerNodes;
  /// "model" (the default: inputs and outputs keep their types) or "low"
  /// (bf16/fp16: the f32 inputs and outputs take the low type).
  std::string ioPrecision = "model";
  /// Return every contraction's result as an extra output
  /// "tessel.observe:<node>" (tessel-observe-contractions): what
  /// calibration and the precision report read.
  bool observeContractions = false;
  /// With observeContractions: observe each contraction's input instead
  /// (int8 calibration).
  bool observeInputs = false;
  /// int8 and fp8: the calibrated range of each contraction's input,
  /// "NODE=A" (symmetric: [-A, A]) or "NODE=LO:HI" (asymmetric int8)
  /// (calibration::calibrateRanges).
  std::vector<std::string> quantRanges;
  /// int8 and fp8: set when quantRanges come from a calibration (or its
  /// cache), which may have found no f32 contraction to quantize (a
  /// pre-quantized model); without it, no ranges is an error.
  bool calibrated = false;
  /// fp8: "e4m3" (weights and activations; the default) or "e5m2".
  std::string fp8Format = "e4m3";
  /// Set by the compile: the ONNX nodes of the contractions the precision
  /// passes lowered (bf16/fp16/int8).
  std::vector<std::string> loweredContractions;
  /// A test aid: the CPU code takes the workgroup tiles (and row-reduction
  /// splits) a GPU target would choose, so that the GPU's tiling and fusion
  /// are checked numerically on the CPU. The launch configs are the CPU's.
  bool cpuWithGpuTiles = false;
  /// A GPU target ("cuda:sm_80", ...) whose mapping (tiles, workgroup
  /// shapes, reduction splits) the vulkan target takes instead of its own,
  /// so that what that target will execute runs here on Vulkan. It must
  /// fit the vulkan target's limits; empty: the vulkan target's own.
  std::string gpuMappingOf;
  /// Stop after a stage and print its IR into `emitted` instead of building
  /// an artifact: "graph" (imported), "graph-opt" (after graph passes),
  /// "kernels" (partitioned), "linalg" (the first target's stages: tiled,
  /// bufferized linalg),
  /// "pipeline" (each target's lowering pass pipeline, one "<target>: <passes>"
  /// line per target), "llvm" (the first target's LLVM dialect). Empty: build
  /// the artifact.
  std::string emit;
  std::string emitted;
  /// Called on the compiling thread at the start and end of each stage
  /// (progress, timings); may be empty. The compiler does no terminal I/O.
  std::function<void(const CompileStageEvent &)> onStage;
};

/// The stages CompileOptions::emit accepts.
const std::vector<std::string> &emitStages();

/// Compiles the ONNX model at `modelPath` into `artifact`. Errors are MLIR
/// diagnostics (naming the file, node and op where one is at fault).
mlir::LogicalResult compileOnnxModel(mlir::MLIRContext &context,
                                     const std::string &modelPath,
                                     CompileOptions &options,
                                     format::Artifact &artifact);

} // namespace tessel

#endif // TESSEL_COMPILER_COMPILE_H
