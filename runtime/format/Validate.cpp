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
// step runs (ValidateControlFlow.cpp).
// The runtime relies on these facts and does not re-check them.
//
//===----------------------------------------------------------------------===//

#include "format/Artifact.h"
#include "format/ValidateChecks.h"
#include "format/ValidateLaunch.h"

#include <algorithm>
#include <map>
#include <set>

namespace tessel::format {

using namespace detail;

namespace {

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

class Validator : public detail::CheckContext {
public:
  explicit Validator(const Artifact &a)
      : CheckContext(a),
        weightsSize(a.weights.empty() ? a.weightsFileSize : a.weights.size()) {}

  bool run() {
    return names() && inputSymbols() && controlFlowSymbols() &&
           shapeProgram() && buffers() &&
           signatures(a.inputs, "input", Buffer::Kind::Input) &&
           signatures(a.outputs, "output", Buffer::Kind::Output) &&
           bindings() && kernels() && plan() && hostValues() && steps() &&
           detail::checkControlFlow(*this) && binaries();
  }

  bool name(const std::string &what, const std::string &s,
            bool nonEmpty) override {
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

private:
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
    case ShapeOp::Kind::BufferValues:
      return name = "BufferValues", true;
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
      if (op.kind != ShapeOp::Kind::BufferValues && op.buffer != 0)
        return fail(what, "sets a buffer (" + std::to_string(op.buffer) +
                              "), but only BufferValues reads one");
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
  std::string shapeOpName(size_t index) const override {
    const ShapeOp &op = a.shapeProgram[index];
    const char *kind = nullptr;
    arity(op.kind, kind);
    std::string s = "shape op " + std::to_string(index) + " (" + kind;
    if (!op.onnxNode.empty())
      s += " of node " + quoted(op.onnxNode);
    return s + ")";
  }

  /// Whether a tensor of `dtype` and `shape` holds exactly `count` int64
  /// values: int64, of static shape with that many elements (what
  /// InputValues and BufferValues read and HostValues write).
  static bool int64Values(DType dtype, const Shape &shape, size_t count) {
    uint64_t elements = 0;
    return dtype == DType::I64 && symbolsOf(shape).empty() &&
           staticProduct(shape, elements) && elements == count;
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
      if (sig.shape.size() > 1 ||
          !int64Values(sig.dtype, sig.shape, op.results.size()))
        return fail(what, "input " + quoted(sig.name) +
                              " must be int64 of static shape [" +
                              std::to_string(op.results.size()) +
                              "] (one value per result), not " +
                              dtypeName(sig.dtype) + " " +
                              formatShape(sig.shape));
      return true;
    }
    case ShapeOp::Kind::BufferValues: {
      if (!counts(what, op, 0, op.results.size()))
        return false;
      // Only the steps of regions say when it runs: in the implicit order
      // the whole shape program runs before any launch.
      if (a.regions.empty())
        return fail(what, "reads a buffer back, which needs the steps of "
                          "regions (format 3.2) to run after its producer");
      if (op.buffer >= a.buffers.size())
        return fail(what, "refers to buffer " + std::to_string(op.buffer) +
                              ", but there are " +
                              std::to_string(a.buffers.size()) + " buffers");
      const Buffer &b = a.buffers[op.buffer];
      if ((b.kind != Buffer::Kind::Transient &&
           b.kind != Buffer::Kind::Output) ||
          !int64Values(b.dtype, b.shape, op.results.size()))
        return fail(what, "buffer " + std::to_string(op.buffer) +
                              " must be a transient or output int64 buffer of " +
                              std::to_string(op.results.size()) +
                              " elements (one value per result), not " +
                              dtypeName(b.dtype) + " " +
                              formatShape(b.shape));
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
      for (size_t p = 0; p < k.params.size(); ++p) {
        const KernelParam &param = k.params[p];
        std::string pwhat = what + " (" + quoted(k.symbol) + ") param " +
                            std::to_string(p);
        if (!dtype(pwhat, param.dtype))
          return false;
        if (param.rank > kMaxRank)
          return fail(pwhat, "rank " + std::to_string(param.rank) +
                                 " exceeds " + std::to_string(kMaxRank));
      }
    }
    return true;
  }

  /// A launch passes exactly its kernel's params: as many arguments, each
  /// a view of the param's rank of a buffer stored as its dtype.
  bool matchesSignature(const std::string &what, const Launch &l) {
    const std::vector<KernelParam> &params = a.kernels[l.kernel].params;
    if (l.args.size() != params.size())
      return fail(what, "passes " + std::to_string(l.args.size()) +
                            " arguments to a kernel of " +
                            std::to_string(params.size()) + " params");
    for (size_t j = 0; j < params.size(); ++j) {
      const LaunchArg &arg = l.args[j];
      DType have = a.buffers[arg.buffer].dtype;
      if (storageDType(have) != storageDType(params[j].dtype) ||
          arg.shape.size() != params[j].rank)
        return fail(what + " argument " + std::to_string(j),
                    std::string(dtypeName(have)) + " view of rank " +
                        std::to_string(arg.shape.size()) + " (buffer " +
                        std::to_string(arg.buffer) + ") for a param of " +
                        dtypeName(params[j].dtype) + ", rank " +
                        std::to_string(params[j].rank));
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
      if (!matchesSignature(what, l))
        return false;
      if (!shape(what + " work size", l.workSize, DType::U8))
        return false;
    }
    return true;
  }

  bool launchArg(const std::string &what, const LaunchArg &arg) override {
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
      if (b.kind != Buffer::Kind::Transient ||
          !int64Values(b.dtype, b.shape, h.values.size()))
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

  bool binaries() {
    std::set<std::string> seen;
    for (const TargetBinary &bin : a.binaries) {
      std::string what = "binary " + quoted(bin.target);
      if (bin.target.empty())
        return fail("binary", "empty target name");
      if (bin.target.size() > kMaxTargetNameLength || !isPrintable(bin.target))
        return fail(what, "invalid target name (printable, at most " +
                              std::to_string(kMaxTargetNameLength) + " bytes)");
      if (static_cast<uint32_t>(bin.format) >
          static_cast<uint32_t>(TargetBinary::Format::Spirv))
        return fail(what,
                    "unknown format " +
                        std::to_string(static_cast<uint32_t>(bin.format)));
      if (!seen.insert(bin.target).second)
        return fail(what, "duplicate target");
      if (!isCpuTarget(bin.target)) {
        if (!bin.cpuFeatures.empty())
          return fail(what, "lists CPU features, but is not a CPU binary");
        continue;
      }
      if (bin.target == "cpu:")
        return fail(what, "empty CPU variant name");
      if (bin.format != TargetBinary::Format::ElfSharedObject)
        return fail(what, "a CPU binary that is not an ELF shared object");
      for (const std::string &f : bin.cpuFeatures)
        if (f.empty() || f.size() > 32 || !isPrintable(f))
          return fail(what + ": CPU feature " + quoted(f),
                      "invalid name (printable, 1 to 32 bytes)");
    }
    return true;
  }

  uint64_t weightsSize;
  std::set<std::string> defined;
  std::set<uint32_t> bound;
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
