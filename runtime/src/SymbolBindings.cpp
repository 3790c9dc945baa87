//===- SymbolBindings.cpp - Values of the symbolic dimensions -------------===//

#include "SymbolBindings.h"

namespace tessel::runtime {

Status SymbolBindings::bindInput(const format::TensorSignature &sig,
                                 const int64_t *dims, size_t rank) {
  const std::string what = "input '" + sig.name + "'";
  if (rank != sig.shape.size())
    return invalidArgument(
        what + ": expected rank " + std::to_string(sig.shape.size()) + " " +
        format::formatShape(sig.shape) + ", got rank " + std::to_string(rank));
  for (size_t i = 0; i < rank; ++i)
    if (dims[i] < 0)
      return invalidArgument(what + ": dim " + std::to_string(i) +
                             " is negative (" + std::to_string(dims[i]) + ")");

  std::map<std::string, Binding> updated = values;
  std::map<std::string, size_t> dimOfSymbol; // within this input
  for (size_t i = 0; i < rank; ++i) {
    const format::Dim &d = sig.shape[i];
    std::string dim = "dim " + std::to_string(i);
    if (!d.isSymbolic()) {
      if (dims[i] != d.value)
        return invalidArgument(what + ": " + dim + " is " +
                               std::to_string(dims[i]) + ", expected " +
                               std::to_string(d.value));
      continue;
    }
    auto seen = dimOfSymbol.find(d.symbol);
    if (seen != dimOfSymbol.end()) {
      if (dims[seen->second] != dims[i])
        return invalidArgument(what + ": " + dim + " is " +
                               std::to_string(dims[i]) + ", but symbol '" +
                               d.symbol + "' is " +
                               std::to_string(dims[seen->second]) + " (dim " +
                               std::to_string(seen->second) + ")");
      continue;
    }
    dimOfSymbol[d.symbol] = i;
    auto [it, inserted] = updated.emplace(d.symbol, Binding{dims[i], what});
    if (!inserted && it->second.value != dims[i])
      return invalidArgument("symbol '" + d.symbol + "' bound to " +
                             std::to_string(it->second.value) + " by " +
                             it->second.by + " and " + std::to_string(dims[i]) +
                             " by " + what);
  }
  values = std::move(updated);
  return Status::ok();
}

/// The shape `values` give `source` under ONNX Reshape: 0 copies the source
/// dim at its position (a literal 0 with `allowZero`), one -1 takes the rest
/// of the element count. On failure returns false and sets `why`.
static bool reshapeTarget(const std::vector<int64_t> &source,
                          const std::vector<int64_t> &values, bool allowZero,
                          std::vector<int64_t> &out, std::string &why) {
  uint64_t sourceCount;
  if (!elementCount(source, sourceCount))
    return why = "the source shape overflows", false;
  out = values;
  size_t inferred = values.size();
  bool hasZero = false;
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t v = values[i];
    if (v == 0 && !allowZero) {
      if (i >= source.size())
        return why = "value 0 at index " + std::to_string(i) +
                     " copies a dim the rank-" + std::to_string(source.size()) +
                     " source does not have",
               false;
      out[i] = source[i];
    } else if (v == -1) {
      if (inferred != values.size())
        return why = "more than one -1", false;
      inferred = i;
    } else if (v < 0) {
      return why = "invalid value " + std::to_string(v) + " at index " +
                   std::to_string(i),
             false;
    }
    hasZero |= v == 0;
  }
  if (allowZero && hasZero && inferred != values.size())
    return why = "with allowzero, a 0 and a -1 cannot be used together", false;
  // The element count of the known dims: 0 if one is 0 (as for inputs,
  // whose other extents are then not bounded), else their checked product.
  uint64_t known = 0;
  bool empty = false;
  for (size_t i = 0; i < out.size(); ++i)
    empty |= i != inferred && out[i] == 0;
  if (!empty) {
    known = 1;
    for (size_t i = 0; i < out.size(); ++i)
      if (i != inferred &&
          __builtin_mul_overflow(known, static_cast<uint64_t>(out[i]), &known))
        return why = "the target shape overflows", false;
  }
  if (inferred != values.size()) {
    if (known == 0)
      return why = "the -1 cannot be inferred when another dim is 0", false;
    if (sourceCount % known != 0)
      return why = "the -1 cannot be inferred: " + std::to_string(sourceCount) +
                   " elements are not a multiple of " + std::to_string(known),
             false;
    out[inferred] = static_cast<int64_t>(sourceCount / known);
  } else if (known != sourceCount) {
    return why = "that is " + std::to_string(known) + " elements", false;
  }
  return true;
}

Status SymbolBindings::bindShapeRule(const format::ShapeFromInput &rule,
                                     const std::string &input,
                                     const std::vector<int64_t> &target) {
  std::vector<int64_t> source, dims;
  TESSEL_RETURN_IF_ERROR(resolve(rule.source, source));
  uint64_t sourceCount = 0;
  elementCount(source, sourceCount);
  std::string what = "input '" + input + "'";
  std::string why;
  if (!reshapeTarget(source, target, rule.allowZero, dims, why))
    return invalidArgument(what + ": cannot reshape " + formatDims(source) +
                           " (" + std::to_string(sourceCount) +
                           " elements) into " + formatDims(target) + ": " +
                           why);
  std::string by = "the values of " + what + " (" + formatDims(target) + ")";
  std::map<std::string, Binding> updated = values;
  for (size_t i = 0; i < dims.size(); ++i) {
    const format::Dim &d = rule.result[i];
    if (!d.isSymbolic()) {
      if (dims[i] != d.value)
        return invalidArgument(what + ": reshaping " + formatDims(source) +
                               " into " + formatDims(target) + " gives " +
                               formatDims(dims) + ", but the model needs dim " +
                               std::to_string(i) + " to be " +
                               std::to_string(d.value));
      continue;
    }
    auto [it, inserted] = updated.emplace(d.symbol, Binding{dims[i], by});
    if (!inserted && it->second.value != dims[i])
      return invalidArgument("symbol '" + d.symbol + "' bound to " +
                             std::to_string(it->second.value) + " by " +
                             it->second.by + " and " + std::to_string(dims[i]) +
                             " by " + by);
  }
  values = std::move(updated);
  return Status::ok();
}

Status SymbolBindings::resolve(const format::Shape &shape,
                               std::vector<int64_t> &out) const {
  out.resize(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].isSymbolic()) {
      out[i] = shape[i].value;
      continue;
    }
    auto it = values.find(shape[i].symbol);
    if (it == values.end())
      return invalidArtifact("symbol '" + shape[i].symbol + "' is not bound");
    out[i] = it->second.value;
  }
  return Status::ok();
}

bool elementCount(const std::vector<int64_t> &dims, uint64_t &count) {
  count = 1;
  for (int64_t d : dims)
    if (d < 0 ||
        __builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
      return false;
  return true;
}

bool byteSize(const std::vector<int64_t> &dims, format::DType dtype,
              uint64_t &bytes) {
  uint64_t count;
  return elementCount(dims, count) &&
         !__builtin_mul_overflow(count, format::dtypeSize(dtype), &bytes) &&
         bytes <= (uint64_t(1) << 62);
}

std::string formatDims(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

} // namespace tessel::runtime
