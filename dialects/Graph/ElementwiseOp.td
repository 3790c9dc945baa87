//===- ElementwiseOp.td - Ops computed element by element -*- tablegen -*-===//
//
// The one definition of "elementwise" in Tessel: each result element is a
// scalar function of the operand elements at the same position under numpy
// broadcasting. Everything that depends on that property asks the op:
// dispatch-region formation (an elementwise op on floats fuses), in-place
// ties (an elementwise dispatch may write over a dead operand of its type),
// splat inlining (a splat float constant operand becomes a scalar of the
// kernel), the shape contract (numpy broadcasting of every operand) and the
// lowering to linalg (one generic whose body is `buildScalar`).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_GRAPH_ELEMENTWISE_OP
#define TESSEL_GRAPH_ELEMENTWISE_OP

include "mlir/IR/OpBase.td"

def Tessel_ElementwiseOpInterface : OpInterface<"ElementwiseOp"> {
  let cppNamespace = "::tessel";
  let description = [{
    An op whose result element at index `i` is `buildScalar` applied to the
    elements of its operands at `i` with numpy broadcasting (a rank-0
    operand, such as Clip's bounds, is read by every element). Such an op
    has one result; a dynamic dim never broadcasts (the shape contract
    requires it to equal the dims it meets).
  }];
  let methods = [
    InterfaceMethod<[{
      Builds the scalar computation of one result element from `operands`,
      one element of each operand of the op in order, with `builder` at
      `loc` (inside a linalg.generic body). The element types are the
      operands' own; the returned value has the result's element type.
    }], "::mlir::Value", "buildScalar",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::ValueRange":$operands)>,
  ];
}

#endif // TESSEL_GRAPH_ELEMENTWISE_OP
