//===- VulkanDriver.cpp - GPUs (and CPUs) through Vulkan compute ----------===//
//
// Opens libvulkan.so.1 on first use (dlopen, so one build runs everywhere),
// offers every physical device of Vulkan 1.1 or newer with a compute queue
// as "vulkan:N", and runs the artifact's "vulkan" binary on it.
//
// The Vulkan ABI. The binary has target "vulkan" and format Spirv: a
// container of SPIR-V modules, one per kernel (format/SpirvModules.h), whose
// GLCompute entry point is named exactly like the kernel's symbol and whose
// local size is the launch config's workgroup size (checked at load when
// the module states it, as LocalSize, LocalSizeId or the WorkgroupSize
// built-in). A kernel of n arguments uses descriptor set 0 only, with n + 1
// storage buffer bindings and no push constants:
//
//   binding i (i < n)  argument i (the i-th memref of the launch), which the
//                      kernel reads as a runtime array of its element type
//                      starting at the descriptor's offset; exactly its
//                      bytes are bound (element count x dtype size; an
//                      empty tensor binds the first bytes of its
//                      allocation instead, or of a placeholder buffer when
//                      it has none, which the kernel never reads)
//   binding n          the shape buffer: int32 values, every size of every
//                      argument in order (argument 0's sizes[0..rank),
//                      then argument 1's, ...; a rank-0 argument adds none)
//
// Strides are not passed: the kernel ABI's memrefs are contiguous row-major
// with offset 0, which the driver checks on every launch (INTERNAL
// otherwise). Kernels index with 32 bits: a size or an element count of
// 2^31 or more is RESOURCE_EXHAUSTED. The rank and dtype of each argument
// come from the plan (every launch of a kernel must agree, else
// INVALID_ARTIFACT; a kernel never launched needs no layout). The grid is
// gpuGrid()'s (vkCmdDispatch with the workgroup counts), within the
// device's maxComputeWorkGroupCount; shared memory is static in the SPIR-V
// (the config's sharedMemoryBytes must be 0). The target is compiled for
// 32 KiB of shared memory and 1024 invocations per workgroup: a device with
// less is refused. A module's capabilities must be ones the device enabled
// (VulkanAbi.h).
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

#include "Driver.h"
#include "drivers/vulkan/VulkanAbi.h"
#include "drivers/vulkan/VulkanApi.h"
#include "format/SpirvModules.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>

