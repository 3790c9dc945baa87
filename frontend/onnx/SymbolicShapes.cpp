//===- SymbolicShapes.cpp - Extents as products of symbols ----------------===//
//
// Extents live as index values in a scratch module: a symbol is an opaque
// value (an unrealized cast of nothing), a constant an arith.constant, and
// an op's result dims are what its shape contract builds from its operands'
// (createOrFold, as for the plan). A value is read back as a Monomial by
// walking its multiplications and exact divisions; anything else (a sum, a
// max) is a symbol of its own, which is never wrong, only less precise.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/SymbolicShapes.h"

#include "dialects/Graph/ShapeContract.h"
#include "dialects/Graph/ShapeElements.h"
#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"

#include <numeric>

using namespace mlir;
using namespace tessel;
using namespace tessel::onnx_import;

namespace {

/// The most elements of a shape value followed (as Partition's host values).
constexpr int64_t kMaxElements = 64;

bool isShapeValue(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && t.hasStaticShape() && t.getRank() <= 1 &&
         t.getElementType().isInteger(64) && t.getNumElements() <= kMaxElements;
}

} // namespace

std::string Monomial::key() const {
  if (!known)
    return "";
  std::string out = std::to_string(coefficient);
  for (const void *s : symbols)
    out += "*" + std::to_string(reinterpret_cast<uintptr_t>(s));
  return out;
}

Monomial Monomial::operator*(const Monomial &o) const {
  int64_t c;
  if (!known || !o.known || __builtin_mul_overflow(coefficient, o.coefficient, &c))
    return unknown();
  Monomial out{c, {}, true};
  if (c == 0)
    return out;
  out.symbols.append(symbols.begin(), symbols.end());
  out.symbols.append(o.symbols.begin(), o.symbols.end());
  llvm::sort(out.symbols);
  return out;
}

Monomial Monomial::operator/(const Monomial &o) const {
  if (!known || !o.known || o.coefficient == 0 ||
      coefficient % o.coefficient != 0)
    return unknown();
  Monomial out{coefficient / o.coefficient, symbols, true};
  for (const void *s : o.symbols) {
    auto it = llvm::find(out.symbols, s);
    if (it == out.symbols.end())
      return unknown();
    out.symbols.erase(it);
  }
  return out;
}

SymbolicShapes::SymbolicShapes(MLIRContext *context)
    : b(context), loc(UnknownLoc::get(context)) {
  context->loadDialect<arith::ArithDialect>();
  scratch = ModuleOp::create(loc);
  b.setInsertionPointToEnd(scratch->getBody());
}

SymbolicShapes::~SymbolicShapes() = default;

Value SymbolicShapes::fresh() {
  return UnrealizedConversionCastOp::create(b, loc, b.getIndexType(),
                                            ValueRange{})
      .getResult(0);
}

