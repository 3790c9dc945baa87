//===- PlanOps.td - The Tessel plan dialect ----------------*- tablegen -*-===//
//
// The plan dialect is the host program of a compiled model: what the
// runtime does on every run, as IR. Values of tensor type are device
// tensors (each lives in a buffer the runtime owns); values of index type
// are extents computed on the host. Shape arithmetic is upstream `arith` on
// `index`, so canonicalization folds everything static at compile time and
// what is left runs in the runtime's shape program.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_PLAN_OPS
#define TESSEL_PLAN_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Plan_Dialect : Dialect {
  let name = "plan";
  let cppNamespace = "::tessel::plan";
  let summary = "Tessel's execution plan: dispatches, views and host shape ops";
  let description = [{
    A plan is a `func.func` whose arguments are the model's inputs and whose
    results are its outputs. Tensors are immutable values; the serializer
    assigns them buffers (a view shares its source's buffer). Every dynamic
    dim of a tensor an op defines is an `index` operand of that op, so the
    extent of any dim is always an SSA value: `plan.dim` folds to it.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let hasConstantMaterializer = 1;
  // Comparisons of extents with constants that a dim's sign decides.
  let hasCanonicalizer = 1;
}

class Plan_Op<string mnemonic, list<Trait> traits = []>
    : Op<Plan_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

def Plan_DimOp : Plan_Op<"dim", [Pure]> {
  let summary = "One dim of a tensor, as an index";
  let description = [{
    Folds to the static extent, or to the index operand of the op that
    defined the tensor. What is left reads a dim of a model input, which the
    runtime binds from the input's shape.

    ```mlir
    %n = plan.dim %x[0] : tensor<?x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, I64Attr:$index);
  let results = (outs Index:$result);
  let assemblyFormat = "$source `[` $index `]` attr-dict `:` type($source)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Plan_WeightOp : Plan_Op<"weight", [Pure]> {
  let summary = "A constant tensor, stored in the artifact's weights section";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Plan_DispatchOp : Plan_Op<"dispatch", [Pure, AttrSizedOperandSegments]> {
  let summary = "Runs a kernel: reads `args`, defines `results`";
  let description = [{
    One dispatch of the kernel function `kernel` (in the kernels module):
    the kernel reads the argument tensors and writes one new tensor per
    result. `result_dims` holds every dynamic dim of the results, in order.
    The location names the ONNX node(s) the kernel implements.

    `tied`, when present, has one entry per result: -1, or the index of an
    argument of the same type and extents whose buffer the result takes
    over (written in place: the argument is dead after this dispatch, and
    the kernel reads each of its elements before writing the same one).

    ```mlir
    %y = plan.dispatch @tessel_k0(%x, %w) dims(%n)
        : (tensor<?x3xf32>, tensor<3x10xf32>) -> tensor<?x10xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                   Variadic<AnyRankedTensor>:$args,
                   Variadic<Index>:$result_dims,
                   OptionalAttr<DenseI64ArrayAttr>:$tied);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $kernel `(` $args `)` (`dims` `(` $result_dims^ `)`)? attr-dict `:`
    functional-type($args, $results)
  }];
  let hasVerifier = 1;
}

def Plan_ViewOp : Plan_Op<"view", [Pure]> {
  let summary = "The same elements with another shape (ONNX Reshape, Flatten)";
  let description = [{
    A view shares its source's buffer; `dims` are the dynamic dims of the
    result. The element counts must agree; where they are not both static,
    the producer adds the check (`plan.reshape_dims` or `plan.assert_eq`).

    ```mlir
    %v = plan.view %x dims(%n) : tensor<?x784xf32> -> tensor<?x28x28xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, Variadic<Index>:$dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source (`dims` `(` $dims^ `)`)? attr-dict `:` type($source) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Host shape ops
//===----------------------------------------------------------------------===//

def Plan_InputValuesOp : Plan_Op<"input_values", [Pure]> {
  let summary = "The elements of a model input, read on the host";
  let description = [{
    The runtime keeps a host copy of every input; this reads its elements
    (an i64 tensor of static shape, one result per element) before any
    buffer is sized. Only a model input (an argument of the plan function)
    can be read this way.

    ```mlir
    %a, %b = plan.input_values %shape : tensor<2xi64> -> index, index
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I64]>:$input);
  let results = (outs Variadic<Index>:$values);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($values)";
  let hasVerifier = 1;
}

def Plan_TensorValuesOp : Plan_Op<"tensor_values", [Pure]> {
  let summary = "The elements of a small int64 tensor, read back on the host";
  let description = [{
    Reads the elements of a tensor that a dispatch computed (an i64 tensor
    of static shape, one result per element) into the shape program when
    the plan reaches it: a data-dependent extent (a Resize's output size
    from float scales, the count of a NonZero) or a shape operand computed
    by kernels. The runtime waits for the tensor's producer, so the read is
    a synchronization point on a GPU.

    ```mlir
    %a, %b = plan.tensor_values %t : tensor<2xi64> -> index, index
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I64]>:$tensor);
  let results = (outs Variadic<Index>:$values);
  let assemblyFormat = "$tensor attr-dict `:` type($tensor) `->` type($values)";
  let hasVerifier = 1;
}

def Plan_HostValuesOp : Plan_Op<"host_values", [Pure]> {
  let summary = "A small int64 tensor of values computed on the host";
  let description = [{
    The runtime writes `values` into a new tensor (row-major) after the
    shape program, before any dispatch: how integers that derive from
    shapes (a Slice's bounds, an Expand's target, a Shape that is a model
    output) reach kernels. A tensor of constants is a `plan.weight`
    instead; canonicalization makes it one.

    ```mlir
    %t = plan.host_values %n, %c4 : tensor<2xi64>
    ```
  }];
  let arguments = (ins Variadic<Index>:$values);
  let results = (outs StaticShapeTensorOf<[I64]>:$result);
  let assemblyFormat = "$values attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Plan_ReshapeDimsOp : Plan_Op<"reshape_dims", [AttrSizedOperandSegments]> {
  let summary = "The dims ONNX Reshape gives a shape, with its checks";
  let description = [{
    `values` are the target shape's entries: 0 copies the source dim at its
    position (a literal 0 with `allowzero`), one -1 is inferred from the
    element count, and the element counts must agree; a violation is a
    run-time error naming the node. The op is not pure: its checks stay
    even when its results are unused. It folds when every operand is a
    constant (canonicalization then erases it).

    ```mlir
    %d0, %d1 = plan.reshape_dims (%n, %c3, %c4) to (%a, %b) : index, index
    ```
  }];
  let arguments = (ins Variadic<Index>:$source, Variadic<Index>:$values,
                   UnitAttr:$allowzero);
  let results = (outs Variadic<Index>:$dims);
  let assemblyFormat = [{
    `(` $source `)` `to` `(` $values `)` attr-dict `:` type($dims)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The dims when every operand is a constant and they are valid.
    std::optional<llvm::SmallVector<int64_t>> constantDims();
  }];
  let builders = [
    OpBuilder<(ins "mlir::ValueRange":$source, "mlir::ValueRange":$values,
                   "bool":$allowzero)>
  ];
}

def Plan_AssertEqOp : Plan_Op<"assert_eq"> {
  let summary = "A run-time check that two extents are equal";
  let description = [{
    The compiled code assumes `lhs == rhs` (dims an op broadcasts or
    contracts together); the runtime checks it and reports `message` with
    both values when it fails. Erased when the operands are the same value
    or equal constants. Not pure: the check stays without users.

    ```mlir
    plan.assert_eq %n, %m, "Add: dim 0 of A and B"
    ```
  }];
  let arguments = (ins Index:$lhs, Index:$rhs, StrAttr:$message);
  let assemblyFormat = "$lhs `,` $rhs `,` $message attr-dict";
  let hasCanonicalizer = 1;
}


//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

def Plan_YieldOp : Plan_Op<"yield", [Pure, Terminator, ReturnLike,
                                     ParentOneOf<["IfOp", "LoopOp"]>]> {
  let summary = "The tensors a branch or loop body gives its op";
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{
    build($_builder, $_state, mlir::ValueRange());
  }]>];
}

def Plan_IfOp : Plan_Op<"if", [RecursiveMemoryEffects, NoRegionArguments,
                               AttrSizedResultSegments,
                               SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Runs one of two plans, chosen by a device tensor";
  let description = [{
    The runtime reads `cond` (one bool) back from the device and runs one
    branch; each branch is a plan whose ops may use any value defined
    before the `plan.if`. The results receive the yielded tensors;
    `result_dims` are the dynamic dims of the results, in order, bound to
    the extents the branch taken yields.

    ```mlir
    %r, %n = plan.if %c : tensor<i1> -> tensor<?xf32> dims(index) {
      plan.yield %a : tensor<?xf32>
    } else {
      plan.yield %b : tensor<?xf32>
    }
    ```
  }];
  let arguments = (ins AnyRankedTensor:$cond);
  let results = (outs Variadic<AnyRankedTensor>:$results,
                      Variadic<Index>:$result_dims);
  let regions = (region SizedRegion<1>:$thenRegion,
                        SizedRegion<1>:$elseRegion);
  let assemblyFormat = [{
    $cond `:` type($cond) (`->` type($results)^)?
    (`dims` `(` type($result_dims)^ `)`)? $thenRegion `else` $elseRegion
    attr-dict
  }];
  let hasVerifier = 1;
}

def Plan_LoopOp : Plan_Op<"loop", [RecursiveMemoryEffects,
                                   AttrSizedOperandSegments,
                                   AttrSizedResultSegments,
                                   SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Runs a plan while a count and a device condition allow";
  let description = [{
    ONNX Loop: the body runs while (no `trip_count` or i < trip_count) and
    (no `cond` or cond), both read back from the device. The body's
    arguments are the iteration number (tensor<i64>), the condition
    (tensor<i1>), the carried tensors, the iteration number again as an
    index (so that host shape ops can use it: a Slice at i), then one index
    per dynamic dim of the carried tensors (bound each iteration to the
    values' extents). It
    yields the condition, the next carried tensors and the scan tensors.
    The results are the final carried tensors and the scan tensors of every
    iteration stacked on a new leading axis; `result_dims` are their
    dynamic dims, in order.
  }];
  let arguments = (ins Optional<AnyRankedTensor>:$trip_count,
                   Optional<AnyRankedTensor>:$cond,
                   Variadic<AnyRankedTensor>:$inits);
  let results = (outs Variadic<AnyRankedTensor>:$results,
                      Variadic<Index>:$result_dims);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`trip` `(` $trip_count^ `:` type($trip_count) `)`)?
    (`cond` `(` $cond^ `:` type($cond) `)`)?
    (`carried` `(` $inits^ `:` type($inits) `)`)?
    (`->` type($results)^)? (`dims` `(` type($result_dims)^ `)`)? $body
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The carried tensors of the body (after the iteration and condition).
    mlir::Block::BlockArgListType getCarriedArgs() {
      return getBody().front().getArguments().slice(2, getInits().size());
    }
    /// The iteration number as an index.
    mlir::BlockArgument getIterationIndex() {
      return getBody().front().getArgument(2 + getInits().size());
    }
    /// The index arguments of the body: the carried tensors' dynamic dims.
    mlir::Block::BlockArgListType getCarriedDims() {
      return getBody().front().getArguments().drop_front(
          3 + getInits().size());
    }
  }];
}

#endif // TESSEL_PLAN_OPS
