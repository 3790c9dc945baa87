//===- Quantize.cpp - Post-training int8 and fp8 contractions -------------===//
//
// See Passes.td and docs/design.md, section 8.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/Graph/TesselDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

namespace tessel {
#define GEN_PASS_DEF_QUANTIZEPASS
#include "passes/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;

namespace {

/// The f32 constant elements of `v`, or null.
DenseElementsAttr constantF32(Value v) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
  return dense && dense.getElementType().isF32() ? dense : nullptr;
}

/// A weight quantized per output channel: `values` (i8, the weight's
/// shape) and one scale per channel (`channels` of them along `axis`).
struct QuantizedWeight {
  DenseElementsAttr values;
  std::vector<double> scales;
};

/// Symmetric per-channel quantization of `w` along `axis`: scale = max|w|
/// / 127 per channel (1 for an all-zero channel), round half to even.
/// Channels at or past `channels` (filters-last padding, never read) get
/// scale 1 and are quantized like the rest.
QuantizedWeight quantizeWeight(DenseElementsAttr w, int64_t axis) {
  auto type = cast<RankedTensorType>(w.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= shape[d];
  int64_t channels = shape[axis];
  std::vector<float> values(w.getValues<float>().begin(),
                            w.getValues<float>().end());
  QuantizedWeight q;
  q.scales.assign(channels, 0.0);
  auto channelOf = [&](size_t i) { return (i / inner) % channels; };
  for (size_t i = 0; i < values.size(); ++i)
    q.scales[channelOf(i)] =
        std::max(q.scales[channelOf(i)], double(std::fabs(values[i])));
  for (double &s : q.scales)
    s = s > 0 ? s / 127.0 : 1.0;
  std::vector<int8_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    double v = std::nearbyint(values[i] / q.scales[channelOf(i)]);
    out[i] = static_cast<int8_t>(std::clamp(v, -127.0, 127.0));
  }
  auto i8 = RankedTensorType::get(shape, IntegerType::get(w.getContext(), 8));
  q.values = DenseElementsAttr::get(i8, ArrayRef<int8_t>(out));
  return q;
}

/// A rank-0 f32 constant.
Value scalarF32(OpBuilder &b, Location loc, double v) {
  auto t = RankedTensorType::get({}, b.getF32Type());
  return ConstantOp::create(b, loc, DenseElementsAttr::get(t, float(v)));
}

/// The values of a small constant expression (constants, their casts to
/// f32 and reshapes: the parameters of the importer's DequantizeLinear),
/// with the shape they have, or nothing.
struct Evaluated {
  SmallVector<int64_t> shape;
  std::vector<double> values;

  /// The element that broadcasting (numpy's rules) gives element `i` of a
  /// tensor of shape `target`.
  double at(size_t i, ArrayRef<int64_t> target) const {
    size_t index = 0, stride = 1;
    int64_t rest = int64_t(i);
    SmallVector<int64_t> position(target.size());
    for (int64_t d = int64_t(target.size()) - 1; d >= 0; --d) {
      position[d] = rest % target[d];
      rest /= target[d];
    }
    for (int64_t d = int64_t(shape.size()) - 1, t = int64_t(target.size()) - 1;
         d >= 0; --d, --t) {
      if (shape[d] != 1)
        index += position[t] * stride;
      stride *= shape[d];
    }
    return values[index];
  }
};

std::optional<Evaluated> evaluate(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  Operation *op = v.getDefiningOp();
  if (auto c = dyn_cast_or_null<ConstantOp>(op)) {
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense)
      return std::nullopt;
    Evaluated e{SmallVector<int64_t>(type.getShape()), {}};
    if (auto it = dyn_cast<IntegerType>(type.getElementType()))
      for (const APInt &x : dense.getValues<APInt>())
        e.values.push_back(double(x.getSExtValue()));
    else if (type.getElementType().isF32())
      for (float x : dense.getValues<float>())
        e.values.push_back(x);
    else
      return std::nullopt;
    return e;
  }
  if (auto c = dyn_cast_or_null<CastOp>(op)) {
    Type in = c.getInput().getType(), out = type.getElementType();
    auto it = dyn_cast<IntegerType>(getElementTypeOrSelf(in));
    // To f32, or an integer widened to i32 (exact either way).
    bool widens = it && out.isInteger(32) && it.getWidth() < 32 &&
                  !c.getResultUnsigned();
    if (!(out.isF32() || widens) || c.getInputFormat() || c.getResultFormat())
      return std::nullopt;
    std::optional<Evaluated> e = evaluate(c.getInput());
    if (!e)
      return std::nullopt;
    if (it && c.getInputUnsigned())
      for (double &x : e->values)
        if (x < 0)
          x += std::ldexp(1.0, it.getWidth());
    if (!it)
      for (double &x : e->values)
        x = float(x);
    return e;
  }
  if (auto r = dyn_cast_or_null<ReshapeOp>(op)) {
    std::optional<Evaluated> e = evaluate(r.getInput());
    if (e)
      e->shape.assign(type.getShape().begin(), type.getShape().end());
    return e;
  }
  // f32 arithmetic, rounded to f32 as the kernel would (a quantized bias:
  // DequantizeLinear of int32).
  if (isa_and_nonnull<MulOp, SubOp, AddOp>(op) &&
      (type.getElementType().isF32() || type.getElementType().isInteger(32))) {
    bool f32 = type.getElementType().isF32();
    std::optional<Evaluated> l = evaluate(op->getOperand(0)),
                             r = evaluate(op->getOperand(1));
    if (!l || !r)
      return std::nullopt;
    Evaluated e{SmallVector<int64_t>(type.getShape()), {}};
    int64_t n = type.getNumElements();
    for (int64_t i = 0; i < n; ++i) {
      double a = l->at(i, e.shape), b = r->at(i, e.shape);
      if (f32) { // rounded as the kernel would
        float x = float(a), y = float(b);
        e.values.push_back(isa<MulOp>(op)   ? x * y
                           : isa<SubOp>(op) ? x - y
                                            : x + y);
      } else { // i32: the small integers of zero points, exact in double
        e.values.push_back(isa<MulOp>(op)   ? a * b
                           : isa<SubOp>(op) ? a - b
                                            : a + b);
      }
    }
    return e;
  }
  return std::nullopt;
}

