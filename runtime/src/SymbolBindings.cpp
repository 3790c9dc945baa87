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
    auto [it, inserted] = updated.emplace(d.symbol, Binding{dims[i], sig.name});
    if (!inserted && it->second.value != dims[i])
      return invalidArgument(
          "symbol '" + d.symbol + "' bound to " +
          std::to_string(it->second.value) + " by input '" + it->second.input +
          "' and " + std::to_string(dims[i]) + " by input '" + sig.name + "'");
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
