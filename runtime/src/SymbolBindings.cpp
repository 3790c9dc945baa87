//===- SymbolBindings.cpp - Values of the symbolic dimensions -------------===//

#include "SymbolBindings.h"

#include <climits>
#include <cstdint>

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
    auto [it, inserted] = updated.emplace(d.symbol, Binding{dims[i], what, {}});
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

namespace {

using Kind = format::ShapeOp::Kind;

const char *kindName(Kind kind) {
  switch (kind) {
  case Kind::Add:
    return "Add";
  case Kind::Sub:
    return "Sub";
  case Kind::Mul:
    return "Mul";
  case Kind::FloorDiv:
    return "FloorDiv";
  case Kind::CeilDiv:
    return "CeilDiv";
  case Kind::Mod:
    return "Mod";
  case Kind::Min:
    return "Min";
  case Kind::Max:
    return "Max";
  case Kind::Lt:
    return "Lt";
  case Kind::InputValues:
    return "InputValues";
  case Kind::BufferValues:
    return "BufferValues";
  case Kind::Reshape:
    return "Reshape";
  case Kind::CheckEq:
    return "CheckEq";
  }
  return "unknown";
}

/// "node 'add_1' (Add)", or the kind when the compiler named no node.
std::string nodeOf(const format::ShapeOp &op) {
  if (op.onnxNode.empty() && op.onnxOp.empty())
    return std::string("shape op ") + kindName(op.kind);
  return "node '" + op.onnxNode + "' (" + op.onnxOp + ")";
}

std::string str(int64_t v) { return std::to_string(v); }

/// Computes `kind` (a binary arithmetic kind) of `a` and `b` into `out`,
/// with floor semantics for the divisions. On failure returns false and
/// sets `why`; never overflows.
bool arithmetic(Kind kind, int64_t a, int64_t b, int64_t &out,
                std::string &why) {
  switch (kind) {
  case Kind::Add:
    if (__builtin_add_overflow(a, b, &out))
      return why = "overflows int64", false;
    return true;
  case Kind::Sub:
    if (__builtin_sub_overflow(a, b, &out))
      return why = "overflows int64", false;
    return true;
  case Kind::Mul:
    if (__builtin_mul_overflow(a, b, &out))
      return why = "overflows int64", false;
    return true;
  case Kind::FloorDiv:
  case Kind::CeilDiv:
  case Kind::Mod: {
    if (b == 0)
      return why = "division by zero", false;
    if (b == -1) { // INT64_MIN / -1 overflows; the remainder is 0
      if (kind == Kind::Mod)
        return out = 0, true;
      if (a == INT64_MIN)
        return why = "overflows int64", false;
      return out = -a, true;
    }
    int64_t q = a / b, r = a % b; // truncated toward zero
    bool inexact = r != 0, negative = (a < 0) != (b < 0);
    if (kind == Kind::FloorDiv)
      out = inexact && negative ? q - 1 : q;
    else if (kind == Kind::CeilDiv)
      out = inexact && !negative ? q + 1 : q;
    else // a - b * floor(a / b): the sign of b
      out = inexact && negative ? r + b : r;
    return true;
  }
  case Kind::Min:
    return out = a < b ? a : b, true;
  case Kind::Max:
    return out = a > b ? a : b, true;
  case Kind::Lt:
    return out = a < b ? 1 : 0, true;
  default:
    return why = "is not arithmetic", false;
  }
}

/// "3 + 2", "floor(7 / 2)", "min(3, 2)".
std::string expression(Kind kind, int64_t a, int64_t b) {
  switch (kind) {
  case Kind::Add:
    return str(a) + " + " + str(b);
  case Kind::Sub:
    return str(a) + " - " + str(b);
  case Kind::Mul:
    return str(a) + " * " + str(b);
  case Kind::FloorDiv:
    return "floor(" + str(a) + " / " + str(b) + ")";
  case Kind::CeilDiv:
    return "ceil(" + str(a) + " / " + str(b) + ")";
  case Kind::Mod:
    return str(a) + " mod " + str(b);
  case Kind::Min:
    return "min(" + str(a) + ", " + str(b) + ")";
  case Kind::Max:
    return "max(" + str(a) + ", " + str(b) + ")";
  case Kind::Lt:
    return "(" + str(a) + " < " + str(b) + ")";
  default:
    return kindName(kind);
  }
}

} // namespace

bool SymbolBindings::lookup(const std::string &symbol, int64_t &value) const {
  auto it = values.find(symbol);
  if (it == values.end())
    return false;
  value = it->second.value;
  return true;
}

Status SymbolBindings::bindOrCheck(
    const format::Shape &shape, const std::vector<int64_t> &dims,
    const std::string &prefix, const std::string &by,
    const std::string &conflictBy, const std::string &fromInput,
    const std::function<std::string(size_t)> &staticMismatch) {
  std::map<std::string, Binding> updated = values;
  for (size_t i = 0; i < dims.size(); ++i) {
    const format::Dim &d = shape[i];
    if (!d.isSymbolic()) {
      if (dims[i] != d.value)
        return invalidArgument(prefix + ": " + staticMismatch(i));
      continue;
    }
    auto [it, inserted] =
        updated.emplace(d.symbol, Binding{dims[i], by, fromInput});
    if (!inserted && it->second.value != dims[i])
      return invalidArgument(prefix + ": symbol '" + d.symbol + "' bound to " +
                             str(it->second.value) + " by " + it->second.by +
                             " and " + str(dims[i]) + " by " + conflictBy);
  }
  values = std::move(updated);
  return Status::ok();
}

