//===- DomainBodies.cpp - Ops of ai.onnx.preview.training and ai.onnx.ml ---===//
//
// Ops of ONNX's other domains whose meaning is a few default-domain ops,
// as bodies (ONNX 1.22 specification and reference; see BodyBuilders.h):
// the optimizers of ai.onnx.preview.training (Adagrad, Momentum, Adam: one
// update step of each tensor they are given, elementwise) and the simplest
// of ai.onnx.ml (Binarizer, ArrayFeatureExtractor).
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <cstdio>
#include <iterator>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

constexpr const char *kTraining = "ai.onnx.preview.training";
constexpr const char *kMl = "ai.onnx.ml";

std::string in(int64_t i) { return "Inputs" + std::to_string(i); }
std::string out(int64_t i) { return "Outputs" + std::to_string(i); }

/// The number of tensors an optimizer updates: (inputs - 2) / `per`, each
/// with its outputs; or an error.
bool optimizedTensors(const Call &c, int64_t per, int64_t outputsPer,
                      int64_t &n, std::string &error) {
  int64_t inputs = c.node.input_size();
  n = (inputs - 2) / per;
  if (inputs < 2 + per || (inputs - 2) % per != 0 ||
      c.node.output_size() != n * outputsPer) {
    error = "takes R, T and " + std::to_string(per) +
            " tensors per optimized tensor, and gives " +
            std::to_string(outputsPer) + " outputs per optimized tensor";
    return false;
  }
  return true;
}

/// A float attribute as a constant `name` of X's type (CastLike `like`).
void floatConstant(const Call &c, onnx::FunctionBuilder &b,
                   const std::string &name, const char *attr, float fallback,
                   const std::string &like) {
  b.Const(name + "F", c.attr.f(attr, fallback));
  text(b, name + " = CastLike (" + name + "F, " + like + ")");
}

bool requireAttributes(const Call &c, std::initializer_list<const char *> names,
                       std::string &error) {
  for (const char *name : names)
    if (!c.attr.has(name)) {
      error = std::string("needs the attribute ") + name;
      return false;
    }
  return true;
}

// Adagrad: r = R / (1 + T decay_factor); per tensor,
// G' = norm_coefficient X + G, H' = H + G'^2, X' = X - r G' / (sqrt(H') + epsilon).
bool buildAdagrad(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t n;
  if (!optimizedTensors(c, 3, 2, n, error))
    return false;
  std::string x0 = in(2);
  floatConstant(c, b, "Decay", "decay_factor", 0, x0);
  floatConstant(c, b, "Eps", "epsilon", 0, x0);
  floatConstant(c, b, "Norm", "norm_coefficient", 0, x0);
  b.Const("OneF", 1.0f);
  text(b, "Rx = CastLike (Inputs0, " + x0 + ")\nTx = CastLike (Inputs1, " + x0 +
              ")\nOne = CastLike (OneF, " + x0 + R"()
    TDecay = Mul (Tx, Decay)
    Denom = Add (One, TDecay)
    Rate = Div (Rx, Denom)
  )");
  for (int64_t i = 0; i < n; ++i) {
    std::string s = std::to_string(i), x = in(2 + i), g = in(2 + n + i),
                h = in(2 + 2 * n + i);
    text(b, "NX" + s + " = Mul (Norm, " + x + ")\nGr" + s + " = Add (NX" + s +
                ", " + g + ")\nG2" + s + " = Mul (Gr" + s + ", Gr" + s + ")\n" +
                out(n + i) + " = Add (" + h + ", G2" + s + ")\nHs" + s +
                " = Sqrt (" + out(n + i) + ")\nHe" + s + " = Add (Hs" + s +
                ", Eps)\nStep" + s + " = Mul (Rate, Gr" + s + ")\nDelta" + s +
                " = Div (Step" + s + ", He" + s + ")\n" + out(i) + " = Sub (" +
                x + ", Delta" + s + ")");
  }
  return true;
}

