//===- ValidateControlFlow.cpp - Checks of control flow (format 3.2) -----===//
//
// The part of validate() for control flow: the regions form a tree of
// bounded depth, each control op is well formed for its kind, and every
// symbol a step reads is bound, in its scope, before the step runs.
//
//===----------------------------------------------------------------------===//

#include "format/ValidateChecks.h"

#include <vector>

namespace tessel::format::detail {

namespace {

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

class ControlFlowChecks {
public:
  explicit ControlFlowChecks(CheckContext &context)
      : context(context), a(context.a) {}

  bool run() { return controlOps() && scopes(); }

private:
  bool fail(const std::string &what, const std::string &message) {
    return context.fail(what, message);
  }
  bool name(const std::string &what, const std::string &s, bool nonEmpty) {
    return context.name(what, s, nonEmpty);
  }
  bool launchArg(const std::string &what, const LaunchArg &arg) {
    return context.launchArg(what, arg);
  }
  std::string shapeOpName(size_t index) const {
    return context.shapeOpName(index);
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
    size_t mark = bound.mark(), launchedMark = launched.mark();
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
        if (op.kind == ShapeOp::Kind::BufferValues &&
            !launched.has(std::to_string(op.buffer)))
          return fail(shapeOpName(step.index),
                      "reads buffer " + std::to_string(op.buffer) +
                          ", which no launch before it writes " + where);
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
        for (size_t k = 0; k < l.args.size(); ++k) {
          if (!boundView(what + " argument " + std::to_string(k), l.args[k],
                         bound, where))
            return false;
          launched.bind(std::to_string(l.args[k].buffer));
        }
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
    if (index != 0) {
      bound.restore(mark);
      launched.restore(launchedMark);
    }
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


  static constexpr size_t kNoOwner = ~size_t(0);

  CheckContext &context;
  const Artifact &a;
  /// The control op that owns each region (kNoOwner for region 0).
  std::vector<size_t> regionOwner;
  /// Whether scopes() reached each region.
  std::vector<bool> reached;
  /// The buffers (as decimal strings) that a launch reached so far in the
  /// walk takes as an argument: what a BufferValues may read.
  ScopedSymbols launched;
};

} // namespace

bool checkControlFlow(CheckContext &context) {
  return ControlFlowChecks(context).run();
}

} // namespace tessel::format::detail
