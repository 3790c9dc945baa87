//===- ShapeBuilder.h - Index arithmetic for shape contracts ----*- C++ -*-===//
//
// What the shape contracts (ShapeContract.cpp, ReductionShapeContracts.cpp)
// build their result extents with: index arithmetic that folds constants,
// and the helpers that record a result's extents. Internal to
// dialects/Graph.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECTS_GRAPH_SHAPEBUILDER_H
#define TESSEL_DIALECTS_GRAPH_SHAPEBUILDER_H

#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include <string>

namespace tessel::contract {

using namespace mlir;

using Dims = SmallVector<Value>;

/// Index arithmetic at one location, folding constants as it goes.
class ShapeBuilder {
public:
  ShapeBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value constant(int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  Value add(Value x, Value y) {
    return b.createOrFold<arith::AddIOp>(loc, x, y);
  }
  Value sub(Value x, Value y) {
    return b.createOrFold<arith::SubIOp>(loc, x, y);
  }
  Value mul(Value x, Value y) {
    return b.createOrFold<arith::MulIOp>(loc, x, y);
  }
  Value floorDiv(Value x, Value y) {
    return b.createOrFold<arith::FloorDivSIOp>(loc, x, y);
  }
  Value ceilDiv(Value x, Value y) {
    return b.createOrFold<arith::CeilDivSIOp>(loc, x, y);
  }
  Value min(Value x, Value y) {
    return b.createOrFold<arith::MinSIOp>(loc, x, y);
  }
  Value max(Value x, Value y) {
    return b.createOrFold<arith::MaxSIOp>(loc, x, y);
  }
  /// c == 1 ? a : b, for c >= 0, as b + ((0 < c) - (1 < c)) * (a - b): no
  /// select, so the shape program computes it with checked arithmetic.
  Value ifOne(Value c, Value a, Value b) {
    Value isOne = sub(lessThan(constant(0), c), lessThan(constant(1), c));
    return add(b, mul(isOne, sub(a, b)));
  }
  /// 1 if x == y, else 0 (as an index).
  Value equal(Value x, Value y) {
    return sub(constant(1), add(lessThan(x, y), lessThan(y, x)));
  }
  /// 1 if x < y, else 0 (as an index).
  Value lessThan(Value x, Value y) {
    Value c =
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, y);
    return b.createOrFold<arith::IndexCastUIOp>(loc, b.getIndexType(), c);
  }
  Value product(ArrayRef<Value> values) {
    Value p = constant(1);
    for (Value v : values)
      p = mul(p, v);
    return p;
  }

private:
  OpBuilder &b;
  Location loc;
};

inline RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Replaces the entries of `dims` that `type` has static by constants.
inline void useStaticDims(ShapeBuilder &s, RankedTensorType type, Dims &dims) {
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d))
      dims[d] = s.constant(type.getDimSize(d));
}

/// Appends `dims` as the extents of `result`, its static dims as constants.
inline void addResult(ShapeBuilder &s, Value result, Dims dims,
               SmallVectorImpl<Dims> &results) {
  useStaticDims(s, typeOf(result), dims);
  results.push_back(std::move(dims));
}

/// Like addResult, for extents computed from values: where the result type
/// has a static dim the importer derived, the computed extent must give it.
inline void addCheckedResult(ShapeBuilder &s, Value result, Dims dims,
                      SmallVectorImpl<Dims> &results,
                      SmallVectorImpl<ShapeAssumption> &assumptions) {
  RankedTensorType type = typeOf(result);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    APInt c;
    if (!type.isDynamicDim(d) && !matchPattern(dims[d], m_ConstantInt(&c)))
      assumptions.push_back({dims[d], s.constant(type.getDimSize(d)),
                             "dim " + std::to_string(d) +
                                 " of the result must be " +
                                 std::to_string(type.getDimSize(d))});
  }
  addResult(s, result, std::move(dims), results);
}

} // namespace tessel::contract

#endif // TESSEL_DIALECTS_GRAPH_SHAPEBUILDER_H
