//===- Compile.cpp - ONNX model -> .tsl artifact ---------------------------===//
//
// The pipeline assembly: import, graph clean-up, partition into the plan
// and kernel functions, the shared lowering, then each target's last mile.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compile.h"

#include "codegen/common/Passes.h"
#include "codegen/common/Stages.h"
#include "codegen/cpu/CpuBackend.h"
#include "compiler/Partition.h"
#include "compiler/Registration.h"
#include "compiler/Targets.h"
#include "dialects/Graph/TesselDialect.h"
#include "frontend/onnx/Importer.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSet.h"

#include <filesystem>
#include <mutex>
#include <optional>

using namespace mlir;

/// Prints `module` into `options.emitted` when `stage` is the one asked for.
static bool emitted(tessel::CompileOptions &options, StringRef stage,
                    ModuleOp module) {
  if (options.emit != stage)
    return false;
  llvm::raw_string_ostream os(options.emitted);
  // Graph stages show their locations: the ONNX node names.
  OpPrintingFlags flags;
  if (stage.starts_with("graph") || stage == "plan")
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  // The plan shows the weights it holds by type, not by value.
  if (stage == "plan")
    flags.elideLargeElementsAttrs(16);
  module.print(os, flags);
  return true;
}

/// Fails naming each --keep-fp32 entry that is neither an ONNX node nor an
/// op type of `module` (a misspelt name would keep nothing without a word).
static LogicalResult checkKeptNames(const tessel::CompileOptions &options,
                                    ModuleOp module, Location fileLoc) {
  if (options.keepFp32.empty())
    return success();
  llvm::StringSet<> names;
  module.walk([&](Operation *op) {
    std::string node, opType;
    tessel::onnxNodeOf(op->getLoc(), node, opType);
    if (!node.empty())
      names.insert(node);
    if (!opType.empty())
      names.insert(opType);
  });
  for (const std::string &name : options.keepFp32)
    if (!names.contains(name))
      return emitError(fileLoc)
             << "--keep-fp32 names '" << name
             << "', which is neither a node nor an op type of the model";
  return success();
}

namespace {
/// Reports a stage to CompileOptions::onStage: its begin on construction,
/// its end on end() or, failed, on destruction (an early error return).
class StageScope {
public:
  StageScope(const tessel::CompileOptions &options, std::string name,
             unsigned index, unsigned count)
      : options(options), name(std::move(name)), index(index), count(count) {
    send(tessel::CompileStageEvent::Kind::Begin, true);
  }
  StageScope(const StageScope &) = delete;
  StageScope &operator=(const StageScope &) = delete;
  ~StageScope() { end(/*ok=*/false); }
  void end(bool ok = true) {
    if (ended)
      return;
    ended = true;
    send(tessel::CompileStageEvent::Kind::End, ok);
  }

private:
  void send(tessel::CompileStageEvent::Kind kind, bool ok) {
    if (!options.onStage)
      return;
    tessel::CompileStageEvent event;
    event.kind = kind;
    event.name = name;
    event.index = index;
    event.count = count;
    event.ok = ok;
    options.onStage(event);
  }
  const tessel::CompileOptions &options;
  std::string name;
  unsigned index, count;
  bool ended = false;
};
} // namespace

const std::vector<std::string> &tessel::emitStages() {
  static const std::vector<std::string> stages = {
      "graph", "graph-opt", "plan", "kernels", "linalg", "pipeline", "llvm",
      "llvm-ir"};
  return stages;
}

/// The launch config (format::LaunchConfig) of each kernel `symbols[i]`, as
/// the target's pipeline recorded it on the lowered function
/// (tessel::setLaunchConfig).
static LogicalResult collectLaunchConfigs(
    ModuleOp lowered, const std::vector<std::string> &symbols,
    StringRef target, std::vector<tessel::format::LaunchConfig> &configs) {
  llvm::StringMap<tessel::format::LaunchConfig> recorded;
  lowered.walk([&](Operation *op) {
    auto name =
        op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    int64_t size[3];
    tessel::WorkgroupAxis axes[3];
    if (!name || !tessel::getLaunchConfig(op, size, axes))
      return;
    // A kernel may appear twice (the SPIR-V conversion keeps the gpu.func
    // beside its spirv.func); both carry the same config.
    tessel::format::LaunchConfig config;
    for (unsigned a = 0; a < 3; ++a) {
      config.workgroupSize[a] = static_cast<uint32_t>(size[a]);
      config.workgroupCount[a].tile = static_cast<uint64_t>(axes[a].tile);
      for (int64_t d : axes[a].dims)
        config.workgroupCount[a].dims.push_back(static_cast<uint32_t>(d));
    }
    recorded[name.getValue()] = std::move(config);
  });
  for (const std::string &symbol : symbols) {
    auto it = recorded.find(symbol);
    if (it == recorded.end())
      return emitError(lowered.getLoc())
             << "internal compiler error: the " << target
             << " pipeline recorded no launch config for kernel '" << symbol
             << "'";
    configs.push_back(it->second);
  }
  return success();
}

