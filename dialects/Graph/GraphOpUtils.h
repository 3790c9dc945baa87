//===- GraphOpUtils.h - Helpers the graph ops' verifiers share --*- C++ -*-===//
//
// The shape checks and constant-folding helpers of TesselOps.cpp, shared by
// the files that verify and fold the other op families (LogicalOps.cpp,
// ReductionOps.cpp). Not a public header: include it from dialects/Graph
// only.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECTS_GRAPH_GRAPHOPUTILS_H
#define TESSEL_DIALECTS_GRAPH_GRAPHOPUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include <optional>

namespace tessel::graph_detail {

/// Operand dims the run time checks for equality: equal when static, else
/// left to the shape contract's assumptions.
bool runtimeChecked(int64_t a, int64_t b);
/// Operand dims nothing checks at run time: both static and equal.
bool staticEqual(int64_t a, int64_t b);
/// A result dim against its implied extent: the same extent, or both
/// dynamic.
bool sameDim(int64_t a, int64_t b);
/// A result dim against an implied extent that it may leave dynamic (one
/// computed from values that became constant after import; the shape
/// contract computes and checks it).
bool sameOrDynamicDim(int64_t a, int64_t b);
/// A result dim against an extent implied by shape values the verifier
/// may not know (known elements of a computed shape): equal where both are
/// static; a static result dim over a dynamic implied one is the
/// importer's, which the shape contract checks at run time
/// (addCheckedResult).
bool knownOrDynamicDim(int64_t a, int64_t b);

/// Prints an extent as in a type: `?` for a dynamic one.
std::string extent(int64_t d);

/// Checks that `type` has `expected` extents, each pair by `agree`.
mlir::LogicalResult checkShape(mlir::Operation *op, mlir::RankedTensorType type,
                               llvm::ArrayRef<int64_t> expected,
                               llvm::StringRef what,
                               bool (*agree)(int64_t, int64_t) = sameDim);

mlir::RankedTensorType rankedType(mlir::Value v);

/// The result of an op whose operands broadcast (numpy) is their broadcast
/// shape exactly (ResultsBroadcastableShape lets `?` match anything).
mlir::LogicalResult verifyBroadcastResult(mlir::Operation *op);

/// The integer elements of `attr`, a constant of a static shape; nullopt
/// for anything else.
std::optional<llvm::SmallVector<llvm::APInt>>
intElements(mlir::Attribute attr);

/// Folds an op whose integer constant operands broadcast (numpy) into its
/// static result, element by element with `fn` (given one element of each
/// operand), or returns null (a non-constant operand, a float, a result
/// `fn` leaves undefined).
mlir::OpFoldResult foldIntBroadcast(
    mlir::Operation *op, llvm::ArrayRef<mlir::Attribute> operands,
    llvm::function_ref<std::optional<llvm::APInt>(llvm::ArrayRef<llvm::APInt>)>
        fn);

} // namespace tessel::graph_detail

#endif // TESSEL_DIALECTS_GRAPH_GRAPHOPUTILS_H
