//===- Validate.cpp - Semantic checks of an artifact model ----------------===//
//
// validate() is what makes a decoded artifact safe to execute: after it
// passes, every index in the plan is in range, every dtype is known, every
// static shape fits in memory arithmetic, every symbol can be resolved from
// the input signatures and the shape program (whose instructions are well
// formed and read only symbols defined before them), and every weight lies
// inside the weights section. With control flow (format 3.2), the regions
// form a tree of bounded depth, each control op is well formed for its
// kind, and every symbol a step reads is bound, in its scope, before the
// step runs.
// The runtime relies on these facts and does not re-check them.
//
//===----------------------------------------------------------------------===//

#include "format/Artifact.h"
#include "format/ValidateLaunch.h"

#include <algorithm>
#include <map>
#include <set>

namespace tessel::format {

namespace {

/// Largest byte size of a statically known tensor (leaves room for the
/// runtime's arithmetic on top).
constexpr uint64_t kMaxStaticBytes = uint64_t(1) << 62;

std::string quoted(const std::string &s) { return "'" + s + "'"; }

bool isPrintable(const std::string &s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  });
}

/// A symbol name the linkers and loaders of every target accept: a C
/// identifier, also allowing '.' and '$' (MLIR and LLVM use them).
bool isSymbolName(const std::string &s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9'))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
  });
}

/// Product of the static extents of `shape`, or false on overflow.
bool staticProduct(const Shape &shape, uint64_t &product) {
  product = 1;
  for (const Dim &d : shape)
    if (!d.isSymbolic() &&
        __builtin_mul_overflow(product, static_cast<uint64_t>(d.value),
                               &product))
      return false;
  return true;
}

std::multiset<std::string> symbolsOf(const Shape &shape) {
  std::multiset<std::string> symbols;
  for (const Dim &d : shape)
    if (d.isSymbolic())
      symbols.insert(d.symbol);
  return symbols;
}

/// False when `view` provably has another number of elements than `shape`:
/// both have the same symbols but different static products. (With other
/// symbols it depends on the bindings; the runtime checks those.)
bool mayView(const Shape &view, const Shape &shape) {
  if (symbolsOf(view) != symbolsOf(shape))
    return true;
  uint64_t viewElems, shapeElems;
  staticProduct(view, viewElems);
  staticProduct(shape, shapeElems);
  return viewElems == shapeElems;
}

bool sameShape(const Shape &a, const Shape &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].symbol != b[i].symbol ||
        (!a[i].isSymbolic() && a[i].value != b[i].value))
      return false;
  return true;
}

/// The symbols bound at one point of a walk over the regions: binding
/// records what it added, so that leaving a region forgets exactly what
/// the region bound.
class ScopedSymbols {
public:
  bool has(const std::string &symbol) const { return bound.count(symbol); }
  void bind(const std::string &symbol) {
    if (bound.insert(symbol).second)
      added.push_back(symbol);
  }
  void bindAll(const Shape &shape) {
    for (const Dim &d : shape)
      if (d.isSymbolic())
        bind(d.symbol);
  }
  /// The first symbol of `shape` not bound, or null.
  const std::string *firstUnbound(const Shape &shape) const {
    for (const Dim &d : shape)
      if (d.isSymbolic() && !has(d.symbol))
        return &d.symbol;
    return nullptr;
  }
  size_t mark() const { return added.size(); }
  /// Forgets what was bound since `mark`.
  void restore(size_t mark) {
    for (; added.size() > mark; added.pop_back())
      bound.erase(added.back());
  }

private:
  std::set<std::string> bound;
  std::vector<std::string> added;
};

const char *stepKindName(Step::Kind kind, bool plural) {
  switch (kind) {
  case Step::Kind::Shape:
    return plural ? "shape ops" : "shape op";
  case Step::Kind::HostValues:
    return plural ? "host values entries" : "host values";
  case Step::Kind::Launch:
    return plural ? "launches" : "launch";
  case Step::Kind::Control:
    return plural ? "control ops" : "control op";
  }
  return "unknown";
}

class Validator {
public:
  explicit Validator(const Artifact &a)
      : a(a),
        weightsSize(a.weights.empty() ? a.weightsFileSize : a.weights.size()) {}

  bool run() {
    return names() && inputSymbols() && controlFlowSymbols() &&
           shapeProgram() && buffers() &&
           signatures(a.inputs, "input", Buffer::Kind::Input) &&
           signatures(a.outputs, "output", Buffer::Kind::Output) &&
           bindings() && kernels() && plan() && hostValues() && steps() &&
           controlOps() && scopes() && cpuFeatures() && binaries();
  }

  std::string error;

private:
  bool fail(const std::string &what, const std::string &message) {
    error = what + ": " + message;
    return false;
  }

  bool name(const std::string &what, const std::string &s, bool nonEmpty) {
    if (nonEmpty && s.empty())
      return fail(what, "empty name");
    if (s.size() > kMaxNameLength)
      return fail(what, "name is " + std::to_string(s.size()) +
                            " bytes long (at most " +
                            std::to_string(kMaxNameLength) + ")");
    if (!isPrintable(s))
      return fail(what, "name contains control characters");
    return true;
  }