namespace tessel::runtime {

namespace {

using namespace vulkan;

/// What the compiler's vulkan target compiles for: the least shared memory
/// and invocations per workgroup a device must offer.
constexpr uint32_t kNeededSharedMemory = 32768;
constexpr uint32_t kNeededInvocations = 1024;
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

std::string str(uint64_t v) { return std::to_string(v); }

std::string hexAddress(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string versionText(uint32_t version) {
  return str(VK_API_VERSION_MAJOR(version)) + "." +
         str(VK_API_VERSION_MINOR(version));
}

std::string sizeText(const uint32_t size[3]) {
  return str(size[0]) + "x" + str(size[1]) + "x" + str(size[2]);
}

/// Links the Vulkan structures `next` (each starting with sType and pNext)
/// after `head`, in order.
void chain(void *head, const std::vector<void *> &next) {
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

/// The objects of one kernel, created at load.
struct KernelObjects {
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

class VulkanExecutable final : public Executable {
public:
  explicit VulkanExecutable(std::shared_ptr<Context> ctx)
      : ctx(std::move(ctx)) {}
  ~VulkanExecutable() override {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    Context *c = ctx.get();
    for (const KernelObjects &k : objects)
      c->retire([c, k] {
        if (k.pipeline)
          c->vk.vkDestroyPipeline(c->device, k.pipeline, nullptr);
        if (k.pipelineLayout)
          c->vk.vkDestroyPipelineLayout(c->device, k.pipelineLayout, nullptr);
        if (k.setLayout)
          c->vk.vkDestroyDescriptorSetLayout(c->device, k.setLayout, nullptr);
        if (k.module)
          c->vk.vkDestroyShaderModule(c->device, k.module, nullptr);
      });
  }

  Status load(const format::Artifact &artifact) {
    const format::TargetBinary *binary = nullptr;
    for (const format::TargetBinary &b : artifact.binaries)
      if (b.target == "vulkan" &&
          b.format == format::TargetBinary::Format::Spirv) {
        binary = &b;
        break;
      }
    if (!binary)
      return unavailable("artifact has no kernels for Vulkan" +
                         targetListSuffix(artifact));
    TESSEL_RETURN_IF_ERROR(checkScratch(artifact, *binary));
    std::vector<format::SpirvModule> modules;
    std::string error;
    if (!format::decodeSpirvModules(binary->bytes, modules, error))
      return invalidArtifact("cannot load the vulkan kernels: " + error);
    TESSEL_RETURN_IF_ERROR(kernelLayouts(artifact, layouts));
    configs = binary->launchConfigs;
    kernels = artifact.kernels;
    objects.resize(kernels.size());
    for (size_t k = 0; k < kernels.size(); ++k) {
      const format::Kernel &kernel = kernels[k];
      auto module = std::find_if(modules.begin(), modules.end(),
                                 [&](const format::SpirvModule &m) {
                                   return m.entryPoint == kernel.symbol;
                                 });
      if (module == modules.end())
        return invalidArtifact("the vulkan binary lacks kernel '" +
                               kernel.symbol + "' (ONNX node '" +
                               kernel.onnxNode + "', " + kernel.onnxOp + ")");
      TESSEL_RETURN_IF_ERROR(checkKernel(k, *module));
      if (layouts[k].launched)
        TESSEL_RETURN_IF_ERROR(createObjects(k, *module));
    }
    return Status::ok();
  }

  Status launch(uint32_t kernel, void **params,
                const std::vector<int64_t> &work) override {
    if (kernel >= objects.size() || !objects[kernel].pipeline)
      return internalError("kernel " + str(kernel) +
                           " has no Vulkan pipeline: the plan never launches "
                           "it");
    const format::LaunchConfig &c = configs[kernel];
    unsigned grid[3];
    bool empty = false;
    TESSEL_RETURN_IF_ERROR(gpuGrid(c, work, grid, empty));
    std::vector<BoundArgument> args;
    std::vector<int32_t> shape;
    TESSEL_RETURN_IF_ERROR(readLaunchArguments(kernels[kernel], layouts[kernel],
                                               params, args, shape));
    if (empty)
      return Status::ok();
    const VkPhysicalDeviceLimits &limits = ctx->limits;
    static const char *const axes[] = {"x", "y", "z"};
    for (int a = 0; a < 3; ++a)
      if (grid[a] > limits.maxComputeWorkGroupCount[a])
        return resourceExhausted("the launch needs " + str(grid[a]) +
                                 " workgroups along " + axes[a] +
                                 ", more than " + ctx->name + " allows (" +
                                 str(limits.maxComputeWorkGroupCount[a]) + ")");

    std::lock_guard<std::mutex> lock(ctx->mutex);
    TESSEL_RETURN_IF_ERROR(ctx->usable());
    // For messages only: the strings are not built on the way.
    auto argument = [&](size_t i) {
      return describeKernel(kernels[kernel]) + ": argument " + str(i);
    };
    size_t n = args.size();
    std::vector<VkDescriptorBufferInfo> infos(n + 1);
    for (size_t i = 0; i < n; ++i) {
      uint64_t offset = 0;
      Allocation *a = ctx->find(args[i].address, args[i].bytes, offset);
      if (args[i].bytes == 0) {
        // Never read: any valid range of its allocation, or of the
        // placeholder when it has none.
        if (!a)
          TESSEL_RETURN_IF_ERROR(ctx->emptyArgumentBuffer(a));
        infos[i] = {a->buffer, 0, std::min<uint64_t>(a->bufferSize, 16)};
        continue;
      }
      if (!a)
        return ctx->outside(args[i].address, args[i].bytes, argument(i));
      if (offset % limits.minStorageBufferOffsetAlignment != 0)
        return unavailable(argument(i) + " is at offset " + str(offset) +
                           " of its allocation, which is not a multiple of " +
                           ctx->name + "'s minStorageBufferOffsetAlignment (" +
                           str(limits.minStorageBufferOffsetAlignment) + ")");
      if (args[i].bytes > limits.maxStorageBufferRange)
        return resourceExhausted(argument(i) + " has " + str(args[i].bytes) +
                                 " bytes, more than " + ctx->name +
                                 "'s maxStorageBufferRange (" +
                                 str(limits.maxStorageBufferRange) + ")");
      infos[i] = {a->buffer, offset, args[i].bytes};
    }
    // The shape buffer: at least one value, so that its range is not empty.
    uint64_t shapeBytes = std::max<uint64_t>(shape.size(), 1) * 4;
    HostChunk *chunk = nullptr;
    uint64_t at = 0;
    TESSEL_RETURN_IF_ERROR(ctx->reserve(
        ctx->shapes, shapeBytes,
        std::max<uint64_t>(limits.minStorageBufferOffsetAlignment, 4), chunk,
        at));
    std::memset(chunk->mapped + at, 0, shapeBytes);
    if (!shape.empty())
      std::memcpy(chunk->mapped + at, shape.data(), shape.size() * 4);
    infos[n] = {chunk->buffer, at, shapeBytes};

    const KernelObjects &k = objects[kernel];
    VkDescriptorSet set = VK_NULL_HANDLE;
    TESSEL_RETURN_IF_ERROR(
        ctx->allocateSet(k.setLayout, static_cast<uint32_t>(n + 1), set));
    std::vector<VkWriteDescriptorSet> writes(n + 1);
    for (size_t i = 0; i <= n; ++i) {
      VkWriteDescriptorSet &w = writes[i];
      w = VkWriteDescriptorSet{};
      w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      w.dstSet = set;
      w.dstBinding = static_cast<uint32_t>(i);
      w.descriptorCount = 1;
      w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      w.pBufferInfo = &infos[i];
    }
    ctx->vk.vkUpdateDescriptorSets(ctx->device,
                                   static_cast<uint32_t>(writes.size()),
                                   writes.data(), 0, nullptr);
    TESSEL_RETURN_IF_ERROR(ctx->beginCommand());
    VkCommandBuffer cmd = ctx->commands;
    ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
    ctx->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                                    k.pipelineLayout, 0, 1, &set, 0, nullptr);
    ctx->vk.vkCmdDispatch(cmd, grid[0], grid[1], grid[2]);
    return Status::ok();
  }

private:
  /// What can be checked before creating anything: the config against the
  /// device, and the module's entry point, local size and capabilities.
  Status checkKernel(size_t k, const format::SpirvModule &module) {
    const format::LaunchConfig &c = configs[k];
    const VkPhysicalDeviceLimits &limits = ctx->limits;
    const std::string what = describeKernel(kernels[k]);
    if (c.sharedMemoryBytes != 0)
      return invalidArtifact(
          what + ": its launch config asks for " + str(c.sharedMemoryBytes) +
          " bytes of dynamic shared memory, but Vulkan kernels declare "
          "their shared memory statically (sharedMemoryBytes must be 0)");
    uint64_t invocations = 1;
    for (int d = 0; d < 3; ++d) {
      invocations *= c.workgroupSize[d];
      if (c.workgroupSize[d] > limits.maxComputeWorkGroupSize[d])
        return unavailable(what + ": workgroup size " +
                           sizeText(c.workgroupSize) + " exceeds " + ctx->name +
                           "'s maxComputeWorkGroupSize (" +
                           sizeText(limits.maxComputeWorkGroupSize) + ")");
    }
    if (invocations > limits.maxComputeWorkGroupInvocations)
      return unavailable(what + ": workgroup size " +
                         sizeText(c.workgroupSize) + " has " +
                         str(invocations) + " invocations, more than " +
                         ctx->name + "'s maxComputeWorkGroupInvocations (" +
                         str(limits.maxComputeWorkGroupInvocations) + ")");
    if (layouts[k].launched) {
      uint64_t buffers = layouts[k].args.size() + 1;
      struct {
        const char *name;
        uint32_t value;
      } caps[] = {{"maxPerStageDescriptorStorageBuffers",
                   limits.maxPerStageDescriptorStorageBuffers},
                  {"maxDescriptorSetStorageBuffers",
                   limits.maxDescriptorSetStorageBuffers},
                  {"maxPerStageResources", limits.maxPerStageResources}};
      for (const auto &cap : caps)
        if (buffers > cap.value)
          return unavailable(what + " has " + str(layouts[k].args.size()) +
                             " arguments, so it needs " + str(buffers) +
                             " storage buffers with the shape buffer, but " +
                             ctx->name + "'s " + cap.name + " is " +
                             str(cap.value));
    }
    SpirvFacts facts;
    std::string error;
    if (!scanSpirv(module.words, module.entryPoint, facts, error))
      return invalidArtifact(what + ": malformed SPIR-V module: " + error);
    if (!facts.hasEntryPoint)
      return invalidArtifact(what +
                             ": its SPIR-V module has no GLCompute "
                             "entry point named '" +
                             module.entryPoint + "'");
    if (facts.hasLocalSize &&
        !std::equal(facts.localSize, facts.localSize + 3, c.workgroupSize))
      return invalidArtifact(what + ": its SPIR-V local size is " +
                             sizeText(facts.localSize) +
                             ", but its launch config's workgroup size is " +
                             sizeText(c.workgroupSize));
    for (uint32_t capability : facts.capabilities)
      TESSEL_RETURN_IF_ERROR(
          checkCapability(capability, ctx->features, what, ctx->name));
    return Status::ok();
  }

  Status createObjects(size_t k, const format::SpirvModule &module) {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    const DeviceApi &vk = ctx->vk;
    VkDevice device = ctx->device;
    KernelObjects &o = objects[k];
    const format::Kernel &kernel = kernels[k];
    auto failed = [&](const char *call, VkResult r) {
      return invalidArtifact("cannot create the Vulkan pipeline of " +
                             describeKernel(kernel) + ": " + call + ": " +
                             resultName(r));
    };
    VkShaderModuleCreateInfo moduleInfo{};
    moduleInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    moduleInfo.codeSize = module.words.size() * sizeof(uint32_t);
    moduleInfo.pCode = module.words.data();
    if (VkResult r =
            vk.vkCreateShaderModule(device, &moduleInfo, nullptr, &o.module)) {
      o.module = VK_NULL_HANDLE;
      return failed("vkCreateShaderModule", r);
    }
    std::vector<VkDescriptorSetLayoutBinding> bindings(layouts[k].args.size() +
                                                       1);
    for (size_t i = 0; i < bindings.size(); ++i) {
      bindings[i] = VkDescriptorSetLayoutBinding{};
      bindings[i].binding = static_cast<uint32_t>(i);
      bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[i].descriptorCount = 1;
      bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo setInfo{};
    setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    setInfo.bindingCount = static_cast<uint32_t>(bindings.size());
    setInfo.pBindings = bindings.data();
    if (VkResult r = vk.vkCreateDescriptorSetLayout(device, &setInfo, nullptr,
                                                    &o.setLayout)) {
      o.setLayout = VK_NULL_HANDLE;
      return failed("vkCreateDescriptorSetLayout", r);
    }
    VkPipelineLayoutCreateInfo layoutInfo{};
    layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &o.setLayout;
    if (VkResult r = vk.vkCreatePipelineLayout(device, &layoutInfo, nullptr,
                                               &o.pipelineLayout)) {
      o.pipelineLayout = VK_NULL_HANDLE;
      return failed("vkCreatePipelineLayout", r);
    }
    VkComputePipelineCreateInfo pipelineInfo{};
    pipelineInfo.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    pipelineInfo.stage.sType =
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipelineInfo.stage.module = o.module;
    pipelineInfo.stage.pName = kernel.symbol.c_str();
    pipelineInfo.layout = o.pipelineLayout;
    if (VkResult r = vk.vkCreateComputePipelines(
            device, VK_NULL_HANDLE, 1, &pipelineInfo, nullptr, &o.pipeline)) {
      o.pipeline = VK_NULL_HANDLE;
      return failed("vkCreateComputePipelines", r);
    }
    return Status::ok();
  }

  std::shared_ptr<Context> ctx;
  std::vector<format::Kernel> kernels;
  std::vector<KernelLayout> layouts;
  std::vector<format::LaunchConfig> configs; ///< of the loaded binary
  std::vector<KernelObjects> objects;
};

class VulkanDevice final : public Device {
public:
  VulkanDevice(std::shared_ptr<Context> ctx, std::string description)
      : ctx(std::move(ctx)), deviceDescription(std::move(description)) {}

  const std::string &name() const override { return ctx->name; }
  const std::string &description() const override { return deviceDescription; }
  bool hostAddressable() const override { return false; }

  Status loadExecutable(const format::Artifact &artifact,
                        const ExecutableOptions &,
                        std::unique_ptr<Executable> &out) override {
    auto exe = std::make_unique<VulkanExecutable>(ctx);
    TESSEL_RETURN_IF_ERROR(exe->load(artifact));
    out = std::move(exe);
    return Status::ok();
  }

  Status allocate(uint64_t bytes, void **out) override {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    return ctx->allocate(bytes, out);
  }
  void deallocate(void *ptr) override {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    ctx->deallocate(ptr);
  }
  Status copyToDevice(void *dst, const void *src, uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    return ctx->copyToDevice(dst, src, bytes);
  }
  Status copyToHost(void *dst, const void *src, uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    return ctx->copyToHost(dst, src, bytes);
  }
  Status copyOnDevice(void *dst, const void *src, uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    return ctx->copyOnDevice(dst, src, bytes);
  }
  Status synchronize() override {
    std::lock_guard<std::mutex> lock(ctx->mutex);
    return ctx->synchronize();
  }

private:
  std::shared_ptr<Context> ctx;
  std::string deviceDescription;
};

class VulkanDriver final : public Driver {
public:
  VulkanDriver(std::string name, std::vector<std::string> libraries)
      : driverName(std::move(name)), libraries(std::move(libraries)) {}

  const std::string &name() const override { return driverName; }

  Status deviceCount(size_t &count) override {
    TESSEL_RETURN_IF_ERROR(initialize());
    count = devices.size();
    return Status::ok();
  }

  Status createDevice(size_t ordinal, std::shared_ptr<Device> &out) override {
    TESSEL_RETURN_IF_ERROR(initialize());
    if (ordinal >= devices.size())
      return notFound("Vulkan device " + str(ordinal) + " does not exist");
    const PhysicalDevice &pd = devices[ordinal];
    const Api &api = *instance->api;
    auto ctx = std::make_shared<Context>();
    ctx->instance = instance;
    ctx->name = driverName + ":" + str(ordinal);
    ctx->physical = pd.handle;

    VkPhysicalDeviceSubgroupProperties subgroup{};
    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    VkPhysicalDeviceMaintenance3Properties maintenance3{};
    maintenance3.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
    maintenance3.pNext = &subgroup;
    VkPhysicalDeviceProperties2 properties{};
    properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties.pNext = &maintenance3;
    api.vkGetPhysicalDeviceProperties2(pd.handle, &properties);
    ctx->limits = properties.properties.limits;
    ctx->maxAllocationSize = maintenance3.maxMemoryAllocationSize;
    api.vkGetPhysicalDeviceMemoryProperties(pd.handle, &ctx->memoryProperties);
    const VkPhysicalDeviceLimits &limits = ctx->limits;
    if (limits.maxComputeSharedMemorySize < kNeededSharedMemory ||
        limits.maxComputeWorkGroupInvocations < kNeededInvocations)
      return unavailable(
          "the vulkan target needs " + str(kNeededSharedMemory) +
          " bytes of shared memory and " + str(kNeededInvocations) +
          " invocations per workgroup; device " + ctx->name + " (" +
          properties.properties.deviceName + ") has " +
          str(limits.maxComputeSharedMemorySize) + " bytes and " +
          str(limits.maxComputeWorkGroupInvocations) + " invocations");

    // The features the capabilities need, enabled where the device has
    // them: Vulkan 1.1 and 1.2 structures on a 1.2 device, else the 1.1
    // 16-bit storage structure and the extensions' 8-bit storage and
    // float16/int8 ones.
    bool v12 = pd.apiVersion >= VK_API_VERSION_1_2;
    std::vector<const char *> extensions;
    bool has8Bit = false, hasFloat16Int8 = false;
    if (!v12) {
      uint32_t count = 0;
      api.vkEnumerateDeviceExtensionProperties(pd.handle, nullptr, &count,
                                               nullptr);
      std::vector<VkExtensionProperties> available(count);
      api.vkEnumerateDeviceExtensionProperties(pd.handle, nullptr, &count,
                                               available.data());
      available.resize(count);
      for (const VkExtensionProperties &e : available) {
        if (std::strcmp(e.extensionName, VK_KHR_8BIT_STORAGE_EXTENSION_NAME) ==
            0)
          has8Bit = true;
        if (std::strcmp(e.extensionName,
                        VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME) == 0)
          hasFloat16Int8 = true;
      }
    }
    VkPhysicalDeviceVulkan11Features f11{};
    f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    VkPhysicalDeviceVulkan12Features f12{};
    f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    VkPhysicalDevice16BitStorageFeatures s16{};
    s16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    VkPhysicalDevice8BitStorageFeatures s8{};
    s8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
    VkPhysicalDeviceShaderFloat16Int8Features f16i8{};
    f16i8.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
    VkPhysicalDeviceFeatures2 supported{};
    supported.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    if (v12) {
      chain(&supported, {&f11, &f12});
    } else {
      std::vector<void *> next = {&s16};
      if (has8Bit)
        next.push_back(&s8);
      if (hasFloat16Int8)
        next.push_back(&f16i8);
      chain(&supported, next);
    }
    api.vkGetPhysicalDeviceFeatures2(pd.handle, &supported);

    DeviceFeatures &f = ctx->features;
    f.shaderInt64 = supported.features.shaderInt64;
    f.shaderFloat64 = supported.features.shaderFloat64;
    f.shaderInt16 = supported.features.shaderInt16;
    if (v12) {
      f.storageBuffer16BitAccess = f11.storageBuffer16BitAccess;
      f.uniformAndStorageBuffer16BitAccess =
          f11.uniformAndStorageBuffer16BitAccess;
      f.storagePushConstant16 = f11.storagePushConstant16;
      f.storageInputOutput16 = f11.storageInputOutput16;
      f.storageBuffer8BitAccess = f12.storageBuffer8BitAccess;
      f.uniformAndStorageBuffer8BitAccess =
          f12.uniformAndStorageBuffer8BitAccess;
      f.storagePushConstant8 = f12.storagePushConstant8;
      f.shaderFloat16 = f12.shaderFloat16;
      f.shaderInt8 = f12.shaderInt8;
    } else {
      f.storageBuffer16BitAccess = s16.storageBuffer16BitAccess;
      f.uniformAndStorageBuffer16BitAccess =
          s16.uniformAndStorageBuffer16BitAccess;
      f.storagePushConstant16 = s16.storagePushConstant16;
      f.storageInputOutput16 = s16.storageInputOutput16;
      f.storageBuffer8BitAccess = has8Bit && s8.storageBuffer8BitAccess;
      f.uniformAndStorageBuffer8BitAccess =
          has8Bit && s8.uniformAndStorageBuffer8BitAccess;
      f.storagePushConstant8 = has8Bit && s8.storagePushConstant8;
      f.shaderFloat16 = hasFloat16Int8 && f16i8.shaderFloat16;
      f.shaderInt8 = hasFloat16Int8 && f16i8.shaderInt8;
      if (has8Bit &&
          (f.storageBuffer8BitAccess || f.uniformAndStorageBuffer8BitAccess ||
           f.storagePushConstant8))
        extensions.push_back(VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
      if (hasFloat16Int8 && (f.shaderFloat16 || f.shaderInt8))
        extensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
    }
    if (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT)
      f.subgroupOperations = subgroup.supportedOperations;

    // Enable exactly those features (the rest stay off).
    VkPhysicalDeviceVulkan11Features e11{};
    e11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    VkPhysicalDeviceVulkan12Features e12{};
    e12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    VkPhysicalDevice16BitStorageFeatures e16{};
    e16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    VkPhysicalDevice8BitStorageFeatures e8{};
    e8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
    VkPhysicalDeviceShaderFloat16Int8Features ef16i8{};
    ef16i8.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
    VkPhysicalDeviceFeatures2 enabled{};
    enabled.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    enabled.features.shaderInt64 = f.shaderInt64;
    enabled.features.shaderFloat64 = f.shaderFloat64;
    enabled.features.shaderInt16 = f.shaderInt16;
    if (v12) {
      e11.storageBuffer16BitAccess = f.storageBuffer16BitAccess;
      e11.uniformAndStorageBuffer16BitAccess =
          f.uniformAndStorageBuffer16BitAccess;
      e11.storagePushConstant16 = f.storagePushConstant16;
      e11.storageInputOutput16 = f.storageInputOutput16;
      e12.storageBuffer8BitAccess = f.storageBuffer8BitAccess;
      e12.uniformAndStorageBuffer8BitAccess =
          f.uniformAndStorageBuffer8BitAccess;
      e12.storagePushConstant8 = f.storagePushConstant8;
      e12.shaderFloat16 = f.shaderFloat16;
      e12.shaderInt8 = f.shaderInt8;
      chain(&enabled, {&e11, &e12});
    } else {
      e16.storageBuffer16BitAccess = f.storageBuffer16BitAccess;
      e16.uniformAndStorageBuffer16BitAccess =
          f.uniformAndStorageBuffer16BitAccess;
      e16.storagePushConstant16 = f.storagePushConstant16;
      e16.storageInputOutput16 = f.storageInputOutput16;
      e8.storageBuffer8BitAccess = f.storageBuffer8BitAccess;
      e8.uniformAndStorageBuffer8BitAccess =
          f.uniformAndStorageBuffer8BitAccess;
      e8.storagePushConstant8 = f.storagePushConstant8;
      ef16i8.shaderFloat16 = f.shaderFloat16;
      ef16i8.shaderInt8 = f.shaderInt8;
      std::vector<void *> next = {&e16};
      if (has8Bit)
        next.push_back(&e8);
      if (hasFloat16Int8)
        next.push_back(&ef16i8);
      chain(&enabled, next);
    }

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{};
    queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queueInfo.queueFamilyIndex = pd.queueFamily;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;
    VkDeviceCreateInfo deviceInfo{};
    deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    deviceInfo.pNext = &enabled;
    deviceInfo.queueCreateInfoCount = 1;
    deviceInfo.pQueueCreateInfos = &queueInfo;
    deviceInfo.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    deviceInfo.ppEnabledExtensionNames = extensions.data();
    VkDevice device = VK_NULL_HANDLE;
    VkResult r = api.vkCreateDevice(pd.handle, &deviceInfo, nullptr, &device);
    if (r != VK_SUCCESS)
      return unavailable("cannot open " + ctx->name + " (" + pd.description +
                         "): vkCreateDevice: " + resultName(r));
    std::string error;
    if (!ctx->vk.load(api, device, error)) {
      // Without its functions the device cannot even be destroyed through
      // them: use the loader's.
      auto destroy = reinterpret_cast<PFN_vkDestroyDevice>(
          api.vkGetDeviceProcAddr(device, "vkDestroyDevice"));
      if (destroy)
        destroy(device, nullptr);
      return unavailable("cannot open " + ctx->name + ": " + error);
    }
    ctx->device = device; // destroyed by ~Context from here on
    const DeviceApi &vk = ctx->vk;
    vk.vkGetDeviceQueue(device, pd.queueFamily, 0, &ctx->queue);
    VkCommandPoolCreateInfo poolInfo{};
    poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    poolInfo.queueFamilyIndex = pd.queueFamily;
    if ((r = vk.vkCreateCommandPool(device, &poolInfo, nullptr,
                                    &ctx->commandPool))) {
      ctx->commandPool = VK_NULL_HANDLE;
      return ctx->fail(r, "cannot open " + ctx->name + ": vkCreateCommandPool");
    }
    VkCommandBufferAllocateInfo bufferInfo{};
    bufferInfo.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    bufferInfo.commandPool = ctx->commandPool;
    bufferInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    bufferInfo.commandBufferCount = 1;
    if ((r = vk.vkAllocateCommandBuffers(device, &bufferInfo, &ctx->commands)))
      return ctx->fail(r, "cannot open " + ctx->name +
                              ": vkAllocateCommandBuffers");
    VkFenceCreateInfo fenceInfo{};
    fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    if ((r = vk.vkCreateFence(device, &fenceInfo, nullptr, &ctx->fence))) {
      ctx->fence = VK_NULL_HANDLE;
      return ctx->fail(r, "cannot open " + ctx->name + ": vkCreateFence");
    }

    const char *staging = std::getenv("TESSEL_VULKAN_STAGING");
    ctx->forceStaging = staging && std::strcmp(staging, "1") == 0;
    const VkMemoryPropertyFlags hostMemory =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    ctx->staging.usage =
        VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    ctx->staging.preferences = {hostMemory | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                                hostMemory};
    ctx->staging.minChunk = kStagingChunkBytes;
    // Shape buffers are read by kernels: device-local where the host can
    // write it.
    ctx->shapes.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    ctx->shapes.preferences = {hostMemory | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                               hostMemory};
    ctx->shapes.minChunk = kShapeChunkBytes;
    out = std::make_shared<VulkanDevice>(std::move(ctx), pd.description);
    return Status::ok();
  }

private:
  /// Loads the library, creates the instance and lists the devices, once;
  /// the outcome is kept.
  Status initialize() {
    return initializeOnce([this] { return tryInitialize(); });
  }

  Status tryInitialize() {
    auto loaded = std::make_shared<Api>();
    std::string error;
    if (!loaded->load(libraries, error))
      return unavailable("no Vulkan driver found (" + error + ")");
    // Kept loaded even if there is no device, like the other GPU drivers.
    api = loaded;
    uint32_t loaderVersion = VK_API_VERSION_1_0;
    if (loaded->vkEnumerateInstanceVersion &&
        loaded->vkEnumerateInstanceVersion(&loaderVersion) != VK_SUCCESS)
      loaderVersion = VK_API_VERSION_1_0;
    if (loaderVersion < VK_API_VERSION_1_1)
      return unavailable("no Vulkan driver found (the Vulkan loader " +
                         loaded->library.name() + " supports Vulkan " +
                         versionText(loaderVersion) +
                         ", the vulkan driver needs 1.1)");
    // The newest version both the loader and these headers know, so that
    // a 1.2 device's feature structures may be used.
    uint32_t apiVersion =
        VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(loaderVersion),
                            VK_API_VERSION_MINOR(loaderVersion), 0);
    apiVersion = std::min<uint32_t>(apiVersion, VK_API_VERSION_1_3);
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "tessel";
    app.pEngineName = "tessel";
    app.apiVersion = apiVersion;
    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pApplicationInfo = &app;
    auto created = std::make_shared<Instance>();
    created->api = loaded;
    VkResult r = loaded->vkCreateInstance(&info, nullptr, &created->instance);
    if (r != VK_SUCCESS) {
      created->instance = VK_NULL_HANDLE;
      return unavailable(
          "no Vulkan device found (vkCreateInstance: " + resultName(r) + ")");
    }
    if (!loaded->loadInstance(created->instance, error))
      return unavailable("no Vulkan driver found (" + error + ")");
    instance = created;

    uint32_t count = 0;
    r = loaded->vkEnumeratePhysicalDevices(created->instance, &count, nullptr);
    std::vector<VkPhysicalDevice> handles(count);
    if (r == VK_SUCCESS && count)
      r = loaded->vkEnumeratePhysicalDevices(created->instance, &count,
                                             handles.data());
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
      return unavailable(
          "no Vulkan device found (vkEnumeratePhysicalDevices: " +
          resultName(r) + ")");
    handles.resize(count);
    std::string tooOld;
    for (VkPhysicalDevice handle : handles) {
      VkPhysicalDeviceSubgroupProperties subgroup{};
      subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
      VkPhysicalDeviceProperties2 properties{};
      properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
      properties.pNext = &subgroup;
      loaded->vkGetPhysicalDeviceProperties2(handle, &properties);
      const VkPhysicalDeviceProperties &p = properties.properties;
      if (p.apiVersion < VK_API_VERSION_1_1) {
        tooOld += (tooOld.empty() ? "" : ", ") + std::string(p.deviceName) +
                  ": Vulkan " + versionText(p.apiVersion);
        continue;
      }
      uint32_t families = 0;
      loaded->vkGetPhysicalDeviceQueueFamilyProperties(handle, &families,
                                                       nullptr);
      std::vector<VkQueueFamilyProperties> queues(families);
      loaded->vkGetPhysicalDeviceQueueFamilyProperties(handle, &families,
                                                       queues.data());
      int32_t family = -1;
      for (uint32_t q = 0; q < families && family < 0; ++q)
        if ((queues[q].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
            queues[q].queueCount > 0)
          family = static_cast<int32_t>(q);
      if (family < 0)
        continue;
      PhysicalDevice pd;
      pd.handle = handle;
      pd.queueFamily = static_cast<uint32_t>(family);
      pd.apiVersion =
          std::min(VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(p.apiVersion),
                                       VK_API_VERSION_MINOR(p.apiVersion), 0),
                   apiVersion);
      pd.description = std::string(p.deviceName) + " (Vulkan " +
                       versionText(p.apiVersion) + ", subgroup " +
                       str(subgroup.subgroupSize) + ")";
      devices.push_back(std::move(pd));
    }
    if (devices.empty())
      return unavailable(tooOld.empty() ? "no Vulkan device found"
                                        : "no Vulkan device found (" + tooOld +
                                              "; the vulkan driver needs 1.1)");
    return Status::ok();
  }

  std::string driverName;
  std::vector<std::string> libraries;
  InitializeOnce initializeOnce;
  std::shared_ptr<Api> api;
  std::shared_ptr<Instance> instance;
  std::vector<PhysicalDevice> devices;
};

} // namespace

std::shared_ptr<Driver> createVulkanDriver(std::string name,
                                           std::vector<std::string> libraries) {
  return std::make_shared<VulkanDriver>(std::move(name), std::move(libraries));
}

} // namespace tessel::runtime
