//===- RecurrentBodies.cpp - RNN, GRU and LSTM as ONNX bodies --------------===//
//
// The recurrent layers as bodies (ONNX 1.22 specification, see
// BodyBuilders.h): per direction, the input projection of every time step
// is one MatMul before the recurrence (X [S, B, I] x W^T, with the biases
// that do not depend on the state), and the recurrence is a Scan over the
// time steps whose state is H (and C) and whose body is the cell's
// equations with the op's activations. A reverse direction scans
// backwards (scan_input_directions and scan_output_directions 1);
// bidirectional concatenates the two. sequence_lens masks the steps at or
// past a batch entry's length: its state stays, its output is 0 (ONNX
// Runtime's semantics; reverse runs over the valid steps backwards).
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iterator>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

/// The cell of each op.
enum class Cell { Rnn, Gru, Lstm };

/// An activation of the op's list with its alpha and beta.
struct Activation {
  std::string name; // lower case
  float alpha = 0, beta = 0;
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char ch) { return char(std::tolower(ch)); });
  return s;
}

/// The activations (one list per direction, `perDirection` each):
/// the attribute, or the op's defaults. Alphas and betas are consumed in
/// order by the functions that take them; a function without its value
/// there takes its ONNX operator's default.
bool activations(const Call &c, const std::vector<std::string> &defaults,
                 int64_t directions, std::vector<Activation> &out,
                 std::string &error) {
  std::vector<std::string> names;
  if (const onnx::AttributeProto *a = c.attr.find("activations")) {
    for (const std::string &s : a->strings())
      names.push_back(s);
  } else {
    for (int64_t d = 0; d < directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  }
  if (int64_t(names.size()) != int64_t(defaults.size()) * directions) {
    error = "activations lists " + std::to_string(names.size()) +
            " functions; the op takes " + std::to_string(defaults.size()) +
            " per direction (" + std::to_string(directions) + ")";
    return false;
  }
  std::vector<float> alphas, betas;
  if (const onnx::AttributeProto *a = c.attr.find("activation_alpha"))
    alphas.assign(a->floats().begin(), a->floats().end());
  if (const onnx::AttributeProto *a = c.attr.find("activation_beta"))
    betas.assign(a->floats().begin(), a->floats().end());
  size_t nextAlpha = 0, nextBeta = 0;
  for (const std::string &name : names) {
    Activation act{lower(name)};
    // The ONNX operator defaults of those that take alpha (and beta).
    std::optional<float> alpha, beta;
    if (act.name == "leakyrelu")
      alpha = 0.01f;
    else if (act.name == "thresholdedrelu" || act.name == "elu")
      alpha = 1.0f;
    else if (act.name == "hardsigmoid")
      alpha = 0.2f, beta = 0.5f;
    else if (act.name == "affine" || act.name == "scaledtanh")
      alpha = 1.0f, beta = act.name == "affine" ? 0.0f : 1.0f;
    else if (act.name != "relu" && act.name != "tanh" &&
             act.name != "sigmoid" && act.name != "softsign" &&
             act.name != "softplus") {
      error = "activation '" + name + "' is not one of ONNX's recurrent "
              "activations (Relu, Tanh, Sigmoid, Affine, LeakyRelu, "
              "ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, "
              "Softplus)";
      return false;
    }
    if (alpha)
      act.alpha = nextAlpha < alphas.size() ? alphas[nextAlpha++] : *alpha;
    if (beta)
      act.beta = nextBeta < betas.size() ? betas[nextBeta++] : *beta;
    out.push_back(act);
  }
  return true;
}

/// `v` as an ONNX text float literal (a '.' or an exponent, so that it
/// does not read as an integer), exact for a float.
std::string floatText(float v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", double(v));
  std::string s = buffer;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

/// ONNX text that sets `out` = act(`in`) (constants of `in`'s type by
/// CastLike).
std::string applyActivation(const Activation &a, const std::string &out,
                            const std::string &in) {
  std::string al = floatText(a.alpha), be = floatText(a.beta);
  if (a.name == "relu")
    return out + " = Relu (" + in + ")\n";
  if (a.name == "tanh")
    return out + " = Tanh (" + in + ")\n";
  if (a.name == "sigmoid")
    return out + " = Sigmoid (" + in + ")\n";
  if (a.name == "leakyrelu")
    return out + " = LeakyRelu <alpha = " + al + "> (" + in + ")\n";
  if (a.name == "thresholdedrelu")
    return out + " = ThresholdedRelu <alpha = " + al + "> (" + in + ")\n";
  if (a.name == "elu")
    return out + " = Elu <alpha = " + al + "> (" + in + ")\n";
  if (a.name == "hardsigmoid")
    return out + " = HardSigmoid <alpha = " + al + ", beta = " + be + "> (" +
           in + ")\n";
  if (a.name == "softsign")
    return out + " = Softsign (" + in + ")\n";
  if (a.name == "softplus")
    return out + " = Softplus (" + in + ")\n";
  // alpha * x + beta; alpha * tanh(beta * x).
  std::string alpha = out + "Alpha", beta = out + "Beta";
  std::string consts =
      alpha + "F = Constant <value_float = " + al + "> ()\n" + beta +
      "F = Constant <value_float = " + be + "> ()\n" + alpha + " = CastLike (" +
      alpha + "F, " + in + ")\n" + beta + " = CastLike (" + beta + "F, " + in +
      ")\n";
  if (a.name == "affine")
    return consts + out + "Scaled = Mul (" + in + ", " + alpha + ")\n" + out +
           " = Add (" + out + "Scaled, " + beta + ")\n";
  return consts + out + "Inner = Mul (" + in + ", " + beta + ")\n" + out +
         "Tanh = Tanh (" + out + "Inner)\n" + out + " = Mul (" + out +
         "Tanh, " + alpha + ")\n";
}

/// The ONNX text name of a float element type.
std::optional<std::string> floatTypeName(int64_t type) {
  switch (type) {
  case onnx::TensorProto::FLOAT:
    return "float";
  case onnx::TensorProto::FLOAT16:
    return "float16";
  case onnx::TensorProto::DOUBLE:
    return "double";
  case onnx::TensorProto::BFLOAT16:
    return "bfloat16";
  default:
    return std::nullopt;
  }
}

/// `out` = `in` clipped to [-clip, clip] when the op has a clip, as text.
std::string clipped(const Call &c, const std::string &out,
                    const std::string &in) {
  if (!c.attr.has("clip"))
    return out + " = Identity (" + in + ")\n";
  return out + " = Clip (" + in + ", NegClip, PosClip)\n";
}

bool buildRecurrent(const Call &c, onnx::FunctionBuilder &b,
                    std::string &error, Cell cell) {
  int64_t xRank = c.rank(0);
  if (xRank != 3 || c.rank(1) != 3 || c.rank(2) != 3) {
    error = "X, W and R must have rank 3";
    return false;
  }
  std::optional<std::string> elem = floatTypeName(c.elementType(0));
  if (!elem) {
    error = "X must be float16, bfloat16, float or double";
    return false;
  }
  std::string direction = c.attr.s("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional") {
    error = "direction '" + direction +
            "' is not forward, reverse or bidirectional";
    return false;
  }
  int64_t directions = direction == "bidirectional" ? 2 : 1;
  int64_t layout = c.opset >= 14 ? c.attr.i("layout", 0) : 0;
  if (layout != 0 && layout != 1) {
    error = "layout must be 0 or 1";
    return false;
  }
  std::vector<std::string> defaults =
      cell == Cell::Rnn   ? std::vector<std::string>{"Tanh"}
      : cell == Cell::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                          : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  std::vector<Activation> acts;
  if (!activations(c, defaults, directions, acts, error))
    return false;
  bool inputForget = cell == Cell::Lstm && c.attr.i("input_forget", 0) != 0;
  bool linearBeforeReset =
      cell == Cell::Gru && c.attr.i("linear_before_reset", 0) != 0;
  bool hasBias = c.hasInput(3), hasLens = c.hasInput(4),
       hasH0 = c.hasInput(5), hasC0 = cell == Cell::Lstm && c.hasInput(6),
       hasPeepholes = cell == Cell::Lstm && c.hasInput(7);
  if (int64_t h = c.attr.i("hidden_size", -1);
      h >= 0 && c.extent(2, 2) >= 0 && c.extent(2, 2) != h) {
    error = "hidden_size " + std::to_string(h) + " does not match R's last dim " +
            std::to_string(c.extent(2, 2));
    return false;
  }

  // Time-major X: [S, B, I].
  b.Const("Perm102", std::vector<int64_t>{1, 0, 2})
      .Const("Axis0", std::vector<int64_t>{0})
      .Const("Axis1", std::vector<int64_t>{1})
      .Const("ZeroF", 0.0f)
      .Const("OneF", 1.0f)
      .Const("ZeroI", int64_t(0))
      .Const("OneI", int64_t(1))
      .Const("MinusOneI", int64_t(-1));
  text(b, layout ? "XS = Transpose <perm = [1, 0, 2]> (X)"
                 : "XS = Identity (X)");
  text(b, R"(
    S1 = Shape <start = 0, end = 1> (XS)
    B1 = Shape <start = 1, end = 2> (XS)
    H1 = Shape <start = 2, end = 3> (R)
    StateShape = Concat <axis = 0> (B1, H1)
    ZerosF = ConstantOfShape (StateShape)
    Zeros = CastLike (ZerosF, X)
    ZeroX = CastLike (ZeroF, X)
    OneX = CastLike (OneF, X)
    S = Squeeze (S1)
    LastStep = Sub (S, OneI)
  )");
  if (c.attr.has("clip")) {
    float clip = c.attr.f("clip", 0);
    b.Const("ClipF", clip).Const("NegClipF", -clip);
    b.Add("PosClip = CastLike (ClipF, X)\nNegClip = CastLike (NegClipF, X)");
  }
  if (hasH0)
    text(b, layout ? "H0All = Transpose <perm = [1, 0, 2]> (initial_h)"
                   : "H0All = Identity (initial_h)");
  if (hasC0)
    text(b, layout ? "C0All = Transpose <perm = [1, 0, 2]> (initial_c)"
                   : "C0All = Identity (initial_c)");
  if (hasLens)
    b.Add("Lens = Cast <to = 7> (sequence_lens)");

  std::vector<std::string> ys, hs, cs;
  for (int64_t d = 0; d < directions; ++d) {
    std::string s = std::to_string(d);
    bool reverse = direction == "reverse" || d == 1;
    b.Const("D" + s, int64_t(d));
    // Weights of this direction; R^T split where the cell needs parts.
    text(b, "W" + s + " = Gather <axis = 0> (W, D" + s + ")\nWT" + s +
                " = Transpose (W" + s + ")\nR" + s +
                " = Gather <axis = 0> (R, D" + s + ")\nXW" + s +
                "Raw = MatMul (XS, WT" + s + ")");
    if (cell == Cell::Gru) {
      text(b, "Rz" + s + ", Rr" + s + ", Rh" + s +
                  " = Split <axis = 0, num_outputs = 3> (R" + s + ")\nRzr" +
                  s + " = Concat <axis = 0> (Rz" + s + ", Rr" + s + ")\nRzrT" +
                  s + " = Transpose (Rzr" + s + ")\nRhT" + s +
                  " = Transpose (Rh" + s + ")");
    } else {
      text(b, "RT" + s + " = Transpose (R" + s + ")");
    }
    // The biases the state does not multiply go into the projection.
    if (hasBias) {
      text(b, "Bd" + s + " = Gather <axis = 0> (B, D" + s + ")\nWb" + s +
                  ", Rb" + s + " = Split <axis = 0, num_outputs = 2> (Bd" + s +
                  ")");
      if (cell == Cell::Gru) {
        // Rbh stays inside the step (it is reset or multiplied there).
        text(b, "Rbz" + s + ", Rbr" + s + ", Rbh" + s +
                    " = Split <axis = 0, num_outputs = 3> (Rb" + s +
                    ")\nZeroH" + s + " = Sub (Rbh" + s + ", Rbh" + s +
                    ")\nRbzr" + s + " = Concat <axis = 0> (Rbz" + s + ", Rbr" +
                    s + ", ZeroH" + s + ")\nBias" + s +
                    " = Add (Wb" + s + ", Rbzr" + s + ")");
      } else {
        text(b, "Bias" + s + " = Add (Wb" + s + ", Rb" + s + ")");
      }
      text(b, "XW" + s + " = Add (XW" + s + "Raw, Bias" + s + ")");
    } else {
      text(b, "XW" + s + " = Identity (XW" + s + "Raw)");
      if (cell == Cell::Gru)
        text(b, "Rbh" + s + " = Sub (ZeroX, ZeroX)");
    }
    if (hasPeepholes)
      text(b, "P" + s + " = Gather <axis = 0> (P, D" + s + ")\nPi" + s +
                  ", Po" + s + ", Pf" + s +
                  " = Split <axis = 0, num_outputs = 3> (P" + s + ")");
    text(b, hasH0 ? "H0_" + s + " = Gather <axis = 0> (H0All, D" + s + ")"
                  : "H0_" + s + " = Identity (Zeros)");
    if (cell == Cell::Lstm)
      text(b, hasC0 ? "C0_" + s + " = Gather <axis = 0> (C0All, D" + s + ")"
                    : "C0_" + s + " = Identity (Zeros)");
    if (hasLens)
      text(b, reverse ? "T0_" + s + " = Identity (LastStep)"
                      : "T0_" + s + " = Identity (ZeroI)");

    // The step: state (h, c, t), scan input xw [B, gates * H].
    const Activation *act = &acts[d * defaults.size()];
    std::string e = *elem;
    std::string params = e + " h", results = e + " h_out";
    if (cell == Cell::Lstm)
      params += ", " + e + " c", results += ", " + e + " c_out";
    if (hasLens)
      params += ", int64 t", results += ", int64 t_out";
    params += ", " + e + " xw";
    results += ", " + e + " y";
    std::string step;
    if (cell == Cell::Rnn) {
      step = "hr = MatMul (h, RT" + s + ")\npre = Add (xw, hr)\n" +
             clipped(c, "prec", "pre") + applyActivation(act[0], "hn", "prec");
    } else if (cell == Cell::Gru) {
      step = "hzr = MatMul (h, RzrT" + s + ")\n"
             "xz, xr, xh = Split <axis = -1, num_outputs = 3> (xw)\n"
             "hz, hr = Split <axis = -1, num_outputs = 2> (hzr)\n"
             "prez = Add (xz, hz)\nprer = Add (xr, hr)\n" +
             clipped(c, "prezc", "prez") + clipped(c, "prerc", "prer") +
             applyActivation(act[0], "z", "prezc") +
             applyActivation(act[0], "r", "prerc");
      if (linearBeforeReset)
        step += "hh0 = MatMul (h, RhT" + s + ")\nhh1 = Add (hh0, Rbh" + s +
                ")\nhh = Mul (r, hh1)\n";
      else
        step += "rh = Mul (r, h)\nhh0 = MatMul (rh, RhT" + s +
                ")\nhh = Add (hh0, Rbh" + s + ")\n";
      step += "preh = Add (xh, hh)\n" + clipped(c, "prehc", "preh") +
              applyActivation(act[1], "ht", "prehc") +
              "zc = Sub (OneX, z)\nkeep = Mul (z, h)\nnew = Mul (zc, ht)\n"
              "hn = Add (new, keep)\n";
    } else {
      step = "hr = MatMul (h, RT" + s + ")\ngsum = Add (xw, hr)\n"
             "gi, go, gf, gc = Split <axis = -1, num_outputs = 4> (gsum)\n";
      if (hasPeepholes)
        step += "pic = Mul (Pi" + s + ", c)\ngip = Add (gi, pic)\n"
                "pfc = Mul (Pf" + s + ", c)\ngfp = Add (gf, pfc)\n";
      else
        step += "gip = Identity (gi)\ngfp = Identity (gf)\n";
      step += clipped(c, "gic", "gip") + applyActivation(act[0], "i", "gic");
      if (inputForget)
        step += "f = Sub (OneX, i)\n";
      else
        step += clipped(c, "gfc", "gfp") + applyActivation(act[0], "f", "gfc");
      step += clipped(c, "gcc", "gc") + applyActivation(act[1], "ct", "gcc") +
              "fc = Mul (f, c)\nic = Mul (i, ct)\ncn = Add (fc, ic)\n";
      if (hasPeepholes)
        step += "poc = Mul (Po" + s + ", cn)\ngop = Add (go, poc)\n";
      else
        step += "gop = Identity (go)\n";
      step += clipped(c, "goc", "gop") + applyActivation(act[0], "o", "goc") +
              applyActivation(act[2], "hc", "cn") + "hn = Mul (o, hc)\n";
    }
    if (hasLens) {
      step += std::string("active = Less (t, Lens)\n"
                          "activeu = Unsqueeze (active, Axis1)\n"
                          "h_out = Where (activeu, hn, h)\n"
                          "y = Where (activeu, hn, ZeroX)\n") +
              (cell == Cell::Lstm ? "c_out = Where (activeu, cn, c)\n" : "") +
              "t_out = Add (t, " + (reverse ? "MinusOneI" : "OneI") + ")\n";
    } else {
      step += std::string("h_out = Identity (hn)\ny = Identity (hn)\n") +
              (cell == Cell::Lstm ? "c_out = Identity (cn)\n" : "");
    }
    std::string states = "H0_" + s;
    std::string outs = "HN" + s;
    if (cell == Cell::Lstm)
      states += ", C0_" + s, outs += ", CN" + s;
    if (hasLens)
      states += ", T0_" + s, outs += ", TN" + s;
    std::string dirs = reverse ? "[1]" : "[0]";
    text(b, outs + ", YS" + s + " = Scan <body = step" + s + " (" + params +
                ") => (" + results + ") {\n" + step +
                "}, num_scan_inputs = 1, scan_input_directions = " + dirs +
                ", scan_output_directions = " + dirs + "> (" + states +
                ", XW" + s + ")");
    text(b, "YD" + s + " = Unsqueeze (YS" + s + ", Axis1)\nHD" + s +
                " = Unsqueeze (HN" + s + ", Axis0)");
    ys.push_back("YD" + s);
    hs.push_back("HD" + s);
    if (cell == Cell::Lstm) {
      text(b, "CD" + s + " = Unsqueeze (CN" + s + ", Axis0)");
      cs.push_back("CD" + s);
    }
  }
  auto joined = [](const std::vector<std::string> &parts) {
    std::string s;
    for (const std::string &p : parts)
      s += (s.empty() ? "" : ", ") + p;
    return s;
  };
  text(b, "YT = Concat <axis = 1> (" + joined(ys) + ")\nHT = Concat <axis = 0> (" +
              joined(hs) + ")");
  if (layout)
    text(b, "Y = Transpose <perm = [2, 0, 1, 3]> (YT)\n"
            "Y_h = Transpose <perm = [1, 0, 2]> (HT)");
  else
    text(b, "Y = Identity (YT)\nY_h = Identity (HT)");
  if (cell == Cell::Lstm) {
    text(b, "CT = Concat <axis = 0> (" + joined(cs) + ")");
    text(b, layout ? "Y_c = Transpose <perm = [1, 0, 2]> (CT)"
                   : "Y_c = Identity (CT)");
  }
  return true;
}

bool buildRNN(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  return buildRecurrent(c, b, error, Cell::Rnn);
}
bool buildGRU(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  return buildRecurrent(c, b, error, Cell::Gru);
}
bool buildLSTM(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  return buildRecurrent(c, b, error, Cell::Lstm);
}

} // namespace

void bodies::addRecurrentBodies(std::vector<NewerOp> &ops) {
  const NewerOp table[] = {
      {"RNN",
       7,
       0,
       {"X", "W", "R", "B", "sequence_lens", "initial_h"},
       {"Y", "Y_h"},
       buildRNN},
      {"GRU",
       7,
       0,
       {"X", "W", "R", "B", "sequence_lens", "initial_h"},
       {"Y", "Y_h"},
       buildGRU},
      {"LSTM",
       7,
       0,
       {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"},
       {"Y", "Y_h", "Y_c"},
       buildLSTM},
  };
  ops.insert(ops.end(), std::begin(table), std::end(table));
}
