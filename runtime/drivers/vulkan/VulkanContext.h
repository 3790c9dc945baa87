//===- VulkanContext.h - A Vulkan device's memory and batch -----*- C++ -*-===//
//
// The state a Vulkan device shares with the executables loaded on it
// (Context): its memory, its batch of recorded commands, and the host
// memory the batch uses. VulkanDriver.cpp builds devices, pipelines and
// launches on it.
//
// Memory. allocate() hands out addresses of a private address space, each
// backed by a VkBuffer with its own VkDeviceMemory (device-local and, where
// the device has such memory, host-visible and coherent, then mapped); the
// session does arithmetic on these addresses, and the driver maps every
// address it receives back to (allocation, offset) with an ordered map.
// They are never dereferenced.
//
// Ordering. Every copy and launch is recorded, in call order, into the
// device's current command buffer with a global memory barrier between
// consecutive commands; synchronize() submits it, waits on a fence and then
// does the deferred copies to the host. Copies to and from the host go
// through host-visible staging memory of the batch (a copy to the device
// is written there at once, so the caller may reuse its memory); while
// nothing is recorded, a mapped allocation is read or written directly
// instead (TESSEL_VULKAN_STAGING=1 turns that off, as on a device without
// host-visible device memory). Staging, shape buffer slices and descriptor
// pools belong to the batch and are reused after synchronize(). One mutex
// per device serializes recording and synchronize(), so sessions on
// several threads may share a device (their commands share its batch, like
// the CUDA driver's stream). Objects a recorded batch may still use
// (deallocated memory, an executable's pipelines) are destroyed after it
// completes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_DRIVERS_VULKAN_VULKANCONTEXT_H
#define TESSEL_RUNTIME_DRIVERS_VULKAN_VULKANCONTEXT_H

#include "Status.h"
#include "drivers/vulkan/VulkanAbi.h"
#include "drivers/vulkan/VulkanApi.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessel::runtime::vulkan {

/// The private address space: where it starts, how allocations are
/// aligned, and the gap between two, so that the end of one allocation is
/// never the start of the next.
constexpr uint64_t kAddressBase = uint64_t(1) << 44;
constexpr uint64_t kAddressAlignment = 256;
constexpr uint64_t kAddressGap = 256;
constexpr uint64_t kAddressLimit = uint64_t(1) << 62;
/// Host-visible chunks of a batch: the least a new chunk has, and the most
/// bytes of chunks kept for the next batch.
constexpr uint64_t kStagingChunkBytes = uint64_t(4) << 20;
constexpr uint64_t kShapeChunkBytes = uint64_t(64) << 10;
constexpr uint64_t kKeptChunkBytes = uint64_t(16) << 20;
/// The capacity of a descriptor pool.
constexpr uint32_t kSetsPerPool = 128;
constexpr uint32_t kDescriptorsPerPool = 1024;

inline std::string str(uint64_t v) { return std::to_string(v); }

