//===- SymbolBindings.h - Values of the symbolic dimensions -----*- C++ -*-===//
//
// The extents of symbolic dims ("batch") for one set of inputs. Each input
// binds the symbols of its signature; a symbol bound to two different
// extents, a static dim that differs or a wrong rank is an error naming the
// input. Then each shape rule binds symbols from an input's int64 values
// (ONNX Reshape semantics). Shapes of buffers, views and work sizes are then
// resolved against the bindings.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_SRC_SYMBOLBINDINGS_H
#define TESSEL_RUNTIME_SRC_SYMBOLBINDINGS_H

#include "Status.h"
#include "format/Artifact.h"

#include <map>

namespace tessel::runtime {

class SymbolBindings {
public:
  /// Checks `dims[0..rank)` of input `sig` against its signature and binds
  /// its symbols. On error the bindings are unchanged.
  Status bindInput(const format::TensorSignature &sig, const int64_t *dims,
                   size_t rank);

  /// Resolves `rule.source`, computes the shape that `target` (the values of
  /// input `input`, one per dim of `rule.result`) gives it with ONNX Reshape
  /// semantics, and binds or checks the dims of `rule.result` with it.
  /// Errors are INVALID_ARGUMENT naming the input and the values. On error
  /// the bindings are unchanged.
  Status bindShapeRule(const format::ShapeFromInput &rule,
                       const std::string &input,
                       const std::vector<int64_t> &target);

  /// The extents of `shape`; INVALID_ARTIFACT if a symbol is unbound.
  Status resolve(const format::Shape &shape, std::vector<int64_t> &out) const;

  void clear() { values.clear(); }

private:
  struct Binding {
    int64_t value;
    std::string by; ///< what bound it: "input 'x'"
  };
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