  bool names() {
    return name("producer", a.producer, false) &&
           name("model name", a.modelName, false);
  }

  /// Collects the symbols the input signatures define.
  bool inputSymbols() {
    for (const TensorSignature &s : a.inputs)
      for (const Dim &d : s.shape)
        if (d.isSymbolic())
          defined.insert(d.symbol);
    return true;
  }

  /// The symbols control ops bind: those of their result buffers (when
  /// they finish) and of their body arguments (on each entry of the body).
  /// Where they are bound is checked by scopes(); here they only count as
  /// defined, like the results of the shape program.
  bool controlFlowSymbols() {
    for (const ControlOp &op : a.controlOps) {
      if (!op.iterationSymbol.empty()) {
        if (!name("control op iteration symbol", op.iterationSymbol, true))
          return false;
        defined.insert(op.iterationSymbol);
      }
      for (const std::vector<uint32_t> *list : {&op.results, &op.bodyArgs})
        for (uint32_t buffer : *list)
          if (buffer < a.buffers.size())
            for (const Dim &d : a.buffers[buffer].shape)
              if (d.isSymbolic())
                defined.insert(d.symbol);
    }
    return true;
  }

  bool dtype(const std::string &what, DType t) {
    if (dtypeSize(t) == 0)
      return fail(what,
                  "unknown dtype " + std::to_string(static_cast<uint32_t>(t)));
    return true;
  }

  bool shape(const std::string &what, const Shape &s, DType t) {
    if (s.size() > kMaxRank)
      return fail(what, "rank " + std::to_string(s.size()) +
                            " exceeds the maximum of " +
                            std::to_string(kMaxRank));
    for (size_t i = 0; i < s.size(); ++i) {
      const Dim &d = s[i];
      if (d.isSymbolic()) {
        if (!name(what + " dim " + std::to_string(i), d.symbol, true))
          return false;
        if (!defined.count(d.symbol))
          return fail(what, "symbol " + quoted(d.symbol) +
                                " is not defined by any input or the shape "
                                "program");
      } else if (d.value < 0 || d.value > kMaxStaticExtent) {
        return fail(what, "dim " + std::to_string(i) + " has invalid extent " +
                              std::to_string(d.value));
      }
    }
    uint64_t elements, bytes;
    if (!staticProduct(s, elements) ||
        __builtin_mul_overflow(elements, dtypeSize(t), &bytes) ||
        bytes > kMaxStaticBytes)
      return fail(what, "shape " + formatShape(s) + " is too large");
    return true;
  }

  /// The operand and result counts each kind requires, or false for an
  /// unknown kind.
  static bool arity(ShapeOp::Kind kind, const char *&name) {
    switch (kind) {
    case ShapeOp::Kind::Add:
      return name = "Add", true;
    case ShapeOp::Kind::Sub:
      return name = "Sub", true;
    case ShapeOp::Kind::Mul:
      return name = "Mul", true;
    case ShapeOp::Kind::FloorDiv:
      return name = "FloorDiv", true;
    case ShapeOp::Kind::CeilDiv:
      return name = "CeilDiv", true;
    case ShapeOp::Kind::Mod:
      return name = "Mod", true;
    case ShapeOp::Kind::Min:
      return name = "Min", true;
    case ShapeOp::Kind::Max:
      return name = "Max", true;
    case ShapeOp::Kind::Lt:
      return name = "Lt", true;
    case ShapeOp::Kind::InputValues:
      return name = "InputValues", true;
    case ShapeOp::Kind::Reshape:
      return name = "Reshape", true;
    case ShapeOp::Kind::CheckEq:
      return name = "CheckEq", true;
    }
    return false;
  }

  bool counts(const std::string &what, const ShapeOp &op, size_t operands,
              size_t results) {
    if (op.operands.size() != operands || op.results.size() != results)
      return fail(what, "has " + std::to_string(op.operands.size()) +
                            " operands and " +
                            std::to_string(op.results.size()) +
                            " results, expected " + std::to_string(operands) +
                            " and " + std::to_string(results));
    return true;
  }

