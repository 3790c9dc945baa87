//===- VulkanApi.cpp - The Vulkan API, loaded at run time -----------------===//

#include "drivers/vulkan/VulkanApi.h"

namespace tessel::runtime::vulkan {

bool Api::load(const std::vector<std::string> &libraries, std::string &error) {
  if (!library.open(libraries, error))
    return false;
  vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      library.symbol("vkGetInstanceProcAddr"));
  if (!vkGetInstanceProcAddr) {
    error = library.name() + " lacks vkGetInstanceProcAddr";
    return false;
  }
  vkCreateInstance = reinterpret_cast<PFN_vkCreateInstance>(
      vkGetInstanceProcAddr(nullptr, "vkCreateInstance"));
  if (!vkCreateInstance) {
    error = library.name() + " lacks vkCreateInstance";
    return false;
  }
  vkEnumerateInstanceVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion"));
  return true;
}

bool Api::loadInstance(VkInstance instance, std::string &error) {
#define TESSEL_VK_RESOLVE(name)                                                \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name)); \
  if (!name) {                                                                 \
    error = "the Vulkan instance lacks " #name;                                \
    return false;                                                              \
  }
  TESSEL_VK_INSTANCE_FUNCTIONS(TESSEL_VK_RESOLVE)
#undef TESSEL_VK_RESOLVE
  return true;
}

bool DeviceApi::load(const Api &api, VkDevice device, std::string &error) {
#define TESSEL_VK_RESOLVE(name)                                                \
  name = reinterpret_cast<PFN_##name>(api.vkGetDeviceProcAddr(device, #name)); \
  if (!name) {                                                                 \
    error = "the Vulkan device lacks " #name;                                  \
    return false;                                                              \
  }
  TESSEL_VK_DEVICE_FUNCTIONS(TESSEL_VK_RESOLVE)
#undef TESSEL_VK_RESOLVE
  return true;
}

std::string resultName(VkResult result) {
  switch (result) {
#define TESSEL_VK_RESULT(name)                                                 \
  case name:                                                                   \
    return #name;
    TESSEL_VK_RESULT(VK_SUCCESS)
    TESSEL_VK_RESULT(VK_NOT_READY)
    TESSEL_VK_RESULT(VK_TIMEOUT)
    TESSEL_VK_RESULT(VK_EVENT_SET)
    TESSEL_VK_RESULT(VK_EVENT_RESET)
    TESSEL_VK_RESULT(VK_INCOMPLETE)
    TESSEL_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    TESSEL_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    TESSEL_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    TESSEL_VK_RESULT(VK_ERROR_DEVICE_LOST)
    TESSEL_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    TESSEL_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    TESSEL_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    TESSEL_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    TESSEL_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    TESSEL_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    TESSEL_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    TESSEL_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    TESSEL_VK_RESULT(VK_ERROR_UNKNOWN)
    TESSEL_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    TESSEL_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    TESSEL_VK_RESULT(VK_ERROR_FRAGMENTATION)
    TESSEL_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    TESSEL_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
    TESSEL_VK_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef TESSEL_VK_RESULT
  default:
    return "VkResult " + std::to_string(static_cast<int>(result));
  }
}

} // namespace tessel::runtime::vulkan
