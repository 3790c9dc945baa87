//===- TensorPrinter.h - numpy-style printing of tensors --------*- C++ -*-===//

#ifndef TESSEL_TOOLS_TESSEL_RUN_TENSORPRINTER_H
#define TESSEL_TOOLS_TESSEL_RUN_TENSORPRINTER_H

#include "io/HostTensor.h"

#include <ostream>

namespace tessel::run {

/// Tensors with more elements than this are summarized.
constexpr uint64_t kPrintThreshold = 1000;
/// Elements shown at each end of a summarized axis.
constexpr int64_t kPrintEdgeItems = 3;

/// Prints "<name>: <dtype> [<shape>]" and the values the way numpy's str()
/// does: nested brackets, aligned columns, "..." for the middle of long
/// axes when the tensor has more than kPrintThreshold elements.
void printTensor(std::ostream &os, const std::string &name,
                 const io::HostTensor &tensor);

/// One element as numpy prints it ("1.", "0.25", "-3", "True").
std::string formatElement(const io::HostTensor &tensor, uint64_t index);

} // namespace tessel::run

#endif // TESSEL_TOOLS_TESSEL_RUN_TENSORPRINTER_H