  /// The shape program: each instruction is well formed for its kind and
  /// reads only symbols of the inputs and of earlier instructions; its
  /// result symbols are defined from then on (one defined already, or a
  /// static result, is checked at run time). Static operands are plain
  /// integers (a Reshape target may hold -1), static results are extents.
  bool shapeProgram() {
    for (size_t i = 0; i < a.shapeProgram.size(); ++i) {
      const ShapeOp &op = a.shapeProgram[i];
      std::string what = "shape op " + std::to_string(i);
      const char *kind = nullptr;
      if (!arity(op.kind, kind))
        return fail(what, "unknown kind " +
                              std::to_string(static_cast<uint32_t>(op.kind)));
      if (!name(what + " node", op.onnxNode, false) ||
          !name(what + " op", op.onnxOp, false) ||
          !name(what + " message", op.message, false))
        return false;
      what = shapeOpName(i);
      if (!shapeOpKind(what, op))
        return false;
      if (op.kind != ShapeOp::Kind::InputValues && op.input != 0)
        return fail(what, "sets an input (" + std::to_string(op.input) +
                              "), but only InputValues reads one");
      if (op.kind != ShapeOp::Kind::Reshape && op.allowZero)
        return fail(what, "sets allowZero, which only Reshape has");
      for (size_t j = 0; j < op.operands.size(); ++j) {
        const Dim &d = op.operands[j];
        std::string operand = what + " operand " + std::to_string(j);
        if (!d.isSymbolic())
          continue;
        if (!name(operand, d.symbol, true))
          return false;
        // With regions, the program is no longer run in its own order:
        // scopes() checks each operand where its step runs.
        if (a.regions.empty() && !defined.count(d.symbol))
          return fail(operand, "symbol " + quoted(d.symbol) +
                                   " is not defined by any input or earlier "
                                   "shape op");
      }
      for (size_t j = 0; j < op.results.size(); ++j) {
        const Dim &d = op.results[j];
        std::string result = what + " result " + std::to_string(j);
        if (d.isSymbolic()) {
          if (!name(result, d.symbol, true))
            return false;
        } else if (d.value < 0 || d.value > kMaxStaticExtent) {
          return fail(result, "has invalid extent " + std::to_string(d.value));
        }
      }
      for (const Dim &d : op.results)
        if (d.isSymbolic())
          defined.insert(d.symbol);
    }
    return true;
  }

  /// "shape op 1 (Reshape of node 'Reshape_0')" (of a known kind).
  std::string shapeOpName(size_t index) const {
    const ShapeOp &op = a.shapeProgram[index];
    const char *kind = nullptr;
    arity(op.kind, kind);
    std::string s = "shape op " + std::to_string(index) + " (" + kind;
    if (!op.onnxNode.empty())
      s += " of node " + quoted(op.onnxNode);
    return s + ")";
  }

  /// The operand/result counts and the input of `op`, by kind.
  bool shapeOpKind(const std::string &what, const ShapeOp &op) {
    switch (op.kind) {
    case ShapeOp::Kind::InputValues: {
      if (!counts(what, op, 0, op.results.size()))
        return false;
      if (op.input >= a.inputs.size())
        return fail(what, "refers to input " + std::to_string(op.input) +
                              ", but there are " +
                              std::to_string(a.inputs.size()) + " inputs");
      const TensorSignature &sig = a.inputs[op.input];
      uint64_t elements = 0;
      bool staticShape =
          symbolsOf(sig.shape).empty() && staticProduct(sig.shape, elements);
      if (sig.dtype != DType::I64 || sig.shape.size() > 1 || !staticShape ||
          elements != op.results.size())
        return fail(what, "input " + quoted(sig.name) +
                              " must be int64 of static shape [" +
                              std::to_string(op.results.size()) +
                              "] (one value per result), not " +
                              dtypeName(sig.dtype) + " " +
                              formatShape(sig.shape));
      return true;
    }
    case ShapeOp::Kind::Reshape: {
      if (op.operands.size() < op.results.size())
        return fail(what, "has " + std::to_string(op.operands.size()) +
                              " operands, fewer than its " +
                              std::to_string(op.results.size()) +
                              " results (the source dims, then one target "
                              "value per result)");
      size_t sourceRank = op.operands.size() - op.results.size();
      if (sourceRank > kMaxRank || op.results.size() > kMaxRank)
        return fail(what, "reshapes rank " + std::to_string(sourceRank) +
                              " into rank " +
                              std::to_string(op.results.size()) + " (at most " +
                              std::to_string(kMaxRank) + ")");
      return true;
    }
    case ShapeOp::Kind::CheckEq:
      return counts(what, op, 2, 0);
    default: // the binary arithmetic kinds
      return counts(what, op, 2, 1);
    }
  }

  bool buffers() {
    for (size_t i = 0; i < a.buffers.size(); ++i) {
      const Buffer &b = a.buffers[i];
      std::string what = "buffer " + std::to_string(i);
      if (static_cast<uint32_t>(b.kind) > 3)
        return fail(what, "unknown kind " +
                              std::to_string(static_cast<uint32_t>(b.kind)));
      if (!dtype(what, b.dtype) || !shape(what, b.shape, b.dtype))
        return false;
      if (b.kind != Buffer::Kind::Weight) {
        if (b.weightOffset != 0 || b.weightSize != 0)
          return fail(what, "a non-weight buffer has a weight range");
        continue;
      }
      if (!symbolsOf(b.shape).empty())
        return fail(what,
                    "a weight has the symbolic shape " + formatShape(b.shape));
      uint64_t elements, end;
      staticProduct(b.shape, elements);
      if (b.weightSize != elements * dtypeSize(b.dtype))
        return fail(what, "weight size " + std::to_string(b.weightSize) +
                              " does not match its shape " +
                              formatShape(b.shape) + " of " +
                              dtypeName(b.dtype));
      if (b.weightOffset % kWeightAlignment != 0)
        return fail(what, "weight offset " + std::to_string(b.weightOffset) +
                              " is not " + std::to_string(kWeightAlignment) +
                              "-byte aligned");
      if (__builtin_add_overflow(b.weightOffset, b.weightSize, &end) ||
          end > weightsSize)
        return fail(what, "weight range [" + std::to_string(b.weightOffset) +
                              ", " + std::to_string(b.weightOffset) + "+" +
                              std::to_string(b.weightSize) +
                              ") is outside the weights section (" +
                              std::to_string(weightsSize) + " bytes)");
    }
    return true;
  }

