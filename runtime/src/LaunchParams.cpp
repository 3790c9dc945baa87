//===- LaunchParams.cpp - The kernel argument array of the ABI ------------===//

#include "LaunchParams.h"

namespace tessel::runtime {

void LaunchParams::addMemref(void *data, const std::vector<int64_t> &sizes) {
  Scalar s;
  s.ptr = data;
  scalars.push_back(s); // allocated pointer
  scalars.push_back(s); // aligned pointer
  s.i64 = 0;
  scalars.push_back(s); // offset
  for (int64_t size : sizes) {
    s.i64 = size;
    scalars.push_back(s);
  }
  // Contiguous row-major strides: the innermost is 1.
  size_t first = scalars.size();
  scalars.resize(first + sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    scalars[first + i].i64 = stride;
    stride *= sizes[i];
  }
}

void **LaunchParams::params() {
  pointers.resize(scalars.size());
  for (size_t j = 0; j < scalars.size(); ++j)
    pointers[j] = &scalars[j];
  return pointers.data();
}

} // namespace tessel::runtime
