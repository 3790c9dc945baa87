//===- VulkanApi.h - The Vulkan API, loaded at run time ---------*- C++ -*-===//
//
// The Vulkan entry points the runtime uses. The types come from the Vulkan
// headers (with VK_NO_PROTOTYPES, so nothing is linked against libvulkan);
// the functions are resolved at run time: vkGetInstanceProcAddr with dlsym
// from the loader (libvulkan.so.1), the global and instance-level functions
// through it, and the device-level ones through vkGetDeviceProcAddr for
// each VkDevice (which skips the loader's dispatch).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_DRIVERS_VULKAN_VULKANAPI_H
#define TESSEL_RUNTIME_DRIVERS_VULKAN_VULKANAPI_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include "DynamicLibrary.h"

#include <string>
#include <vector>

namespace tessel::runtime::vulkan {

// The entry points, by level. X(name) is expanded once per function.
#define TESSEL_VK_INSTANCE_FUNCTIONS(X)                                        \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)

#define TESSEL_VK_DEVICE_FUNCTIONS(X)                                          \
  X(vkDestroyDevice)                                                           \
  X(vkDeviceWaitIdle)                                                          \
  X(vkGetDeviceQueue)                                                          \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkMapMemory)                                                               \
  X(vkUnmapMemory)                                                             \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreateDescriptorPool)                                                    \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkResetDescriptorPool)                                                     \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkUpdateDescriptorSets)                                                    \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkResetCommandBuffer)                                                      \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdDispatch)                                                             \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCreateFence)                                                             \
  X(vkDestroyFence)                                                            \
  X(vkResetFences)                                                             \
  X(vkWaitForFences)                                                           \
  X(vkQueueSubmit)

#define TESSEL_VK_DECLARE(name) PFN_##name name = nullptr;

/// The loader and its global and instance-level entry points. A loaded Api
/// has the global ones; loadInstance() adds the instance-level ones.
struct Api {
  DynamicLibrary library;

  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
  /// Null in a Vulkan 1.0 loader.
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
  TESSEL_VK_INSTANCE_FUNCTIONS(TESSEL_VK_DECLARE)

  /// Opens the first loadable of `libraries` and resolves
  /// vkGetInstanceProcAddr and the global functions; `error` says which
  /// library or function is missing ("libvulkan.so.1: cannot open shared
  /// object file: ...").
  bool load(const std::vector<std::string> &libraries, std::string &error);
  /// Resolves the instance-level functions of `instance`.
  bool loadInstance(VkInstance instance, std::string &error);
};

/// The device-level entry points of one VkDevice.
struct DeviceApi {
  TESSEL_VK_DEVICE_FUNCTIONS(TESSEL_VK_DECLARE)

  bool load(const Api &api, VkDevice device, std::string &error);
};

#undef TESSEL_VK_DECLARE

/// "VK_ERROR_DEVICE_LOST", or "VkResult -13" for a value this runtime does
/// not know.
std::string resultName(VkResult result);

} // namespace tessel::runtime::vulkan

#endif // TESSEL_RUNTIME_DRIVERS_VULKAN_VULKANAPI_H
