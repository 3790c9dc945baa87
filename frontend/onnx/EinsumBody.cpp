//===- EinsumBody.cpp - Einsum as an ONNX body -----------------------------===//
//
// Einsum-12 (ONNX 1.22 specification, numpy's einsum) as a body of
// Transpose, Reshape, ReduceSum and MatMul; see BodyBuilders.h. The
// equation is planned here, for the operands' ranks:
//   1. each operand takes its diagonals (a letter twice: the elements where
//      the two indices agree, a masked sum over the second) and sums the
//      letters no other operand and not the output has;
//   2. the operands contract pairwise from the left: letters both have and
//      a later operand or the output needs are batch dims, letters both
//      have that nothing later needs are contracted, the rest are each
//      side's own. One MatMul of [batch..., own, contracted] by
//      [batch..., contracted, own] per pair;
//   3. the result is transposed into the output's order.
// An ellipsis stands for the same broadcast dims in every operand (right-
// aligned, as numpy does); an operand with fewer gets unit dims.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

/// A dim's label: a letter's character, or kEllipsis + k for broadcast dim
/// k of the ellipsis (k counted in the longest ellipsis).
using Label = int;
constexpr Label kEllipsis = 256;

/// A term of the equation: its labels, in order, and whether it had an
/// ellipsis (and where, as an index into labels before expansion).
struct Term {
  std::vector<Label> labels;
  bool ellipsis = false;
  size_t ellipsisAt = 0;
};

bool parseTerm(const std::string &text, Term &term, std::string &error) {
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '.') {
      if (term.ellipsis || text.compare(i, 3, "...") != 0) {
        error = "the equation's term '" + text +
                "' has a '.' outside one ellipsis";
        return false;
      }
      term.ellipsis = true;
      term.ellipsisAt = term.labels.size();
      i += 2;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(ch))) {
      error = std::string("the equation has the character '") + ch +
              "'; terms are letters and '...'";
      return false;
    }
    term.labels.push_back(Label(ch));
  }
  return true;
}

/// The body's state while planning: the tensors and their labels.
struct Planner {
  onnx::FunctionBuilder &b;
  int fresh = 0;

  std::string name(const std::string &stem) {
    return stem + std::to_string(fresh++);
  }
  /// `x` with the dims at `positions` (ascending) summed away.
  std::string reduce(const std::string &x, std::vector<Label> &labels,
                     const std::vector<int64_t> &positions) {
    if (positions.empty())
      return x;
    std::string axes = name("Axes"), out = name("Sum");
    b.Const(axes, positions);
    text(b, out + " = ReduceSum <keepdims = 0> (" + x + ", " + axes + ")");
    for (auto it = positions.rbegin(); it != positions.rend(); ++it)
      labels.erase(labels.begin() + *it);
    return out;
  }
  /// `x` with its dims in the order of `to` (a permutation of `labels`).
  std::string transpose(const std::string &x, std::vector<Label> &labels,
                        const std::vector<Label> &to) {
    if (labels == to)
      return x;
    std::vector<int64_t> perm;
    for (Label l : to)
      perm.push_back(std::find(labels.begin(), labels.end(), l) -
                     labels.begin());
    std::string out = name("T");
    text(b, out + " = Transpose <perm = " + intList(perm) + "> (" + x + ")");
    labels = to;
    return out;
  }
  /// The product of dims [begin, end) of `x`'s shape, as a 1-element
  /// tensor ([1] when empty).
  std::string extent(const std::string &x, int64_t begin, int64_t end) {
    std::string out = name("E");
    if (begin == end) {
      b.Const(out, std::vector<int64_t>{1});
      return out;
    }
    std::string dims = name("Dims");
    text(b, dims + " = Shape <start = " + std::to_string(begin) +
                ", end = " + std::to_string(end) + "> (" + x + ")\n" + out +
                " = ReduceProd <keepdims = 1> (" + dims + ")");
    return out;
  }
  std::string dims(const std::string &x, int64_t begin, int64_t end) {
    std::string out = name("Dims");
    if (begin == end) {
      b.Const(out, std::vector<int64_t>{});
      return out;
    }
    text(b, out + " = Shape <start = " + std::to_string(begin) + ", end = " +
                std::to_string(end) + "> (" + x + ")");
    return out;
  }
};