  bool signatures(const std::vector<TensorSignature> &sigs, const char *kind,
                  Buffer::Kind bufferKind) {
    std::set<std::string> seen;
    for (size_t i = 0; i < sigs.size(); ++i) {
      const TensorSignature &s = sigs[i];
      std::string what = std::string(kind) + " " + std::to_string(i);
      if (!name(what, s.name, true))
        return false;
      what += " (" + quoted(s.name) + ")";
      if (!seen.insert(s.name).second)
        return fail(what, std::string("duplicate ") + kind + " name");
      if (!dtype(what, s.dtype) || !shape(what, s.shape, s.dtype))
        return false;
      if (s.buffer >= a.buffers.size())
        return fail(what, "refers to buffer " + std::to_string(s.buffer) +
                              ", but there are " +
                              std::to_string(a.buffers.size()) + " buffers");
      const Buffer &b = a.buffers[s.buffer];
      std::string buf = "buffer " + std::to_string(s.buffer);
      if (b.kind != bufferKind)
        return fail(what, buf + " is not an " + kind + " buffer");
      // An input is its buffer; an output may be a view of its buffer (the
      // model ends with a Reshape), and two outputs may share one.
      bool input = bufferKind == Buffer::Kind::Input;
      if (b.dtype != s.dtype ||
          (input ? !sameShape(b.shape, s.shape) : !mayView(s.shape, b.shape)))
        return fail(what, std::string(dtypeName(s.dtype)) + " " +
                              formatShape(s.shape) + " does not match " + buf +
                              " (" + dtypeName(b.dtype) + " " +
                              formatShape(b.shape) + ")");
      if (!bound.insert(s.buffer).second && input)
        return fail(what, buf + " is bound to two inputs");
    }
    return true;
  }

  /// Every input/output buffer must be reachable through a signature.
  bool bindings() {
    for (size_t i = 0; i < a.buffers.size(); ++i) {
      Buffer::Kind k = a.buffers[i].kind;
      if ((k == Buffer::Kind::Input || k == Buffer::Kind::Output) &&
          !bound.count(static_cast<uint32_t>(i)))
        return fail("buffer " + std::to_string(i),
                    std::string(k == Buffer::Kind::Input ? "input" : "output") +
                        " buffer without a signature");
    }
    return true;
  }

  bool kernels() {
    std::set<std::string> seen;
    for (size_t i = 0; i < a.kernels.size(); ++i) {
      const Kernel &k = a.kernels[i];
      std::string what = "kernel " + std::to_string(i);
      if (!name(what, k.symbol, true) || !name(what, k.onnxNode, false) ||
          !name(what, k.onnxOp, false))
        return false;
      if (!isSymbolName(k.symbol))
        return fail(what, "symbol " + quoted(k.symbol) +
                              " is not a valid symbol name");
      if (!seen.insert(k.symbol).second)
        return fail(what, "duplicate symbol " + quoted(k.symbol));
    }
    return true;
  }

  bool plan() {
    for (size_t i = 0; i < a.plan.size(); ++i) {
      const Launch &l = a.plan[i];
      std::string what = "launch " + std::to_string(i);
      if (l.kernel >= a.kernels.size())
        return fail(what, "refers to kernel " + std::to_string(l.kernel) +
                              ", but there are " +
                              std::to_string(a.kernels.size()) + " kernels");
      what += " (kernel " + quoted(a.kernels[l.kernel].symbol) + ")";
      for (size_t j = 0; j < l.args.size(); ++j)
        if (!launchArg(what + " argument " + std::to_string(j), l.args[j]))
          return false;
      if (!shape(what + " work size", l.workSize, DType::U8))
        return false;
    }
    return true;
  }

  bool launchArg(const std::string &what, const LaunchArg &arg) {
    if (arg.buffer >= a.buffers.size())
      return fail(what, "refers to buffer " + std::to_string(arg.buffer) +
                            ", but there are " +
                            std::to_string(a.buffers.size()) + " buffers");
    const Buffer &b = a.buffers[arg.buffer];
    if (!shape(what, arg.shape, b.dtype))
      return false;
    if (!mayView(arg.shape, b.shape))
      return fail(what, "view " + formatShape(arg.shape) + " of buffer " +
                            std::to_string(arg.buffer) + " " +
                            formatShape(b.shape) +
                            " has a different number of elements");
    return true;
  }

