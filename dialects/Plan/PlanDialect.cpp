//===- PlanDialect.cpp - Plan dialect registration ------------------------===//
//
// Registers the plan dialect's ops; folded extents materialize as
// `arith.constant` of index type.
//
//===----------------------------------------------------------------------===//

#include "dialects/Plan/PlanDialect.h"

using namespace mlir;
using namespace tessel::plan;

#include "dialects/Plan/PlanDialect.cpp.inc"

void PlanDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Plan/PlanOps.cpp.inc"
      >();
}

Operation *PlanDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  auto integer = dyn_cast<IntegerAttr>(value);
  if (!integer || !type.isIndex())
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, integer);
}