Value SymbolicShapes::constant(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

void SymbolicShapes::forget(Operation *op) {
  for (Value r : op->getResults()) {
    dimCache.erase(r);
    elementCache.erase(r);
  }
}

void SymbolicShapes::forgetAll() {
  dimCache.clear();
  elementCache.clear();
}

Monomial SymbolicShapes::monomial(Value index) {
  auto it = monomials.find(index);
  if (it != monomials.end())
    return it->second;
  Monomial m;
  APInt c;
  Operation *def = index.getDefiningOp();
  if (matchPattern(index, m_ConstantInt(&c))) {
    m = Monomial::constant(c.getSExtValue());
  } else if (isa_and_nonnull<arith::MulIOp>(def)) {
    m = monomial(def->getOperand(0)) * monomial(def->getOperand(1));
  } else if (isa_and_nonnull<arith::FloorDivSIOp, arith::DivSIOp,
                              arith::CeilDivSIOp, arith::DivUIOp>(def)) {
    m = monomial(def->getOperand(0)) / monomial(def->getOperand(1));
  } else {
    m = Monomial::unknown();
  }
  // What is not a product (a sum, a max, a placeholder) is a symbol itself.
  if (!m.known)
    m = Monomial{1, {index.getAsOpaquePointer()}, true};
  return monomials[index] = m;
}

SmallVector<Monomial> SymbolicShapes::dims(Value v) {
  SmallVector<Monomial> out;
  for (Value d : dimValues(v))
    out.push_back(monomial(d));
  return out;
}

std::optional<SmallVector<Monomial>> SymbolicShapes::elements(Value v) {
  std::optional<SmallVector<Value>> values = elementValues(v);
  if (!values)
    return std::nullopt;
  SmallVector<Monomial> out;
  for (Value e : *values)
    out.push_back(monomial(e));
  return out;
}

std::optional<SmallVector<std::optional<int64_t>>>
SymbolicShapes::knownElements(Value v) {
  std::optional<SmallVector<Monomial>> e = elements(v);
  if (!e)
    return std::nullopt;
  SmallVector<std::optional<int64_t>> out;
  for (const Monomial &m : *e)
    out.push_back(m.asConstant());
  return out;
}

ArrayRef<Value> SymbolicShapes::dimValues(Value v) {
  // Operands first, without recursion: a chain of thousands of ops (a
  // transformer) would otherwise go as deep.
  SmallVector<Value> stack{v};
  while (!stack.empty()) {
    Value cur = stack.back();
    if (dimCache.count(cur)) {
      stack.pop_back();
      continue;
    }
    bool ready = true;
    if (Operation *def = cur.getDefiningOp())
      for (Value operand : def->getOperands())
        if (isa<RankedTensorType>(operand.getType()) &&
            !dimCache.count(operand)) {
          stack.push_back(operand);
          ready = false;
        }
    if (!ready)
      continue;
    computeDims(cur);
    stack.pop_back();
  }
  return dimCache[v];
}

void SymbolicShapes::computeDims(Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  Operation *def = v.getDefiningOp();
  // Fresh symbols for the dynamic dims: an input without a name for them,
  // or an op whose contract does not say.
  auto unknownDims = [&](Value of) {
    auto t = cast<RankedTensorType>(of.getType());
    SmallVector<Value> out;
    for (int64_t d = 0; d < t.getRank(); ++d)
      out.push_back(t.isDynamicDim(d) ? fresh() : constant(t.getDimSize(d)));
    return out;
  };
  if (!def) {
    SmallVector<Value> out = unknownDims(v);
    auto arg = cast<BlockArgument>(v);
    // A subgraph's block is detached while it is built: no parent yet.
    Region *region = arg.getOwner()->getParent();
    auto func = dyn_cast_or_null<func::FuncOp>(region ? region->getParentOp()
                                                      : nullptr);
    auto symbols = func ? func->getAttrOfType<ArrayAttr>(kArgSymbolsAttr)
                        : ArrayAttr();
    if (symbols && arg.getOwner() == &func.getBody().front() &&
        arg.getArgNumber() < symbols.size())
      if (auto names = dyn_cast<ArrayAttr>(symbols[arg.getArgNumber()]))
        for (int64_t d = 0; d < type.getRank() && d < int64_t(names.size());
             ++d) {
          auto name = dyn_cast<StringAttr>(names[d]);
          if (!type.isDynamicDim(d) || !name || name.getValue().empty())
            continue;
          Value &symbol = named[name.getValue()];
          if (!symbol)
            symbol = fresh();
          out[d] = symbol;
        }
    dimCache[v] = std::move(out);
    return;
  }
  if (isa<ReshapeOp>(def) && cast<ReshapeOp>(def).getShape()) {
    dimCache[v] = reshapeDims(def);
    return;
  }
  auto contract = dyn_cast<ShapeContract>(def);
  SmallVector<SmallVector<Value>> results;
  bool reified = false;
  if (contract) {
    SmallVector<SmallVector<Value>> operands;
    SmallVector<std::optional<SmallVector<Value>>> elements;
    bool ranked = true;
    for (OpOperand &use : def->getOpOperands()) {
      Value operand = use.get();
      if (!isa<RankedTensorType>(operand.getType())) {
        ranked = false;
        break;
      }
      operands.push_back(SmallVector<Value>(dimCache[operand]));
      elements.push_back(contract.isShapeOperand(use.getOperandNumber())
                             ? elementValues(operand)
                             : std::nullopt);
    }
    if (ranked) {
      // A contract that cannot say (extents from values not known here)
      // reports an error at the op: not the model's, so not shown.
      ScopedDiagnosticHandler quiet(def->getContext(),
                                    [](Diagnostic &) { return success(); });
      SmallVector<ShapeAssumption> assumptions;
      reified = succeeded(contract.reifyShapeContract(
                    b, ShapeOperands(operands, elements), results,
                    assumptions)) &&
                results.size() == def->getNumResults();
    }
  }
  for (OpResult r : def->getResults()) {
    if (!isa<RankedTensorType>(r.getType()))
      continue;
    if (reified &&
        results[r.getResultNumber()].size() ==
            size_t(cast<RankedTensorType>(r.getType()).getRank()))
      dimCache[r] = results[r.getResultNumber()];
    else
      dimCache[r] = unknownDims(r);
  }
}

/// A Reshape to a shape given at run time: each dim is the shape's element;
/// a 0 copies the input's dim (unless allowzero), and a -1 is the element
/// count over the other dims.
SmallVector<Value> SymbolicShapes::reshapeDims(Operation *op) {
  auto reshape = cast<ReshapeOp>(op);
  auto type = reshape.getType();
  SmallVector<Value> out;
  std::optional<SmallVector<Value>> target = elementValues(reshape.getShape());
  ArrayRef<Value> in = dimCache[reshape.getInput()];
  if (!target || int64_t(target->size()) != type.getRank()) {
    for (int64_t d = 0; d < type.getRank(); ++d)
      out.push_back(type.isDynamicDim(d) ? fresh()
                                         : constant(type.getDimSize(d)));
    return out;
  }
  std::optional<int64_t> inferred;
  for (auto [d, e] : llvm::enumerate(*target)) {
    std::optional<int64_t> c = monomial(e).asConstant();
    if (c == 0 && !reshape.getAllowzero() && int64_t(d) < int64_t(in.size()))
      out.push_back(in[d]);
    else if (c == -1 && !inferred)
      inferred = d, out.push_back(Value());
    else
      out.push_back(e);
  }
  if (inferred) {
    Value count = constant(1), rest = constant(1);
    for (Value d : in)
      count = b.createOrFold<arith::MulIOp>(loc, count, d);
    for (Value d : out)
      if (d)
        rest = b.createOrFold<arith::MulIOp>(loc, rest, d);
    out[*inferred] = b.createOrFold<arith::FloorDivSIOp>(loc, count, rest);
  }
  // Where the type already knows a dim, it is that.
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d))
      out[d] = constant(type.getDimSize(d));
  return out;
}

