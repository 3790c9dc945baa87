//===- VulkanAbi.h - The kernel ABI of the Vulkan driver --------*- C++ -*-===//
//
// The parts of the Vulkan driver that need no device (VulkanDriver.cpp has
// the ABI itself in its file comment): the reading of a launch's
// `params` array into what the kernel binds (an address and a byte size per
// argument) and the shape buffer's values, the facts of a SPIR-V module
// the driver checks before creating a shader module (capabilities, entry
// point, local size), and which device feature each capability needs.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_DRIVERS_VULKAN_VULKANABI_H
#define TESSEL_RUNTIME_DRIVERS_VULKAN_VULKANABI_H

#include "Status.h"
#include "format/Artifact.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::runtime::vulkan {

/// Vulkan kernels index with 32 bits: every size and every argument's
/// element count must be below this.
constexpr int64_t kMaxIndexable = int64_t(1) << 31;

/// "kernel 'add' (ONNX node 'Add_0', Add)", for messages.
std::string describeKernel(const format::Kernel &kernel);

/// What one argument binds: the device address of its first element (the
/// descriptor's aligned pointer) and its exact size in bytes.
struct BoundArgument {
  uint64_t address = 0;
  uint64_t bytes = 0;
};

/// Reads the ABI array `params` of a launch of `kernel` (docs/design.md
/// "Kernel ABI") by the kernel's signature (Kernel::params, which
/// validate() held every launch to): one BoundArgument per argument into
/// `args`, and every size of every argument, in order, into `shape` (the
/// shape buffer's values). INTERNAL when an offset is not 0 or the strides
/// are not contiguous row-major; RESOURCE_EXHAUSTED when a size or an
/// element count is not below kMaxIndexable.
Status readLaunchArguments(const format::Kernel &kernel, void **params,
                           std::vector<BoundArgument> &args,
                           std::vector<int32_t> &shape);

/// What the driver checks in a SPIR-V module before creating it.
struct SpirvFacts {
  /// The operands of every OpCapability, in order.
  std::vector<uint32_t> capabilities;
  /// Whether the module has a GLCompute OpEntryPoint of the wanted name.
  bool hasEntryPoint = false;
  /// Its workgroup size (the WorkgroupSize built-in when the module has
  /// one, else its LocalSize or LocalSizeId execution mode), when known.
  bool hasLocalSize = false;
  uint32_t localSize[3] = {0, 0, 0};
};

/// Walks the instructions of `words` (a module that starts with the SPIR-V
/// magic) for the facts about entry point `entryPoint`. False with `error`
/// when an instruction is malformed (a word count of 0, or one that runs
/// past the end).
bool scanSpirv(const std::vector<uint32_t> &words,
               const std::string &entryPoint, SpirvFacts &facts,
               std::string &error);

/// The features a device has enabled, as the capability checks need them.
struct DeviceFeatures {
  bool shaderInt64 = false;
  bool shaderFloat64 = false;
  bool shaderInt16 = false;
  bool shaderInt8 = false;
  bool shaderFloat16 = false;
  bool storageBuffer8BitAccess = false;
  bool uniformAndStorageBuffer8BitAccess = false;
  bool storagePushConstant8 = false;
  bool storageBuffer16BitAccess = false;
  bool uniformAndStorageBuffer16BitAccess = false;
  bool storagePushConstant16 = false;
  bool storageInputOutput16 = false;
  /// VkSubgroupFeatureFlags of compute shaders (0 when the device has no
  /// subgroup operations in compute shaders).
  uint32_t subgroupOperations = 0;
};

/// The SPIR-V name of `capability` ("Int64"), or null when this runtime
/// does not know it.
const char *capabilityName(uint32_t capability);

/// OK when a module declaring `capability` can run with `features`;
/// UNAVAILABLE otherwise, naming `kernel`, the capability and, for a known
/// one, the feature `device` lacks.
Status checkCapability(uint32_t capability, const DeviceFeatures &features,
                       const std::string &kernel, const std::string &device);

} // namespace tessel::runtime::vulkan

#endif // TESSEL_RUNTIME_DRIVERS_VULKAN_VULKANABI_H