/// `v` as an f32 constant: itself, or the one evaluate() gives, created
/// before `at`; null when neither.
DenseElementsAttr foldedF32(Value v) {
  if (DenseElementsAttr c = constantF32(v))
    return c;
  std::optional<Evaluated> e = evaluate(v);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!e || !type || !type.getElementType().isF32())
    return nullptr;
  std::vector<float> values(e->values.begin(), e->values.end());
  return DenseElementsAttr::get(type, ArrayRef<float>(values));
}

/// A value the importer's DequantizeLinear computes, mul(sub(cast<f32>(q),
/// z), s) or mul(cast<f32>(q), s), from 8-bit integers q: q itself, its
/// values when it is a constant, and z and s (step, zero: when both are
/// one element).
struct Dequantized {
  Value integers;
  bool isUnsigned = false;
  std::optional<std::vector<double>> values;
  Evaluated zeros, steps;
  double step = 0, zero = 0;
  double zeroAt(size_t i, ArrayRef<int64_t> shape) const {
    return zeros.at(i, shape);
  }
  double stepAt(size_t i, ArrayRef<int64_t> shape) const {
    return steps.at(i, shape);
  }
};

/// The cast<f32> or cast<i32> of 8-bit integers that `v` is, or null.
CastOp integerCast(Value v) {
  auto c = v.getDefiningOp<CastOp>();
  Type out = getElementTypeOrSelf(v.getType());
  if (!c || c.getInputFormat() || c.getResultFormat() ||
      !(out.isF32() || out.isInteger(32)))
    return nullptr;
  auto it = dyn_cast<IntegerType>(getElementTypeOrSelf(c.getInput().getType()));
  return it && it.getWidth() == 8 ? c : nullptr;
}

/// `centred` as sub(cast(q), z) or cast(q) of 8-bit integers q, into `d`
/// (its scale 1); false when it is neither.
bool matchCentred(Value centred, Dequantized &d) {
  CastOp q = integerCast(centred);
  if (auto sub = centred.getDefiningOp<SubOp>(); !q && sub) {
    q = integerCast(sub.getLhs());
    std::optional<Evaluated> z = evaluate(sub.getRhs());
    if (!q || !z)
      return false;
    d.zeros = *z;
  } else {
    d.zeros = Evaluated{{}, {0.0}};
  }
  if (!q)
    return false;
  d.steps = Evaluated{{}, {1.0}};
  d.integers = q.getInput();
  d.isUnsigned = q.getInputUnsigned();
  if (std::optional<Evaluated> e = evaluate(q.getResult()))
    d.values = e->values;
  return true;
}

