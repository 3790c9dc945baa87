//===- TesselDialect.h - The Tessel graph dialect ---------------*- C++ -*-===//
//
// Include this header to use the graph dialect's ops. The ops follow ONNX
// semantics on ranked tensors; see TesselOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECTS_GRAPH_TESSELDIALECT_H
#define TESSEL_DIALECTS_GRAPH_TESSELDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Graph/ShapeContract.h"
#include "dialects/Graph/TesselDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/Graph/TesselOps.h.inc"

namespace tessel {

/// Extent of one spatial output dim of a sliding window (conv, pooling), or
/// mlir::ShapedType::kDynamic when `in` is dynamic. `ceil` rounds the window
/// count up (ONNX ceil_mode), dropping a last window that starts in the end
/// padding, as ONNX Runtime and PyTorch do.
int64_t windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                         int64_t padBegin, int64_t padEnd, int64_t dilation,
                         bool ceil);

/// The first index and the extent of an ONNX Slice of one axis of extent
/// `n` (a static extent here) with `start`, `end` and `step`; see SliceOp.
std::pair<int64_t, int64_t> sliceRange(int64_t n, int64_t start, int64_t end,
                                       int64_t step);

/// Per dim of a rank-`rank` tensor, 1 (an index value) when one of `axes`
/// (in [-rank, rank), negative from the end) names it, else 0: which dims
/// a reduction with axes known only at run time reduces.
llvm::SmallVector<mlir::Value> reducedDimFlags(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               llvm::ArrayRef<mlir::Value> axes,
                                               int64_t rank);

/// Per dim, the number of dims before it whose flag (of reducedDimFlags) is
/// 0: a kept dim's position in a result without the reduced dims.
llvm::SmallVector<mlir::Value>
keptDimPositions(mlir::OpBuilder &b, mlir::Location loc,
                 llvm::ArrayRef<mlir::Value> flags);

/// The same as index values built with `b` at `loc`, for an extent `n` and
/// bounds `start`, `end` that may be known only at run time (constants
/// fold).
std::pair<mlir::Value, mlir::Value> sliceRange(mlir::OpBuilder &b,
                                               mlir::Location loc, mlir::Value n,
                                               mlir::Value start,
                                               mlir::Value end, int64_t step);

/// The elements of `v` when it is an integer constant (sign-extended),
/// else nullopt: a Slice's bounds, a shape operand known at compile time.
std::optional<llvm::SmallVector<int64_t>> constantIntValues(mlir::Value v);

/// The accumulator a contraction of `element`s uses by default: f32 for
/// f16 and bf16, i32 for 8- and 16-bit integers, else `element`.
mlir::Type defaultAccumulatorType(mlir::Type element);

/// The result shape of ONNX Expand of an `input` shape by shape `values`
/// (one per element, set where known): numpy broadcasting, a dim dynamic
/// where it depends on run-time values. Fails with `error` for a
/// negative value or static dims that do not broadcast.
mlir::FailureOr<llvm::SmallVector<int64_t>>
expandShape(llvm::ArrayRef<int64_t> input,
            llvm::ArrayRef<std::optional<int64_t>> values, std::string &error);

/// The accumulator type a reduction of `element` declares (acc_type):
/// for sums (`sums`: ReduceSum, ReduceMean, LayerNormalization's
/// statistics) f32 for f16/bf16, the type itself for f32/f64, i64 for
/// 64-bit integers and for integer means, else i32; for max and min the
/// element type.
mlir::Type reductionAccumulator(mlir::Type element, bool sums, bool mean);

/// Name of the function attribute that lists the names of the symbolic dims
/// of each function argument: an array (one per argument) of arrays of
/// strings ("" for a static dim).
inline constexpr llvm::StringLiteral kArgSymbolsAttr = "tessel.arg_symbols";

/// The location of an ONNX node: NameLoc(node, NameLoc(op, file:0:0)).
mlir::Location onnxNodeLoc(mlir::MLIRContext *ctx, llvm::StringRef file,
                           llvm::StringRef node, llvm::StringRef opType);

/// "<file>: node '<name>' (<op>)" for a location built by onnxNodeLoc (or
/// whatever parts of that a location has; "" when it has none).
std::string describeLoc(mlir::Location loc);

/// Splits a location built by onnxNodeLoc into its node name and op type
/// (either may come back empty).
void onnxNodeOf(mlir::Location loc, std::string &node, std::string &opType);

/// Name of a kernel function's (and its stages') attribute listing the
/// pairs of parameters that may be bound to one buffer (a result written in
/// place over an argument): [a0, b0, a1, b1, ...]. Targets must not declare
/// such parameters distinct (the CPU's noalias).
inline constexpr llvm::StringLiteral kAliasedArgsAttr = "tessel.aliased_args";

/// The metadata of the fused location of a dispatch region: onnxNodeOf
/// gives all its nodes ("a+b", "Add+Relu"), not just the first.
inline constexpr llvm::StringLiteral kDispatchRegionLoc =
    "tessel.dispatch_region";

} // namespace tessel

#endif // TESSEL_DIALECTS_GRAPH_TESSELDIALECT_H
