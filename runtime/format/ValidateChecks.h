//===- ValidateChecks.h - What the parts of validate() share ----*- C++ -*-===//
//
// Internal to tessel_format: validate() is split over Validate.cpp (names,
// shapes, buffers, the plan, steps, binaries) and ValidateControlFlow.cpp
// (control ops and the scopes of their symbols); this is what they share.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FORMAT_VALIDATECHECKS_H
#define TESSEL_RUNTIME_FORMAT_VALIDATECHECKS_H

#include "format/Artifact.h"

#include <algorithm>
#include <set>
#include <string>

namespace tessel::format::detail {

/// Largest byte size of a statically known tensor (leaves room for the
/// runtime's arithmetic on top).
inline constexpr uint64_t kMaxStaticBytes = uint64_t(1) << 62;

inline std::string quoted(const std::string &s) { return "'" + s + "'"; }

inline bool isPrintable(const std::string &s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  });
}

/// A symbol name the linkers and loaders of every target accept: a C
/// identifier, also allowing '.' and '$' (MLIR and LLVM use them).
inline bool isSymbolName(const std::string &s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9'))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
  });
}

/// Product of the static extents of `shape`, or false on overflow.
inline bool staticProduct(const Shape &shape, uint64_t &product) {
  product = 1;
  for (const Dim &d : shape)
    if (!d.isSymbolic() &&
        __builtin_mul_overflow(product, static_cast<uint64_t>(d.value),
                               &product))
      return false;
  return true;
}

inline std::multiset<std::string> symbolsOf(const Shape &shape) {
  std::multiset<std::string> symbols;
  for (const Dim &d : shape)
    if (d.isSymbolic())
      symbols.insert(d.symbol);
  return symbols;
}

/// False when `view` provably has another number of elements than `shape`:
/// both have the same symbols but different static products. (With other
/// symbols it depends on the bindings; the runtime checks those.)
inline bool mayView(const Shape &view, const Shape &shape) {
  if (symbolsOf(view) != symbolsOf(shape))
    return true;
  uint64_t viewElems, shapeElems;
  staticProduct(view, viewElems);
  staticProduct(shape, shapeElems);
  return viewElems == shapeElems;
}

inline bool sameShape(const Shape &a, const Shape &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].symbol != b[i].symbol ||
        (!a[i].isSymbolic() && a[i].value != b[i].value))
      return false;
  return true;
}

/// The checks the control-flow part needs of the rest: the artifact, the
/// error, the checks of names and of views (which know the symbols the
/// artifact defines), and the names of shape ops.
class CheckContext {
public:
  explicit CheckContext(const Artifact &a) : a(a) {}
  virtual ~CheckContext() = default;

  bool fail(const std::string &what, const std::string &message) {
    error = what + ": " + message;
    return false;
  }
  virtual bool name(const std::string &what, const std::string &s,
                    bool nonEmpty) = 0;
  virtual bool launchArg(const std::string &what, const LaunchArg &arg) = 0;
  /// "shape op 1 (Reshape of node 'Reshape_0')", for messages.
  virtual std::string shapeOpName(size_t index) const = 0;

  const Artifact &a;
  std::string error;
};

/// Each control op well formed for its kind, each region but 0 owned by
/// exactly one of them, and every symbol a step reads bound, in its scope,
/// before the step runs (see validate() in Artifact.h). Runs after the
/// regions' steps are checked; on failure sets `context.error`.
bool checkControlFlow(CheckContext &context);

} // namespace tessel::format::detail

#endif // TESSEL_RUNTIME_FORMAT_VALIDATECHECKS_H