// Momentum: per tensor, G' = norm_coefficient X + G,
// V' = alpha V + beta' G' (beta' = beta when T > 0, else 1); standard:
// X' = X - R V'; nesterov: X' = X - R (G' + alpha V').
bool buildMomentum(const Call &c, onnx::FunctionBuilder &b,
                   std::string &error) {
  int64_t n;
  if (!optimizedTensors(c, 3, 2, n, error) ||
      !requireAttributes(c, {"alpha", "beta", "mode", "norm_coefficient"},
                         error))
    return false;
  std::string mode = c.attr.s("mode", "");
  if (mode != "standard" && mode != "nesterov") {
    error = "mode '" + mode + "' is not standard or nesterov";
    return false;
  }
  std::string x0 = in(2);
  floatConstant(c, b, "Alpha", "alpha", 0, x0);
  floatConstant(c, b, "Beta", "beta", 0, x0);
  floatConstant(c, b, "Norm", "norm_coefficient", 0, x0);
  b.Const("OneF", 1.0f).Const("ZeroT", int64_t(0));
  text(b, "Rx = CastLike (Inputs0, " + x0 + ")\nOne = CastLike (OneF, " + x0 +
              R"()
    TI = Cast <to = 7> (Inputs1)
    Started = Greater (TI, ZeroT)
    BetaT = Where (Started, Beta, One)
  )");
  for (int64_t i = 0; i < n; ++i) {
    std::string s = std::to_string(i), x = in(2 + i), g = in(2 + n + i),
                v = in(2 + 2 * n + i);
    text(b, "NX" + s + " = Mul (Norm, " + x + ")\nGr" + s + " = Add (NX" + s +
                ", " + g + ")\nAV" + s + " = Mul (Alpha, " + v + ")\nBG" + s +
                " = Mul (BetaT, Gr" + s + ")\n" + out(n + i) + " = Add (AV" +
                s + ", BG" + s + ")");
    if (mode == "standard")
      text(b, "Dir" + s + " = Identity (" + out(n + i) + ")");
    else
      text(b, "AVn" + s + " = Mul (Alpha, " + out(n + i) + ")\nDir" + s +
                  " = Add (Gr" + s + ", AVn" + s + ")");
    text(b, "Step" + s + " = Mul (Rx, Dir" + s + ")\n" + out(i) + " = Sub (" +
                x + ", Step" + s + ")");
  }
  return true;
}

