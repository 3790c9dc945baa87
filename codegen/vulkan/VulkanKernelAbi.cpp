//===- VulkanKernelAbi.cpp - Flat buffers and a shape buffer for SPIR-V ----===//
//
// See Passes.td. After expand-strided-metadata a kernel's buffers are used
// through memref.reinterpret_cast and memref.extract_strided_metadata of
// its arguments and workgroup attributions. Each such value gets a linear
// form (the flat buffer it views, its offset, sizes and strides, as index
// values), built in program order; loads and stores then index the flat
// buffer directly, which is all SPIR-V's storage buffers and workgroup
// arrays can express.
//
//===----------------------------------------------------------------------===//

#include "codegen/vulkan/Passes.h"
#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/AsmParser/AsmParser.h"
#include "llvm/ADT/BitVector.h"

namespace tessel {
#define GEN_PASS_DEF_VULKANKERNELABIPASS
#include "codegen/vulkan/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// A view of a flat buffer: element (i_0, ..., i_r-1) is
/// base[offset + sum i_k * strides[k]].
struct Linear {
  Value base;
  OpFoldResult offset;
  SmallVector<OpFoldResult> sizes, strides;
};

/// Index arithmetic that folds constants as it builds.
class IndexMath {
public:
  IndexMath(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  OpFoldResult constant(int64_t v) { return b.getIndexAttr(v); }

  Value value(OpFoldResult v) {
    return getValueOrCreateConstantIndexOp(b, loc, v);
  }

  OpFoldResult add(OpFoldResult x, OpFoldResult y) {
    auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
    if (cx && cy)
      return constant(*cx + *cy);
    if (cx == 0)
      return y;
    if (cy == 0)
      return x;
    return arith::AddIOp::create(b, loc, value(x), value(y)).getResult();
  }

  OpFoldResult mul(OpFoldResult x, OpFoldResult y) {
    auto cx = getConstantIntValue(x), cy = getConstantIntValue(y);
    if (cx && cy)
      return constant(*cx * *cy);
    if (cx == 1)
      return y;
    if (cy == 1)
      return x;
    if (cx == 0 || cy == 0)
      return constant(0);
    return arith::MulIOp::create(b, loc, value(x), value(y)).getResult();
  }

  /// The flat index of `indices` in `view`.
  Value flatIndex(const Linear &view, ValueRange indices) {
    OpFoldResult index = view.offset;
    for (auto [i, stride] : llvm::zip(indices, view.strides))
      index = add(index, mul(i, stride));
    return value(index);
  }

private:
  OpBuilder &b;
  Location loc;
};

/// Row-major strides of `sizes`.
SmallVector<OpFoldResult> rowMajorStrides(IndexMath &math,
                                          ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(sizes.size());
  OpFoldResult stride = math.constant(1);
  for (int64_t d = sizes.size() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride = math.mul(stride, sizes[d]);
  }
  return strides;
}

/// How a buffer of `element` is stored: bf16 as its bits (i16), since the
/// SPIR-V conversion has no bf16; the rest as they are.
Type storageType(Type element) {
  if (element.isBF16())
    return IntegerType::get(element.getContext(), 16);
  return element;
}

/// Rewrites `kernel` to the Vulkan kernel ABI (see Passes.td).
LogicalResult lowerKernel(gpu::GPUFuncOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  Location loc = kernel.getLoc();
  Block &entry = kernel.getBody().front();
  const unsigned n = kernel.getNumArguments();
  auto i32 = IntegerType::get(ctx, 32);

  // The flat arguments and the shape buffer, after the old arguments.
  for (unsigned i = 0; i < n; ++i) {
    auto type = dyn_cast<MemRefType>(kernel.getArgumentTypes()[i]);
    if (!type || !type.getLayout().isIdentity() || type.getMemorySpace())
      return kernel.emitError("the Vulkan kernel ABI takes buffers of the "
                              "default memory space and identity layout; "
                              "argument ")
             << i << " is " << kernel.getArgumentTypes()[i];
  }
  for (unsigned i = 0; i < n; ++i) {
    auto type = cast<MemRefType>(kernel.getArgumentTypes()[i]);
    if (failed(kernel.insertArgument(
            n + i,
            MemRefType::get({ShapedType::kDynamic},
                            storageType(type.getElementType())),
            {}, loc)))
      return failure();
  }
  if (failed(kernel.insertArgument(
          2 * n, MemRefType::get({ShapedType::kDynamic}, i32), {}, loc)))
    return failure();
  Value shapes = entry.getArgument(2 * n);

  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  IndexMath math(b, loc);
  llvm::DenseMap<Value, Linear> linear;
  int64_t position = 0;
  for (unsigned i = 0; i < n; ++i) {
    BlockArgument old = entry.getArgument(i);
    auto type = cast<MemRefType>(old.getType());
    Linear view{entry.getArgument(n + i), math.constant(0), {}, {}};
    for (int64_t extent : type.getShape()) {
      if (!ShapedType::isDynamic(extent)) {
        view.sizes.push_back(math.constant(extent));
      } else {
        Value at = arith::ConstantIndexOp::create(b, loc, position);
        Value size = memref::LoadOp::create(b, loc, shapes, at);
        view.sizes.push_back(
            arith::IndexCastOp::create(b, loc, b.getIndexType(), size)
                .getResult());
      }
      ++position;
    }
    view.strides = rowMajorStrides(math, view.sizes);
    linear[old] = std::move(view);
  }
  // Workgroup attributions become workgroup allocations, which the SPIR-V
  // conversion turns into Workgroup variables (it has no attributions).
  // The numeric memory space 3 is what its Vulkan storage class mapping
  // knows as Workgroup.
  for (BlockArgument buffer : kernel.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(buffer.getType());
    if (type.getRank() != 1 || !type.hasStaticShape() ||
        !type.getLayout().isIdentity())
      return kernel.emitError("a workgroup buffer that is not flat: ")
             << type;
    type = MemRefType::get(type.getShape(), storageType(type.getElementType()),
                           MemRefLayoutAttrInterface{},
                           IntegerAttr::get(IntegerType::get(ctx, 64), 3));
    Value alloc = memref::AllocOp::create(b, loc, type);
    buffer.replaceAllUsesWith(alloc);
    linear[alloc] = Linear{alloc,
                           math.constant(0),
                           {math.constant(type.getDimSize(0))},
                           {math.constant(1)}};
  }
  if (unsigned count = kernel.getNumWorkgroupAttributions()) {
    entry.eraseArguments(kernel.getFirstWorkgroupAttributionIndex(), count);
    kernel->removeAttr(kernel.getNumWorkgroupAttributionsAttrName());
  }

  // Every op, in program order: views get their linear form, accesses are
  // rewritten, and the ops on the old views die.
  SmallVector<Operation *> ops;
  kernel.getBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) { ops.push_back(op); });
  SmallVector<Operation *> dead;
  auto viewOf = [&](Value v) -> const Linear * {
    auto it = linear.find(v);
    return it == linear.end() ? nullptr : &it->second;
  };
  for (Operation *op : ops) {
    b.setInsertionPoint(op);
    IndexMath at(b, op->getLoc());
    if (auto meta = dyn_cast<memref::ExtractStridedMetadataOp>(op)) {
      const Linear *view = viewOf(meta.getSource());
      if (!view)
        continue;
      Linear source = *view;
      linear[meta.getBaseBuffer()] =
          Linear{source.base, at.constant(0), {}, {}};
      meta.getOffset().replaceAllUsesWith(at.value(source.offset));
      for (auto [result, size] : llvm::zip(meta.getSizes(), source.sizes))
        result.replaceAllUsesWith(at.value(size));
      for (auto [result, stride] : llvm::zip(meta.getStrides(), source.strides))
        result.replaceAllUsesWith(at.value(stride));
      dead.push_back(op);
      continue;
    }
    if (auto cast = dyn_cast<memref::ReinterpretCastOp>(op)) {
      const Linear *view = viewOf(cast.getSource());
      if (!view)
        continue;
      // A reinterpret_cast starts from its source's base: the source's own
      // offset does not count.
      Linear result{view->base, cast.getMixedOffsets()[0],
                    cast.getMixedSizes(), cast.getMixedStrides()};
      linear[cast.getResult()] = std::move(result);
      dead.push_back(op);
      continue;
    }
    if (auto cast = dyn_cast<memref::CastOp>(op)) {
      const Linear *view = viewOf(cast.getSource());
      if (!view)
        continue;
      Linear copy = *view;
      linear[cast.getResult()] = std::move(copy);
      dead.push_back(op);
      continue;
    }
    if (auto dim = dyn_cast<memref::DimOp>(op)) {
      const Linear *view = viewOf(dim.getSource());
      if (!view)
        continue;
      std::optional<int64_t> d = dim.getConstantIndex();
      if (!d || *d < 0 || *d >= int64_t(view->sizes.size()))
        return dim.emitError("memref.dim of a dim that is not a constant in "
                             "range, in a Vulkan kernel");
      dim.getResult().replaceAllUsesWith(at.value(view->sizes[*d]));
      dead.push_back(op);
      continue;
    }
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      const Linear *view = viewOf(load.getMemRef());
      if (!view)
        continue;
      Value index = at.flatIndex(*view, load.getIndices());
      Value value = memref::LoadOp::create(b, load.getLoc(), view->base,
                                           ValueRange{index});
      if (value.getType() != load.getType())
        value = arith::BitcastOp::create(b, load.getLoc(), load.getType(), value);
      load.getResult().replaceAllUsesWith(value);
      dead.push_back(op);
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      const Linear *view = viewOf(store.getMemRef());
      if (!view)
        continue;
      Value index = at.flatIndex(*view, store.getIndices());
      Value value = store.getValueToStore();
      Type stored = cast<MemRefType>(view->base.getType()).getElementType();
      if (value.getType() != stored)
        value = arith::BitcastOp::create(b, store.getLoc(), stored, value);
      memref::StoreOp::create(b, store.getLoc(), value, view->base,
                              ValueRange{index});
      dead.push_back(op);
      continue;
    }
    for (Value operand : op->getOperands())
      if (viewOf(operand))
        return op->emitError("cannot use a buffer in '")
               << op->getName() << "' in a Vulkan kernel";
  }
  for (Operation *op : llvm::reverse(dead)) {
    if (!op->use_empty())
      return op->emitError("internal error: a view still in use after the "
                           "Vulkan kernel ABI rewrite");
    op->erase();
  }
  llvm::BitVector old(kernel.getNumArguments());
  old.set(0, n);
  for (unsigned i = 0; i < n; ++i)
    if (!entry.getArgument(i).use_empty())
      return kernel.emitError("internal error: argument ")
             << i << " is still used after the Vulkan kernel ABI rewrite";
  if (failed(kernel.eraseArguments(old)))
    return failure();

  // SPIR-V's booleans are not integers: the SPIR-V conversion has no cast
  // of an i1 to an index, so it becomes a select.
  SmallVector<arith::IndexCastUIOp> boolCasts;
  kernel.walk([&](arith::IndexCastUIOp cast) {
    if (cast.getIn().getType().isInteger(1))
      boolCasts.push_back(cast);
  });
  for (arith::IndexCastUIOp cast : boolCasts) {
    b.setInsertionPoint(cast);
    Value one = arith::ConstantIndexOp::create(b, cast.getLoc(), 1);
    Value zero = arith::ConstantIndexOp::create(b, cast.getLoc(), 0);
    cast.replaceAllUsesWith(
        arith::SelectOp::create(b, cast.getLoc(), cast.getIn(), one, zero)
            .getResult());
    cast.erase();
  }

  // Bindings 0..n-1 are the arguments, n the shape buffer.
  for (unsigned i = 0; i <= n; ++i)
    kernel.setArgAttr(i, spirv::getInterfaceVarABIAttrName(),
                      spirv::getInterfaceVarABIAttr(0, i, std::nullopt, ctx));
  auto size = kernel->getAttrOfType<DenseI64ArrayAttr>("tessel.workgroup_size");
  if (!size || size.size() != 3)
    return kernel.emitError("a kernel without tessel.workgroup_size");
  SmallVector<int32_t> workgroup(size.asArrayRef().begin(),
                                 size.asArrayRef().end());
  kernel->setAttr(spirv::getEntryPointABIAttrName(),
                  spirv::getEntryPointABIAttr(ctx, workgroup));
  return success();
}