bool buildEinsum(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  std::string equation;
  for (char ch : c.attr.s("equation", ""))
    if (!std::isspace(static_cast<unsigned char>(ch)))
      equation += ch;
  size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  std::vector<Term> terms;
  size_t start = 0;
  while (true) {
    size_t comma = lhs.find(',', start);
    Term t;
    if (!parseTerm(lhs.substr(start, comma - start), t, error))
      return false;
    terms.push_back(t);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  int64_t operands = c.node.input_size();
  if (int64_t(terms.size()) != operands) {
    error = "the equation has " + std::to_string(terms.size()) +
            " terms for " + std::to_string(operands) + " inputs";
    return false;
  }
  // Ellipsis dims: each operand's count from its rank; the longest sets
  // the labels, right-aligned.
  int64_t longest = 0;
  std::vector<int64_t> ellipsisDims(operands, 0);
  for (int64_t k = 0; k < operands; ++k) {
    int64_t rank;
    if (!knownRank(c, int(k), rank, error))
      return false;
    int64_t letters = terms[k].labels.size();
    if (terms[k].ellipsis ? rank < letters : rank != letters) {
      error = "input " + std::to_string(k) + " has rank " +
              std::to_string(rank) + " for " + std::to_string(letters) +
              " letters" + (terms[k].ellipsis ? " and an ellipsis" : "");
      return false;
    }
    ellipsisDims[k] = rank - letters;
    longest = std::max(longest, ellipsisDims[k]);
  }
  Planner p{b};
  std::vector<std::string> values;
  std::vector<std::vector<Label>> labels;
  for (int64_t k = 0; k < operands; ++k) {
    const Term &t = terms[k];
    std::vector<Label> l(t.labels.begin(), t.labels.end());
    std::string x = "Inputs" + std::to_string(k); // the variadic formals
    if (t.ellipsis) {
      // Unit dims for the ellipsis dims this operand lacks.
      int64_t missing = longest - ellipsisDims[k];
      if (missing > 0) {
        std::vector<int64_t> axes;
        for (int64_t i = 0; i < missing; ++i)
          axes.push_back(int64_t(t.ellipsisAt) + i);
        std::string ax = p.name("Ax"), out = p.name("U");
        b.Const(ax, axes);
        text(b, out + " = Unsqueeze (" + x + ", " + ax + ")");
        x = out;
      }
      std::vector<Label> e;
      for (int64_t i = 0; i < longest; ++i)
        e.push_back(kEllipsis + Label(i));
      l.insert(l.begin() + t.ellipsisAt, e.begin(), e.end());
    }
    values.push_back(x);
    labels.push_back(l);
  }
  // The output's labels.
  std::vector<Label> output;
  if (arrow != std::string::npos) {
    Term out;
    if (!parseTerm(equation.substr(arrow + 2), out, error))
      return false;
    output = out.labels;
    if (out.ellipsis) {
      std::vector<Label> e;
      for (int64_t i = 0; i < longest; ++i)
        e.push_back(kEllipsis + Label(i));
      output.insert(output.begin() + out.ellipsisAt, e.begin(), e.end());
    } else if (longest > 0) {
      error = std::string(kUnsupportedPrefix) +
              "an ellipsis that the output sums away is not supported";
      return false;
    }
    std::set<Label> seen;
    for (Label l : output) {
      bool known = false;
      for (const auto &ls : labels)
        known |= std::count(ls.begin(), ls.end(), l) > 0;
      if (!known || !seen.insert(l).second) {
        error = "the output's letters must be distinct letters of the inputs";
        return false;
      }
    }
  } else {
    // Implicit: the ellipsis, then the letters used once, sorted.
    std::map<Label, int> uses;
    for (const auto &ls : labels)
      for (Label l : ls)
        ++uses[l];
    for (int64_t i = 0; i < longest; ++i)
      output.push_back(kEllipsis + Label(i));
    for (auto [l, n] : uses)
      if (l < kEllipsis && n == 1)
        output.push_back(l);
  }
  auto needed = [&](Label l, size_t after) {
    if (std::count(output.begin(), output.end(), l))
      return true;
    for (size_t k = after; k < labels.size(); ++k)
      if (std::count(labels[k].begin(), labels[k].end(), l))
        return true;
    return false;
  };
  // 1. Diagonals, and the letters only this operand has.
  b.Const("ZeroF", 0.0f).Const("ZeroI", int64_t(0)).Const("OneI", int64_t(1));
  for (size_t k = 0; k < values.size(); ++k) {
    std::vector<Label> &l = labels[k];
    for (size_t i = 0; i < l.size(); ++i)
      for (size_t j = i + 1; j < l.size(); ++j) {
        if (l[i] != l[j])
          continue;
        // x where index i == index j, summed over j.
        int64_t rank = l.size();
        std::string n = p.name("N"), pos = p.name("Pos"), pi = p.name("Pi"),
                    pj = p.name("Pj"), mask = p.name("Mask"),
                    zero = p.name("Zero"), kept = p.name("Kept");
        std::string ai = p.name("Axi"), aj = p.name("Axj");
        std::vector<int64_t> afterI, afterJ;
        for (int64_t d = 1; d < rank - int64_t(i); ++d)
          afterI.push_back(d);
        for (int64_t d = 1; d < rank - int64_t(j); ++d)
          afterJ.push_back(d);
        text(b, n + "1 = Shape <start = " + std::to_string(j) + ", end = " +
                    std::to_string(j + 1) + "> (" + values[k] + ")\n" + n +
                    " = Squeeze (" + n + "1)\n" + pos +
                    " = Range (ZeroI, " + n + ", OneI)");
        if (afterI.empty())
          text(b, pi + " = Identity (" + pos + ")");
        else
          b.Const(ai, afterI), text(b, pi + " = Unsqueeze (" + pos + ", " +
                                           ai + ")");
        if (afterJ.empty())
          text(b, pj + " = Identity (" + pos + ")");
        else
          b.Const(aj, afterJ), text(b, pj + " = Unsqueeze (" + pos + ", " +
                                           aj + ")");
        text(b, mask + " = Equal (" + pi + ", " + pj + ")\n" + zero +
                    " = CastLike (ZeroF, " + values[k] + ")\n" + kept +
                    " = Where (" + mask + ", " + values[k] + ", " + zero +
                    ")");
        values[k] = p.reduce(kept, l, {int64_t(j)});
        --j;
      }
    std::vector<int64_t> own;
    for (size_t i = 0; i < l.size(); ++i) {
      bool elsewhere = false;
      for (size_t m = 0; m < labels.size(); ++m)
        if (m != k && std::count(labels[m].begin(), labels[m].end(), l[i]))
          elsewhere = true;
      if (!elsewhere && !std::count(output.begin(), output.end(), l[i]))
        own.push_back(int64_t(i));
    }
    values[k] = p.reduce(values[k], l, own);
  }
  // 2. Pairwise contractions from the left.
  std::string acc = values[0];
  std::vector<Label> accLabels = labels[0];
  for (size_t k = 1; k < values.size(); ++k) {
    std::vector<Label> batch, left, contracted, right;
    const std::vector<Label> &other = labels[k];
    for (Label l : accLabels) {
      bool shared = std::count(other.begin(), other.end(), l) > 0;
      if (!shared)
        left.push_back(l);
      else if (needed(l, k + 1))
        batch.push_back(l);
      else
        contracted.push_back(l);
    }
    for (Label l : other)
      if (!std::count(accLabels.begin(), accLabels.end(), l))
        right.push_back(l);
    std::vector<Label> aOrder = batch, bOrder = batch;
    aOrder.insert(aOrder.end(), left.begin(), left.end());
    aOrder.insert(aOrder.end(), contracted.begin(), contracted.end());
    bOrder.insert(bOrder.end(), contracted.begin(), contracted.end());
    bOrder.insert(bOrder.end(), right.begin(), right.end());
    std::vector<Label> bl = other;
    std::string a = p.transpose(acc, accLabels, aOrder);
    std::string bv = p.transpose(values[k], bl, bOrder);
    int64_t nb = batch.size(), nl = left.size(), nc = contracted.size(),
            nr = right.size();
    std::string a3 = p.name("A3"), b3 = p.name("B3"), m = p.name("M"),
                out = p.name("C"), as = p.name("AShape"), bs = p.name("BShape"),
                os = p.name("OShape");
    std::string aBatch = p.dims(a, 0, nb), bBatch = p.dims(bv, 0, nb);
    std::string l = p.extent(a, nb, nb + nl), cA = p.extent(a, nb + nl, nb + nl + nc),
                cB = p.extent(bv, nb, nb + nc), r = p.extent(bv, nb + nc, nb + nc + nr);
    text(b, as + " = Concat <axis = 0> (" + aBatch + ", " + l + ", " + cA +
                ")\n" + bs + " = Concat <axis = 0> (" + bBatch + ", " + cB +
                ", " + r + ")\n" + a3 + " = Reshape (" + a + ", " + as + ")\n" +
                b3 + " = Reshape (" + bv + ", " + bs + ")\n" + m +
                " = MatMul (" + a3 + ", " + b3 + ")");
    std::string mBatch = p.dims(m, 0, nb), lDims = p.dims(a, nb, nb + nl),
                rDims = p.dims(bv, nb + nc, nb + nc + nr);
    text(b, os + " = Concat <axis = 0> (" + mBatch + ", " + lDims + ", " +
                rDims + ")\n" + out + " = Reshape (" + m + ", " + os + ")");
    acc = out;
    accLabels = batch;
    accLabels.insert(accLabels.end(), left.begin(), left.end());
    accLabels.insert(accLabels.end(), right.begin(), right.end());
  }
  // 3. The output's order.
  std::string result = p.transpose(acc, accLabels, output);
  text(b, "Output = Identity (" + result + ")");
  return true;
}

} // namespace

void bodies::addEinsumBody(std::vector<NewerOp> &ops) {
  ops.push_back({"Einsum", 12, 0, {}, {"Output"}, buildEinsum});
}
