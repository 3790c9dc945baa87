//===- Passes.td - The Vulkan target's own passes -----------*- tablegen -*-===//

#ifndef TESSEL_CODEGEN_VULKAN_PASSES
#define TESSEL_CODEGEN_VULKAN_PASSES

include "mlir/Pass/PassBase.td"

def VulkanKernelAbiPass
    : Pass<"tessel-vulkan-kernel-abi", "mlir::ModuleOp"> {
  let summary = "Give the mapped GPU kernels the Vulkan kernel ABI";
  let description = [{
    Runs on the gpu.module of tessel-map-stages-to-gpu after
    expand-strided-metadata, so that every view is a memref.reinterpret_cast
    of a kernel argument or a workgroup attribution. SPIR-V has pointers to
    arrays, not memref descriptors, so each kernel gets the Vulkan kernel
    ABI (docs/design.md, "Kernel ABI"):
      * argument i becomes a 1-D buffer of its element type
        (`memref<?xT>`, descriptor set 0, binding i; bf16 as i16, its
        bits, bitcast at each load and store);
      * one more argument, binding n, is the shape buffer: the int32 sizes
        of all arguments in order, of which the kernel reads the dynamic
        ones; strides are row-major by the ABI;
      * every load and store, through any chain of views, indexes the flat
        buffer (or the flat workgroup attribution) at offset + sum of index
        times stride; memref.dim reads the view's size.
    Workgroup attributions become workgroup allocations (memory space 3),
    which the SPIR-V conversion makes Workgroup variables, and an
    `arith.index_castui` of an i1 (SPIR-V booleans are not integers) a
    select. The kernel gets `spirv.entry_point_abi` from
    `tessel.workgroup_size`.
    Then each kernel moves into a gpu.module of its own, which carries the
    target environment: the vulkan target's binary holds one SPIR-V module
    per kernel. Any other use of a buffer is an error naming the op.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::spirv::SPIRVDialect"];
}

def SpirvExactF64Pass : Pass<"tessel-spirv-exact-f64", "mlir::spirv::ModuleOp"> {
  let summary = "Decorate f64 arithmetic NoContraction";
  let description = [{
    SPIR-V lets a driver contract and reassociate float arithmetic that is
    not decorated NoContraction (GLSL.std.450 Fma has no precision
    guarantee without it either). f64 is chosen for its precision, and the
    f64 exp/log expansions (ExpandDeviceMathF64.cpp) rely on exact steps:
    lavapipe factored their two-part ln 2 reduction, which cost up to 630
    ulp in exp for large |x| (2 with the decoration). Every f64 (scalar or
    vector) FAdd, FSub, FMul, FDiv, FNegate, FRem, FMod and GL Fma gets
    NoContraction; f32 and narrower keep the driver's freedom.
  }];
}

def SaturateIndexPass : Pass<"tessel-saturate-index"> {
  let summary = "Index values saturate to the 32 bits of the Vulkan index";
  let description = [{
    The Vulkan target's index is 32 bits (the kernel ABI passes int32
    sizes), so every extent and position a kernel sees fits in an i32. Shape
    values wider than that are bounds that only clamp against extents: a
    Slice's end of INT64_MAX ("to the end") or INT64_MIN (reversing
    everything). As 64-bit index constants the SPIR-V conversion cannot
    hold them, and an i64 value converted to index would truncate (INT64_MAX
    to -1). Both saturate instead: an index constant is clamped to the i32
    range, and an `arith.index_cast` from i64 clamps its operand first,
    which keeps every clamp against an extent what it was in 64 bits.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

#endif // TESSEL_CODEGEN_VULKAN_PASSES