struct VulkanKernelAbiPass
    : tessel::impl::VulkanKernelAbiPassBase<VulkanKernelAbiPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    // The bindings each kernel may get one buffer at twice (an in-place
    // result: tessel.aliased_args, argument i is binding i). The SPIR-V
    // conversion drops the kernel's attributes, so they travel on the
    // module to the emitter, which decorates those variables Aliased.
    SmallVector<NamedAttribute> aliased;
    for (gpu::GPUModuleOp gpuModule : gpuModules)
      for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>())
        if (auto pairs =
                kernel->getAttrOfType<DenseI64ArrayAttr>(tessel::kAliasedArgsAttr))
          aliased.emplace_back(kernel.getNameAttr(), pairs);
    if (!aliased.empty())
      module->setAttr(tessel::kVulkanAliasedBindingsAttr,
                      DictionaryAttr::get(&getContext(), aliased));
    for (gpu::GPUModuleOp gpuModule : gpuModules) {
      SmallVector<gpu::GPUFuncOp> kernels;
      for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
        if (!kernel.isKernel())
          continue;
        if (failed(lowerKernel(kernel)))
          return signalPassFailure();
        kernels.push_back(kernel);
      }
      // One module per kernel, in the target environment.
      OpBuilder b(gpuModule);
      b.setInsertionPointAfter(gpuModule);
      for (gpu::GPUFuncOp kernel : kernels) {
        auto single = gpu::GPUModuleOp::create(
            b, kernel.getLoc(), (kernel.getName() + "_module").str());
        single->setAttr(spirv::getTargetEnvAttrName(),
                        tessel::vulkanTargetEnv(&getContext()));
        kernel->moveBefore(single.getBody(), single.getBody()->end());
      }
      if (!gpuModule.getBody()->empty()) {
        gpuModule.emitError("a GPU module with functions that are not "
                            "kernels");
        return signalPassFailure();
      }
      gpuModule.erase();
    }
  }
};

} // namespace

