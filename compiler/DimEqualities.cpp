//===- DimEqualities.cpp - Symbolic dims an op requires to be equal -------===//

#include "compiler/DimEqualities.h"

#include "dialects/Graph/TesselDialect.h"

using namespace mlir;
using namespace tessel;
using format::Dim;
using format::Shape;

std::string DimEqualities::find(const std::string &symbol) const {
  auto it = parent.find(symbol);
  if (it == parent.end() || it->second == symbol)
    return symbol;
  std::string root = find(it->second);
  parent[symbol] = root; // path compression
  return root;
}

bool DimEqualities::require(const Dim &a, const Dim &b) {
  if (!a.isSymbolic() && !b.isSymbolic())
    return a.value == b.value;
  if (!a.isSymbolic() || !b.isSymbolic()) {
    const Dim &sym = a.isSymbolic() ? a : b;
    const Dim &fixed = a.isSymbolic() ? b : a;
    std::string root = find(sym.symbol);
    auto it = value.find(root);
    if (it != value.end())
      return it->second == fixed.value;
    value[root] = fixed.value;
    return true;
  }
  std::string ra = find(a.symbol), rb = find(b.symbol);
  if (ra == rb)
    return true;
  auto va = value.find(ra), vb = value.find(rb);
  if (va != value.end() && vb != value.end() && va->second != vb->second)
    return false;
  // Keep the alphabetically first symbol as the root: a stable choice.
  if (rb < ra)
    std::swap(ra, rb);
  parent[rb] = ra;
  if (vb != value.end())
    value[ra] = vb->second;
  return true;
}

Dim DimEqualities::resolve(const Dim &d) const {
  if (!d.isSymbolic())
    return d;
  std::string root = find(d.symbol);
  auto it = value.find(root);
  if (it != value.end())
    return Dim{it->second, ""};
  return Dim{-1, root};
}

void DimEqualities::apply(format::Artifact &artifact) const {
  auto rewrite = [&](Shape &shape) {
    for (Dim &d : shape)
      d = resolve(d);
  };
  for (auto &sig : artifact.inputs)
    rewrite(sig.shape);
  for (auto &sig : artifact.outputs)
    rewrite(sig.shape);
  for (auto &buffer : artifact.buffers)
    rewrite(buffer.shape);
  for (auto &launch : artifact.plan) {
    rewrite(launch.workSize);
    for (auto &arg : launch.args)
      rewrite(arg.shape);
  }
  // A rule's result dim that became another symbol or a static extent is
  // checked rather than bound at run time.
  for (auto &rule : artifact.shapeRules) {
    rewrite(rule.source);
    rewrite(rule.result);
  }
}

/// Dims of `shape` aligned to the right against a result of rank `rank`:
/// position i of the result, or null where the operand has no such dim.
static const Dim *aligned(const Shape &shape, int64_t rank, int64_t i) {
  int64_t j = i - (rank - static_cast<int64_t>(shape.size()));
  return j >= 0 ? &shape[j] : nullptr;
}

LogicalResult tessel::collectDimEqualities(Operation *op,
                                           ArrayRef<Shape> operands,
                                           DimEqualities &eq) {
  bool ok = true;
  auto same = [&](const Dim &a, const Dim &b) { ok &= eq.require(a, b); };
  auto isOne = [](const Dim &d) { return !d.isSymbolic() && d.value == 1; };

  // numpy broadcasting over the given operand shapes (batch parts).
  auto broadcast = [&](ArrayRef<Shape> shapes) {
    int64_t rank = 0;
    for (const Shape &s : shapes)
      rank = std::max<int64_t>(rank, s.size());
    for (int64_t i = 0; i < rank; ++i) {
      const Dim *first = nullptr;
      for (const Shape &s : shapes)
        if (const Dim *d = aligned(s, rank, i); d && !isOne(*d)) {
          if (first)
            same(*first, *d);
          else
            first = d;
        }
    }
  };

  if (isa<AddOp, SubOp, MulOp, DivOp>(op)) {
    broadcast(operands);
  } else if (isa<MatMulOp>(op)) {
    Shape a = operands[0], b = operands[1];
    if (a.size() == 1)
      a.insert(a.begin(), Dim{1, ""});
    if (b.size() == 1)
      b.push_back(Dim{1, ""});
    same(a.back(), b[b.size() - 2]);
    broadcast({Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2)});
  } else if (auto gemm = dyn_cast<GemmOp>(op)) {
    same(operands[0][gemm.getTransA() ? 0 : 1],
         operands[1][gemm.getTransB() ? 1 : 0]);
  } else if (auto concat = dyn_cast<ConcatOp>(op)) {
    for (const Shape &s : operands.drop_front())
      for (size_t d = 0; d < s.size(); ++d)
        if (static_cast<int64_t>(d) != concat.getAxis())
          same(operands[0][d], s[d]);
  }
  if (!ok)
    return op->emitError() << describeLoc(op->getLoc())
                           << ": operand dims that must be equal differ";
  return success();
}
