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
    SmallVector<Operation *> contractions;
    for (Operation &op : main.getBody().front())
      if (isa<ConvOp, MatMulOp, GemmOp>(op) &&
          getElementTypeOrSelf(op.getResult(0).getType()).isF32())
        contractions.push_back(&op);
    for (size_t i = 0; i < contractions.size(); ++i) {
      Operation *op = contractions[i];
      std::string node, opType;
      onnxNodeOf(op->getLoc(), node, opType);
      contractionNodes.insert(node);
      bool edge = i == 0 || i + 1 == contractions.size();
      if (kept.contains(node) || kept.contains(opType) ||
          (edge && !forced.contains(node)))
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
    MLIRContext *ctx = op->getContext();
    Type f32 = Float32Type::get(ctx), i8 = IntegerType::get(ctx, 8);
    auto scalarF32 = [&](double v) -> Value {
      auto t = RankedTensorType::get({}, f32);
      return ConstantOp::create(b, loc, DenseElementsAttr::get(t, float(v)));
    };
    auto inType = cast<RankedTensorType>(input.getType());
    Value scaled =
        MulOp::create(b, loc, inType, input, scalarF32(fp8Max / amax));
    auto down = CastOp::create(b, loc, inType.clone(i8), scaled, false, false);
    down.setResultFormat(fp8Onnx);
    down.setSaturate(true);
    auto up = CastOp::create(b, loc, inType, down, false, false);
    up.setInputFormat(fp8Onnx);
    Value x8 = MulOp::create(b, loc, inType, up, scalarF32(amax / fp8Max));
    Value w8 = ConstantOp::create(
        b, weight.getLoc(),
        DenseElementsAttr::get(cast<RankedTensorType>(w.getType()),
                               ArrayRef<float>(values)));
    op->setOperand(0, x8);
    op->setOperand(1, w8);
    done = true;
    return success();
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
    auto conv = dyn_cast<ConvOp>(op);
    bool padded = conv && llvm::any_of(conv.getPads(),
                                       [](int64_t p) { return p != 0; });
    bool fromZero = range.asymmetric && range.lo >= 0 && range.hi > 0;
    double amax = range.magnitude();
    Value input = op->getOperand(0), weight = op->getOperand(1);
    DenseElementsAttr w = constantF32(weight);
    if (!w)
      return success();
    auto wType = cast<RankedTensorType>(w.getType());
    int64_t channelAxis;
    double alpha = 1.0;
    Value bias;
    if (auto m = dyn_cast<MatMulOp>(op)) {
      if (wType.getRank() != 2)
        return success();
      channelAxis = 1;
    } else if (auto g = dyn_cast<GemmOp>(op)) {
      if (g.getTransA() || g.getTransB() ||
          (g.getC() && g.getBeta().convertToFloat() != 1.0f))
        return success();
      channelAxis = 1;
      alpha = g.getAlpha().convertToFloat();
      bias = g.getC();
    } else {
      auto c = cast<ConvOp>(op);
      channelAxis = c.getFilterDim();
      bias = c.getBias();
      // A bias computed at run time: left in f32 (none is, in practice).
      if (bias && !constantF32(bias))
        return success();
    }
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    MLIRContext *ctx = op->getContext();
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type f32 = Float32Type::get(ctx), i8 = IntegerType::get(ctx, 8),
         i32 = IntegerType::get(ctx, 32);
    auto scalarF32 = [&](double v) -> Value {
      auto t = RankedTensorType::get({}, f32);
      return ConstantOp::create(b, loc,
                                DenseElementsAttr::get(t, float(v)));
    };
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
    Value scaled = MulOp::create(b, loc, inType, input, scalarF32(1.0 / step));
    Value rounded = RoundOp::create(b, loc, inType, scaled);
    if (zero != 0)
      rounded = AddOp::create(b, loc, inType, rounded, scalarF32(zero));
    Value xq = CastOp::create(b, loc, inType.clone(i8), rounded, false,
                              /*resultUnsigned=*/true);
    QuantizedWeight qw = quantizeWeight(w, channelAxis);
    // A 1x1 Conv of stride 1 and one group is a MatMul of its weights
    // [F, C] by the input's pixels: with the weights filters-first, the
    // input channels of a filter are contiguous, the row operand of the
    // CPU's dot-product tiles (the pixels are its vectors).
    bool filtersFirst = false;
    if (conv && conv.getFiltersLast() && conv.getGroup() == 1 &&
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
    if (conv && conv.getFiltersLast() && conv.getGroup() == 1 &&
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
    Value wq = ConstantOp::create(b, weight.getLoc(), qw.values);
    // The integer contraction.
    auto accType = resultType.clone(i32);
    Value acc;
    if (auto conv = dyn_cast<ConvOp>(op)) {
      auto q = cast<ConvOp>(b.clone(*op));
      if (q.getBias())
        q->eraseOperand(2);
      q->setOperand(0, xq);
      q->setOperand(1, wq);
      q->getResult(0).setType(accType);
      q.setAccTypeAttr(TypeAttr::get(i32));
      q.setInputUnsigned(true);
      if (filtersFirst)
        q.setFiltersLast(false);
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
    int64_t channels = resultType.getDimSize(isa<ConvOp>(op) ? 1 : resultType.getRank() - 1);
    std::vector<float> scale(channels), offset(channels, 0.0f);
    for (int64_t c = 0; c < channels; ++c)
      scale[c] = float(step * qw.scales[c] * alpha);
    if (zero != 0) {
      // The channel of each weight element: its index along channelAxis
      // (filters-last rows past the filters are padding).
      auto wShape = cast<RankedTensorType>(qw.values.getType()).getShape();
      int64_t inner = 1;
      for (size_t d = channelAxis + 1; d < wShape.size(); ++d)
        inner *= wShape[d];
      std::vector<int64_t> sums(channels, 0);
      auto values = qw.values.getValues<int8_t>();
      for (size_t i = 0; i < size_t(qw.values.getNumElements()); ++i)
        if (int64_t c = (int64_t(i) / inner) % wShape[channelAxis];
            c < channels)
          sums[c] += values[i];
      for (int64_t c = 0; c < channels; ++c)
        offset[c] = float(-zero * double(sums[c]) * double(scale[c]));
    }
    SmallVector<int64_t> channelShape = {channels};
    if (isa<ConvOp>(op))
      channelShape.append(resultType.getRank() - 2, 1);
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
      if (isa<ConvOp>(op))
        bias = ConstantOp::create(b, loc,
                                  constantF32(bias).reshape(channelType));
      y = AddOp::create(b, loc, resultType, y, bias);
    }
    op->getResult(0).replaceAllUsesWith(y);
    op->erase();
    done = true;
    return success();
  }
};

} // namespace
