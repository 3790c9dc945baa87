//===- VulkanAbi.cpp - The kernel ABI of the Vulkan driver ----------------===//

#include "drivers/vulkan/VulkanAbi.h"

#include <unordered_map>

namespace tessel::runtime::vulkan {

namespace {

std::string str(uint64_t v) { return std::to_string(v); }

std::string listOf(const std::vector<int64_t> &values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

// SPIR-V opcodes, execution models, modes and decorations the scan reads.
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kOpConstant = 43;
constexpr uint32_t kOpConstantComposite = 44;
constexpr uint32_t kOpSpecConstant = 50;
constexpr uint32_t kOpSpecConstantComposite = 51;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kOpExecutionModeId = 331;
constexpr uint32_t kExecutionModelGLCompute = 5;
constexpr uint32_t kExecutionModeLocalSize = 17;
constexpr uint32_t kExecutionModeLocalSizeId = 38;
constexpr uint32_t kDecorationBuiltIn = 11;
constexpr uint32_t kBuiltInWorkgroupSize = 25;

/// The literal string of a SPIR-V instruction starting at words[at], up to
/// words[end] (NUL-terminated, four characters per word, low byte first).
std::string literalString(const std::vector<uint32_t> &words, size_t at,
                          size_t end) {
  std::string s;
  for (size_t i = at; i < end; ++i)
    for (int b = 0; b < 4; ++b) {
      char c = static_cast<char>((words[i] >> (8 * b)) & 0xff);
      if (c == '\0')
        return s;
      s.push_back(c);
    }
  return s;
}

// SPIR-V capabilities (the numbers of the SPIR-V specification).
enum Capability : uint32_t {
  Matrix = 0,
  Shader = 1,
  Addresses = 4,
  Linkage = 5,
  Kernel = 6,
  Float16 = 9,
  Float64 = 10,
  Int64 = 11,
  Int64Atomics = 12,
  Int16 = 22,
  Int8 = 39,
  GroupNonUniform = 61,
  GroupNonUniformVote = 62,
  GroupNonUniformArithmetic = 63,
  GroupNonUniformBallot = 64,
  GroupNonUniformShuffle = 65,
  GroupNonUniformShuffleRelative = 66,
  GroupNonUniformClustered = 67,
  GroupNonUniformQuad = 68,
  StorageBuffer16BitAccess = 4433,
  UniformAndStorageBuffer16BitAccess = 4434,
  StoragePushConstant16 = 4435,
  StorageInputOutput16 = 4436,
  VariablePointersStorageBuffer = 4441,
  VariablePointers = 4442,
  StorageBuffer8BitAccess = 4448,
  UniformAndStorageBuffer8BitAccess = 4449,
  StoragePushConstant8 = 4450,
  VulkanMemoryModel = 5345,
  PhysicalStorageBufferAddresses = 5347,
};

// VkSubgroupFeatureFlagBits (vulkan_core.h), kept here so that this file
// needs no Vulkan header.
constexpr uint32_t kSubgroupBasic = 0x1;
constexpr uint32_t kSubgroupVote = 0x2;
constexpr uint32_t kSubgroupArithmetic = 0x4;
constexpr uint32_t kSubgroupBallot = 0x8;
constexpr uint32_t kSubgroupShuffle = 0x10;
constexpr uint32_t kSubgroupShuffleRelative = 0x20;
constexpr uint32_t kSubgroupClustered = 0x40;
constexpr uint32_t kSubgroupQuad = 0x80;

} // namespace

std::string describeKernel(const format::Kernel &kernel) {
  return "kernel '" + kernel.symbol + "' (ONNX node '" + kernel.onnxNode +
         "', " + kernel.onnxOp + ")";
}

Status readLaunchArguments(const format::Kernel &kernel, void **params,
                           std::vector<BoundArgument> &args,
                           std::vector<int32_t> &shape) {
  args.clear();
  shape.clear();
  size_t j = 0; // the scalar an argument's descriptor starts at
  std::vector<int64_t> sizes, strides;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const format::KernelParam &arg = kernel.params[i];
    std::string what = describeKernel(kernel) + ": argument " + str(i);
    void *aligned = *static_cast<void **>(params[j + 1]);
    int64_t offset = *static_cast<int64_t *>(params[j + 2]);
    sizes.resize(arg.rank);
    strides.resize(arg.rank);
    for (uint32_t d = 0; d < arg.rank; ++d) {
      sizes[d] = *static_cast<int64_t *>(params[j + 3 + d]);
      strides[d] = *static_cast<int64_t *>(params[j + 3 + arg.rank + d]);
    }
    j += 3 + 2 * size_t(arg.rank);
    if (offset != 0)
      return internalError(what + " has offset " + std::to_string(offset) +
                           ", but the Vulkan ABI binds every argument at its "
                           "first element (offset 0)");
    uint64_t elements = 1;
    for (uint32_t d = 0; d < arg.rank; ++d) {
      if (sizes[d] < 0)
        return internalError(what + " has the negative size " +
                             std::to_string(sizes[d]) + " along dim " + str(d));
      if (sizes[d] >= kMaxIndexable)
        return resourceExhausted(
            what + " has " + std::to_string(sizes[d]) + " elements along dim " +
            str(d) + ", but Vulkan kernels index with 32 bits (at most " +
            std::to_string(kMaxIndexable - 1) + ")");
      elements *= static_cast<uint64_t>(sizes[d]); // < 2^31 * 2^31 per step
      if (elements >= uint64_t(kMaxIndexable))
        elements = uint64_t(kMaxIndexable); // saturate: reported below
    }
    // The strides of a contiguous row-major memref, computed as the session
    // computes them (wrapping, like its int64 product, for the unusual
    // shapes whose element count is 0).
    uint64_t stride = 1;
    for (uint32_t d = arg.rank; d-- > 0;) {
      if (static_cast<uint64_t>(strides[d]) != stride)
        return internalError(what + " has strides " + listOf(strides) +
                             " for sizes " + listOf(sizes) +
                             ", which are not contiguous row-major");
      stride *= static_cast<uint64_t>(sizes[d]);
    }
    if (elements >= uint64_t(kMaxIndexable))
      return resourceExhausted(what + " of shape " + listOf(sizes) +
                               " has 2^31 elements or more, but Vulkan "
                               "kernels index with 32 bits");
    for (int64_t size : sizes)
      shape.push_back(static_cast<int32_t>(size));
    args.push_back({static_cast<uint64_t>(reinterpret_cast<uintptr_t>(aligned)),
                    elements * format::dtypeSize(arg.dtype)});
  }
  return Status::ok();
}

bool scanSpirv(const std::vector<uint32_t> &words,
               const std::string &entryPoint, SpirvFacts &facts,
               std::string &error) {
  facts = SpirvFacts();
  bool haveEntry = false;
  uint32_t entryId = 0;
  // Execution modes by target id; constants and composites by result id.
  std::unordered_map<uint32_t, std::vector<uint32_t>> localSize, localSizeId;
  std::unordered_map<uint32_t, uint32_t> constants;
  std::unordered_map<uint32_t, std::vector<uint32_t>> composites;
  uint32_t workgroupSizeId = 0;
  size_t i = 5; // after the header
  while (i < words.size()) {
    uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0) {
      error = "instruction at word " + str(i) + " (opcode " + str(opcode) +
              ") has a word count of 0";
      return false;
    }
    if (count > words.size() - i) {
      error = "instruction at word " + str(i) + " (opcode " + str(opcode) +
              ") runs past the end of the module";
      return false;
    }
    const uint32_t *op = &words[i];
    switch (opcode) {
    case kOpCapability:
      if (count >= 2)
        facts.capabilities.push_back(op[1]);
      break;
    case kOpEntryPoint:
      if (count >= 4 && op[1] == kExecutionModelGLCompute && !haveEntry &&
          literalString(words, i + 3, i + count) == entryPoint) {
        haveEntry = true;
        entryId = op[2];
      }
      break;
    case kOpExecutionMode:
    case kOpExecutionModeId:
      if (count >= 6 && op[2] == kExecutionModeLocalSize)
        localSize[op[1]] = {op[3], op[4], op[5]};
      else if (count >= 6 && op[2] == kExecutionModeLocalSizeId)
        localSizeId[op[1]] = {op[3], op[4], op[5]};
      break;
    case kOpConstant:
    case kOpSpecConstant:
      if (count == 4) // a 32-bit scalar
        constants[op[2]] = op[3];
      break;
    case kOpConstantComposite:
    case kOpSpecConstantComposite:
      if (count == 6)
        composites[op[2]] = {op[3], op[4], op[5]};
      break;
    case kOpDecorate:
      if (count >= 4 && op[2] == kDecorationBuiltIn &&
          op[3] == kBuiltInWorkgroupSize)
        workgroupSizeId = op[1];
      break;
    default:
      break;
    }
    i += count;
  }
  facts.hasEntryPoint = haveEntry;
  if (!haveEntry)
    return true;
  // Ids of three 32-bit constants to their values, when all are known.
  auto resolve = [&](const std::vector<uint32_t> &ids) {
    for (int d = 0; d < 3; ++d) {
      auto it = constants.find(ids[d]);
      if (it == constants.end())
        return false;
      facts.localSize[d] = it->second;
    }
    return true;
  };
  if (workgroupSizeId) {
    // The built-in overrides the execution modes.
    auto it = composites.find(workgroupSizeId);
    facts.hasLocalSize = it != composites.end() && resolve(it->second);
  } else if (auto it = localSize.find(entryId); it != localSize.end()) {
    for (int d = 0; d < 3; ++d)
      facts.localSize[d] = it->second[d];
    facts.hasLocalSize = true;
  } else if (auto it = localSizeId.find(entryId); it != localSizeId.end()) {
    facts.hasLocalSize = resolve(it->second);
  }
  return true;
}