Status SymbolBindings::evaluate(const format::ShapeOp &op,
                                const std::string &input,
                                const std::vector<int64_t> &inputValues) {
  const std::string node = nodeOf(op);
  const std::string prefix =
      op.message.empty() ? node : node + ": " + op.message;
  std::vector<int64_t> operands(op.operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    const format::Dim &d = op.operands[i];
    if (!d.isSymbolic())
      operands[i] = d.value;
    else if (!lookup(d.symbol, operands[i]))
      return invalidArtifact(node + ": symbol '" + d.symbol + "' is not bound");
  }

  switch (op.kind) {
  case Kind::CheckEq:
    if (operands.size() != 2 || !op.results.empty())
      break;
    if (operands[0] != operands[1])
      return invalidArgument(prefix + ": " + str(operands[0]) + " vs " +
                             str(operands[1]));
    return Status::ok();

  case Kind::InputValues:
  case Kind::BufferValues: {
    if (!op.operands.empty() || inputValues.size() != op.results.size())
      break;
    bool fromInput = op.kind == Kind::InputValues;
    std::string what =
        fromInput ? "input '" + input + "'" : "the values it computed";
    std::string by = (fromInput ? "the values of " : "") + what + " (" +
                     formatDims(inputValues) + ")";
    return bindOrCheck(op.results, inputValues, prefix, by, by,
                       fromInput ? input : std::string(), [&](size_t i) {
                         return what + ": value " + std::to_string(i) + " is " +
                                str(inputValues[i]) + ", but the model needs " +
                                str(op.results[i].value);
                       });
  }

  case Kind::Reshape: {
    if (operands.size() < op.results.size())
      break;
    size_t rank = operands.size() - op.results.size();
    std::vector<int64_t> source(operands.begin(), operands.begin() + rank);
    std::vector<int64_t> target(operands.begin() + rank, operands.end());
    // When the target values are those of one input (InputValues), name it
    // as the user knows it: "input 'shape': cannot reshape ...".
    std::string fromInput;
    bool oneInput = true;
    for (size_t i = rank; i < op.operands.size(); ++i) {
      const format::Dim &d = op.operands[i];
      if (!d.isSymbolic())
        continue;
      const std::string &from = values.at(d.symbol).fromInput;
      if (from.empty() || (!fromInput.empty() && from != fromInput))
        oneInput = false;
      fromInput = from;
    }
    if (!oneInput)
      fromInput.clear();
    std::string what = prefix;
    if (!fromInput.empty())
      what += ": input '" + fromInput + "'";
    std::string why;
    std::vector<int64_t> dims;
    for (size_t i = 0; i < rank && why.empty(); ++i)
      if (source[i] < 0)
        why = "dim " + std::to_string(i) + " of the source is negative";
    uint64_t sourceCount = 0;
    if (why.empty())
      elementCount(source, sourceCount);
    if (!why.empty() || !reshapeTarget(source, target, op.allowZero, dims, why))
      return invalidArgument(what + ": cannot reshape " + formatDims(source) +
                             " (" + std::to_string(sourceCount) +
                             " elements) into " + formatDims(target) + ": " +
                             why);
    std::string by = fromInput.empty()
                         ? node + " reshaping " + formatDims(source) +
                               " into " + formatDims(target)
                         : "the values of input '" + fromInput + "' (" +
                               formatDims(target) + ")";
    std::string location =
        fromInput.empty() ? "" : "input '" + fromInput + "': ";
    return bindOrCheck(op.results, dims, prefix, by, by, "", [&](size_t i) {
      return location + "reshaping " + formatDims(source) + " into " +
             formatDims(target) + " gives " + formatDims(dims) +
             ", but the model needs dim " + std::to_string(i) + " to be " +
             str(op.results[i].value);
    });
  }

  default: {
    // The binary arithmetic kinds are 0..8 (validate() rejects the rest).
    if (static_cast<uint32_t>(op.kind) > static_cast<uint32_t>(Kind::Lt) ||
        operands.size() != 2 || op.results.size() != 1)
      break;
    int64_t result;
    std::string why;
    std::string expr = expression(op.kind, operands[0], operands[1]);
    if (!arithmetic(op.kind, operands[0], operands[1], result, why))
      return invalidArgument(prefix + ": " + expr + ": " + why);
    std::string by = node + " computing " + expr;
    return bindOrCheck(op.results, {result}, prefix, by, by, "",
                       [&](size_t) {
                         return expr + " is " + str(result) +
                                ", but the model needs " +
                                str(op.results[0].value);
                       });
  }
  }
  return invalidArtifact(node + ": malformed shape op " + kindName(op.kind) +
                         " (" + std::to_string(op.operands.size()) +
                         " operands, " + std::to_string(op.results.size()) +
                         " results)");
}

Status SymbolBindings::bindValue(const format::Shape &shape,
                                 const std::vector<int64_t> &dims,
                                 const std::string &node,
                                 const std::string &value) {
  const std::string tensor = value + " " + formatDims(dims);
  if (dims.size() != shape.size())
    return invalidArtifact(node + ": " + tensor +
                           " does not have the rank of " +
                           format::formatShape(shape));
  return bindOrCheck(shape, dims, node, tensor + " of " + node, tensor, {},
                     [&](size_t i) {
                       return tensor + ": dim " + std::to_string(i) + " is " +
                              str(dims[i]) + ", but the model needs " +
                              str(shape[i].value);
                     });
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
    if (it->second.value < 0)
      return invalidArgument("symbol '" + shape[i].symbol + "' is " +
                             std::to_string(it->second.value) + " (bound by " +
                             it->second.by + "), not a valid extent");
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
