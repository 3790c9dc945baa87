//===- SymbolBindings.h - Values of the symbolic dimensions -----*- C++ -*-===//
//
// The extents of symbolic dims ("batch") for one set of inputs. Each input
// binds the symbols of its signature; a symbol bound to two different
// extents, a static dim that differs or a wrong rank is an error naming the
// input. Then the artifact's shape program runs, instruction by instruction
// (see format::ShapeOp): checked int64 arithmetic, the values of int64
// inputs, ONNX Reshape and equality checks, each binding its result symbols
// or checking them. Shapes of buffers, views and work sizes are then
// resolved against the bindings.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_SRC_SYMBOLBINDINGS_H
#define TESSEL_RUNTIME_SRC_SYMBOLBINDINGS_H

#include "Status.h"
#include "format/Artifact.h"

#include <functional>
#include <map>

namespace tessel::runtime {

class SymbolBindings {
public:
  /// Checks `dims[0..rank)` of input `sig` against its signature and binds
  /// its symbols. On error the bindings are unchanged.
  Status bindInput(const format::TensorSignature &sig, const int64_t *dims,
                   size_t rank);

  /// Evaluates one instruction of the shape program: reads its operands,
  /// computes its results and binds each result symbol not bound yet, or
  /// checks a bound or static one against it. For InputValues, `input` is
  /// the name of input `op.input` and `inputValues` its int64 values (the
  /// session's host copy; validate() made their count the result count);
  /// for BufferValues, `inputValues` are the values read back from the
  /// buffer.
  /// Errors are INVALID_ARGUMENT naming the ONNX node and op, the op's
  /// message and the values ("node 'add_1' (Add): dim 1 of A and B: 3 vs
  /// 2"); arithmetic is checked (overflow and division by zero are errors).
  /// On error the bindings are unchanged.
  Status evaluate(const format::ShapeOp &op, const std::string &input = {},
                  const std::vector<int64_t> &inputValues = {});

  /// Binds the symbols of `shape` to the extents `dims` of a tensor that a
  /// control op hands over (a result, or a loop-carried tensor entering the
  /// body), or checks those bound already, and checks the static dims.
  /// `node` names the control op, `value` the tensor ("result 0"); errors
  /// are INVALID_ARGUMENT naming both and the extents ("control op 0 (ONNX
  /// node 'if_0', If): result 0 [3, 5]: dim 1 is 5, but the model needs
  /// 4"). On error the bindings are unchanged.
  Status bindValue(const format::Shape &shape, const std::vector<int64_t> &dims,
                   const std::string &node, const std::string &value);

  /// The extents of `shape`; INVALID_ARTIFACT if a symbol is unbound,
  /// INVALID_ARGUMENT if the shape program gave one a negative value.
  Status resolve(const format::Shape &shape, std::vector<int64_t> &out) const;

  /// The value bound to `symbol`, if any.
  bool lookup(const std::string &symbol, int64_t &value) const;

  void clear() { values.clear(); }

private:
  struct Binding {
    int64_t value;
    std::string by; ///< what bound it: "input 'x'"
    /// InputValues only: the input whose values gave it, else empty.
    std::string fromInput;
  };
  /// Binds each symbol of `shape` to the value at its position in `dims`,
  /// or checks the one it has; checks each static dim. What evaluate() and
  /// bindValue() share. `by` says where the values come from (kept for
  /// later conflicts), `conflictBy` how a conflict names them, `fromInput`
  /// is the input they were read from (InputValues), `staticMismatch(i)`
  /// says why static dim i differs. Errors start with `prefix` (the node).
  /// All or nothing: on error the bindings are unchanged.
  Status bindOrCheck(const format::Shape &shape,
                     const std::vector<int64_t> &dims,
                     const std::string &prefix, const std::string &by,
                     const std::string &conflictBy,
                     const std::string &fromInput,
                     const std::function<std::string(size_t)> &staticMismatch);
  std::map<std::string, Binding> values;
};

/// The number of elements of `dims`; false on overflow.
bool elementCount(const std::vector<int64_t> &dims, uint64_t &count);
/// The bytes of `dims` elements of `dtype`; false on overflow.
bool byteSize(const std::vector<int64_t> &dims, format::DType dtype,
              uint64_t &bytes);
/// "[2, 3]".
std::string formatDims(const std::vector<int64_t> &dims);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_SRC_SYMBOLBINDINGS_H