/// Sets `d`'s per-tensor step and zero when both are one element; false
/// when they are invalid (a step not above 0, a zero point outside the
/// integers' range or not an integer).
bool perTensor(Dequantized &d) {
  if (d.steps.values.size() != 1 || d.zeros.values.size() != 1)
    return true;
  d.step = d.steps.values[0];
  d.zero = d.zeros.values[0];
  double lo = d.isUnsigned ? 0 : -128, hi = d.isUnsigned ? 255 : 127;
  return d.step > 0 && std::isfinite(d.step) && d.zero >= lo && d.zero <= hi &&
         d.zero == std::nearbyint(d.zero);
}

/// The 8-bit integers behind an operand of a contraction: the importer's
/// DequantizeLinear, mul(sub(cast<f32>(q), z), s) or mul(cast<f32>(q), s),
/// for an f32 one; the centred integers of MatMulInteger, ConvInteger and
/// the QLinear ops, sub(cast<i32>(q), z) or cast<i32>(q), for an i32 one.
std::optional<Dequantized> matchDequantized(Value v) {
  Dequantized d;
  if (getElementTypeOrSelf(v.getType()).isInteger(32)) {
    if (matchCentred(v, d))
      return perTensor(d) ? std::optional(d) : std::nullopt;
    // A constant weight, its zero point folded in.
    std::optional<Evaluated> e = evaluate(v);
    if (!e)
      return std::nullopt;
    d.values = e->values;
    d.zeros = Evaluated{{}, {0.0}};
    d.steps = Evaluated{{}, {1.0}};
    return d;
  }
  // DequantizeLinear's last cast to its f32 output.
  if (auto c = v.getDefiningOp<CastOp>();
      c && getElementTypeOrSelf(c.getInput().getType()).isF32() &&
      !c.getInputFormat() && !c.getResultFormat())
    v = c.getInput();
  auto mul = v.getDefiningOp<MulOp>();
  if (!mul)
    return std::nullopt;
  for (auto [centred, scale] : {std::pair(mul.getLhs(), mul.getRhs()),
                                std::pair(mul.getRhs(), mul.getLhs())}) {
    std::optional<Evaluated> s = evaluate(scale);
    if (!s || !getElementTypeOrSelf(centred.getType()).isF32() ||
        !matchCentred(centred, d))
      continue;
    d.steps = *s;
    if (!perTensor(d))
      return std::nullopt;
    return d;
  }
  return std::nullopt;
}

/// A calibrated range of a contraction's input: [lo, hi], symmetric
/// (lo = -hi) unless given as LO:HI.
struct Range {
  double lo = 0, hi = 0;
  bool asymmetric = false;
  double magnitude() const { return std::max(std::fabs(lo), std::fabs(hi)); }
};

struct QuantizePass : tessel::impl::QuantizePassBase<QuantizePass> {
  using QuantizePassBase::QuantizePassBase;

  void runOnOperation() override {
    if (format == "fp8-e4m3") {
      fp8 = &llvm::APFloat::Float8E4M3FN();
      fp8Onnx = 17; // FLOAT8E4M3FN
    } else if (format == "fp8-e5m2") {
      fp8 = &llvm::APFloat::Float8E5M2();
      fp8Onnx = 19; // FLOAT8E5M2
    } else if (format != "int8") {
      getOperation().emitError("tessel-quantize: unknown format '")
          << format << "' (int8, fp8-e4m3, fp8-e5m2)";
      return signalPassFailure();
    }
    if (fp8)
      fp8Max = llvm::APFloat::getLargest(*fp8).convertToDouble();
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.getBody().empty() && failed(runOnFunction(func)))
        return signalPassFailure();
    // A node `lower` names must be a contraction: a misspelt name would
    // otherwise leave the layer in f32 without a word.
    for (const std::string &n : lowerNodes)
      if (!contractionNodes.contains(n)) {
        getOperation().emitError("tessel-quantize: --lower names '")
            << n << "', which is not a Conv, MatMul or Gemm node of the model";
        return signalPassFailure();
      }
    // (A pre-quantized model's contractions are its own precision, not
    // one this pass lowered them to.)
    if (!prequantizedOnly)
      recordLoweredContractions(getOperation(), quantized);
  }