/// What a target's stages show the plan: each stage's name, signature, work
/// dims and workspaces, in order.
static std::string stageSignature(ModuleOp stages) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (auto func : stages.getOps<func::FuncOp>()) {
    if (!func->hasAttr("tessel.kernel_of"))
      continue;
    os << func.getSymName() << " " << func.getFunctionType() << " "
       << func->getAttr("tessel.work_dims") << " "
       << func->getAttr("tessel.workspace_dims") << "\n";
  }
  return text;
}

LogicalResult tessel::compileOnnxModel(MLIRContext &context,
                                       const std::string &modelPath,
                                       CompileOptions &options,
                                       format::Artifact &artifact) {
  // The pipelines are spelled as text, which needs the passes registered.
  static std::once_flag registered;
  std::call_once(registered, registerAllPasses);
  Location fileLoc = FileLineColLoc::get(&context, modelPath, 0, 0);
  for (const std::string &target : options.targets) {
    const auto &known = knownTargets();
    if (std::find(known.begin(), known.end(), target) == known.end())
      return emitError(fileLoc) << "unknown target '" << target << "'";
  }

  // The vulkan target may run another GPU target's mapping.
  std::optional<GpuMapping> vulkanMapping;
  if (!options.gpuMappingOf.empty()) {
    std::unique_ptr<GpuTarget> named = createGpuTarget(options.gpuMappingOf);
    if (!named)
      return emitError(fileLoc) << "--gpu-mapping-of: '" << options.gpuMappingOf
                                << "' is not a GPU target";
    if (std::find(options.targets.begin(), options.targets.end(), "vulkan") ==
        options.targets.end())
      return emitError(fileLoc)
             << "--gpu-mapping-of applies to the vulkan target, which is "
                "not among the targets";
    GpuMapping mapping = named->mapping(), limits = vulkanLimits();
    if (mapping.threads > limits.threads ||
        mapping.maxSharedBytes > limits.maxSharedBytes)
      return emitError(fileLoc)
             << "the mapping of " << options.gpuMappingOf << " ("
             << mapping.threads << " threads, " << mapping.maxSharedBytes
             << " bytes of shared memory) does not fit the vulkan target's "
                "limits ("
             << limits.threads << " threads, " << limits.maxSharedBytes
             << " bytes)";
    vulkanMapping = mapping;
  }

  if ((options.precision == "int8" || options.precision == "fp8") &&
      options.quantRanges.empty() && !options.calibrated)
    return emitError(fileLoc)
           << "--precision " << options.precision
           << " needs the ranges of calibration: --calibration DIR or "
              "--calibration-cache FILE";
  if (options.precision != "fp32" && options.precision != "bf16" &&
      options.precision != "fp16" && options.precision != "int8" &&
      options.precision != "fp8")
    return emitError(fileLoc) << "--precision: unknown precision '"
                              << options.precision
                              << "' (fp32, bf16, fp16, int8, fp8)";
  if (options.ioPrecision != "model" && options.ioPrecision != "low")
    return emitError(fileLoc) << "--io-precision: unknown value '"
                              << options.ioPrecision << "' (model, low)";
  if (options.ioPrecision == "low" && options.precision != "bf16" &&
      options.precision != "fp16")
    return emitError(fileLoc) << "--io-precision low applies to --precision "
                                 "bf16 and fp16 (int8 and fp8 models take "
                                 "and give f32)";
  if (options.fp8Format != "e4m3" && options.fp8Format != "e5m2")
    return emitError(fileLoc) << "--fp8-format: unknown format '"
                              << options.fp8Format << "' (e4m3, e5m2)";

  // The binaries to build: one per target, the cpu target one per CPU
  // variant. Each tiles its own copy; the stages (and so the plan's
  // launches and workspaces) must come out the same for every binary.
  struct Job {
    std::string target;
    std::optional<CpuVariant> cpu;
  };
  std::vector<Job> jobs;
  for (const std::string &target : options.targets) {
    if (target != "cpu") {
      jobs.push_back({target, std::nullopt});
      continue;
    }
    const std::vector<std::string> &specs =
        options.cpus.empty() ? defaultCpuVariants() : options.cpus;
    for (const std::string &spec : specs) {
      CpuVariant variant;
      std::string error;
      if (!parseCpuVariant(spec, variant, error))
        return emitError(fileLoc) << "--mcpu: " << error;
      for (const Job &job : jobs)
        if (job.target == variant.target)
          return emitError(fileLoc) << "--mcpu: the CPU variant '" << spec
                                    << "' is listed twice";
      jobs.push_back({variant.target, variant});
    }
  }

  // import, graph passes, partition, kernel lowering, codegen per binary.
  const unsigned stageCount = 4 + jobs.size();
  StageScope importStage(options, "import", 1, stageCount);
  OwningOpRef<ModuleOp> module = importOnnxModel(context, modelPath);
  if (!module)
    return failure();
  importStage.end();
  if (failed(checkKeptNames(options, *module, fileLoc)))
    return failure();
  if (emitted(options, "graph", *module))
    return success();

  // Graph passes: folding (Identity, reshape chains, constants), weight
  // layouts, CSE.
  StageScope graphStage(options, "graph passes", 2, stageCount);
  PassManager graphPasses(&context);
  graphPasses.addPass(createCanonicalizerPass());
  graphPasses.addPass(createFoldBatchNormPass());
  graphPasses.addPass(createFoldWeightTransposesPass());
  graphPasses.addPass(createSubsamplePointwiseConvsPass());
  graphPasses.addPass(createCanonicalizerPass());
  // A pre-quantized (QDQ) model's contractions compute on its integers,
  // whatever --precision says about the rest.
  {
    QuantizePassOptions prequantized;
    prequantized.prequantizedOnly = true;
    prequantized.keepFp32.assign(options.keepFp32.begin(),
                                 options.keepFp32.end());
    graphPasses.addPass(createQuantizePass(prequantized));
    graphPasses.addPass(createCanonicalizerPass());
  }
  if (options.observeContractions) {
    ObserveContractionsPassOptions observe;
    observe.inputs = options.observeInputs;
    graphPasses.addPass(createObserveContractionsPass(observe));
  }
  if (options.precision == "int8" || options.precision == "fp8") {
    QuantizePassOptions quantize;
    quantize.format = options.precision == "int8" ? "int8"
                      : options.fp8Format == "e5m2" ? "fp8-e5m2"
                                                    : "fp8-e4m3";
    quantize.amax.assign(options.quantRanges.begin(), options.quantRanges.end());
    quantize.keepFp32.assign(options.keepFp32.begin(), options.keepFp32.end());
    quantize.lowerNodes.assign(options.lowerNodes.begin(),
                               options.lowerNodes.end());
    graphPasses.addPass(createQuantizePass(quantize));
    graphPasses.addPass(createCanonicalizerPass());
  } else if (options.precision != "fp32") {
    LowerPrecisionPassOptions precision;
    precision.precision = options.precision;
    precision.keepFp32.assign(options.keepFp32.begin(), options.keepFp32.end());
    precision.io = options.ioPrecision == "low";
    graphPasses.addPass(createLowerPrecisionPass(precision));
    graphPasses.addPass(createCanonicalizerPass());
  }
  graphPasses.addPass(createFormDispatchRegionsPass());
  graphPasses.addPass(createCSEPass());
  if (failed(graphPasses.run(*module)))
    return failure();
  options.loweredContractions.clear();
  if (auto main = module->lookupSymbol<func::FuncOp>("main"))
    if (auto lowered = main->getAttrOfType<ArrayAttr>(kLoweredContractionsAttr))
      for (auto node : lowered.getAsValueRange<StringAttr>())
        options.loweredContractions.push_back(node.str());
  graphStage.end();
  if (emitted(options, "graph-opt", *module))
    return success();

  // Partitioning: the plan (host program) and one kernel per compute op.
  // Canonicalization folds the plan's static shape arithmetic and checks.
  StageScope partitionStage(options, "partition", 3, stageCount);
  auto graph = module->lookupSymbol<func::FuncOp>("main");
  OwningOpRef<ModuleOp> plan = ModuleOp::create(fileLoc);
  OwningOpRef<ModuleOp> kernels = ModuleOp::create(fileLoc);
  if (failed(partitionGraph(graph, *plan, *kernels)))
    return failure();
  PassManager planPasses(&context);
  planPasses.addPass(createCanonicalizerPass());
  planPasses.addPass(createCSEPass());
  if (failed(planPasses.run(*plan)))
    return failure();
  if (emitted(options, "plan", *plan) ||
      emitted(options, "kernels", *kernels)) {
    partitionStage.end();
    return success();
  }
  artifact.producer = "tessel-compile 0.1";
  artifact.modelName = std::filesystem::path(modelPath).stem().string();
  if (failed(serializePlan(plan->lookupSymbol<func::FuncOp>("main"), artifact)))
    return failure();
  partitionStage.end();

  StageScope loweringStage(options, "kernel lowering", 4, stageCount);
  PassManager shared(&context);
  buildSharedLoweringPipeline(shared);
  if (failed(shared.run(*kernels)))
    return failure();
  loweringStage.end();

  std::vector<std::string> symbols;
  std::optional<std::string> firstStages;
  unsigned targetIndex = 0;
  for (const Job &job : jobs) {
    const std::string &target = job.target;
    // "pipeline" only prints the pass pipelines: no codegen stage runs.
    std::optional<StageScope> codegenStage;
    ++targetIndex;
    if (options.emit != "pipeline")
      codegenStage.emplace(options, "codegen " + target, 4 + targetIndex,
                           stageCount);
    OwningOpRef<ModuleOp> copy = cast<ModuleOp>((*kernels)->clone());
    format::TargetBinary binary;
    binary.target = target;
    std::string error;
    PassManager stages(&context);
    PassManager pm(&context);
    std::unique_ptr<GpuTarget> gpu =
        job.cpu ? nullptr
        : target == "vulkan" && vulkanMapping
            ? createVulkanTarget(*vulkanMapping)
            : createGpuTarget(target);
    if (gpu) {
      buildGpuStagePipeline(stages, gpu->mapping());
      buildGpuLoweringPipeline(pm, *gpu);
    } else {
      // The CPU's extensions decide the SIMD width; the binary lists them.
      binary.cpuFeatures = job.cpu->features;
      buildCpuStagePipeline(stages, job.cpu->vectorBits,
                            options.cpuWithGpuTiles);
      buildCpuLoweringPipeline(pm, job.cpu->vectorBits, job.cpu->features);
    }
    if (options.emit == "pipeline") {
      llvm::raw_string_ostream os(options.emitted);
      os << target << ": ";
      stages.printAsTextualPipeline(os);
      os << ", ";
      pm.printAsTextualPipeline(os);
      os << "\n";
      continue;
    }
    if (failed(stages.run(*copy)))
      return failure();
    std::string signature = stageSignature(*copy);
    if (!firstStages) {
      if (failed(expandStages(*copy, artifact)))
        return failure();
      if (emitted(options, "linalg", *copy)) {
        codegenStage->end();
        return success();
      }
      for (const format::Kernel &k : artifact.kernels)
        symbols.push_back(k.symbol);
      firstStages = signature;
    } else if (signature != *firstStages) {
      return emitError(fileLoc)
             << "internal compiler error: target " << target
             << " split the kernels into other stages than "
             << jobs.front().target;
    }
    if (failed(pm.run(*copy)))
      return failure();
    if (emitted(options, "llvm", *copy)) {
      codegenStage->end();
      return success();
    }
    if (failed(collectLaunchConfigs(*copy, symbols, target,
                                    binary.launchConfigs)))
      return failure();
    bool ok;
    if (gpu) {
      binary.format = target == "vulkan" ? format::TargetBinary::Format::Spirv
                      : target.rfind("cuda:", 0) == 0
                          ? format::TargetBinary::Format::Ptx
                          : format::TargetBinary::Format::Hsaco;
      ok = gpu->emitBinary(*copy, binary.bytes, error);
    } else {
      binary.format = format::TargetBinary::Format::ElfSharedObject;
      CpuCodegenOptions cpuOptions;
      cpuOptions.cpu = job.cpu->llvmCpu;
      cpuOptions.features = job.cpu->llvmFeatures;
      if (options.emit == "llvm-ir")
        cpuOptions.llvmIr = &options.emitted;
      ok = emitCpuSharedObject(*copy, symbols, cpuOptions, binary.bytes, error);
      if (ok && cpuOptions.llvmIr) {
        codegenStage->end();
        return success();
      }
    }
    if (!ok)
      return emitError(fileLoc)
             << "code generation for " << target << " failed: " << error;
    artifact.binaries.push_back(std::move(binary));
    codegenStage->end();
  }
  if (options.emit == "pipeline")
    return success();
  // The runtime checks the same rules on load; breaking one is a compiler bug.
  std::string invalid;
  if (!format::validate(artifact, invalid))
    return emitError(fileLoc) << "internal compiler error: the artifact "
                                 "breaks the format's rules: "
                              << invalid;
  return success();
}