const char *capabilityName(uint32_t capability) {
  switch (capability) {
#define TESSEL_SPIRV_CAPABILITY(name)                                          \
  case name:                                                                   \
    return #name;
    TESSEL_SPIRV_CAPABILITY(Matrix)
    TESSEL_SPIRV_CAPABILITY(Shader)
    TESSEL_SPIRV_CAPABILITY(Addresses)
    TESSEL_SPIRV_CAPABILITY(Linkage)
    TESSEL_SPIRV_CAPABILITY(Kernel)
    TESSEL_SPIRV_CAPABILITY(Float16)
    TESSEL_SPIRV_CAPABILITY(Float64)
    TESSEL_SPIRV_CAPABILITY(Int64)
    TESSEL_SPIRV_CAPABILITY(Int64Atomics)
    TESSEL_SPIRV_CAPABILITY(Int16)
    TESSEL_SPIRV_CAPABILITY(Int8)
    TESSEL_SPIRV_CAPABILITY(GroupNonUniform)
    TESSEL_SPIRV_CAPABILITY(GroupNonUniformVote)
    TESSEL_SPIRV_CAPABILITY(GroupNonUniformArithmetic)
    TESSEL_SPIRV_CAPABILITY(GroupNonUniformBallot)
    TESSEL_SPIRV_CAPABILITY(GroupNonUniformShuffle)
    TESSEL_SPIRV_CAPABILITY(GroupNonUniformShuffleRelative)
    TESSEL_SPIRV_CAPABILITY(GroupNonUniformClustered)
    TESSEL_SPIRV_CAPABILITY(GroupNonUniformQuad)
    TESSEL_SPIRV_CAPABILITY(StorageBuffer16BitAccess)
    TESSEL_SPIRV_CAPABILITY(UniformAndStorageBuffer16BitAccess)
    TESSEL_SPIRV_CAPABILITY(StoragePushConstant16)
    TESSEL_SPIRV_CAPABILITY(StorageInputOutput16)
    TESSEL_SPIRV_CAPABILITY(VariablePointersStorageBuffer)
    TESSEL_SPIRV_CAPABILITY(VariablePointers)
    TESSEL_SPIRV_CAPABILITY(StorageBuffer8BitAccess)
    TESSEL_SPIRV_CAPABILITY(UniformAndStorageBuffer8BitAccess)
    TESSEL_SPIRV_CAPABILITY(StoragePushConstant8)
    TESSEL_SPIRV_CAPABILITY(VulkanMemoryModel)
    TESSEL_SPIRV_CAPABILITY(PhysicalStorageBufferAddresses)
#undef TESSEL_SPIRV_CAPABILITY
  default:
    return nullptr;
  }
}

