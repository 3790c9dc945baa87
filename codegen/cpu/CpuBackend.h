//===- CpuBackend.h - x86-64 code for the CPU driver ------------*- C++ -*-===//
//
// The last mile for the CPU: bufferized linalg -> loops -> LLVM dialect ->
// LLVM IR with packed entry points -> x86-64 object -> shared object.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_CPU_CPUBACKEND_H
#define TESSEL_CODEGEN_CPU_CPUBACKEND_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace tessel {

/// Grouped linalg on tensors (buildSharedLoweringPipeline) -> the CPU's
/// workgroup tiles -> stages (buildStagePipeline). With `gpuTiles` (a test
/// aid) the tiles and row-reduction splits are a GPU's instead, which the
/// CPU then runs: the GPU's tiling checked on the CPU.
void buildCpuStagePipeline(mlir::OpPassManager &pm, unsigned vectorBits = 256,
                           bool gpuTiles = false);

/// Stages -> LLVM dialect: workgroup ids, reductions register-tiled for SIMD
/// registers of `vectorBits` bits, with the dot-product instructions that
/// `features` (x86-64 extensions, CpuFeatures.h names) provide.
void buildCpuLoweringPipeline(mlir::OpPassManager &pm,
                              unsigned vectorBits = 256,
                              llvm::ArrayRef<std::string> features = {});

/// A CPU the CPU target compiles for: `--mcpu` takes a list of them, and
/// the artifact holds one binary per variant (design.md section 3).
struct CpuVariant {
  std::string spec;        ///< as given: "x86-64-v4+avx512bf16+avx512vnni"
  std::string target;      ///< the binary's target: "cpu:" + spec
  std::string llvmCpu;     ///< LLVM's -mcpu: "x86-64-v4", "znver5"
  std::string llvmFeatures; ///< LLVM's -mattr: "+avx512bf16,+avx512vnni"
  /// The x86-64 extensions (runtime/format/CpuFeatures.h) its code may
  /// use; recorded in the artifact, checked by the runtime.
  std::vector<std::string> features;
  unsigned vectorBits = 256; ///< cpuVectorBits(features)
};

/// The CPU variants tessel-compile builds by default: AVX-512 with the
/// bf16 and int8 dot products (Zen 4 and later, Sapphire Rapids and later),
/// and AVX2 for every x86-64 CPU since 2013-2015.
const std::vector<std::string> &defaultCpuVariants();

/// Parses a variant spec: an LLVM CPU name ("x86-64-v3", "skylake-avx512",
/// or "native" for the host's name and features) followed by any number of
/// "+feature" (names of CpuFeatures.h). False with `error` set for an
/// unknown CPU or feature, or a spec whose target name does not fit the
/// artifact (format::kMaxTargetNameLength).
bool parseCpuVariant(llvm::StringRef spec, CpuVariant &out,
                     std::string &error);

/// The SIMD register width of a CPU with `features` (cpuFeatures): 512
/// with AVX-512F, 256 with AVX, else 128.
unsigned cpuVectorBits(llvm::ArrayRef<std::string> features);

/// Registers `tessel-cpu-lowering` (the two pipelines above, in order) and
/// the CPU's passes.
void registerCpuPipelines();

/// Adds `void <name>_packed(void **params, const int64_t *workgroup)` for
/// each kernel `name`: it loads each memref parameter from `params[i]`, the
/// six trailing ones (workgroup id x, y, z and count x, y, z; see
/// tessel-cpu-map-workgroups) from `workgroup[0..6)`, and calls the
/// kernel (docs/design.md, "Kernel ABI"). Each memref's aligned pointer is
/// declared noalias, except those of the parameters `aliased` lists for the
/// kernel (tessel.aliased_args: a result written in place over an
/// argument, the same buffer passed twice). False with `error` set when a
/// kernel is missing or its parameters are not the ABI's (a defect of the
/// pipeline, reported rather than assumed).
bool addPackedWrappers(
    llvm::Module &module, llvm::ArrayRef<std::string> kernels,
    const llvm::StringMap<llvm::SmallVector<int64_t>> &aliased,
    std::string &error);

/// Options of the CPU code generator.
struct CpuCodegenOptions {
  std::string cpu = "x86-64-v2"; ///< LLVM's -mcpu (CpuVariant::llvmCpu)
  std::string features;          ///< LLVM's -mattr (CpuVariant::llvmFeatures)
  unsigned optLevel = 2;
  /// When set, receives the LLVM IR of the kernels and their packed
  /// wrappers, before LLVM's optimizations (tessel-compile --emit llvm-ir).
  std::string *llvmIr = nullptr;
};

/// Translates an LLVM-dialect module of kernels into an x86-64 ELF shared
/// object exporting `<kernel>_packed`. Returns false with `error` set on
/// failure (a missing linker, an LLVM error).
bool emitCpuSharedObject(mlir::ModuleOp module,
                         llvm::ArrayRef<std::string> kernels,
                         const CpuCodegenOptions &options,
                         std::vector<uint8_t> &out, std::string &error);

} // namespace tessel

#endif // TESSEL_CODEGEN_CPU_CPUBACKEND_H