std::optional<SmallVector<Value>> SymbolicShapes::elementValues(Value v,
                                                                int depth) {
  if (!isShapeValue(v.getType()) || depth > 32)
    return std::nullopt;
  auto it = elementCache.find(v);
  if (it != elementCache.end())
    return it->second;
  std::optional<SmallVector<Value>> out = computeElements(v, depth);
  if (!out) { // an element of its own for each, never known
    out.emplace();
    for (int64_t i = 0,
                 e = cast<RankedTensorType>(v.getType()).getNumElements();
         i < e; ++i)
      out->push_back(fresh());
  }
  return elementCache[v] = *out;
}

std::optional<SmallVector<Value>>
SymbolicShapes::computeElements(Value v, int depth) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (std::optional<SmallVector<int64_t>> c = constantIntValues(v)) {
    SmallVector<Value> out;
    for (int64_t e : *c)
      out.push_back(constant(e));
    return out;
  }
  auto operandElements = [&](Value operand) {
    return elementValues(operand, depth + 1);
  };
  auto operandDims = [&](Value operand) -> std::optional<SmallVector<Value>> {
    return SmallVector<Value>(dimValues(operand));
  };
  ShapeElementSource source;
  source.elements = operandElements;
  source.dims = operandDims;
  return evaluateShapeElements(b, def, source);
}