  /// Each fills a distinct Transient int64 buffer of static shape with one
  /// value per element; a value is any integer or a defined symbol.
  bool hostValues() {
    std::set<uint32_t> filled;
    for (size_t i = 0; i < a.hostValues.size(); ++i) {
      const HostValues &h = a.hostValues[i];
      std::string what = "host values " + std::to_string(i);
      if (h.buffer >= a.buffers.size())
        return fail(what, "refers to buffer " + std::to_string(h.buffer) +
                              ", but there are " +
                              std::to_string(a.buffers.size()) + " buffers");
      const Buffer &b = a.buffers[h.buffer];
      uint64_t elements = 0;
      if (b.kind != Buffer::Kind::Transient || b.dtype != DType::I64 ||
          !symbolsOf(b.shape).empty() || !staticProduct(b.shape, elements) ||
          elements != h.values.size())
        return fail(what, "buffer " + std::to_string(h.buffer) +
                              " is not a transient int64 buffer of " +
                              std::to_string(h.values.size()) +
                              " elements and static shape");
      if (!filled.insert(h.buffer).second)
        return fail(what, "fills buffer " + std::to_string(h.buffer) +
                              " a second time");
      for (const Dim &d : h.values)
        if (d.isSymbolic() && !defined.count(d.symbol))
          return fail(what, "symbol " + quoted(d.symbol) +
                                " is not defined by any input or the shape "
                                "program");
    }
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Control flow (format 3.2)
  //===--------------------------------------------------------------------===//

  /// Each step's kind and index, and each shape instruction, host values
  /// entry, launch and control op the step of exactly one region; region 0
  /// yields nothing; every yield is a view of a buffer.
  bool steps() {
    if (a.regions.empty()) {
      if (!a.controlOps.empty())
        return fail("control op 0",
                    "is the step of no region (the artifact has no regions)");
      return true;
    }
    const size_t counts[] = {a.shapeProgram.size(), a.hostValues.size(),
                             a.plan.size(), a.controlOps.size()};
    // Who runs each item: "region 1 step 0", or empty.
    std::vector<std::string> runBy[4];
    for (int kind = 0; kind < 4; ++kind)
      runBy[kind].resize(counts[kind]);
    for (size_t r = 0; r < a.regions.size(); ++r) {
      const Region &region = a.regions[r];
      for (size_t j = 0; j < region.steps.size(); ++j) {
        const Step &step = region.steps[j];
        std::string what =
            "region " + std::to_string(r) + " step " + std::to_string(j);
        uint32_t kind = static_cast<uint32_t>(step.kind);
        if (kind > 3)
          return fail(what, "unknown kind " + std::to_string(kind));
        std::string item = std::string(stepKindName(step.kind, false)) + " " +
                           std::to_string(step.index);
        if (step.index >= counts[kind])
          return fail(what, "refers to " + item + ", but there are " +
                                std::to_string(counts[kind]) + " " +
                                stepKindName(step.kind, true));
        std::string &by = runBy[kind][step.index];
        if (!by.empty())
          return fail(what, "runs " + item + ", which " + by + " runs too");
        by = what;
      }
      for (size_t j = 0; j < region.yields.size(); ++j)
        if (!launchArg("region " + std::to_string(r) + " yield " +
                           std::to_string(j),
                       region.yields[j]))
          return false;
    }
    for (int kind = 0; kind < 4; ++kind)
      for (size_t i = 0; i < counts[kind]; ++i)
        if (runBy[kind][i].empty())
          return fail(std::string(stepKindName(Step::Kind(kind), false)) + " " +
                          std::to_string(i),
                      "is the step of no region");
    if (!a.regions[0].yields.empty())
      return fail("region 0",
                  "yields " + std::to_string(a.regions[0].yields.size()) +
                      " values, but the top level yields none (the outputs "
                      "are its buffers)");
    return true;
  }

  /// Each control op well formed for its kind, and each region but 0
  /// owned by exactly one of them.
  bool controlOps() {
    regionOwner.assign(a.regions.size(), kNoOwner);
    for (size_t i = 0; i < a.controlOps.size(); ++i)
      if (!controlOp(i))
        return false;
    for (size_t r = 1; r < a.regions.size(); ++r)
      if (regionOwner[r] == kNoOwner)
        return fail("region " + std::to_string(r), "belongs to no control op");
    return true;
  }

  bool controlOp(size_t index) {
    const ControlOp &op = a.controlOps[index];
    std::string what = "control op " + std::to_string(index);
    uint32_t kind = static_cast<uint32_t>(op.kind);
    if (kind > 1)
      return fail(what, "unknown kind " + std::to_string(kind));
    if (!name(what + " node", op.onnxNode, false) ||
        !name(what + " op", op.onnxOp, false))
      return false;
    what = describeControlOp(op, index);
    bool isIf = op.kind == ControlOp::Kind::If;
    size_t operands = op.operands.size();
    if (isIf ? operands != 1 : operands < 2)
      return fail(what, "has " + std::to_string(operands) + " operands, " +
                            (isIf ? "expected 1 (the condition)"
                                  : "expected at least 2 (the trip count and "
                                    "the condition, then the initial values "
                                    "of the carried tensors)"));
    size_t regions = isIf ? 2 : 1;
    if (op.regions.size() != regions)
      return fail(what, "has " + std::to_string(op.regions.size()) +
                            " regions, expected " + std::to_string(regions) +
                            (isIf ? " (then, else)" : " (the body)"));
    size_t bodyArgs = isIf ? 0 : operands;
    if (op.bodyArgs.size() != bodyArgs)
      return fail(what, "has " + std::to_string(op.bodyArgs.size()) +
                            " body arguments, expected " +
                            std::to_string(bodyArgs) +
                            (isIf ? ""
                                  : " (the iteration number, the "
                                    "condition, then one per carried "
                                    "tensor)"));
    for (uint32_t r : op.regions) {
      if (r >= a.regions.size())
        return fail(what, "refers to region " + std::to_string(r) +
                              ", but there are " +
                              std::to_string(a.regions.size()) + " regions");
      if (r == 0)
        return fail(what, "claims region 0, the top level");
      if (regionOwner[r] != kNoOwner)
        return fail(what, "claims region " + std::to_string(r) +
                              ", which belongs to control op " +
                              std::to_string(regionOwner[r]));
      regionOwner[r] = index;
    }
    for (size_t j = 0; j < operands; ++j) {
      std::string operand = what + " operand " + std::to_string(j);
      if (op.operands[j].buffer != kNoBuffer) {
        if (!launchArg(operand, op.operands[j]))
          return false;
      } else if (isIf || j >= 2) {
        return fail(operand, "has no buffer, which only the trip count and "
                             "the condition of a Loop may lack");
      }
    }
    std::set<uint32_t> seen;
    auto ownBuffers = [&](const std::vector<uint32_t> &list, const char *role) {
      for (size_t j = 0; j < list.size(); ++j) {
        std::string arg = what + " " + role + " " + std::to_string(j);
        if (list[j] >= a.buffers.size())
          return fail(arg, "refers to buffer " + std::to_string(list[j]) +
                               ", but there are " +
                               std::to_string(a.buffers.size()) + " buffers");
        // A result may be a model output; a body argument is the body's.
        Buffer::Kind kind = a.buffers[list[j]].kind;
        if (kind != Buffer::Kind::Transient &&
            (list == op.bodyArgs || kind != Buffer::Kind::Output))
          return fail(arg, "buffer " + std::to_string(list[j]) + " is not a " +
                               (list == op.bodyArgs ? "transient buffer"
                                                    : "transient or output "
                                                      "buffer"));
        if (!seen.insert(list[j]).second)
          return fail(arg, "buffer " + std::to_string(list[j]) +
                               " is named twice among the op's body "
                               "arguments and results");
      }
      return true;
    };
    if (!ownBuffers(op.bodyArgs, "body argument") ||
        !ownBuffers(op.results, "result"))
      return false;
    return isIf ? ifOp(what, op) : loopOp(what, op);
  }

  /// Both branches yield one value per result, of its dtype and rank, and
  /// never a result buffer at another result's position (copying the
  /// results in order would overwrite it before it is read).
  bool ifOp(const std::string &what, const ControlOp &op) {
    if (!oneElement(what + " condition", op.operands[0], DType::Bool))
      return false;
    for (size_t b = 0; b < 2; ++b) {
      uint32_t r = op.regions[b];
      const std::vector<LaunchArg> &yields = a.regions[r].yields;
      std::string branch = std::string(b == 0 ? "then" : "else") +
                           " branch (region " + std::to_string(r) + ")";
      if (yields.size() != op.results.size())
        return fail(what, "the " + branch + " yields " +
                              std::to_string(yields.size()) +
                              " values, but the op has " +
                              std::to_string(op.results.size()) + " results");
      for (size_t i = 0; i < yields.size(); ++i) {
        std::string result = what + " result " + std::to_string(i);
        if (!sameType(result, "the " + branch + " yields", yields[i],
                      op.results[i], 0))
          return false;
        for (size_t k = 0; k < op.results.size(); ++k)
          if (k != i && yields[i].buffer == op.results[k])
            return fail(result, "the " + branch + " yields buffer " +
                                    std::to_string(op.results[k]) +
                                    ", which receives result " +
                                    std::to_string(k));
      }
    }
    return true;
  }

  /// The scalars of a Loop, and for each carried tensor and scan output
  /// the same dtype (and rank) wherever it flows.
  bool loopOp(const std::string &what, const ControlOp &op) {
    if (op.operands[0].buffer != kNoBuffer &&
        !oneElement(what + " trip count", op.operands[0], DType::I64))
      return false;
    if (op.operands[1].buffer != kNoBuffer &&
        !oneElement(what + " condition", op.operands[1], DType::Bool))
      return false;
    if (!scalarBuffer(what + " body argument 0 (the iteration number)",
                      op.bodyArgs[0], DType::I64) ||
        !scalarBuffer(what + " body argument 1 (the condition)", op.bodyArgs[1],
                      DType::Bool))
      return false;
    size_t carried = op.operands.size() - 2;
    if (op.results.size() < carried)
      return fail(what, "has " + std::to_string(op.results.size()) +
                            " results, fewer than its " +
                            std::to_string(carried) + " carried tensors");
    size_t scans = op.results.size() - carried;
    uint32_t body = op.regions[0];
    const std::vector<LaunchArg> &yields = a.regions[body].yields;
    if (yields.size() != 1 + op.results.size())
      return fail(what, "the body (region " + std::to_string(body) +
                            ") yields " + std::to_string(yields.size()) +
                            " values, expected " +
                            std::to_string(1 + op.results.size()) +
                            " (the condition, " + std::to_string(carried) +
                            " carried tensors and " + std::to_string(scans) +
                            " scan outputs)");
    if (!oneElement(what + " body yield 0 (the condition)", yields[0],
                    DType::Bool))
      return false;
    for (size_t c = 0; c < carried; ++c) {
      std::string value = what + " carried tensor " + std::to_string(c);
      const LaunchArg &initial = op.operands[2 + c];
      LaunchArg argument{op.bodyArgs[2 + c],
                         a.buffers[op.bodyArgs[2 + c]].shape};
      if (!sameType(value, "the initial value is", initial, op.results[c], 0) ||
          !sameType(value, "the body argument is", argument, op.results[c],
                    0) ||
          !sameType(value, "the body yields", yields[1 + c], op.results[c], 0))
        return false;
    }
    for (size_t k = 0; k < scans; ++k)
      if (!sameType(what + " scan output " + std::to_string(k),
                    "the body yields", yields[1 + carried + k],
                    op.results[carried + k], 1))
        return false;
    return true;
  }

  /// `view` is one element of `t` (static shape): a condition or a count.
  bool oneElement(const std::string &what, const LaunchArg &view, DType t) {
    DType actual = a.buffers[view.buffer].dtype;
    uint64_t elements = 0;
    if (actual != t || !symbolsOf(view.shape).empty() ||
        !staticProduct(view.shape, elements) || elements != 1)
      return fail(what, std::string("is ") + dtypeName(actual) + " " +
                            formatShape(view.shape) + " (buffer " +
                            std::to_string(view.buffer) + "), not one " +
                            dtypeName(t) + " element of static shape");
    return true;
  }

  bool scalarBuffer(const std::string &what, uint32_t buffer, DType t) {
    const Buffer &b = a.buffers[buffer];
    if (b.dtype != t || !b.shape.empty())
      return fail(what, "buffer " + std::to_string(buffer) + " is " +
                            dtypeName(b.dtype) + " " + formatShape(b.shape) +
                            ", not an " + dtypeName(t) + " scalar");
    return true;
  }

  /// `value` (a view) flows into result buffer `result`: the same dtype,
  /// and `extraRank` more dims in the result (1 for a scan output).
  bool sameType(const std::string &what, const std::string &role,
                const LaunchArg &value, uint32_t result, size_t extraRank) {
    const Buffer &from = a.buffers[value.buffer], &to = a.buffers[result];
    if (from.dtype != to.dtype ||
        to.shape.size() != value.shape.size() + extraRank)
      return fail(what, role + " " + dtypeName(from.dtype) + " " +
                            formatShape(value.shape) + " (buffer " +
                            std::to_string(value.buffer) +
                            "), but the result buffer " +
                            std::to_string(result) + " is " +
                            dtypeName(to.dtype) + " " + formatShape(to.shape) +
                            (extraRank ? " (expected the yield's dtype and "
                                         "one more dim, the iterations)"
                                       : ""));
    return true;
  }

  /// Walks the regions from region 0 in step order with the symbols bound
  /// at each point (see validate() in Artifact.h), then checks that every
  /// region was reached.
  bool scopes() {
    std::vector<Region> implicit;
    if (a.regions.empty())
      implicit.push_back(implicitRegion(a));
    const std::vector<Region> &regions =
        a.regions.empty() ? implicit : a.regions;
    reached.assign(regions.size(), false);
    ScopedSymbols bound;
    for (const TensorSignature &s : a.inputs)
      bound.bindAll(s.shape);
    if (!scope(regions, 0, bound, 0))
      return false;
    for (size_t i = 0; i < a.outputs.size(); ++i)
      if (!boundView("output " + std::to_string(i) + " (" +
                         quoted(a.outputs[i].name) + ")",
                     {a.outputs[i].buffer, a.outputs[i].shape}, bound,
                     "at the end of region 0"))
        return false;
    for (size_t r = 0; r < regions.size(); ++r)
      if (!reached[r])
        return fail("region " + std::to_string(r),
                    "is not reachable from region 0 (its control ops nest "
                    "in a cycle)");
    return true;
  }

  bool scope(const std::vector<Region> &regions, uint32_t index,
             ScopedSymbols &bound, size_t depth) {
    reached[index] = true;
    size_t mark = bound.mark();
    const Region &region = regions[index];
    for (size_t j = 0; j < region.steps.size(); ++j) {
      const Step &step = region.steps[j];
      std::string where = "at step " + std::to_string(j) + " of region " +
                          std::to_string(index);
      switch (step.kind) {
      case Step::Kind::Shape: {
        const ShapeOp &op = a.shapeProgram[step.index];
        for (size_t k = 0; k < op.operands.size(); ++k) {
          const Dim &d = op.operands[k];
          if (d.isSymbolic() && !bound.has(d.symbol))
            return fail(
                shapeOpName(step.index) + " operand " + std::to_string(k),
                "symbol " + quoted(d.symbol) + " is not bound " + where);
        }
        bound.bindAll(op.results);
        break;
      }
      case Step::Kind::HostValues: {
        const HostValues &h = a.hostValues[step.index];
        std::string what = "host values " + std::to_string(step.index);
        if (!boundView(what, {h.buffer, h.values}, bound, where))
          return false;
        break;
      }
      case Step::Kind::Launch: {
        const Launch &l = a.plan[step.index];
        std::string what = "launch " + std::to_string(step.index) +
                           " (kernel " + quoted(a.kernels[l.kernel].symbol) +
                           ")";
        for (size_t k = 0; k < l.args.size(); ++k)
          if (!boundView(what + " argument " + std::to_string(k), l.args[k],
                         bound, where))
            return false;
        if (!boundView(what + " work size", {kNoBuffer, l.workSize}, bound,
                       where))
          return false;
        break;
      }
      case Step::Kind::Control:
        if (!controlScope(regions, step.index, bound, depth, where))
          return false;
        break;
      }
    }
    for (size_t k = 0; k < region.yields.size(); ++k)
      if (!boundView("region " + std::to_string(index) + " yield " +
                         std::to_string(k),
                     region.yields[k], bound,
                     "at the end of region " + std::to_string(index)))
        return false;
    // Region 0's bindings are what the outputs are resolved against.
    if (index != 0)
      bound.restore(mark);
    return true;
  }

  /// A control op: its operands read in the enclosing scope, each region
  /// entered from it (a body with its arguments bound), its results bound
  /// in it afterwards.
  bool controlScope(const std::vector<Region> &regions, uint32_t index,
                    ScopedSymbols &bound, size_t depth,
                    const std::string &where) {
    const ControlOp &op = a.controlOps[index];
    std::string what = describeControlOp(op, index);
    for (size_t k = 0; k < op.operands.size(); ++k)
      if (!boundView(what + " operand " + std::to_string(k), op.operands[k],
                     bound, where))
        return false;
    if (depth + 1 > kMaxRegionDepth)
      return fail(what, "nests control flow deeper than " +
                            std::to_string(kMaxRegionDepth) + " levels");
    // The iteration number is bound in the body on every iteration, so it
    // must be a symbol of its own.
    if (!op.iterationSymbol.empty()) {
      if (op.kind != ControlOp::Kind::Loop)
        return fail(what, "has an iteration symbol, which only a Loop has");
      if (bound.has(op.iterationSymbol))
        return fail(what, "iteration symbol " + quoted(op.iterationSymbol) +
                              " is bound already " + where);
    }
    for (uint32_t r : op.regions) {
      size_t mark = bound.mark();
      for (uint32_t arg : op.bodyArgs)
        bound.bindAll(a.buffers[arg].shape);
      if (!op.iterationSymbol.empty())
        bound.bind(op.iterationSymbol);
      if (!scope(regions, r, bound, depth + 1))
        return false;
      bound.restore(mark);
    }
    for (uint32_t result : op.results)
      bound.bindAll(a.buffers[result].shape);
    return true;
  }

  /// The shape of `view` and of the buffer it names (none: kNoBuffer) use
  /// only bound symbols.
  bool boundView(const std::string &what, const LaunchArg &view,
                 const ScopedSymbols &bound, const std::string &where) {
    if (const std::string *s = bound.firstUnbound(view.shape))
      return fail(what, "symbol " + quoted(*s) + " is not bound " + where);
    if (view.buffer == kNoBuffer)
      return true;
    const Shape &shape = a.buffers[view.buffer].shape;
    if (const std::string *s = bound.firstUnbound(shape))
      return fail(what, "buffer " + std::to_string(view.buffer) + " " +
                            formatShape(shape) + ": symbol " + quoted(*s) +
                            " is not bound " + where);
    return true;
  }

  bool cpuFeatures() {
    for (const std::string &f : a.cpuFeatures)
      if (f.empty() || f.size() > 32 || !isPrintable(f))
        return fail("CPU feature " + quoted(f),
                    "invalid name (printable, 1 to 32 bytes)");
    return true;
  }

  bool binaries() {
    std::set<std::string> seen;
    for (const TargetBinary &bin : a.binaries) {
      std::string what = "binary " + quoted(bin.target);
      if (bin.target.empty())
        return fail("binary", "empty target name");
      if (bin.target.size() > kMaxTargetNameLength || !isPrintable(bin.target))
        return fail(what, "invalid target name (printable, at most " +
                              std::to_string(kMaxTargetNameLength) + " bytes)");
      if (static_cast<uint32_t>(bin.format) > 2)
        return fail(what,
                    "unknown format " +
                        std::to_string(static_cast<uint32_t>(bin.format)));
      if (!seen.insert(bin.target).second)
        return fail(what, "duplicate target");
    }
    return true;
  }

  static constexpr size_t kNoOwner = ~size_t(0);

  const Artifact &a;
  uint64_t weightsSize;
  std::set<std::string> defined;
  std::set<uint32_t> bound;
  /// The control op that owns each region (kNoOwner for region 0).
  std::vector<size_t> regionOwner;
  /// Whether scopes() reached each region.
  std::vector<bool> reached;
};

} // namespace

bool validate(const Artifact &artifact, std::string &error) {
  Validator v(artifact);
  if (!v.run()) {
    error = v.error;
    return false;
  }
  // Last: these read the kernels, the plan and the binaries checked above.
  return validateLaunchConfigs(artifact, error);
}

} // namespace tessel::format
