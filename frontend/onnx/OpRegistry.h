//===- OpRegistry.h - ONNX op handlers keyed by domain, op and opset -*- C++ -*-===//
//
// The single list of what the importer supports. Each op family (one file
// under ops/) registers its handlers with the opset range of the ONNX op
// versions they implement, e.g. Softmax [1, 12] (the input coerced to 2-D)
// and [13, latest] (one axis). The importer picks the handler whose range
// holds the opset the model imports for the node's domain; tessel-compile
// --list-ops prints the same table.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_FRONTEND_ONNX_OPREGISTRY_H
#define TESSEL_FRONTEND_ONNX_OPREGISTRY_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tessel::onnx_import {

class NodeContext;
using OpHandler = mlir::LogicalResult (*)(NodeContext &);

/// "and every later opset" as the end of a range.
inline constexpr int64_t kLatestOpset = std::numeric_limits<int64_t>::max();

/// The canonical name of an ONNX domain: "ai.onnx" is the default domain "".
llvm::StringRef canonicalDomain(llvm::StringRef domain);
/// How a domain is named in messages: "ai.onnx" for the default domain.
std::string displayDomain(llvm::StringRef domain);

/// One handler and the opsets [sinceVersion, lastVersion] of its op it
/// implements.
struct OpHandlerEntry {
  std::string domain; ///< canonical ("" for ai.onnx)
  std::string opType;
  int64_t sinceVersion = 1;
  int64_t lastVersion = kLatestOpset;
  OpHandler handler = nullptr;

  /// "13+", "1-12" or "5".
  std::string rangeString() const;
};

/// Handlers keyed by (domain, op type, since-version).
class OpRegistry {
public:
  /// Registers `handler` for opsets [since, last] of `opType` in `domain`.
  /// Ranges of one op must not overlap (asserted).
  void add(llvm::StringRef opType, int64_t since, OpHandler handler,
           int64_t last = kLatestOpset, llvm::StringRef domain = "");

  /// The handler of `opType` for `opset` of its domain, or null.
  const OpHandlerEntry *lookup(llvm::StringRef domain, llvm::StringRef opType,
                               int64_t opset) const;
  /// Every handler of `opType` (any opset), by since-version; empty when the
  /// op has none.
  std::vector<const OpHandlerEntry *> versions(llvm::StringRef domain,
                                               llvm::StringRef opType) const;
  /// "1-12, 13+": the opsets `opType` has handlers for.
  std::string supportedRanges(llvm::StringRef domain,
                              llvm::StringRef opType) const;
  /// Every handler, by domain, op type and since-version.
  std::vector<const OpHandlerEntry *> all() const;

  /// The importer's handlers: every op family registered once.
  static const OpRegistry &builtin();

private:
  using Key = std::pair<std::string, std::string>; // (domain, op type)
  std::map<Key, std::map<int64_t, OpHandlerEntry>> entries;
};

/// Each op family registers its handlers with their opset ranges.
void registerElementwiseOps(OpRegistry &registry);
void registerContractionOps(OpRegistry &registry);
void registerPoolingOps(OpRegistry &registry);
void registerNormalizationOps(OpRegistry &registry);
void registerTensorOps(OpRegistry &registry);
void registerShapeOps(OpRegistry &registry);
void registerLogicalOps(OpRegistry &registry);
void registerReductionOps(OpRegistry &registry);
void registerControlFlowOps(OpRegistry &registry);

} // namespace tessel::onnx_import

#endif // TESSEL_FRONTEND_ONNX_OPREGISTRY_H
