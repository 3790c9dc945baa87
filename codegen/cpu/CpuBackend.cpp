//===- CpuBackend.cpp - x86-64 shared objects from bufferized kernels -----===//
//
// Lowers bufferized kernels to loops and the LLVM dialect, translates them to
// LLVM IR, adds the packed entry points, optimizes, emits an x86-64 object
// and links it with ld.lld into a position-independent shared object that
// the runtime loads from memory.
//
//===----------------------------------------------------------------------===//

#include "codegen/cpu/CpuBackend.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "codegen/common/GpuTarget.h"
#include "codegen/common/LlvmEmission.h"
#include "codegen/common/Passes.h"
#include "codegen/cpu/Passes.h"
#include "dialects/Graph/TesselDialect.h"
#include "runtime/format/Artifact.h"
#include "runtime/format/CpuFeatures.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

void tessel::buildCpuStagePipeline(OpPassManager &pm, unsigned vectorBits,
                                   bool gpuTiles) {
  // A GPU's tiles (the default GPU mapping's), or the CPU's; then the shared
  // tiling and stages.
  if (gpuTiles)
    return buildGpuStagePipeline(pm, GpuMapping());
  addBuiltinPipeline(pm, "func.func(tessel-cpu-workgroup-tiles{vector-bits=" +
                             std::to_string(vectorBits) +
                             "}, tessel-tile-and-fuse-workgroups)");
  buildStagePipeline(pm);
}

void tessel::buildCpuLoweringPipeline(OpPassManager &pm, unsigned vectorBits,
                                      llvm::ArrayRef<std::string> features) {
  // The dot products at this width: AVX512-VNNI and AVX512-BF16, with
  // AVX512-VL below 512 bits.
  auto has = [&](llvm::StringRef f) { return llvm::is_contained(features, f); };
  bool wide = vectorBits == 512 || (vectorBits == 256 && has("avx512vl"));
  auto flag = [](bool on) { return on ? std::string("true") : "false"; };
  // Spelled as text: the same names a pass author types into tessel-opt.
  std::string pipeline =
      "func.func(tessel-cpu-map-workgroups,"
      " tessel-tile-and-vectorize{vector-bits=" +
      std::to_string(vectorBits) +
      " int8-dot=" + flag(wide && has("avx512vnni")) +
      " bf16-dot=" + flag(wide && has("avx512bf16")) +
      " byte-permutes=" + flag(vectorBits == 512 && has("avx512vbmi")) +
      " word-permutes=" + flag(vectorBits == 512 && has("avx512bw")) +
      "}, canonicalize, cse, convert-linalg-to-loops,"
      " convert-vector-to-scf{full-unroll=true}, lower-affine,"
      " convert-scf-to-cf,"
      // Math on bf16 and f16 (a tanh after a low-precision contraction)
      // is computed in f32, like the arithmetic below.
      " math-extend-to-supported-types{target-type=f32}, tessel-expand-math,"
      // Arithmetic on bf16 (a Relu's maximum, a compare) is done in f32, so
      // that LLVM does not promote it and round back through a runtime
      // library call (__truncsfbf2) the kernels cannot link; the
      // conversions it leaves are then integer code.
      " arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
      " tessel-expand-bf16, convert-math-to-llvm),"
      // Math without an LLVM intrinsic (asinh, atanh, ...) calls libm, a
      // vector lane by lane: before the vector ops that unrolling makes are
      // lowered.
      "convert-math-to-libm,"
      "convert-vector-to-llvm, tessel-bf16-masked-memory,"
      " expand-strided-metadata, lower-affine,"
      " finalize-memref-to-llvm,"
      "convert-arith-to-llvm, convert-ub-to-llvm, convert-index-to-llvm,"
      " convert-func-to-llvm,"
      "convert-cf-to-llvm, reconcile-unrealized-casts";
  addBuiltinPipeline(pm, pipeline);
}

const std::vector<std::string> &tessel::defaultCpuVariants() {
  static const std::vector<std::string> variants = {
      "x86-64-v4+avx512bf16+avx512vnni", "x86-64-v3"};
  return variants;
}

/// Whether `name` is one of CpuFeatures.h (the features a runtime checks).
static bool isRecordedFeature(llvm::StringRef name) {
#define TESSEL_MATCH_FEATURE(feature)                                          \
  if (name == feature)                                                         \
    return true;
  TESSEL_X86_FEATURES(TESSEL_MATCH_FEATURE)
#undef TESSEL_MATCH_FEATURE
  return false;
}

