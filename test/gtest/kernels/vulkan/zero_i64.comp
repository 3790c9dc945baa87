// zero_i64.comp - zeroes its rank-2 int64 argument.
//
// Bindings: 0 the argument, 1 the shape buffer (its two sizes).
// Workgroups of 256; a grid-stride loop covers any grid.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) writeonly buffer Out { int64_t values[]; };
layout(set = 0, binding = 1) readonly buffer Shape { int shape[]; };

void main() {
  uint n = uint(shape[0]) * uint(shape[1]);
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride)
    values[i] = 0;
}