// Adam: per tensor, G' = norm_coefficient X + G, V' = alpha V +
// (1 - alpha) G', H' = beta H + (1 - beta) G'^2, r = R sqrt(1 - beta^T) /
// (1 - alpha^T) when T > 0 (else R), X' = (1 - norm_coefficient_post)
// (X - r V' / (sqrt(H') + epsilon)).
bool buildAdam(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t n;
  if (!optimizedTensors(c, 4, 3, n, error))
    return false;
  std::string x0 = in(2);
  floatConstant(c, b, "Alpha", "alpha", 0.9f, x0);
  floatConstant(c, b, "Beta", "beta", 0.999f, x0);
  floatConstant(c, b, "Eps", "epsilon", 0, x0);
  floatConstant(c, b, "Norm", "norm_coefficient", 0, x0);
  floatConstant(c, b, "Post", "norm_coefficient_post", 0, x0);
  b.Const("OneF", 1.0f).Const("ZeroT", int64_t(0));
  text(b, "Rx = CastLike (Inputs0, " + x0 + ")\nTx = CastLike (Inputs1, " + x0 +
              ")\nOne = CastLike (OneF, " + x0 + R"()
    TI = Cast <to = 7> (Inputs1)
    Started = Greater (TI, ZeroT)
    BetaPow = Pow (Beta, Tx)
    AlphaPow = Pow (Alpha, Tx)
    BetaLeft = Sub (One, BetaPow)
    AlphaLeft = Sub (One, AlphaPow)
    BetaRoot = Sqrt (BetaLeft)
    RB = Mul (Rx, BetaRoot)
    RAdjusted = Div (RB, AlphaLeft)
    Rate = Where (Started, RAdjusted, Rx)
    OneMinusAlpha = Sub (One, Alpha)
    OneMinusBeta = Sub (One, Beta)
    Keep = Sub (One, Post)
  )");
  for (int64_t i = 0; i < n; ++i) {
    std::string s = std::to_string(i), x = in(2 + i), g = in(2 + n + i),
                v = in(2 + 2 * n + i), h = in(2 + 3 * n + i);
    text(b, "NX" + s + " = Mul (Norm, " + x + ")\nGr" + s + " = Add (NX" + s +
                ", " + g + ")\nAV" + s + " = Mul (Alpha, " + v + ")\nAG" + s +
                " = Mul (OneMinusAlpha, Gr" + s + ")\n" + out(n + i) +
                " = Add (AV" + s + ", AG" + s + ")\nBH" + s + " = Mul (Beta, " +
                h + ")\nG2" + s + " = Mul (Gr" + s + ", Gr" + s + ")\nBG" + s +
                " = Mul (OneMinusBeta, G2" + s + ")\n" + out(2 * n + i) +
                " = Add (BH" + s + ", BG" + s + ")\nHs" + s + " = Sqrt (" +
                out(2 * n + i) + ")\nHe" + s + " = Add (Hs" + s +
                ", Eps)\nRatio" + s + " = Div (" + out(n + i) + ", He" + s +
                ")\nStep" + s + " = Mul (Rate, Ratio" + s + ")\nXn" + s +
                " = Sub (" + x + ", Step" + s + ")\n" + out(i) +
                " = Mul (Keep, Xn" + s + ")");
  }
  return true;
}

// Binarizer (ai.onnx.ml 1): 1 where X > threshold, else 0, in X's type.
bool buildBinarizer(const Call &c, onnx::FunctionBuilder &b, std::string &) {
  b.Const("ThresholdF", c.attr.f("threshold", 0));
  b.Add(R"(
    Threshold = CastLike (ThresholdF, X)
    Above = Greater (X, Threshold)
    Y = CastLike (Above, X)
  )");
  return true;
}

// ArrayFeatureExtractor (ai.onnx.ml 1): X's elements at the indices along
// the last axis: [..., number of indices] (a 1-D X gives [1, k], as ONNX
// Runtime and ONNX's reference do).
bool buildArrayFeatureExtractor(const Call &c, onnx::FunctionBuilder &b,
                                std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  if (rank == 0) {
    error = "X must have rank >= 1";
    return false;
  }
  b.Const("Flat", std::vector<int64_t>{-1});
  text(b, "Index = Reshape (Y, Flat)\nPicked = Gather <axis = " +
              std::to_string(rank - 1) + "> (X, Index)");
  if (rank == 1) {
    b.Const("Row", std::vector<int64_t>{1, -1});
    b.Add("Z = Reshape (Picked, Row)");
  } else {
    b.Add("Z = Identity (Picked)");
  }
  return true;
}

} // namespace

void bodies::addDomainBodies(std::vector<NewerOp> &ops) {
  const NewerOp table[] = {
      {"Adagrad", 1, 0, {}, {}, buildAdagrad, kTraining},
      {"Momentum", 1, 0, {}, {}, buildMomentum, kTraining},
      {"Adam", 1, 0, {}, {}, buildAdam, kTraining},
      {"Binarizer", 1, 0, {"X"}, {"Y"}, buildBinarizer, kMl},
      {"ArrayFeatureExtractor",
       1,
       0,
       {"X", "Y"},
       {"Z"},
       buildArrayFeatureExtractor,
       kMl},
  };
  ops.insert(ops.end(), std::begin(table), std::end(table));
}
