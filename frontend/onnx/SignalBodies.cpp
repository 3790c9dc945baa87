//===- SignalBodies.cpp - DFT, STFT and MelWeightMatrix as ONNX bodies -----===//
//
// The signal ops (ONNX 1.22 specification and reference, numpy's fft) as
// bodies; see BodyBuilders.h. A DFT along one axis is a product with the
// cosine and sine matrices of the transform: for input index j and output
// index k, theta = 2 pi ((j k) mod N) / N (the integer phase keeps the
// angle exact for long transforms; quarter turns take their exact sine and
// cosine), real and imaginary parts combined as
// the complex product prescribes. The signal is folded to
// [outer, n, inner, c] around the axis (which may be an input known only at
// run time), so one MatMul per part transforms every line. O(n K) per line
// where an FFT is O(n log n): a fused FFT kernel is issue 23's.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <cmath>
#include <iterator>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

// DFT-17 (axis attribute, default 1) and DFT-20 (axis input, default -2):
// forward, inverse (scaled 1/N), onesided forward (the first N/2 + 1
// outputs) and onesided inverse (numpy's irfft: the half spectrum of
// N/2 + 1 entries extended by Hermitian symmetry, a real result).
// dft_length N truncates or zero-pads the input (defaults: n, or 2 (n - 1)
// for irfft).
bool buildDFT(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  int64_t rank;
  if (!knownRank(c, 0, rank, error))
    return false;
  int64_t parts = c.extent(0, rank - 1);
  if (rank < 2 || (parts != 1 && parts != 2)) {
    error = "the input must have rank >= 2 and a last dim of 1 (real) or 2 "
            "(complex)";
    return false;
  }
  if (!isFloat(c.elementType(0))) {
    error = "the input must be float16, bfloat16, float or double";
    return false;
  }
  bool inverse = c.attr.i("inverse", 0) != 0,
       onesided = c.attr.i("onesided", 0) != 0;
  bool irfft = inverse && onesided;
  b.Const("ZeroI", int64_t(0)).Const("OneI", int64_t(1))
      .Const("TwoI", int64_t(2)).Const("OneV", std::vector<int64_t>{1})
      .Const("PartsV", std::vector<int64_t>{parts})
      .Const("Part0", int64_t(0)).Const("Part1", int64_t(1))
      .Const("LastAxis", std::vector<int64_t>{-1})
      .Const("Axis1", std::vector<int64_t>{1})
      .Const("Axis0", std::vector<int64_t>{0})
      .Const("TwoPiD", 6.283185307179586);
  // The axis: a constant (attribute, or a constant input), or a value.
  std::optional<int64_t> axis;
  if (c.opset < 20) {
    axis = c.attr.i("axis", 1);
  } else if (!c.hasInput(2)) {
    axis = -2;
  } else if (std::optional<std::vector<int64_t>> v = c.constantInts(2)) {
    if (v->size() != 1) {
      error = "axis must be a scalar";
      return false;
    }
    axis = (*v)[0];
  }
  if (axis) {
    if (*axis < -rank || *axis >= rank || (*axis + rank) % rank == rank - 1) {
      error = "axis " + std::to_string(*axis) + " must be in [" +
              std::to_string(-rank) + ", " + std::to_string(rank - 1) +
              ") and not the last (complex) dim";
      return false;
    }
    b.Const("Axis", int64_t((*axis + rank) % rank));
  } else {
    b.Const("RankI", int64_t(rank));
    b.Add(R"(
      AxisGiven = Cast <to = 7> (axis)
      AxisS = Squeeze (AxisGiven)
      AxisNeg = Less (AxisS, ZeroI)
      AxisWrapped = Add (AxisS, RankI)
      Axis = Where (AxisNeg, AxisWrapped, AxisS)
    )");
  }
  // [outer, n, inner, c] around the axis.
  text(b, "SigShape = Shape <start = 0, end = " + std::to_string(rank - 1) +
              "> (input)");
  foldAroundAxis(b, "F", "SigShape", rank - 1, "Axis");
  b.Add(R"(
    Folded = Concat <axis = 0> (FOuter, FN, FInner, PartsV)
    X4 = Reshape (input, Folded)
    XT = Transpose <perm = [0, 2, 3, 1]> (X4)
    XrX = Gather <axis = 2> (XT, Part0)
    Xr = Cast <to = 11> (XrX)
    n = Squeeze (FN)
  )");
  if (parts == 2)
    b.Add("XiX = Gather <axis = 2> (XT, Part1)\nXi = Cast <to = 11> (XiX)");
  // N, the output length K and the input entries that count (L).
  if (c.hasInput(1))
    b.Add("NGiven = Cast <to = 7> (dft_length)\nNfft = Squeeze (NGiven)");
  else if (irfft)
    b.Add("NLess = Sub (n, OneI)\nNfft = Mul (NLess, TwoI)");
  else
    b.Add("Nfft = Identity (n)");
  b.Add("Half = Div (Nfft, TwoI)\nHalfPlus = Add (Half, OneI)");
  if (onesided && !inverse)
    b.Add("K = Identity (HalfPlus)");
  else
    b.Add("K = Identity (Nfft)");
  b.Add(irfft ? "L = Identity (HalfPlus)" : "L = Identity (Nfft)");
  // The [n, K] matrices, weighted (1/N inverse, Hermitian doubling for
  // irfft, 0 where j >= L), in f64: the sums of a transform cancel to
  // values far below its magnitude (the imaginary part of a real signal's
  // spectrum), which f32 products would bury in rounding. With n and N
  // known here (and at most 2^20 entries) they are constants computed in
  // double; otherwise kernels
  // compute them in f32 (the GPUs have no f64 sin and cos), exact at
  // quarter turns.
  std::optional<int64_t> nStatic, nfftStatic;
  if (axis && c.extent(0, (*axis + rank) % rank) >= 0)
    nStatic = c.extent(0, (*axis + rank) % rank);
  if (nStatic) {
    if (!c.hasInput(1))
      nfftStatic = irfft ? 2 * (*nStatic - 1) : *nStatic;
    else if (std::optional<std::vector<int64_t>> v = c.constantInts(1);
             v && v->size() == 1)
      nfftStatic = (*v)[0];
  }
  if (nfftStatic && *nfftStatic < 1) {
    error = "dft_length must be >= 1";
    return false;
  }
  // Constant matrices up to 2 x 8 MiB; larger ones are computed.
  auto outputs = [&](int64_t N) { return onesided && !inverse ? N / 2 + 1 : N; };
  if (nStatic && nfftStatic && *nStatic * outputs(*nfftStatic) <= (1 << 20)) {
    int64_t n = *nStatic, N = *nfftStatic;
    int64_t K = outputs(N);
    int64_t L = irfft ? N / 2 + 1 : N;
    onnx::TensorProto cosM, sinM;
    for (onnx::TensorProto *m : {&cosM, &sinM}) {
      m->set_data_type(onnx::TensorProto::DOUBLE);
      m->add_dims(n);
      m->add_dims(K);
    }
    const double pi = 3.14159265358979323846;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k = 0; k < K; ++k) {
        double w = j < L ? 1.0 : 0.0;
        if (irfft && j != 0 && 2 * j != N)
          w *= 2;
        if (inverse)
          w /= double(N);
        int64_t phase = (j % N) * (k % N) % N;
        // Exact at quarter turns.
        double cosV, sinV;
        if (4 * phase % N == 0) {
          int64_t quadrant = 4 * phase / N;
          cosV = quadrant == 0 ? 1 : quadrant == 2 ? -1 : 0;
          sinV = quadrant == 1 ? 1 : quadrant == 3 ? -1 : 0;
        } else {
          double theta = 2 * pi * double(phase) / double(N);
          cosV = std::cos(theta);
          sinV = std::sin(theta);
        }
        cosM.add_double_data(w * cosV);
        sinM.add_double_data(w * sinV);
      }
    b.Const("Cos", cosM).Const("Sin", sinM);
  } else {
    // The [n, K] matrices: theta = 2 pi ((j k) mod N) / N, zero where j >= L.
    b.Add(R"(
      JRange = Range (ZeroI, n, OneI)
      KRange = Range (ZeroI, K, OneI)
      J = Unsqueeze (JRange, Axis1)
      KRow = Unsqueeze (KRange, Axis0)
      JK = Mul (J, KRow)
      Phase = Mod (JK, Nfft)
      PhaseX = Cast <to = 1> (Phase)
      NfftX = Cast <to = 1> (Nfft)
      TwoPi = Cast <to = 1> (TwoPiD)
      Step = Div (TwoPi, NfftX)
      Theta = Mul (PhaseX, Step)
      Counts = Less (J, L)
      CountsX = Cast <to = 1> (Counts)
      CosTheta = Cos (Theta)
      SinTheta = Sin (Theta)
    )");
    // Multiples of a quarter turn exactly (sin(float(pi)) is not 0, and the
    // Nyquist line of a real signal must have no imaginary part).
    b.Const("FourI", int64_t(4)).Const("ThreeI", int64_t(3));
    b.Add(R"(
      Q = Mul (Phase, FourI)
      QRem = Mod (Q, Nfft)
      Quarter = Equal (QRem, ZeroI)
      Quadrant = Div (Q, Nfft)
      IsQ0 = Equal (Quadrant, ZeroI)
      IsQ1 = Equal (Quadrant, OneI)
      IsQ2 = Equal (Quadrant, TwoI)
      IsQ3 = Equal (Quadrant, ThreeI)
      OneX = Cast <to = 1> (OneI)
      ZeroX = Cast <to = 1> (ZeroI)
      MinusOneX = Neg (OneX)
      CosQ13 = Where (IsQ2, MinusOneX, ZeroX)
      CosQ = Where (IsQ0, OneX, CosQ13)
      SinQ02 = Where (IsQ3, MinusOneX, ZeroX)
      SinQ = Where (IsQ1, OneX, SinQ02)
      CosRaw = Where (Quarter, CosQ, CosTheta)
      SinRaw = Where (Quarter, SinQ, SinTheta)
    )");
    if (irfft) {
      // Hermitian extension: the entries 0 < k < N/2 stand for two.
      b.Add(R"(
        JTwice = Mul (J, TwoI)
        Edge0 = Equal (J, ZeroI)
        EdgeHalf = Equal (JTwice, Nfft)
        Edge = Or (Edge0, EdgeHalf)
        TwoF = Cast <to = 1> (TwoI)
        OneF = Cast <to = 1> (OneI)
        Weight0 = Where (Edge, OneF, TwoF)
        Weight1 = Mul (Weight0, CountsX)
        Weight = Div (Weight1, NfftX)
      )");
    } else if (inverse) {
      b.Add("Weight = Div (CountsX, NfftX)");
    } else {
      b.Add("Weight = Identity (CountsX)");
    }

    b.Add("CosF = Mul (CosRaw, Weight)\nSinF = Mul (SinRaw, Weight)\n"
          "Cos = Cast <to = 11> (CosF)\nSin = Cast <to = 11> (SinF)");
  }

  // The products; forward e^{-i theta}, inverse e^{+i theta}.
  b.Add("RrC = MatMul (Xr, Cos)\nRrS = MatMul (Xr, Sin)");
  if (parts == 2)
    b.Add("RiC = MatMul (Xi, Cos)\nRiS = MatMul (Xi, Sin)");
  std::string outParts;
  if (irfft) {
    b.Add(parts == 2 ? "Yr = Sub (RrC, RiS)" : "Yr = Identity (RrC)");
    b.Add("Y3 = Unsqueeze (Yr, LastAxis)");
    outParts = "1";
  } else {
    if (parts == 2) {
      b.Add(inverse ? "Yr = Sub (RrC, RiS)\nYi = Add (RiC, RrS)"
                    : "Yr = Add (RrC, RiS)\nYi = Sub (RiC, RrS)");
    } else {
      b.Add("Yr = Identity (RrC)");
      b.Add(inverse ? "Yi = Identity (RrS)" : "Yi = Neg (RrS)");
    }
    b.Add(R"(
      YrU = Unsqueeze (Yr, LastAxis)
      YiU = Unsqueeze (Yi, LastAxis)
      Y3 = Concat <axis = -1> (YrU, YiU)
    )");
    outParts = "2";
  }
  b.Const("OutParts", std::vector<int64_t>{std::stoll(outParts)});
  b.Add(R"(
    Y4 = Transpose <perm = [0, 2, 1, 3]> (Y3)
    K1 = Unsqueeze (K, Axis0)
    OutDims = Where (FAt, K1, SigShape)
    OutShape = Concat <axis = 0> (OutDims, OutParts)
    YD = Reshape (Y4, OutShape)
    output = CastLike (YD, input)
  )");
  return true;
}