Status checkCapability(uint32_t capability, const DeviceFeatures &features,
                       const std::string &kernel, const std::string &device) {
  // The feature a capability needs, and whether the device enabled it.
  const char *feature = nullptr;
  bool enabled = false;
  auto needs = [&](const char *name, bool has) {
    feature = name;
    enabled = has;
  };
  auto subgroup = [&](const char *name, uint32_t bit) {
    needs(name, (features.subgroupOperations & bit) != 0);
  };
  switch (capability) {
  case Matrix: // implied by Shader, which every Vulkan device has
  case Shader:
    return Status::ok();
  case Int64:
    needs("shaderInt64", features.shaderInt64);
    break;
  case Float64:
    needs("shaderFloat64", features.shaderFloat64);
    break;
  case Int16:
    needs("shaderInt16", features.shaderInt16);
    break;
  case Int8:
    needs("shaderInt8", features.shaderInt8);
    break;
  case Float16:
    needs("shaderFloat16", features.shaderFloat16);
    break;
  case StorageBuffer8BitAccess:
    needs("storageBuffer8BitAccess", features.storageBuffer8BitAccess);
    break;
  case UniformAndStorageBuffer8BitAccess:
    needs("uniformAndStorageBuffer8BitAccess",
          features.uniformAndStorageBuffer8BitAccess);
    break;
  case StoragePushConstant8:
    needs("storagePushConstant8", features.storagePushConstant8);
    break;
  case StorageBuffer16BitAccess:
    needs("storageBuffer16BitAccess", features.storageBuffer16BitAccess);
    break;
  case UniformAndStorageBuffer16BitAccess:
    needs("uniformAndStorageBuffer16BitAccess",
          features.uniformAndStorageBuffer16BitAccess);
    break;
  case StoragePushConstant16:
    needs("storagePushConstant16", features.storagePushConstant16);
    break;
  case StorageInputOutput16:
    needs("storageInputOutput16", features.storageInputOutput16);
    break;
  case GroupNonUniform:
    subgroup("subgroup basic operations in compute shaders", kSubgroupBasic);
    break;
  case GroupNonUniformVote:
    subgroup("subgroup vote operations in compute shaders", kSubgroupVote);
    break;
  case GroupNonUniformArithmetic:
    subgroup("subgroup arithmetic operations in compute shaders",
             kSubgroupArithmetic);
    break;
  case GroupNonUniformBallot:
    subgroup("subgroup ballot operations in compute shaders", kSubgroupBallot);
    break;
  case GroupNonUniformShuffle:
    subgroup("subgroup shuffle operations in compute shaders",
             kSubgroupShuffle);
    break;
  case GroupNonUniformShuffleRelative:
    subgroup("subgroup relative shuffle operations in compute shaders",
             kSubgroupShuffleRelative);
    break;
  case GroupNonUniformClustered:
    subgroup("subgroup clustered operations in compute shaders",
             kSubgroupClustered);
    break;
  case GroupNonUniformQuad:
    subgroup("subgroup quad operations in compute shaders", kSubgroupQuad);
    break;
  default: {
    const char *name = capabilityName(capability);
    return unavailable(kernel + " needs SPIR-V capability " +
                       (name ? std::string(name) + " (" + str(capability) + ")"
                             : str(capability)) +
                       ", which the Vulkan driver does not support");
  }
  }
  if (enabled)
    return Status::ok();
  return unavailable(kernel + " needs SPIR-V capability " +
                     capabilityName(capability) + " (" + str(capability) +
                     "), but device " + device + " lacks " + feature);
}

} // namespace tessel::runtime::vulkan
