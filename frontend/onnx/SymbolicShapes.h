//===- SymbolicShapes.h - Extents as products of symbols --------*- C++ -*-===//
//
// What the importer knows of an extent it cannot make static: a product of
// a constant and symbols. A symbol is a model input's named dim ("batch":
// the same name is the same symbol) or an extent nothing more is known of.
// The dims of a value come from its op's shape contract
// (dialects/Graph/ShapeContract.td) — the one the plan and the lowering
// use — applied to symbolic extents in a scratch module of index
// arithmetic; the elements of a small int64 value (a Shape, and the
// arithmetic exporters write on it) are followed the same way. So
// (b·116·784)/(b·784) is 116: a Reshape whose target torch computed from
// x.shape keeps every dim it can prove static, and a grouped Conv after a
// channel shuffle sees its channels.
//
// This is the importer's one evaluator of shape values: knownElements is
// what it proves constant.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_FRONTEND_ONNX_SYMBOLICSHAPES_H
#define TESSEL_FRONTEND_ONNX_SYMBOLICSHAPES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

namespace tessel::onnx_import {

/// c · s1 · s2 · … (symbols sorted, repeats allowed), or unknown.
struct Monomial {
  int64_t coefficient = 1;
  llvm::SmallVector<const void *, 2> symbols;
  bool known = true;

  static Monomial constant(int64_t c) { return Monomial{c, {}, true}; }
  static Monomial unknown() { return Monomial{0, {}, false}; }
  std::optional<int64_t> asConstant() const {
    if (known && symbols.empty())
      return coefficient;
    return std::nullopt;
  }
  bool operator==(const Monomial &o) const {
    return known && o.known && coefficient == o.coefficient &&
           symbols == o.symbols;
  }
  /// A text equal for equal known monomials; empty when unknown.
  std::string key() const;
  Monomial operator*(const Monomial &o) const;
  /// this / o when it divides exactly (symbols and coefficient), else
  /// unknown.
  Monomial operator/(const Monomial &o) const;
};

class SymbolicShapes {
public:
  explicit SymbolicShapes(mlir::MLIRContext *context);
  ~SymbolicShapes();

  /// The extents of the dims of ranked tensor `v`.
  llvm::SmallVector<Monomial> dims(mlir::Value v);
  /// The elements of a small (at most 64) 0-D or 1-D int64 tensor, each
  /// unknown where it is not followed; nullopt for any other value.
  std::optional<llvm::SmallVector<Monomial>> elements(mlir::Value v);
  /// Of elements(v), the ones that are constants (nullopt where not); like
  /// ONNX's data propagation, this keeps the static 1s of
  /// `Reshape(mask, Concat(batch, [1], [1], seq))` in the result type.
  std::optional<llvm::SmallVector<std::optional<int64_t>>>
  knownElements(mlir::Value v);
  /// Forgets what was derived for the results of `op` (about to be erased).
  void forget(mlir::Operation *op);
  /// Forgets what was derived for every value (a subgraph's block is about
  /// to be built or destroyed). Named symbols stay the same.
  void forgetAll();

private:
  llvm::ArrayRef<mlir::Value> dimValues(mlir::Value v);
  void computeDims(mlir::Value v);
  std::optional<llvm::SmallVector<mlir::Value>> elementValues(mlir::Value v,
                                                              int depth = 0);
  std::optional<llvm::SmallVector<mlir::Value>>
  computeElements(mlir::Value v, int depth);
  llvm::SmallVector<mlir::Value> reshapeDims(mlir::Operation *reshape);
  mlir::Value fresh();
  mlir::Value constant(int64_t v);
  Monomial monomial(mlir::Value index);

  mlir::OwningOpRef<mlir::ModuleOp> scratch;
  mlir::OpBuilder b;
  mlir::Location loc;
  llvm::DenseMap<mlir::Value, llvm::SmallVector<mlir::Value>> dimCache;
  llvm::DenseMap<mlir::Value, std::optional<llvm::SmallVector<mlir::Value>>>
      elementCache;
  llvm::StringMap<mlir::Value> named;
  llvm::DenseMap<mlir::Value, Monomial> monomials;
};

} // namespace tessel::onnx_import

#endif // TESSEL_FRONTEND_ONNX_SYMBOLICSHAPES_H