// STFT-17: frames of frame_length samples every frame_step (torch's count
// 1 + (length - frame_length) / frame_step), times the window, each
// transformed by a DFT of frame_length (onesided by default): [batch,
// frames, K, 2]. The frames are one Gather of positions f * step + j.
bool buildSTFT(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  if (c.rank(0) != 3) {
    error = "signal must be [batch, length, 1 or 2]";
    return false;
  }
  if (!c.hasInput(2) && !c.hasInput(3)) {
    // The reference then takes the whole signal as one frame.
    b.Add("FL1 = Shape <start = 1, end = 2> (signal)\nFL = Squeeze (FL1)");
  } else if (c.hasInput(3)) {
    b.Add("FLGiven = Cast <to = 7> (frame_length)\nFL = Squeeze (FLGiven)");
  } else {
    b.Add("FL1 = Shape (window)\nFL = Squeeze (FL1)");
  }
  b.Const("ZeroI", int64_t(0)).Const("OneI", int64_t(1))
      .Const("Axis1", std::vector<int64_t>{1})
      .Const("Axis0", std::vector<int64_t>{0})
      .Const("DftAxis", int64_t(2));
  b.Add(R"(
    StepGiven = Cast <to = 7> (frame_step)
    Step = Squeeze (StepGiven)
    Len1 = Shape <start = 1, end = 2> (signal)
    Len = Squeeze (Len1)
    Span = Sub (Len, FL)
    Hops = Div (Span, Step)
    Frames = Add (Hops, OneI)
    FRange = Range (ZeroI, Frames, OneI)
    JRange = Range (ZeroI, FL, OneI)
    Starts0 = Mul (FRange, Step)
    Starts = Unsqueeze (Starts0, Axis1)
    JRow = Unsqueeze (JRange, Axis0)
    Positions = Add (Starts, JRow)
    Framed = Gather <axis = 1> (signal, Positions)
  )");
  if (c.hasInput(2)) {
    b.Const("WindowShape", std::vector<int64_t>{-1, 1});
    b.Add("WindowCol = Reshape (window, WindowShape)\n"
          "Weighted = Mul (Framed, WindowCol)");
  } else {
    b.Add("Weighted = Identity (Framed)");
  }
  text(b, "output = DFT <onesided = " +
              std::to_string(c.attr.i("onesided", 1)) +
              "> (Weighted, , DftAxis)");
  return true;
}