spirv::TargetEnvAttr tessel::vulkanTargetEnv(MLIRContext *ctx) {
  // SPIR-V 1.3 (Vulkan 1.1). The capabilities are those a kernel may use;
  // spirv-update-vce keeps only the ones it does, and the runtime checks
  // those against the device. The limits are lavapipe's, which Vulkan GPUs
  // meet or exceed: 32 KiB of workgroup memory, 1024 invocations.
  static const char *const text =
      "#spirv.target_env<#spirv.vce<v1.3,"
      " [Shader, Int64, Int16, Int8, Float64, Float16,"
      "  StorageBuffer16BitAccess, StorageBuffer8BitAccess,"
      "  GroupNonUniform, GroupNonUniformArithmetic],"
      " [SPV_KHR_storage_buffer_storage_class, SPV_KHR_8bit_storage,"
      "  SPV_KHR_16bit_storage]>,"
      " api=Vulkan,"
      " #spirv.resource_limits<max_compute_shared_memory_size = 32768,"
      "  max_compute_workgroup_invocations = 1024,"
      "  max_compute_workgroup_size = [1024, 1024, 64],"
      "  subgroup_size = 8>>";
  return cast<spirv::TargetEnvAttr>(parseAttribute(text, ctx));
}

void tessel::markAliasedBindings(ModuleOp lowered, spirv::ModuleOp module,
                                 StringRef kernel) {
  auto table = lowered->getAttrOfType<DictionaryAttr>(kVulkanAliasedBindingsAttr);
  auto pairs = table ? table.getAs<DenseI64ArrayAttr>(kernel) : nullptr;
  if (!pairs)
    return;
  module.walk([&](spirv::GlobalVariableOp var) {
    std::optional<uint32_t> binding = var.getBinding();
    std::optional<uint32_t> set = var.getDescriptorSet();
    if (binding && set == 0u &&
        llvm::is_contained(pairs.asArrayRef(), int64_t(*binding)))
      var->setAttr("aliased", UnitAttr::get(var.getContext()));
  });
}
