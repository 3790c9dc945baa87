// sum_all.comp - out[] = sum(in[i][j]) for a rank-2 float32 input and a
// rank-0 output.
//
// Bindings: 0 the input, 1 the output, 2 the shape buffer (the input's two
// sizes; the rank-0 output adds none). One workgroup of 256 invocations
// (the launch has no work dims): each sums a strided part, then a tree
// reduction in shared memory.
#version 450

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer In { float values[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float total; };
layout(set = 0, binding = 2) readonly buffer Shape { int shape[]; };

shared float partial[256];

void main() {
  uint lane = gl_LocalInvocationID.x;
  uint n = uint(shape[0]) * uint(shape[1]);
  float acc = 0.0;
  for (uint i = lane; i < n; i += 256u)
    acc += values[i];
  partial[lane] = acc;
  barrier();
  for (uint half_ = 128u; half_ > 0u; half_ >>= 1) {
    if (lane < half_)
      partial[lane] += partial[lane + half_];
    barrier();
  }
  if (lane == 0u && gl_WorkGroupID.x == 0u)
    total = partial[0];
}
