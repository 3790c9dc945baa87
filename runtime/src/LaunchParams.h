//===- LaunchParams.h - The kernel argument array of the ABI ----*- C++ -*-===//
//
// Builds the `void *params[]` of docs/design.md "Kernel ABI": each argument
// is an expanded row-major memref descriptor (allocated pointer, aligned
// pointer, offset 0, sizes, strides) flattened into 8-byte scalars, and
// params[j] points at the j-th scalar. The same array is the CPU wrapper's
// argument and the GPU launch's kernelParams.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_SRC_LAUNCHPARAMS_H
#define TESSEL_RUNTIME_SRC_LAUNCHPARAMS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessel::runtime {

class LaunchParams {
public:
  /// Starts a new argument array.
  void clear() { scalars.clear(); }
  /// Appends the descriptor of a contiguous row-major memref of extents
  /// `sizes` at `data` (a device address).
  void addMemref(void *data, const std::vector<int64_t> &sizes);
  /// The argument array; valid until the next clear() or addMemref().
  void **params();
  /// Number of scalars (5 per rank-1 argument, 3 per rank-0 one, ...).
  size_t size() const { return scalars.size(); }

private:
  union Scalar {
    void *ptr;
    int64_t i64;
  };
  std::vector<Scalar> scalars;
  std::vector<void *> pointers;
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_SRC_LAUNCHPARAMS_H
