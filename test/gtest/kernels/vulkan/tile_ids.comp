// tile_ids.comp - the tile of 2 rows x 4 columns of workgroup (x, y) in its
// rank-2 int64 argument: columns [4x, 4x + 4), rows [2y, 2y + 2), cut at
// the edges.
//
// The Vulkan twin of TestKernels.c's tile_ids: each element of the tile
// gets added a code of the workgroup's id and count (gl_WorkGroupID,
// gl_NumWorkGroups), so that a workgroup that ran twice, or not at all, or
// with the wrong id or count, shows in the result:
//   1 + x + 100 y + 10^4 z + 10^6 count_x + 10^8 count_y + 10^10 count_z
// Bindings: 0 the argument, 1 the shape buffer (rows, cols). Invocation i
// < 8 of the workgroup updates element (i / 4, i % 4) of the tile.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) buffer Ids { int64_t ids[]; };
layout(set = 0, binding = 1) readonly buffer Shape { int shape[]; };

void main() {
  uint lane = gl_LocalInvocationID.x;
  if (lane >= 8u)
    return;
  uvec3 id = gl_WorkGroupID, count = gl_NumWorkGroups;
  int64_t code = 1 + int64_t(id.x) + 100 * int64_t(id.y) +
                 10000 * int64_t(id.z) + 1000000 * int64_t(count.x) +
                 100000000 * int64_t(count.y) +
                 10000000000L * int64_t(count.z);
  uint rows = uint(shape[0]), cols = uint(shape[1]);
  uint r = 2u * id.y + lane / 4u, c = 4u * id.x + lane % 4u;
  if (r < rows && c < cols)
    ids[r * cols + c] += code;
}
