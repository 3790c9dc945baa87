//===- Compare.h - Compare outputs with reference tensors -------*- C++ -*-===//
//
// tessel-run --compare DIR checks each output against DIR/<output>.npy, the
// way the GPU check compares a device's outputs with the CPU backend's.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_TESSEL_RUN_COMPARE_H
#define TESSEL_TOOLS_TESSEL_RUN_COMPARE_H

#include "io/HostTensor.h"

#include <string>

namespace tessel::run {

struct Comparison {
  bool ok = false;
  double maxAbsError = 0;  ///< over all elements
  double maxRelError = 0;  ///< |a - e| / |e| over elements with e != 0
  uint64_t mismatches = 0; ///< elements with |a - e| > atol + rtol * |e|
  std::string problem;     ///< set when the tensors cannot be compared
};

/// Compares `actual` with `expected`: same dtype and shape, then element by
/// element (floats within atol + rtol * |expected|, NaN equal to NaN;
/// integers and booleans exactly).
Comparison compareTensors(const io::HostTensor &expected,
                          const io::HostTensor &actual, double rtol,
                          double atol);

} // namespace tessel::run

#endif // TESSEL_TOOLS_TESSEL_RUN_COMPARE_H