// MelWeightMatrix (17): [dft_length / 2 + 1, num_mel_bins] triangular
// filters over the spectrogram bins, as ONNX's reference builds them: M + 2
// points equally spaced in mel (2595 log10(1 + f / 700), the edges in
// float as the reference's float32 inputs make them, the rest in double)
// map back to Hz and to bins floor((dft_length + 1) hz / sample_rate);
// filter i rises from bin f[i] to f[i + 1] (a single 1 when they are
// equal) and falls to f[i + 2].
bool buildMelWeightMatrix(const Call &c, onnx::FunctionBuilder &b,
                          std::string &error) {
  int64_t type = c.attr.i("output_datatype", onnx::TensorProto::FLOAT);
  if (!isFloat(type)) {
    error = "output_datatype must be a float type";
    return false;
  }
  b.Const("ZeroI", int64_t(0)).Const("OneI", int64_t(1))
      .Const("TwoI", int64_t(2))
      .Const("Axis0", std::vector<int64_t>{0})
      .Const("Axis1", std::vector<int64_t>{1})
      .Const("Mel", 2595.0f).Const("Corner", 700.0f).Const("OneF", 1.0f)
      .Const("TenD", 10.0).Const("MelD", 2595.0).Const("CornerD", 700.0)
      .Const("OneD", 1.0).Const("ZeroD", 0.0);
  b.Add(R"(
    Bins = Cast <to = 7> (num_mel_bins)
    Dft = Cast <to = 7> (dft_length)
    Half = Div (Dft, TwoI)
    Rows = Add (Half, OneI)
    Points = Add (Bins, TwoI)
    LowF = Cast <to = 1> (lower_edge_hertz)
    HighF = Cast <to = 1> (upper_edge_hertz)
    LowRatio = Div (LowF, Corner)
    HighRatio = Div (HighF, Corner)
    LowArg = Add (OneF, LowRatio)
    HighArg = Add (OneF, HighRatio)
    LowLn = Log (LowArg)
    HighLn = Log (HighArg)
    TenF = Cast <to = 1> (TenD)
    LnTen = Log (TenF)
    LowLog = Div (LowLn, LnTen)
    HighLog = Div (HighLn, LnTen)
    LowMel = Mul (LowLog, Mel)
    HighMel = Mul (HighLog, Mel)
    SpanMel = Sub (HighMel, LowMel)
    PointsF = Cast <to = 1> (Points)
    StepF = Div (SpanMel, PointsF)
    Step = Cast <to = 11> (StepF)
    Low = Cast <to = 11> (LowMel)
    Index = Range (ZeroI, Points, OneI)
    IndexD = Cast <to = 11> (Index)
    Scaled = Mul (IndexD, Step)
    MelPoint = Add (Scaled, Low)
    Exponent = Div (MelPoint, MelD)
    Power = Pow (TenD, Exponent)
    PowerLess = Sub (Power, OneD)
    Hz = Mul (PowerLess, CornerD)
    DftPlus = Add (Dft, OneI)
    DftPlusD = Cast <to = 11> (DftPlus)
    Rate = Cast <to = 11> (sample_rate)
    Spread = Mul (DftPlusD, Hz)
    Ratio = Div (Spread, Rate)
    Floored = Floor (Ratio)
    F = Cast <to = 7> (Floored)
    FirstBins = Range (ZeroI, Bins, OneI)
    SecondBins = Add (FirstBins, OneI)
    ThirdBins = Add (FirstBins, TwoI)
    Lo0 = Gather <axis = 0> (F, FirstBins)
    Ce0 = Gather <axis = 0> (F, SecondBins)
    Hi0 = Gather <axis = 0> (F, ThirdBins)
    Lo = Unsqueeze (Lo0, Axis0)
    Ce = Unsqueeze (Ce0, Axis0)
    Hi = Unsqueeze (Hi0, Axis0)
    JRange = Range (ZeroI, Rows, OneI)
    J = Unsqueeze (JRange, Axis1)
    Rises = Greater (Ce, Lo)
    AtOrAboveLo = GreaterOrEqual (J, Lo)
    AtOrBelowCe = LessOrEqual (J, Ce)
    RiseA = And (Rises, AtOrAboveLo)
    Rise = And (RiseA, AtOrBelowCe)
    Flat = Equal (Ce, Lo)
    AtCe = Equal (J, Ce)
    Peak = And (Flat, AtCe)
    Falls = Greater (Hi, Ce)
    AtOrAboveCe = GreaterOrEqual (J, Ce)
    BelowHi = Less (J, Hi)
    FallA = And (Falls, AtOrAboveCe)
    Fall = And (FallA, BelowHi)
    JD = Cast <to = 11> (J)
    LoD = Cast <to = 11> (Lo)
    CeD = Cast <to = 11> (Ce)
    HiD = Cast <to = 11> (Hi)
    Up = Sub (JD, LoD)
    UpSpan = Sub (CeD, LoD)
    UpSafe = Where (Rises, UpSpan, OneD)
    RiseV = Div (Up, UpSafe)
    Down = Sub (HiD, JD)
    DownSpan = Sub (HiD, CeD)
    DownSafe = Where (Falls, DownSpan, OneD)
    FallV = Div (Down, DownSafe)
    PeakV = Where (Peak, OneD, ZeroD)
    RiseOrPeak = Where (Rise, RiseV, PeakV)
    Weights = Where (Fall, FallV, RiseOrPeak)
  )");
  text(b, "output = Cast <to = " + std::to_string(type) + "> (Weights)");
  return true;
}

} // namespace

void bodies::addSignalBodies(std::vector<NewerOp> &ops) {
  const NewerOp table[] = {
      {"DFT", 17, 19, {"input", "dft_length"}, {"output"}, buildDFT},
      {"DFT", 20, 0, {"input", "dft_length", "axis"}, {"output"}, buildDFT},
      {"MelWeightMatrix",
       17,
       0,
       {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz",
        "upper_edge_hertz"},
       {"output"},
       buildMelWeightMatrix},
      {"STFT",
       17,
       0,
       {"signal", "frame_step", "window", "frame_length"},
       {"output"},
       buildSTFT},
  };
  ops.insert(ops.end(), std::begin(table), std::end(table));
}
