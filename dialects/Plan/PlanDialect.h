//===- PlanDialect.h - The Tessel plan dialect ------------------*- C++ -*-===//
//
// Include this header to use the plan dialect's ops: the host program of a
// compiled model (dispatches, views, host shape ops); see PlanOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECTS_PLAN_PLANDIALECT_H
#define TESSEL_DIALECTS_PLAN_PLANDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Plan/PlanDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/Plan/PlanOps.h.inc"

#endif // TESSEL_DIALECTS_PLAN_PLANDIALECT_H