inline std::string hexAddress(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

inline std::string versionText(uint32_t version) {
  return str(VK_API_VERSION_MAJOR(version)) + "." +
         str(VK_API_VERSION_MINOR(version));
}

inline std::string sizeText(const uint32_t size[3]) {
  return str(size[0]) + "x" + str(size[1]) + "x" + str(size[2]);
}

/// Links the Vulkan structures `next` (each starting with sType and pNext)
/// after `head`, in order.
inline void chain(void *head, const std::vector<void *> &next) {
  auto *at = static_cast<VkBaseOutStructure *>(head);
  for (void *n : next) {
    at->pNext = static_cast<VkBaseOutStructure *>(n);
    at = at->pNext;
  }
  at->pNext = nullptr;
}

/// The instance, shared by the driver and every device it opened.
struct Instance {
  std::shared_ptr<Api> api;
  VkInstance instance = VK_NULL_HANDLE;

  ~Instance() {
    if (instance && api->vkDestroyInstance)
      api->vkDestroyInstance(instance, nullptr);
  }
};

/// A physical device the driver offers.
struct PhysicalDevice {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  uint32_t queueFamily = 0;
  /// The version the driver uses it at: the lower of the instance's and
  /// the device's.
  uint32_t apiVersion = 0;
  std::string description;
};

/// One allocation of the address space.
struct Allocation {
  uint64_t size = 0;       ///< what the session asked for
  uint64_t bufferSize = 0; ///< the VkBuffer's size (>= size, > 0)
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint8_t *mapped = nullptr; ///< for direct copies, or null
};

/// A host-visible buffer that a batch sub-allocates from.
struct HostChunk {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint8_t *mapped = nullptr;
  uint64_t size = 0;
  uint64_t used = 0;
};

/// Chunks of one kind (staging, shape buffers), reused batch after batch.
struct HostChunks {
  VkBufferUsageFlags usage = 0;
  std::vector<VkMemoryPropertyFlags> preferences;
  uint64_t minChunk = 0;
  std::vector<HostChunk> chunks;
  size_t current = 0; ///< the first chunk that may have room
};

/// A VkDevice with its queue and its batch, shared by the device and the
/// executables loaded on it. Its member functions run with `mutex` held,
/// but for those the driver calls while it creates the device (no one else
/// has it yet) and the destructor (no one has it any more).
struct Context {
  std::shared_ptr<Instance> instance;
  DeviceApi vk;
  std::string name; ///< "vulkan:0"
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkPhysicalDeviceLimits limits{};
  VkPhysicalDeviceMemoryProperties memoryProperties{};
  uint64_t maxAllocationSize = 0;
  DeviceFeatures features;
  /// TESSEL_VULKAN_STAGING=1: no allocation is mapped, every copy staged.
  bool forceStaging = false;

  std::mutex mutex;
  std::map<uint64_t, Allocation> allocations; ///< by address
  void *placeholder = nullptr; ///< see emptyArgumentBuffer()
  uint64_t nextAddress = kAddressBase;

  // The batch: what is recorded into `commands` until synchronize().
  bool recording = false;
  uint32_t recorded = 0; ///< commands recorded
  HostChunks staging, shapes;
  std::vector<VkDescriptorPool> pools;
  size_t currentPool = 0;
  struct HostCopy {
    void *dst;
    const uint8_t *src;
    uint64_t bytes;
  };
  std::vector<HostCopy> hostCopies; ///< done after the fence
  /// Destroys objects the batch may use, once it has completed.
  std::vector<std::function<void()>> retired;
  /// Set when the device is lost: every later call fails with it.
  std::string lost;

  ~Context() {
    if (!device)
      return;
    vk.vkDeviceWaitIdle(device);
    runRetired();
    for (auto &[address, a] : allocations)
      destroyBuffer(a.buffer, a.memory);
    for (HostChunks *kind : {&staging, &shapes})
      for (HostChunk &c : kind->chunks)
        destroyBuffer(c.buffer, c.memory);
    for (VkDescriptorPool pool : pools)
      vk.vkDestroyDescriptorPool(device, pool, nullptr);
    if (fence)
      vk.vkDestroyFence(device, fence, nullptr);
    if (commandPool)
      vk.vkDestroyCommandPool(device, commandPool, nullptr);
    vk.vkDestroyDevice(device, nullptr);
  }

  /// An error for a failed call `what`.
  Status fail(VkResult r, const std::string &what) const {
    std::string message = what + ": " + resultName(r);
    return r == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
                   r == VK_ERROR_OUT_OF_HOST_MEMORY
               ? resourceExhausted(message)
               : internalError(message);
  }
  Status check(VkResult r, const char *what) const {
    return r == VK_SUCCESS ? Status::ok() : fail(r, what);
  }
  Status usable() const {
    return lost.empty() ? Status::ok() : internalError(lost);
  }

  void destroyBuffer(VkBuffer buffer, VkDeviceMemory memory) {
    if (buffer)
      vk.vkDestroyBuffer(device, buffer, nullptr);
    if (memory)
      vk.vkFreeMemory(device, memory, nullptr); // unmaps it too
  }

  /// Runs `destroy` now, or after the batch when one is being recorded.
  void retire(std::function<void()> destroy) {
    if (recording)
      retired.push_back(std::move(destroy));
    else
      destroy();
  }
  void runRetired() {
    for (auto &destroy : retired)
      destroy();
    retired.clear();
  }

  int32_t memoryType(uint32_t typeBits, VkMemoryPropertyFlags wanted) const {
    for (uint32_t i = 0; i < memoryProperties.memoryTypeCount; ++i)
      if ((typeBits & (1u << i)) &&
          (memoryProperties.memoryTypes[i].propertyFlags & wanted) == wanted)
        return static_cast<int32_t>(i);
    return -1;
  }

  /// A buffer of `size` bytes with memory of the first of `preferences`
  /// the device has (falling back to the next when that memory is out),
  /// mapped when `map` and the memory is host-visible and coherent.
  Status createBuffer(uint64_t size, VkBufferUsageFlags usage,
                      const std::vector<VkMemoryPropertyFlags> &preferences,
                      bool map, VkBuffer &buffer, VkDeviceMemory &memory,
                      uint8_t *&mapped, const std::string &what) {
    buffer = VK_NULL_HANDLE;
    memory = VK_NULL_HANDLE;
    mapped = nullptr;
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult r = vk.vkCreateBuffer(device, &info, nullptr, &buffer);
    if (r != VK_SUCCESS) {
      buffer = VK_NULL_HANDLE;
      return fail(r, what + ": vkCreateBuffer");
    }
    VkMemoryRequirements req;
    vk.vkGetBufferMemoryRequirements(device, buffer, &req);
    r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    int32_t type = -1;
    bool found = false;
    for (VkMemoryPropertyFlags wanted : preferences) {
      type = memoryType(req.memoryTypeBits, wanted);
      if (type < 0)
        continue;
      found = true;
      VkMemoryAllocateInfo alloc{};
      alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
      alloc.allocationSize = req.size;
      alloc.memoryTypeIndex = static_cast<uint32_t>(type);
      r = vk.vkAllocateMemory(device, &alloc, nullptr, &memory);
      if (r == VK_SUCCESS)
        break;
      memory = VK_NULL_HANDLE;
      if (r != VK_ERROR_OUT_OF_DEVICE_MEMORY)
        break;
    }
    Status s = Status::ok();
    if (!found)
      s = internalError(what + ": the device has no suitable memory type");
    else if (r != VK_SUCCESS)
      s = fail(r, what + ": vkAllocateMemory");
    else
      s = check(vk.vkBindBufferMemory(device, buffer, memory, 0),
                "vkBindBufferMemory");
    const VkMemoryPropertyFlags mappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (s.isOk() && map &&
        (memoryProperties.memoryTypes[type].propertyFlags & mappable) ==
            mappable) {
      void *p = nullptr;
      s = check(vk.vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &p),
                "vkMapMemory");
      mapped = static_cast<uint8_t *>(p);
    }
    if (!s.isOk()) {
      destroyBuffer(buffer, memory);
      buffer = VK_NULL_HANDLE;
      memory = VK_NULL_HANDLE;
      mapped = nullptr;
    }
    return s;
  }

  /// The allocation and offset of `bytes` at `address`; INTERNAL when the
  /// range is not inside one allocation.
  Status resolve(uint64_t address, uint64_t bytes, const char *what,
                 Allocation *&allocation, uint64_t &offset) {
    allocation = find(address, bytes, offset);
    return allocation ? Status::ok() : outside(address, bytes, what);
  }

  /// The allocation `bytes` at `address` lie in (and their offset in it),
  /// or null.
  Allocation *find(uint64_t address, uint64_t bytes, uint64_t &offset) {
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin())
      return nullptr;
    --it;
    offset = address - it->first;
    if (offset > it->second.size || bytes > it->second.size - offset)
      return nullptr;
    return &it->second;
  }

  /// The error for `bytes` at `address` that find() did not find.
  Status outside(uint64_t address, uint64_t bytes,
                 const std::string &what) const {
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin())
      return internalError(what + ": address " + hexAddress(address) +
                           " is not memory of " + name);
    --it;
    return internalError(what + ": " + str(bytes) + " bytes at " +
                         hexAddress(address) + " leave the allocation of " +
                         str(it->second.size) + " bytes at " +
                         hexAddress(it->first) + " on " + name);
  }

  /// `bytes` of host-visible memory of the batch, aligned to `alignment`
  /// (a power of 2) within `chunk`'s buffer.
  Status reserve(HostChunks &kind, uint64_t bytes, uint64_t alignment,
                 HostChunk *&chunk, uint64_t &offset) {
    for (; kind.current < kind.chunks.size(); ++kind.current) {
      HostChunk &c = kind.chunks[kind.current];
      uint64_t at = (c.used + alignment - 1) & ~(alignment - 1);
      if (at <= c.size && bytes <= c.size - at) {
        c.used = at + bytes;
        chunk = &c;
        offset = at;
        return Status::ok();
      }
    }
    HostChunk c;
    c.size = std::max(kind.minChunk, (bytes + 255) & ~uint64_t(255));
    TESSEL_RETURN_IF_ERROR(
        createBuffer(c.size, kind.usage, kind.preferences, true, c.buffer,
                     c.memory, c.mapped,
                     "cannot allocate " + str(c.size) +
                         " bytes of host-visible memory on " + name));
    if (!c.mapped) {
      destroyBuffer(c.buffer, c.memory);
      return internalError(name + ": host-visible memory cannot be mapped");
    }
    c.used = bytes;
    kind.chunks.push_back(c);
    kind.current = kind.chunks.size() - 1;
    chunk = &kind.chunks.back();
    offset = 0;
    return Status::ok();
  }

  /// Empties the chunks for the next batch, keeping the first ones up to
  /// kKeptChunkBytes.
  void resetChunks(HostChunks &kind) {
    uint64_t kept = 0;
    size_t keep = 0;
    for (; keep < kind.chunks.size(); ++keep) {
      if (kept + kind.chunks[keep].size > kKeptChunkBytes && keep > 0)
        break;
      kept += kind.chunks[keep].size;
      kind.chunks[keep].used = 0;
    }
    for (size_t i = keep; i < kind.chunks.size(); ++i)
      destroyBuffer(kind.chunks[i].buffer, kind.chunks[i].memory);
    kind.chunks.resize(keep);
    kind.current = 0;
  }

  /// A descriptor set of `layout` (with `descriptors` bindings) from the
  /// batch's pools.
  Status allocateSet(VkDescriptorSetLayout layout, uint32_t descriptors,
                     VkDescriptorSet &set) {
    while (true) {
      bool fresh = false;
      if (currentPool == pools.size()) {
        VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                  std::max(kDescriptorsPerPool, descriptors)};
        VkDescriptorPoolCreateInfo info{};
        info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
        info.maxSets = kSetsPerPool;
        info.poolSizeCount = 1;
        info.pPoolSizes = &size;
        VkDescriptorPool pool = VK_NULL_HANDLE;
        TESSEL_RETURN_IF_ERROR(
            check(vk.vkCreateDescriptorPool(device, &info, nullptr, &pool),
                  "vkCreateDescriptorPool"));
        pools.push_back(pool);
        fresh = true;
      }
      VkDescriptorSetAllocateInfo info{};
      info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
      info.descriptorPool = pools[currentPool];
      info.descriptorSetCount = 1;
      info.pSetLayouts = &layout;
      VkResult r = vk.vkAllocateDescriptorSets(device, &info, &set);
      if (r == VK_SUCCESS)
        return Status::ok();
      if (fresh ||
          (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL))
        return fail(r, "vkAllocateDescriptorSets");
      ++currentPool; // full: the next one
    }
  }

  /// A global memory barrier from the shader and transfer writes of the
  /// commands before it to the accesses `access` of stages `stages`.
  void barrier(VkPipelineStageFlags stages, VkAccessFlags access) {
    VkMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = access;
    vk.vkCmdPipelineBarrier(commands,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                                VK_PIPELINE_STAGE_TRANSFER_BIT,
                            stages, 0, 1, &b, 0, nullptr, 0, nullptr);
  }

  /// Readies `commands` for the next command: begins the batch, or
  /// separates the command from the previous one with a barrier.
  Status beginCommand() {
    if (!recording) {
      VkCommandBufferBeginInfo info{};
      info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
      info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      TESSEL_RETURN_IF_ERROR(check(vk.vkBeginCommandBuffer(commands, &info),
                                   "vkBeginCommandBuffer"));
      recording = true;
      recorded = 0;
    } else if (recorded > 0) {
      barrier(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                  VK_PIPELINE_STAGE_TRANSFER_BIT,
              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                  VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    }
    ++recorded;
    return Status::ok();
  }

  /// Whether a copy may use the mapped memory of `a` directly: nothing is
  /// recorded that it would have to wait for.
  bool direct(const Allocation &a) const {
    return a.mapped && !recording && !forceStaging;
  }

  void copyCommand(VkBuffer src, uint64_t srcOffset, VkBuffer dst,
                   uint64_t dstOffset, uint64_t bytes) {
    VkBufferCopy region{srcOffset, dstOffset, bytes};
    vk.vkCmdCopyBuffer(commands, src, dst, 1, &region);
  }

  Status copyToDevice(void *dst, const void *src, uint64_t bytes) {
    TESSEL_RETURN_IF_ERROR(usable());
    if (bytes == 0)
      return Status::ok();
    Allocation *a = nullptr;
    uint64_t offset = 0;
    TESSEL_RETURN_IF_ERROR(resolve(reinterpret_cast<uintptr_t>(dst), bytes,
                                   "copy to the device", a, offset));
    if (direct(*a)) {
      std::memcpy(a->mapped + offset, src, bytes);
      return Status::ok();
    }
    HostChunk *chunk = nullptr;
    uint64_t at = 0;
    TESSEL_RETURN_IF_ERROR(reserve(staging, bytes, 16, chunk, at));
    std::memcpy(chunk->mapped + at, src, bytes);
    TESSEL_RETURN_IF_ERROR(beginCommand());
    copyCommand(chunk->buffer, at, a->buffer, offset, bytes);
    return Status::ok();
  }

  Status copyToHost(void *dst, const void *src, uint64_t bytes) {
    TESSEL_RETURN_IF_ERROR(usable());
    if (bytes == 0)
      return Status::ok();
    Allocation *a = nullptr;
    uint64_t offset = 0;
    TESSEL_RETURN_IF_ERROR(resolve(reinterpret_cast<uintptr_t>(src), bytes,
                                   "copy to the host", a, offset));
    if (direct(*a)) {
      std::memcpy(dst, a->mapped + offset, bytes);
      return Status::ok();
    }
    HostChunk *chunk = nullptr;
    uint64_t at = 0;
    TESSEL_RETURN_IF_ERROR(reserve(staging, bytes, 16, chunk, at));
    TESSEL_RETURN_IF_ERROR(beginCommand());
    copyCommand(a->buffer, offset, chunk->buffer, at, bytes);
    hostCopies.push_back({dst, chunk->mapped + at, bytes});
    return Status::ok();
  }

  Status copyOnDevice(void *dst, const void *src, uint64_t bytes) {
    TESSEL_RETURN_IF_ERROR(usable());
    if (dst == src || bytes == 0)
      return Status::ok();
    Allocation *to = nullptr, *from = nullptr;
    uint64_t toOffset = 0, fromOffset = 0;
    TESSEL_RETURN_IF_ERROR(resolve(reinterpret_cast<uintptr_t>(dst), bytes,
                                   "copy on the device", to, toOffset));
    TESSEL_RETURN_IF_ERROR(resolve(reinterpret_cast<uintptr_t>(src), bytes,
                                   "copy on the device", from, fromOffset));
    TESSEL_RETURN_IF_ERROR(beginCommand());
    copyCommand(from->buffer, fromOffset, to->buffer, toOffset, bytes);
    return Status::ok();
  }

  /// Makes the next batch start empty: the command buffer, pools, chunks
  /// and deferred work of this one are reset or released.
  void resetBatch() {
    vk.vkResetCommandBuffer(commands, 0);
    for (size_t i = 0; i < pools.size() && i <= currentPool; ++i)
      vk.vkResetDescriptorPool(device, pools[i], 0);
    currentPool = 0;
    resetChunks(staging);
    resetChunks(shapes);
    hostCopies.clear();
    recording = false;
    recorded = 0;
    runRetired();
  }

  Status synchronize() {
    TESSEL_RETURN_IF_ERROR(usable());
    if (!recording)
      return Status::ok();
    // The host reads what the batch wrote (the staged copies) after the
    // fence: make the writes visible to it.
    barrier(VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    const char *call = "vkEndCommandBuffer";
    VkResult r = vk.vkEndCommandBuffer(commands);
    bool submitted = false;
    if (r == VK_SUCCESS) {
      VkSubmitInfo submit{};
      submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
      submit.commandBufferCount = 1;
      submit.pCommandBuffers = &commands;
      call = "vkQueueSubmit";
      r = vk.vkQueueSubmit(queue, 1, &submit, fence);
      submitted = r == VK_SUCCESS;
    }
    if (r == VK_SUCCESS) {
      call = "vkWaitForFences";
      r = vk.vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
    }
    if (submitted)
      vk.vkResetFences(device, 1, &fence);
    if (r != VK_SUCCESS) {
      std::string message = "Vulkan error while running the plan on " + name +
                            ": " + call + ": " + resultName(r);
      if (r == VK_ERROR_DEVICE_LOST) {
        lost = message; // nothing may run on it any more
        return internalError(message);
      }
      // The batch is dropped: wait for whatever of it runs, then reset.
      vk.vkDeviceWaitIdle(device);
      resetBatch();
      return internalError(message);
    }
    for (const HostCopy &c : hostCopies)
      std::memcpy(c.dst, c.src, c.bytes);
    resetBatch();
    return Status::ok();
  }

  /// The allocation an empty argument without memory of its own is bound
  /// to (the session gives a buffer of 0 bytes no allocation): a descriptor
  /// needs a buffer, though the kernel reads none of it.
  Status emptyArgumentBuffer(Allocation *&out) {
    if (!placeholder)
      TESSEL_RETURN_IF_ERROR(allocate(16, &placeholder));
    uint64_t offset = 0;
    out = find(reinterpret_cast<uintptr_t>(placeholder), 16, offset);
    return out ? Status::ok()
               : internalError("the placeholder buffer of " + name +
                               " is gone");
  }

  Status allocate(uint64_t bytes, void **out) {
    TESSEL_RETURN_IF_ERROR(usable());
    std::string what = "cannot allocate " + str(bytes) + " bytes on " + name;
    if (maxAllocationSize && bytes > maxAllocationSize)
      return resourceExhausted(what + ": more than one Vulkan allocation " +
                               "holds (" + str(maxAllocationSize) + ")");
    if (bytes > kAddressLimit - nextAddress)
      return resourceExhausted(what + ": the driver's address space is full");
    Allocation a;
    a.size = bytes;
    a.bufferSize = std::max<uint64_t>((bytes + 3) & ~uint64_t(3), 4);
    std::vector<VkMemoryPropertyFlags> preferences;
    if (!forceStaging)
      preferences.push_back(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                            VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    preferences.push_back(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    preferences.push_back(0);
    TESSEL_RETURN_IF_ERROR(createBuffer(
        a.bufferSize,
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
            VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        preferences, !forceStaging, a.buffer, a.memory, a.mapped, what));
    uint64_t address = nextAddress;
    nextAddress = (address + bytes + kAddressGap + kAddressAlignment - 1) &
                  ~(kAddressAlignment - 1);
    allocations.emplace(address, a);
    *out = reinterpret_cast<void *>(static_cast<uintptr_t>(address));
    return Status::ok();
  }

  void deallocate(void *ptr) {
    auto it = allocations.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == allocations.end())
      return;
    VkBuffer buffer = it->second.buffer;
    VkDeviceMemory memory = it->second.memory;
    allocations.erase(it);
    retire([this, buffer, memory] { destroyBuffer(buffer, memory); });
  }
};

} // namespace tessel::runtime::vulkan

#endif // TESSEL_RUNTIME_DRIVERS_VULKAN_VULKANCONTEXT_H
