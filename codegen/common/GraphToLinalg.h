//===- GraphToLinalg.h - Lowering graph ops to linalg -----------*- C++ -*-===//
//
// Patterns that lower the Tessel graph dialect to linalg on tensors, one file
// per op family, and the small builders they share.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CODEGEN_COMMON_GRAPHTOLINALG_H
#define TESSEL_CODEGEN_COMMON_GRAPHTOLINALG_H

#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>

namespace tessel {

/// Adds the patterns of each op family.
void populateElementwiseToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateContractionToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populatePoolingToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateDataMovementToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateIndexingToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateNormalizationToLinalgPatterns(mlir::RewritePatternSet &patterns);
void populateReductionToLinalgPatterns(mlir::RewritePatternSet &patterns);

/// All of the above.
void populateGraphToLinalgPatterns(mlir::RewritePatternSet &patterns);

namespace lowering {

/// Where a dynamic result dim comes from: dim `dim` of operand `operand`.
struct DimSource {
  mlir::Value value;
  int64_t dim;
};

/// tensor.empty of `type`, taking each dynamic dim from `sources` (indexed by
/// result dim; entries for static dims are ignored).
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type,
                        llvm::ArrayRef<DimSource> sources);

/// tensor.empty of `type` whose dynamic dims equal those of `like` (same rank).
mlir::Value emptyLike(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::RankedTensorType type, mlir::Value like);

/// linalg.fill of `tensor` with the scalar `value` of its element type.
mlir::Value fill(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor,
                 double value);

/// A scalar constant of `type` (float or integer).
mlir::Value scalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                   double value);

/// Iterator kinds: `parallel` parallel loops followed by `reduction` ones.
llvm::SmallVector<mlir::utils::IteratorType> iterators(int64_t parallel,
                                                       int64_t reduction = 0);

/// linalg.yield of one value, the end of every generic body here.
void yield(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value);

/// Builds a linalg.generic with one result.
mlir::Value generic(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::ValueRange inputs, mlir::Value init,
                    llvm::ArrayRef<mlir::AffineMap> maps,
                    llvm::ArrayRef<mlir::utils::IteratorType> iters,
                    llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                            mlir::ValueRange)>
                        body);

/// Map from a result of rank `resultRank` to an operand of type `operand`
/// broadcast to it with numpy rules (trailing dims aligned; a static 1 that
/// meets a larger extent is broadcast).
mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx, int64_t resultRank,
                             mlir::RankedTensorType operand,
                             mlir::RankedTensorType result);

/// Whether the extents of every result of graph op `op` can be built for
/// its tensor.empty (the op has a shape contract that is a function of its
/// operands' dims); a match failure otherwise. Patterns that call
/// emptyResult check this first, before they build any IR.
mlir::LogicalResult checkResultExtents(mlir::Operation *op,
                                       mlir::PatternRewriter &rewriter);

/// tensor.empty for result `result` of graph op `op`, sized by the op's
/// shape contract from its operands' dims (see checkResultExtents).
mlir::Value emptyResult(mlir::OpBuilder &b, mlir::Operation *op,
                        unsigned result = 0);

/// The elements of `v` as index values read in the kernel (tensor.extract),
/// when it is a small static int64 tensor (a shape operand: a Slice's
/// bounds, an Expand's shape, a reduction's run-time axes); nullopt
/// otherwise. Unused reads fold away.
std::optional<llvm::SmallVector<mlir::Value>>
smallIntegerElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// tensor.pad of `input`'s trailing spatial dims by `pads` (ONNX order:
/// begins then ends) with `value`; `input` is returned when all pads are 0.
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value input, llvm::ArrayRef<int64_t> pads,
                       mlir::Value value);

} // namespace lowering
} // namespace tessel

#endif // TESSEL_CODEGEN_COMMON_GRAPHTOLINALG_H
