// tessel-vulkan-kernel-abi: arguments become flat buffers (bindings 0..n-1)
// plus the int32 shape buffer (binding n) that holds every argument's sizes
// in order; views (reinterpret_cast, extract_strided_metadata) become index
// arithmetic on the flat buffer; workgroup attributions become workgroup
// allocations; each kernel gets a module of its own in the Vulkan target
// environment.
// RUN: tessel-opt %s --split-input-file --tessel-vulkan-kernel-abi --verify-diagnostics | FileCheck %s

// CHECK-LABEL: gpu.module @k_module attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.3
// CHECK:       gpu.func @k(%[[A:.*]]: memref<?xf32> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 0)>},
// CHECK-SAME:              %[[B:.*]]: memref<?xi16> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 1)>},
// CHECK-SAME:              %[[OUT:.*]]: memref<?xindex> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 2)>},
// CHECK-SAME:              %[[S:.*]]: memref<?xi32> {spirv.interface_var_abi = #spirv.interface_var_abi<(0, 3)>})
// CHECK-SAME:  spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [256, 1, 1]>
// The dynamic size of %a: its dim 0, position 0 of the shape buffer (dim 1
// is static); then the shared tile.
// CHECK:       %[[N32:.*]] = memref.load %[[S]][%{{.*}}] : memref<?xi32>
// CHECK:       %[[N:.*]] = arith.index_cast %[[N32]] : i32 to index
// CHECK:       %[[SHARED:.*]] = memref.alloc() : memref<8xf32, 3>
// A load of %a[%i, 1] through a view at offset 4 with the argument's
// row-major stride 4: 4 + i * 4 + 1.
// CHECK:       %[[ROW:.*]] = arith.muli %[[I:.*]], %[[C4:.*]] : index
// CHECK:       %[[AT:.*]] = arith.addi %[[C4B:.*]], %[[ROW]] : index
// CHECK:       %[[AT1:.*]] = arith.addi %[[AT]], %{{.*}} : index
// CHECK:       %[[X:.*]] = memref.load %[[A]][%[[AT1]]] : memref<?xf32>
// CHECK:       memref.store %[[X]], %[[SHARED]][%[[I]]] : memref<8xf32, 3>
// The bf16 output is stored as its bits.
// CHECK:       %[[BITS:.*]] = arith.bitcast %{{.*}} : bf16 to i16
// CHECK:       memref.store %[[BITS]], %[[B]][%{{.*}}] : memref<?xi16>
// memref.dim of %a is the size read from the shape buffer.
// CHECK:       memref.store %[[N]], %[[OUT]][%{{.*}}] : memref<?xindex>
// CHECK-NOT:   memref.reinterpret_cast
// CHECK-NOT:   memref.extract_strided_metadata
// CHECK-NOT:   workgroup(
module attributes {gpu.container_module} {
  gpu.module @tessel_kernels {
    gpu.func @k(%a: memref<?x4xf32>, %b: memref<2xbf16>, %out: memref<index>)
        workgroup(%w: memref<8xf32, #gpu.address_space<workgroup>>)
        kernel attributes {tessel.workgroup_size = array<i64: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %i = gpu.thread_id x
      %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %a
          : memref<?x4xf32> -> memref<f32>, index, index, index, index, index
      %view = memref.reinterpret_cast %base to offset: [4], sizes: [%sizes#0, 3],
          strides: [%strides#0, 1] : memref<f32> to memref<?x3xf32, strided<[?, 1], offset: 4>>
      %x = memref.load %view[%i, %c1] : memref<?x3xf32, strided<[?, 1], offset: 4>>
      memref.store %x, %w[%i] : memref<8xf32, #gpu.address_space<workgroup>>
      %t = arith.truncf %x : f32 to bf16
      memref.store %t, %b[%c1] : memref<2xbf16>
      %n = memref.dim %a, %c0 : memref<?x4xf32>
      memref.store %n, %out[] : memref<index>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @tessel_kernels {
    gpu.func @copy(%a: memref<4xf32>, %b: memref<4xf32>) kernel
        attributes {tessel.workgroup_size = array<i64: 256, 1, 1>} {
      // expected-error @below {{cannot use a buffer in 'memref.copy' in a Vulkan kernel}}
      memref.copy %a, %b : memref<4xf32> to memref<4xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @tessel_kernels {
    // expected-error @below {{the Vulkan kernel ABI takes buffers of the default memory space and identity layout; argument 0 is 'memref<4xf32, strided<[2]>>'}}
    gpu.func @strided(%a: memref<4xf32, strided<[2]>>) kernel
        attributes {tessel.workgroup_size = array<i64: 256, 1, 1>} {
      gpu.return
    }
  }
}
