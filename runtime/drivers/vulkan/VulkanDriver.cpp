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
// are the kernel's signature (Kernel::params; the loader checked every
// launch against it), so every kernel's pipeline is made at load. The grid is
// gpuGrid()'s (vkCmdDispatch with the workgroup counts), within the
// device's maxComputeWorkGroupCount; shared memory is static in the SPIR-V
// (the config's sharedMemoryBytes must be 0). The target is compiled for
// 32 KiB of shared memory and 1024 invocations per workgroup: a device with
// less is refused. A module's capabilities must be ones the device enabled
// (VulkanAbi.h).
//
// Memory and ordering: VulkanContext.h.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "drivers/vulkan/VulkanAbi.h"
#include "drivers/vulkan/VulkanApi.h"
#include "drivers/vulkan/VulkanContext.h"
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
    configs = binary->launchConfigs;
    binaryTarget = binary->target;
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
    TESSEL_RETURN_IF_ERROR(
        readLaunchArguments(kernels[kernel], params, args, shape));
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
    uint64_t buffers = kernels[k].params.size() + 1;
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
        return unavailable(what + " has " + str(kernels[k].params.size()) +
                           " arguments, so it needs " + str(buffers) +
                           " storage buffers with the shape buffer, but " +
                           ctx->name + "'s " + cap.name + " is " +
                           str(cap.value));
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
    std::vector<VkDescriptorSetLayoutBinding> bindings(
        kernels[k].params.size() + 1);
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

/// The feature structures a device is queried and opened with: Vulkan 1.1
/// and 1.2 structures on a 1.2 device, else the 1.1 16-bit storage
/// structure and, where the device has the extensions, the 8-bit storage
/// and float16/int8 ones. A structure left out of the chain stays zero.
struct FeatureStructs {
  VkPhysicalDeviceFeatures2 head{};
  VkPhysicalDeviceVulkan11Features f11{};
  VkPhysicalDeviceVulkan12Features f12{};
  VkPhysicalDevice16BitStorageFeatures s16{};
  VkPhysicalDevice8BitStorageFeatures s8{};
  VkPhysicalDeviceShaderFloat16Int8Features f16i8{};
  bool v12;

  FeatureStructs(bool v12, bool has8Bit, bool hasFloat16Int8) : v12(v12) {
    head.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    s16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    s8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
    f16i8.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
    if (v12) {
      chain(&head, {&f11, &f12});
      return;
    }
    std::vector<void *> next = {&s16};
    if (has8Bit)
      next.push_back(&s8);
    if (hasFloat16Int8)
      next.push_back(&f16i8);
    chain(&head, next);
  }
  FeatureStructs(const FeatureStructs &) = delete; // the chain points inside
  FeatureStructs &operator=(const FeatureStructs &) = delete;

  /// Calls `sync(ours, theirs)` for each feature of `f` and its field here:
  /// reading a query's answer or writing what to enable.
  template <typename Sync> void exchange(DeviceFeatures &f, Sync sync) {
    sync(f.shaderInt64, head.features.shaderInt64);
    sync(f.shaderFloat64, head.features.shaderFloat64);
    sync(f.shaderInt16, head.features.shaderInt16);
    if (v12) {
      storage16(f, f11, sync);
      storage8(f, f12, sync);
      sync(f.shaderFloat16, f12.shaderFloat16);
      sync(f.shaderInt8, f12.shaderInt8);
    } else {
      storage16(f, s16, sync);
      storage8(f, s8, sync);
      sync(f.shaderFloat16, f16i8.shaderFloat16);
      sync(f.shaderInt8, f16i8.shaderInt8);
    }
  }

private:
  template <typename S, typename Sync>
  static void storage16(DeviceFeatures &f, S &s, Sync &sync) {
    sync(f.storageBuffer16BitAccess, s.storageBuffer16BitAccess);
    sync(f.uniformAndStorageBuffer16BitAccess,
         s.uniformAndStorageBuffer16BitAccess);
    sync(f.storagePushConstant16, s.storagePushConstant16);
    sync(f.storageInputOutput16, s.storageInputOutput16);
  }
  template <typename S, typename Sync>
  static void storage8(DeviceFeatures &f, S &s, Sync &sync) {
    sync(f.storageBuffer8BitAccess, s.storageBuffer8BitAccess);
    sync(f.uniformAndStorageBuffer8BitAccess,
         s.uniformAndStorageBuffer8BitAccess);
    sync(f.storagePushConstant8, s.storagePushConstant8);
  }
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

    // The features the capabilities need (FeatureStructs): on a 1.1
    // device, 8-bit storage and float16/int8 come from extensions.
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
    // Query the features, then enable exactly those the capabilities need
    // and the device has (the rest stay off), through the same structures.
    FeatureStructs supported(v12, has8Bit, hasFloat16Int8);
    api.vkGetPhysicalDeviceFeatures2(pd.handle, &supported.head);
    DeviceFeatures &f = ctx->features;
    supported.exchange(f, [](bool &ours, VkBool32 &theirs) { ours = theirs; });
    if (!v12) {
      if (f.storageBuffer8BitAccess || f.uniformAndStorageBuffer8BitAccess ||
          f.storagePushConstant8)
        extensions.push_back(VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
      if (f.shaderFloat16 || f.shaderInt8)
        extensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
    }
    if (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT)
      f.subgroupOperations = subgroup.supportedOperations;
    FeatureStructs enabled(v12, has8Bit, hasFloat16Int8);
    enabled.exchange(f, [](bool &ours, VkBool32 &theirs) { theirs = ours; });

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{};
    queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queueInfo.queueFamilyIndex = pd.queueFamily;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;
    VkDeviceCreateInfo deviceInfo{};
    deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    deviceInfo.pNext = &enabled.head;
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