private:
  LogicalResult runOnFunction(func::FuncOp main) {
    llvm::StringMap<Range> ranges;
    for (const std::string &entry : amax) {
      size_t eq = entry.rfind('=');
      Range r;
      std::string value = eq == std::string::npos ? "" : entry.substr(eq + 1);
      size_t colon = value.find(':');
      bool ok = eq != std::string::npos;
      if (ok && colon == std::string::npos) {
        ok = llvm::to_float(value, r.hi) && r.hi >= 0;
        r.lo = -r.hi;
      } else if (ok) {
        r.asymmetric = true;
        ok = llvm::to_float(value.substr(0, colon), r.lo) &&
             llvm::to_float(value.substr(colon + 1), r.hi) && r.lo <= r.hi;
      }
      if (!ok)
        return main.emitError("tessel-quantize: bad amax entry '")
               << entry << "' (NODE=A with A >= 0, or NODE=LO:HI)";
      ranges[entry.substr(0, eq)] = r;
    }
    llvm::StringSet<> kept, forced;
    for (const std::string &n : keepFp32)
      kept.insert(n);
    for (const std::string &n : lowerNodes)
      forced.insert(n);
    // The function's contractions, in order: the first and last stay f32.
    // (And, pre-quantized, the i32 ones of MatMulInteger, ConvInteger and
    // the QLinear ops.)
    SmallVector<Operation *> contractions;
    for (Operation &op : main.getBody().front()) {
      Type result = isa<ConvOp, MatMulOp, GemmOp>(op)
                        ? getElementTypeOrSelf(op.getResult(0).getType())
                        : Type();
      if (result && (result.isF32() ||
                     (prequantizedOnly && result.isInteger(32) &&
                      getElementTypeOrSelf(op.getOperand(0).getType())
                          .isInteger(32))))
        contractions.push_back(&op);
    }
    for (size_t i = 0; i < contractions.size(); ++i) {
      Operation *op = contractions[i];
      std::string node, opType;
      onnxNodeOf(op->getLoc(), node, opType);
      contractionNodes.insert(node);
      if (prequantizedOnly) {
        bool done = false;
        if (!kept.contains(node) && !kept.contains(opType) &&
            failed(prequantized(op, done)))
          return failure();
        continue;
      }
      bool edge = i == 0 || i + 1 == contractions.size();
      // A grouped Conv (depthwise: one channel per group) has no
      // dot-product form, and its widened integer kernel is slower than
      // f32's multiply-adds: f32 unless `lower` names it (int8).
      auto conv = dyn_cast<ConvOp>(op);
      bool grouped = !fp8 && conv && conv.getGroup() > 1;
      if (kept.contains(node) || kept.contains(opType) ||
          ((edge || grouped) && !forced.contains(node)))
        continue;
      auto range = ranges.find(node);
      if (range == ranges.end() || range->second.magnitude() <= 0)
        continue;
      bool done = false;
      if (failed(fp8 ? quantizeFp8(op, range->second.magnitude(), done)
                     : quantize(op, range->second, done)))
        return failure();
      if (done)
        quantized.push_back(node);
    }
    return success();
  }

  std::vector<std::string> quantized;
  llvm::StringSet<> contractionNodes; ///< every f32 contraction's node
  const llvm::fltSemantics *fp8 = nullptr; ///< null for int8
  int32_t fp8Onnx = 0;                     ///< its ONNX data type
  double fp8Max = 0;                       ///< its largest finite value

  /// `v` rounded to the fp8 format (nearest even; |v| <= fp8Max here).
  double roundFp8(double v) const {
    llvm::APFloat x(v);
    bool lost;
    x.convert(*fp8, llvm::APFloat::rmNearestTiesToEven, &lost);
    x.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return x.convertToDouble();
  }

  /// fp8 by conversion: the input and the weight rounded to fp8 with
  /// per-tensor scales, the contraction itself unchanged (f32).
  LogicalResult quantizeFp8(Operation *op, double amax, bool &done) {
    Value input = op->getOperand(0), weight = op->getOperand(1);
    DenseElementsAttr w = constantF32(weight);
    if (!w)
      return success();
    if (auto g = dyn_cast<GemmOp>(op); g && (g.getTransA() || g.getTransB()))
      return success();
    std::vector<float> values(w.getValues<float>().begin(),
                              w.getValues<float>().end());
    double wMax = 0;
    for (float v : values)
      wMax = std::max(wMax, double(std::fabs(v)));
    double wScale = wMax > 0 ? wMax / fp8Max : 1.0;
    for (float &v : values)
      v = float(roundFp8(v / wScale) * wScale);
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type i8 = b.getI8Type();
    auto inType = cast<RankedTensorType>(input.getType());
    Value scaled =
        MulOp::create(b, loc, inType, input, scalarF32(b, loc, fp8Max / amax));
    auto down = CastOp::create(b, loc, inType.clone(i8), scaled, false, false);
    down.setResultFormat(fp8Onnx);
    down.setSaturate(true);
    auto up = CastOp::create(b, loc, inType, down, false, false);
    up.setInputFormat(fp8Onnx);
    Value x8 =
        MulOp::create(b, loc, inType, up, scalarF32(b, loc, amax / fp8Max));
    Value w8 = ConstantOp::create(
        b, weight.getLoc(),
        DenseElementsAttr::get(cast<RankedTensorType>(w.getType()),
                               ArrayRef<float>(values)));
    op->setOperand(0, x8);
    op->setOperand(1, w8);
    done = true;
    return success();
  }

  /// The int8 form of contraction `op`: its constant weight (f32, or null
  /// for a pre-quantized one), the channel axis of that weight, alpha and
  /// the bias; nothing when the pass leaves `op` alone.
  struct Form {
    DenseElementsAttr w;
    int64_t channelAxis = 0;
    double alpha = 1.0;
    Value bias;
  };
  static std::optional<Form> integerForm(Operation *op, bool constantWeight) {
    Form form;
    if (constantWeight) {
      form.w = constantF32(op->getOperand(1));
      if (!form.w)
        return std::nullopt;
    }
    auto wType = cast<RankedTensorType>(op->getOperand(1).getType());
    if (isa<MatMulOp>(op)) {
      if (wType.getRank() != 2)
        return std::nullopt;
      form.channelAxis = 1;
    } else if (auto g = dyn_cast<GemmOp>(op)) {
      if (g.getTransA() || (constantWeight && g.getTransB()) ||
          (g.getC() && g.getBeta().convertToFloat() != 1.0f))
        return std::nullopt;
      form.channelAxis = 1;
      form.alpha = g.getAlpha().convertToFloat();
      form.bias = g.getC();
    } else {
      auto c = cast<ConvOp>(op);
      form.channelAxis = c.getFilterDim();
      form.bias = c.getBias();
    }
    // A Conv's bias computed at run time: left in f32 (none is, in
    // practice; a pre-quantized model's int32 bias is a constant
    // expression, folded).
    bool integer = getElementTypeOrSelf(op->getResult(0).getType())
                       .isInteger(32);
    if (isa<ConvOp>(op) && form.bias && !integer && !foldedF32(form.bias))
      return std::nullopt;
    return form;
  }

  /// Rewrites `op` when its form is one this pass handles; success also
  /// when it leaves it alone.
  LogicalResult quantize(Operation *op, Range range, bool &done) {
    // Every input is quantized unsigned (u8 x i8 is the operand pair of
    // the CPU's dot product, vpdpbusd) and read so (input_unsigned): an
    // asymmetric range from 0 or above (a ReLU's output) with s = HI / 255
    // and zero point 0 (0 stays 0, the sums need no correction); a
    // symmetric one with zero point 128 (the levels of i8); any other
    // asymmetric one with the zero point that maps LO to 0. The zero
    // point's compensation is a constant of the epilogue, and a padded
    // Conv pads with the zero point (`input_zero_point`).
    std::optional<Form> form = integerForm(op, /*constantWeight=*/true);
    if (!form)
      return success();
    bool fromZero = range.asymmetric && range.lo >= 0 && range.hi > 0;
    double amax = range.magnitude();
    Value input = op->getOperand(0);
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type i8 = b.getI8Type();
    // xq = cast<u8>(round(x / s) + z), the cast saturating: s = A / 127
    // and z = 128 for a symmetric range; s = HI / 255 and z = 0 for a
    // range from LO >= 0; s = (HI - LO) / 255 and z = round(-LO / s) for
    // any other asymmetric one (HI > LO).
    double step = amax / 127.0, zero = 128;
    if (fromZero) {
      step = range.hi / 255.0;
      zero = 0;
    } else if (range.asymmetric && range.hi > range.lo) {
      step = (range.hi - range.lo) / 255.0;
      zero = std::clamp(std::nearbyint(-range.lo / step), 0.0, 255.0);
    }
    auto inType = cast<RankedTensorType>(input.getType());
    Value scaled =
        MulOp::create(b, loc, inType, input, scalarF32(b, loc, 1.0 / step));
    Value rounded = RoundOp::create(b, loc, inType, scaled);
    if (zero != 0)
      rounded =
          AddOp::create(b, loc, inType, rounded, scalarF32(b, loc, zero));
    Value xq = CastOp::create(b, loc, inType.clone(i8), rounded, false,
                              /*resultUnsigned=*/true);
    QuantizedWeight qw = quantizeWeight(form->w, form->channelAxis);
    return emitInteger(op, *form, xq, step, zero, std::move(qw), done);
  }

  /// A pre-quantized contraction (QDQ): input DequantizeLinear(xq, s, z)
  /// of 8-bit integers with a per-tensor scale, weight
  /// DequantizeLinear(Wq, s_w, z_w) of a constant with scales per output
  /// channel (or one), as the importer writes them: mul(sub(cast(q), z),
  /// s). It computes on xq and Wq - z_w; left alone when a part differs.
  LogicalResult prequantized(Operation *op, bool &done) {
    std::optional<Form> form = integerForm(op, /*constantWeight=*/false);
    if (!form)
      return success();
    // (A strided 1x1 Conv reads a slice of it: tessel-subsample-pointwise-
    // convs.)
    Value input = op->getOperand(0);
    auto slice = input.getDefiningOp<SliceOp>();
    std::optional<Dequantized> x =
        matchDequantized(slice ? slice.getInput() : input);
    if (!x || x->values || x->steps.values.size() != 1 ||
        x->zeros.values.size() != 1)
      return success();
    std::optional<Dequantized> w = matchDequantized(op->getOperand(1));
    if (!w || !w->values)
      return success();
    auto wType = cast<RankedTensorType>(op->getOperand(1).getType());
    ArrayRef<int64_t> shape = wType.getShape();
    // The integers have the weight's shape; its zero points and scales
    // broadcast to it.
    auto broadcastsTo = [&](ArrayRef<int64_t> from) {
      if (from.size() > shape.size())
        return false;
      for (size_t d = 0; d < from.size(); ++d)
        if (from[d] != 1 && from[d] != shape[shape.size() - from.size() + d])
          return false;
      return true;
    };
    if (!wType.hasStaticShape() ||
        (w->integers &&
         cast<RankedTensorType>(w->integers.getType()).getShape() != shape) ||
        !broadcastsTo(w->zeros.shape) || !broadcastsTo(w->steps.shape))
      return success();
    // (A constant weight of the integer ops is folded, and laid out
    // filters-last by tessel-fold-weight-transposes.)
    auto conv = dyn_cast<ConvOp>(op);
    bool alreadyFiltersLast = conv && conv.getFiltersLast();
    auto gemm = dyn_cast<GemmOp>(op);
    bool transB = gemm && gemm.getTransB(); // B is [N, K]
    unsigned axis = transB ? 0 : form->channelAxis;
    int64_t channels = shape[axis];
    // The weight's integers less its zero point (in i8), and its scale
    // per output channel.
    int64_t inner = 1;
    for (size_t d = axis + 1; d < shape.size(); ++d)
      inner *= shape[d];
    std::vector<int8_t> centred(wType.getNumElements());
    std::vector<double> scales(channels, 0.0);
    for (size_t i = 0; i < centred.size(); ++i) {
      double v = w->values->at(i) - w->zeroAt(i, shape);
      double s = w->stepAt(i, shape);
      int64_t c = (int64_t(i) / inner) % channels;
      if (v < -128 || v > 127 || !(s > 0) ||
          (scales[c] != 0 && scales[c] != s))
        return success();
      centred[i] = int8_t(v);
      scales[c] = s;
    }
    QuantizedWeight qw;
    qw.scales = scales;
    Type i8 = IntegerType::get(op->getContext(), 8);
    SmallVector<int64_t> layout(shape);
    if (transB) {
      // [N, K] -> [K, N], the MatMul's.
      std::vector<int8_t> t(centred.size());
      for (int64_t n = 0; n < shape[0]; ++n)
        for (int64_t k = 0; k < shape[1]; ++k)
          t[k * shape[0] + n] = centred[n * shape[1] + k];
      centred = std::move(t);
      layout = {shape[1], shape[0]};
    }
    bool filtersLast = alreadyFiltersLast;
    if (conv && !alreadyFiltersLast) {
      // ONNX's F x C/group x K... as C/group x K... x F, the layout of
      // tessel-fold-weight-transposes (the dot-product tiles start from it).
      int64_t per = centred.size() / channels;
      std::vector<int8_t> t(centred.size());
      for (int64_t f = 0; f < channels; ++f)
        for (int64_t r = 0; r < per; ++r)
          t[r * channels + f] = centred[f * per + r];
      centred = std::move(t);
      layout.assign(shape.begin() + 1, shape.end());
      layout.push_back(channels);
      filtersLast = true;
      form->channelAxis = layout.size() - 1;
    }
    qw.values = DenseElementsAttr::get(RankedTensorType::get(layout, i8),
                                       ArrayRef<int8_t>(centred));
    // An i8 input is read as u8: xq + 128 with the zero point + 128.
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value xq = x->integers;
    double zero = x->zero;
    if (slice) {
      auto sliced = cast<SliceOp>(b.clone(*slice));
      sliced->setOperand(0, xq);
      sliced.getResult().setType(
          cast<RankedTensorType>(slice.getType())
              .clone(getElementTypeOrSelf(xq.getType())));
      xq = sliced.getResult();
    }
    if (!x->isUnsigned) {
      auto t = cast<RankedTensorType>(xq.getType());
      Type i32 = b.getI32Type();
      Value wide = CastOp::create(b, loc, t.clone(i32), xq, false, false);
      Value shifted = AddOp::create(
          b, loc, t.clone(i32), wide,
          ConstantOp::create(b, loc,
                             DenseElementsAttr::get(
                                 RankedTensorType::get({}, i32), int32_t(128))));
      xq = CastOp::create(b, loc, t, shifted, false, /*resultUnsigned=*/true);
      zero += 128;
    }
    return emitInteger(op, *form, xq, x->step, zero, std::move(qw), done,
                       filtersLast);
  }

  /// Replaces `op` by the integer contraction of `xq` (u8, i8 storage) and
  /// `qw` (in the layout of `op`'s weight, or filters-last for a Conv when
  /// `filtersLast`) and its f32 epilogue: the input is (xq - zero) * step.
  LogicalResult emitInteger(Operation *op, Form form, Value xq, double step,
                            double zero, QuantizedWeight qw, bool &done,
                            bool filtersLast = false) {
    auto conv = dyn_cast<ConvOp>(op);
    filtersLast = filtersLast || (conv && conv.getFiltersLast());
    bool padded = conv && llvm::any_of(conv.getPads(),
                                       [](int64_t p) { return p != 0; });
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    MLIRContext *ctx = op->getContext();
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type f32 = Float32Type::get(ctx), i8 = IntegerType::get(ctx, 8),
         i32 = IntegerType::get(ctx, 32);
    int64_t channelAxis = form.channelAxis;
    auto wType = cast<RankedTensorType>(qw.values.getType());
    Value bias = form.bias;
    double alpha = form.alpha;
    // A 1x1 Conv of stride 1 and one group is a MatMul of its weights
    // [F, C] by the input's pixels: with the weights filters-first, the
    // input channels of a filter are contiguous, the row operand of the
    // CPU's dot-product tiles (the pixels are its vectors).
    bool filtersFirst = false;
    if (conv && filtersLast && conv.getGroup() == 1 &&
        llvm::all_of(conv.getStrides(), [](int64_t s) { return s == 1; }) &&
        llvm::all_of(wType.getShape().drop_front().drop_back(),
                     [](int64_t k) { return k == 1; })) {
      int64_t in = wType.getDimSize(0), rows = wType.getShape().back();
      int64_t filters = conv.getFilterCount();
      auto values = qw.values.getValues<int8_t>();
      std::vector<int8_t> transposed(filters * in);
      for (int64_t c = 0; c < in; ++c)
        for (int64_t f = 0; f < filters; ++f)
          transposed[f * in + c] = values[c * rows + f];
      SmallVector<int64_t> shape = {filters, in};
      shape.append(wType.getRank() - 2, 1);
      qw.values = DenseElementsAttr::get(RankedTensorType::get(shape, i8),
                                         ArrayRef<int8_t>(transposed));
      channelAxis = 0;
      filtersFirst = true;
    }
    // A 3x3 Conv's rows of 3 taps become 4, the last tap's weights 0 and
    // the input padded by one more column on the right (the output's
    // width is unchanged; the extra tap reads that column or the next
    // pixel, times 0): 4 taps of one input row are 4 contiguous bytes, a
    // group of the CPU's dot products (vpdpbusd), for 4/3 of the products.
    SmallVector<int64_t> pads = conv ? SmallVector<int64_t>(conv.getPads())
                                     : SmallVector<int64_t>();
    if (conv && filtersLast && !filtersFirst && conv.getGroup() == 1 &&
        wType.getRank() == 4 && wType.getDimSize(2) == 3 &&
        llvm::all_of(conv.getDilations(), [](int64_t d) { return d == 1; })) {
      ArrayRef<int64_t> shape = wType.getShape(); // C x KH x 3 x P
      auto values = qw.values.getValues<int8_t>();
      std::vector<int8_t> widened(shape[0] * shape[1] * 4 * shape[3], 0);
      for (int64_t r = 0; r < shape[0] * shape[1]; ++r)
        for (int64_t t = 0; t < 3; ++t)
          for (int64_t f = 0; f < shape[3]; ++f)
            widened[(r * 4 + t) * shape[3] + f] =
                values[(r * 3 + t) * shape[3] + f];
      qw.values = DenseElementsAttr::get(
          RankedTensorType::get({shape[0], shape[1], 4, shape[3]}, i8),
          ArrayRef<int8_t>(widened));
      pads.back() += 1;
    }
    Value wq = ConstantOp::create(b, op->getOperand(1).getLoc(), qw.values);
    // The integer contraction.
    auto accType = resultType.clone(i32);
    Value acc;
    if (conv) {
      auto q = cast<ConvOp>(b.clone(*op));
      if (q.getBias())
        q->eraseOperand(2);
      q->setOperand(0, xq);
      q->setOperand(1, wq);
      q->getResult(0).setType(accType);
      q.setAccTypeAttr(TypeAttr::get(i32));
      q.setInputUnsigned(true);
      q.setFiltersLast(filtersLast && !filtersFirst);
      q.setPads(pads);
      if (padded && zero != 0)
        q.setInputZeroPoint(int64_t(zero));
      acc = q.getResult();
    } else {
      auto mm = MatMulOp::create(b, loc, accType, xq, wq, TypeAttr::get(i32));
      mm.setInputUnsigned(true);
      acc = mm.getResult();
    }
    if (failed(verify(acc.getDefiningOp()))) {
      op->emitError("internal compiler error: the int8 contraction of this "
                    "op is invalid");
      return failure();
    }
    // y = cast<f32>(acc) * (s * s_w[c] * alpha) + offset[c] + bias, the
    // scale and bias broadcast along the channels (the last dim, or
    // Conv's dim 1); offset[c] = -z * sum_k Wq[k, c] * scale[c] takes the
    // zero point out of the sums.
    int64_t channels =
        resultType.getDimSize(conv ? 1 : resultType.getRank() - 1);
    std::vector<float> scale(channels), offset(channels, 0.0f);
    std::vector<int64_t> sums(channels, 0);
    for (int64_t c = 0; c < channels; ++c)
      scale[c] = float(step * qw.scales[c] * alpha);
    if (zero != 0) {
      // The channel of each weight element: its index along channelAxis
      // (filters-last rows past the filters are padding).
      auto wShape = cast<RankedTensorType>(qw.values.getType()).getShape();
      int64_t inner = 1;
      for (size_t d = channelAxis + 1; d < wShape.size(); ++d)
        inner *= wShape[d];
      auto values = qw.values.getValues<int8_t>();
      for (size_t i = 0; i < size_t(qw.values.getNumElements()); ++i)
        if (int64_t c = (int64_t(i) / inner) % wShape[channelAxis];
            c < channels)
          sums[c] += values[i];
      for (int64_t c = 0; c < channels; ++c)
        offset[c] = float(-zero * double(sums[c]) * double(scale[c]));
    }
    SmallVector<int64_t> channelShape = {channels};
    if (conv)
      channelShape.append(resultType.getRank() - 2, 1);
    if (resultType.getElementType().isInteger(32)) {
      // The centred integers' sums (MatMulInteger, ConvInteger, the
      // QLinear ops): acc - z * sum_k Wq[k, c], exact, and the i32 bias.
      auto i32Channels = RankedTensorType::get(channelShape, i32);
      Value y = acc;
      if (zero != 0) {
        std::vector<int32_t> offsets(channels);
        for (int64_t c = 0; c < channels; ++c)
          offsets[c] = int32_t(-int64_t(zero) * sums[c]); // |.| < 2^31
        y = AddOp::create(b, loc, resultType, y,
                          ConstantOp::create(
                              b, loc,
                              DenseElementsAttr::get(
                                  i32Channels, ArrayRef<int32_t>(offsets))));
      }
      if (bias)
        y = AddOp::create(b, loc, resultType, y,
                          conv ? ReshapeOp::create(b, loc, i32Channels, bias)
                                     .getResult()
                               : bias);
      op->getResult(0).replaceAllUsesWith(y);
      op->erase();
      done = true;
      return success();
    }
    auto channelType = RankedTensorType::get(channelShape, f32);
    Value y = CastOp::create(b, loc, resultType, acc, false, false);
    y = MulOp::create(
        b, loc, resultType, y,
        ConstantOp::create(b, loc,
                           DenseElementsAttr::get(channelType,
                                                  ArrayRef<float>(scale))));
    if (zero != 0)
      y = AddOp::create(
          b, loc, resultType, y,
          ConstantOp::create(b, loc,
                             DenseElementsAttr::get(channelType,
                                                    ArrayRef<float>(offset))));
    if (bias) {
      if (DenseElementsAttr values = foldedF32(bias))
        bias = ConstantOp::create(
            b, loc, conv ? values.reshape(channelType) : values);
      y = AddOp::create(b, loc, resultType, y, bias);
    }
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    done = true;
    return success();
  }
};

} // namespace