bool tessel::parseCpuVariant(llvm::StringRef spec, CpuVariant &out,
                             std::string &error) {
  out = CpuVariant();
  out.spec = spec.str();
  llvm::SmallVector<llvm::StringRef> parts;
  spec.split(parts, '+');
  llvm::StringRef cpu = parts.front();
  std::vector<std::string> mattr;
  if (cpu == "native") {
    // The host's name and its features as LLVM reads them (a virtual
    // machine may hide some its CPU name implies).
    out.llvmCpu = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      mattr.push_back((feature.second ? "+" : "-") + feature.first().str());
  } else {
    out.llvmCpu = cpu.str();
  }
  for (llvm::StringRef feature : llvm::ArrayRef(parts).drop_front()) {
    if (!isRecordedFeature(feature)) {
      error = "CPU variant '" + out.spec + "': unknown x86-64 feature '" +
              feature.str() + "' (the runtime checks avx2, fma, avx512f, "
              "avx512bf16, avx512vnni, ... before it runs code)";
      return false;
    }
    mattr.push_back("+" + feature.str());
  }
  out.llvmFeatures = llvm::join(mattr, ",");
  // "native" is named after the host's CPU, so the artifact says what it
  // was built for wherever it is read.
  out.target = "cpu:" + (cpu == "native"
                             ? out.llvmCpu + spec.drop_front(cpu.size()).str()
                             : out.spec);
  // Checked on a generic machine first: LLVM only warns about a CPU it
  // does not know, and then generates code for a generic one.
  std::unique_ptr<llvm::TargetMachine> generic = createTargetMachine(
      "x86_64-unknown-linux-gnu", "x86-64", "", llvm::Reloc::PIC_, error);
  if (!generic)
    return false;
  if (out.llvmCpu.empty() ||
      !generic->getMCSubtargetInfo()->isCPUStringValid(out.llvmCpu)) {
    error = "CPU variant '" + out.spec + "': '" + out.llvmCpu +
            "' is not an x86-64 CPU LLVM knows (x86-64-v2, x86-64-v3, "
            "x86-64-v4, znver4, sapphirerapids, native, ...)";
    return false;
  }
  std::unique_ptr<llvm::TargetMachine> tm =
      createTargetMachine("x86_64-unknown-linux-gnu", out.llvmCpu,
                          out.llvmFeatures, llvm::Reloc::PIC_, error);
  if (!tm)
    return false;
  const llvm::MCSubtargetInfo *sti = tm->getMCSubtargetInfo();
  if (out.target.size() > format::kMaxTargetNameLength) {
    error = "CPU variant '" + out.spec + "': the binary's name '" +
            out.target + "' is longer than " +
            std::to_string(format::kMaxTargetNameLength) + " characters";
    return false;
  }
#define TESSEL_RECORD_FEATURE(feature)                                         \
  if (sti->checkFeatures(std::string("+") + feature))                          \
    out.features.push_back(feature);
  TESSEL_X86_FEATURES(TESSEL_RECORD_FEATURE)
#undef TESSEL_RECORD_FEATURE
  out.vectorBits = cpuVectorBits(out.features);
  return true;
}

unsigned tessel::cpuVectorBits(llvm::ArrayRef<std::string> features) {
  if (llvm::is_contained(features, "avx512f"))
    return 512;
  if (llvm::is_contained(features, "avx"))
    return 256;
  return 128;
}

void tessel::registerCpuPipelines() {
  registerTesselCodegenCpuPasses();
  struct Options : public PassPipelineOptions<Options> {
    Option<unsigned> vectorBits{*this, "vector-bits",
                                llvm::cl::desc("SIMD register width in bits"),
                                llvm::cl::init(256)};
    ListOption<std::string> features{
        *this, "features",
        llvm::cl::desc("x86-64 extensions the code may use (avx512vnni, "
                       "avx512bf16, avx512vl, ...)")};
  };
  PassPipelineRegistration<Options>(
      "tessel-cpu-lowering",
      "grouped linalg on tensors -> workgroup tiles -> stages -> LLVM dialect "
      "for the CPU",
      [](OpPassManager &pm, const Options &options) {
        buildCpuStagePipeline(pm, options.vectorBits);
        buildCpuLoweringPipeline(
            pm, options.vectorBits,
            std::vector<std::string>(options.features.begin(),
                                     options.features.end()));
      });
}

bool tessel::emitCpuSharedObject(ModuleOp module,
                                 llvm::ArrayRef<std::string> kernels,
                                 const CpuCodegenOptions &options,
                                 std::vector<uint8_t> &out,
                                 std::string &error) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "tessel_cpu_kernels");
  if (!llvmModule) {
    error = "cannot translate the CPU kernels to LLVM IR";
    return false;
  }
  // The parameters each kernel may get one buffer for twice.
  llvm::StringMap<llvm::SmallVector<int64_t>> aliased;
  module.walk([&](LLVM::LLVMFuncOp func) {
    if (auto pairs = func->getAttrOfType<DenseI64ArrayAttr>(kAliasedArgsAttr))
      aliased[func.getSymName()] = llvm::SmallVector<int64_t>(pairs.asArrayRef());
  });
  if (!addPackedWrappers(*llvmModule, kernels, aliased, error))
    return false;
  if (options.llvmIr) {
    llvm::raw_string_ostream os(*options.llvmIr);
    llvmModule->print(os, nullptr);
  }
  std::unique_ptr<llvm::TargetMachine> tm =
      createTargetMachine("x86_64-unknown-linux-gnu", options.cpu,
                          options.features, llvm::Reloc::PIC_, error);
  if (!tm)
    return false;
  optimizeModule(*llvmModule, *tm, options.optLevel);
  std::vector<uint8_t> object;
  if (!emitModule(*llvmModule, *tm, llvm::CodeGenFileType::ObjectFile, object,
                  error))
    return false;
  // Kernels call libm (expf, ...) and libc (memset): name them as needed
  // libraries so the object resolves on its own wherever it is loaded.
  return linkSharedObject(object,
                          {"-O2", "--as-needed", "-L/lib/x86_64-linux-gnu",
                           "-L/usr/lib/x86_64-linux-gnu", "-l:libm.so.6",
                           "-l:libc.so.6"},
                          out, error);
}
