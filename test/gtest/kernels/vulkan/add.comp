// add.comp - out[i] = a[i] + b[i] on rank-1 float32 arguments.
//
// The Vulkan twin of TestKernels.c's add (ABI: VulkanDriver.cpp): bindings
// 0..2 are the arguments, binding 3 the shape buffer (the sizes of a, b,
// out). Workgroups of 256 (the legacy GPU config of the test artifacts);
// a grid-stride loop covers any grid.
#version 450

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer Out { float result[]; };
layout(set = 0, binding = 3) readonly buffer Shape { int shape[]; };

void main() {
  uint n = uint(shape[0]);
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride)
    result[i] = a[i] + b[i];
}
