//===- OpRegistry.cpp - ONNX op handlers keyed by domain, op and opset ----===//
//
// Storage and lookup of the versioned handlers; the built-in registry is
// filled once, by every op family under ops/.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/OpRegistry.h"

#include <cassert>

using namespace tessel;
using namespace tessel::onnx_import;

llvm::StringRef onnx_import::canonicalDomain(llvm::StringRef domain) {
  return domain == "ai.onnx" ? llvm::StringRef() : domain;
}

std::string onnx_import::displayDomain(llvm::StringRef domain) {
  domain = canonicalDomain(domain);
  return domain.empty() ? "ai.onnx" : domain.str();
}

std::string OpHandlerEntry::rangeString() const {
  if (lastVersion == kLatestOpset)
    return std::to_string(sinceVersion) + "+";
  if (lastVersion == sinceVersion)
    return std::to_string(sinceVersion);
  return std::to_string(sinceVersion) + "-" + std::to_string(lastVersion);
}

void OpRegistry::add(llvm::StringRef opType, int64_t since, OpHandler handler,
                     int64_t last, llvm::StringRef domain) {
  assert(since >= 1 && since <= last && handler && "bad handler range");
  auto &byVersion =
      entries[Key(canonicalDomain(domain).str(), opType.str())];
  // Ranges of one op are disjoint, so lookup can take the closest since.
  auto next = byVersion.lower_bound(since);
  assert((next == byVersion.end() || next->first > last) &&
         "overlapping handler ranges");
  assert((next == byVersion.begin() ||
          std::prev(next)->second.lastVersion < since) &&
         "overlapping handler ranges");
  (void)next;
  byVersion[since] = OpHandlerEntry{canonicalDomain(domain).str(),
                                    opType.str(), since, last, handler};
}

const OpHandlerEntry *OpRegistry::lookup(llvm::StringRef domain,
                                         llvm::StringRef opType,
                                         int64_t opset) const {
  auto it = entries.find(Key(canonicalDomain(domain).str(), opType.str()));
  if (it == entries.end())
    return nullptr;
  auto after = it->second.upper_bound(opset);
  if (after == it->second.begin())
    return nullptr;
  const OpHandlerEntry &entry = std::prev(after)->second;
  return opset <= entry.lastVersion ? &entry : nullptr;
}

std::vector<const OpHandlerEntry *>
OpRegistry::versions(llvm::StringRef domain, llvm::StringRef opType) const {
  std::vector<const OpHandlerEntry *> out;
  auto it = entries.find(Key(canonicalDomain(domain).str(), opType.str()));
  if (it != entries.end())
    for (const auto &[since, entry] : it->second)
      out.push_back(&entry);
  return out;
}

std::string OpRegistry::supportedRanges(llvm::StringRef domain,
                                        llvm::StringRef opType) const {
  std::string out;
  for (const OpHandlerEntry *entry : versions(domain, opType))
    out += (out.empty() ? "" : ", ") + entry->rangeString();
  return out;
}

std::vector<const OpHandlerEntry *> OpRegistry::all() const {
  std::vector<const OpHandlerEntry *> out;
  for (const auto &[key, byVersion] : entries)
    for (const auto &[since, entry] : byVersion)
      out.push_back(&entry);
  return out;
}

const OpRegistry &OpRegistry::builtin() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerElementwiseOps(r);
    registerContractionOps(r);
    registerPoolingOps(r);
    registerNormalizationOps(r);
    registerTensorOps(r);
    registerShapeOps(r);
    registerLogicalOps(r);
    registerReductionOps(r);
    registerControlFlowOps(r);
    return r;
  }();
  return registry;
}
