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

#endif // TESSEL_CODEGEN_VULKAN_PASSES
