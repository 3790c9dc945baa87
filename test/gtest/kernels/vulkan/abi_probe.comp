// abi_probe.comp - reports what the kernel sees of its rank-3 float32
// argument in its int64[8] output.
//
// A Vulkan kernel cannot see pointers, offsets or strides: the driver binds
// each argument at its first element and checks that the memref is
// contiguous row-major. So the probe reports offset 0, the three sizes it
// finds in the shape buffer (binding 2: the input's sizes, then the
// output's 8), the row-major strides computed from them, and 1 for
// "allocated == aligned", in TestKernels.c's layout.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer In { float unused[]; };
layout(set = 0, binding = 1) writeonly buffer Out { int64_t probe[]; };
layout(set = 0, binding = 2) readonly buffer Shape { int shape[]; };

void main() {
  if (gl_GlobalInvocationID.x != 0u)
    return;
  int64_t d0 = shape[0], d1 = shape[1], d2 = shape[2];
  probe[0] = 0;
  probe[1] = d0;
  probe[2] = d1;
  probe[3] = d2;
  probe[4] = d1 * d2;
  probe[5] = d2;
  probe[6] = 1;
  probe[7] = 1;
}
