//===- IndexRange.cpp - The out-of-range check of the index ops -----------===//
//
// ONNX makes an index outside [-n, n) an error in the ops below, however
// Tessel implements them (a primitive op, or a body of other ops). The
// kernels clamp, so that they never touch memory outside a tensor; the
// error comes from a `tessel.count_out_of_range` and `tessel.assert_zero`
// pair added beside the node of the model (dialects/Graph/IndexChecks.cpp).
// The nodes of a body that ONNX or Tessel wrote are not checked: their
// indices are in range by construction, or were checked at the node they
// expand from.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImportContext.h"

#include "dialects/Graph/TesselDialect.h"

using namespace mlir;
using namespace tessel;

namespace tessel::onnx_import {

namespace {

/// An op whose input 1 indexes input 0: each index along one axis (the
/// attribute `axisAttribute`, default 0), or, with `tuples`, the entries
/// of each index tuple (the last dim of the indices) along consecutive
/// dims from `axisAttribute` (GatherND's batch_dims; none: from dim 0).
struct IndexedOp {
  const char *op;
  const char *axisAttribute;
  bool tuples;
};

constexpr IndexedOp kIndexedOps[] = {
    {"Gather", "axis", false},
    {"GatherElements", "axis", false},
    {"ScatterElements", "axis", false},
    {"Scatter", "axis", false},
    {"GatherND", "batch_dims", true},
    {"ScatterND", nullptr, true},
};

} // namespace

LogicalResult checkIndexRange(NodeContext &n) {
  if (!n.node.domain().empty() && n.node.domain() != "ai.onnx")
    return success();
  const IndexedOp *indexed = nullptr;
  for (const IndexedOp &candidate : kIndexedOps)
    if (n.node.op_type() == candidate.op)
      indexed = &candidate;
  if (!indexed)
    return success();
  // What the op's handler or body rejects with its own error is left to
  // it: missing inputs, indices that are not int32/int64, an axis or a
  // tuple length outside the data's rank.
  auto known = [&](int i) {
    return n.hasInput(i) && n.ctx.values.count(n.node.input(i)) &&
           isa<RankedTensorType>(n.ctx.values.lookup(n.node.input(i))
                                     .value.getType());
  };
  if (!known(0) || !known(1))
    return success();
  int32_t indexType = n.inputOnnxType(1);
  if (indexType != onnx::TensorProto::INT64 &&
      indexType != onnx::TensorProto::INT32)
    return success();
  int64_t rank = n.inputType(0).getRank();
  RankedTensorType indices = n.inputType(1);
  int64_t axis =
      indexed->axisAttribute ? n.getInt(indexed->axisAttribute, 0) : 0;
  std::string message;
  if (indexed->tuples) {
    int64_t k = indices.getRank() ? indices.getShape().back() : 0;
    if (indices.getRank() == 0 || ShapedType::isDynamic(k) || k < 1 ||
        axis < 0 || axis + k > rank)
      return success();
    message = "indices outside [-n, n) for n = dim " + std::to_string(axis) +
              " + j of input 0 (entry j of an index tuple)";
  } else {
    if (axis < -rank || axis >= rank)
      return success();
    if (axis < 0)
      axis += rank;
    message = "indices outside [-n, n) for n = dim " + std::to_string(axis) +
              " of input 0";
  }
  auto countType = RankedTensorType::get({}, n.b.getI64Type());
  Value count = CountOutOfRangeOp::create(n.b, n.loc, countType, n.input(0),
                                          n.input(1), axis, indexed->tuples);
  AssertZeroOp::create(n.b, n.loc, count, message);
  return success();
}

} // namespace tessel::onnx_import
