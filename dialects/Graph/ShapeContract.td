//===- ShapeContract.td - What a graph op declares about shapes -*- tablegen -*-===//
//
// The shape contract of a graph op: the extent of every result dim as an
// expression of its operands' extents, and the assumptions about those
// extents that its kernel relies on (dims it broadcasts or contracts
// together are equal, a window fits its padded input). Partitioning builds
// the plan's shape arithmetic and run-time checks from it, and the lowering
// to linalg sizes results with it; an op without it cannot be compiled.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_GRAPH_SHAPE_CONTRACT
#define TESSEL_GRAPH_SHAPE_CONTRACT

include "mlir/IR/OpBase.td"

def Tessel_ShapeContract : OpInterface<"ShapeContract"> {
  let cppNamespace = "::tessel";
  let description = [{
    Reifies an op's shapes with `arith` on `index` values: given the
    extents of every operand dim (`operands[i][d]`, one index value each,
    constants where static) and the elements of small integer operands
    where the caller knows them (`operands.values(i)`), appends the extents of every result dim to
    `results` (one vector per result) and every assumption the op's kernel
    makes to `assumptions`. Static result dims are constants. A dynamic dim
    never broadcasts: where numpy rules would let a dynamic dim be 1, the
    contract assumes it equals the dims it meets. An op whose extents depend
    on values the caller does not give fails, with an error at the op.
  }];
  let methods = [
    InterfaceMethod<
      "Appends the result extents and the assumptions of this op.",
      "::mlir::LogicalResult", "reifyShapeContract",
      (ins "::mlir::OpBuilder &":$builder,
           "const ::tessel::ShapeOperands &":$operands,
           "::llvm::SmallVectorImpl<::llvm::SmallVector<::mlir::Value>> &":$results,
           "::llvm::SmallVectorImpl<::tessel::ShapeAssumption> &":$assumptions),
      [{}], /*defaultImplementation=*/[{
        // Only elementwise ops may leave their contract to the default: any
        // other op must declare its own (Tessel_Op does), so an op without
        // a contract still does not build.
        static_assert(
            ConcreteOp::template hasTrait<::tessel::ElementwiseOp::Trait>(),
            "a graph op that is not elementwise must define "
            "reifyShapeContract");
        return ::tessel::broadcastShapeContract($_op, builder, operands,
                                                results, assumptions);
      }]>,
    InterfaceMethod<[{
      Whether operand `index` gives extents by its values (a Slice's
      bounds, an Expand's shape): a small int64 tensor whose elements the
      contract reads. Callers pass its elements where they know them, and a
      kernel gets it as a constant when it is one.
    }], "bool", "isShapeOperand", (ins "unsigned":$index), [{}],
      /*defaultImplementation=*/[{ return false; }]>,
  ];
}

#endif // TESSEL_GRAPH_SHAPE_CONTRACT
