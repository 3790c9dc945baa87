//===- DimEqualities.h - Symbolic dims an op requires to be equal -*- C++ -*-===//
//
// A broadcast of two dynamic dims, a contraction dim, Concat's other dims:
// the kernels assume such dims are equal, so the artifact must make the
// runtime check it. Partitioning records each requirement here; at the end
// every symbol is replaced by its class's representative (another symbol,
// or a static extent), so that binding inputs with unequal extents is an
// error at run time instead of an out-of-bounds access.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_DIMEQUALITIES_H
#define TESSEL_COMPILER_DIMEQUALITIES_H

#include "runtime/format/Artifact.h"

#include "mlir/IR/Operation.h"

#include <map>
#include <string>

namespace tessel {

class DimEqualities {
public:
  /// Requires `a` == `b`. Returns false if that equates two different
  /// static extents.
  bool require(const format::Dim &a, const format::Dim &b);
  /// The representative of `d`'s class: a static extent if the class has
  /// one, else its first symbol.
  format::Dim resolve(const format::Dim &d) const;
  /// Replaces every dim of every shape in `artifact` by its representative.
  void apply(format::Artifact &artifact) const;

private:
  std::string find(const std::string &symbol) const;
  mutable std::map<std::string, std::string> parent;
  std::map<std::string, int64_t> value; ///< root symbol -> static extent
};

/// Records what `op` (a graph op) requires of the dims of its operands,
/// whose plan shapes are `operands`. Fails, at the op, if it requires two
/// different static extents to be equal.
mlir::LogicalResult collectDimEqualities(mlir::Operation *op,
                                         llvm::ArrayRef<format::Shape> operands,
                                         DimEqualities &equalities);

} // namespace tessel

#endif // TESSEL_COMPILER_DIMEQUALITIES_H
