//===- ResamplingBodies.cpp - ConvTranspose and Resize as ONNX bodies -----===//
//
// Ops that change spatial extents (ConvTranspose, Resize, Upsample),
// written as bodies of supported ops from their ONNX specification (ONNX
// 1.22). See BodyBuilders.h. GridSample is in GridSampleBody.cpp.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <onnx/defs/attr_proto_util.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

using namespace tessel;
using namespace tessel::onnx_import;
using namespace tessel::onnx_import::bodies;

namespace {

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// ConvTranspose-11 (1-10 read the same attributes): Conv's adjoint, as a
// Conv. Input element i of a spatial dim reaches outputs i * stride + j *
// dilation - pad_begin (kernel tap j); the same sums come from X with
// stride - 1 zeros after each element, padded by (kernel span - 1) minus
// the transposed conv's pads, convolved at stride 1 with the kernel
// flipped and its two channel dims swapped within each group. Where that
// padding is negative the Conv's output is cut instead.
//
// The zeros cost stride^n more multiplications than a direct kernel; that
// kernel is GPU-speed work (issue 23), the meaning is this one.
bool buildConvTranspose(const Call &c, onnx::FunctionBuilder &b,
                        std::string &error) {
  int64_t rank;
  if (!knownImageRank(c, 0, rank, error))
    return false;
  const int64_t n = rank - 2;
  if (c.rank(1) >= 0 && c.rank(1) != rank) {
    error = "W must have X's rank";
    return false;
  }
  std::vector<int64_t> kernel = c.attr.ints("kernel_shape");
  if (kernel.empty()) {
    for (int64_t d = 0; d < n; ++d) {
      int64_t k = c.extent(1, d + 2);
      if (k < 0) {
        error = std::string(kUnsupportedPrefix) +
                "the kernel's extents must be static (W's shape or "
                "kernel_shape)";
        return false;
      }
      kernel.push_back(k);
    }
  }
  auto orFill = [&](const char *name, int64_t fill) {
    std::vector<int64_t> v = c.attr.ints(name);
    if (v.empty())
      v.assign(n, fill);
    return v;
  };
  std::vector<int64_t> strides = orFill("strides", 1),
                       dilations = orFill("dilations", 1),
                       outputPadding = orFill("output_padding", 0),
                       pads = c.attr.ints("pads"),
                       outputShape = c.attr.ints("output_shape");
  if (pads.empty())
    pads.assign(2 * n, 0);
  // output_shape may name N and C too.
  if (int64_t(outputShape.size()) == n + 2)
    outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
  int64_t group = c.attr.i("group", 1);
  if (int64_t(kernel.size()) != n || int64_t(strides.size()) != n ||
      int64_t(dilations.size()) != n || int64_t(outputPadding.size()) != n ||
      int64_t(pads.size()) != 2 * n ||
      (!outputShape.empty() && int64_t(outputShape.size()) != n)) {
    error = "kernel_shape, strides, dilations, output_padding and "
            "output_shape need one value per spatial dim, pads two";
    return false;
  }
  if (group <= 0) {
    error = "group must be positive";
    return false;
  }
  for (int64_t d = 0; d < n; ++d)
    if (kernel[d] <= 0 || strides[d] <= 0 || dilations[d] <= 0 ||
        outputPadding[d] < 0) {
      error = "kernel_shape, strides and dilations must be positive, "
              "output_padding not negative";
      return false;
    }
  std::string autoPad = c.attr.s("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER") {
    error = "auto_pad must be NOTSET, VALID, SAME_UPPER or SAME_LOWER, not '" +
            autoPad + "'";
    return false;
  }

  // The transposed conv's pads: given, or derived from output_shape (which
  // overrides pads) or from SAME_* (output = input * stride), split as the
  // specification says, with floor division (a negative total extends the
  // output at the end).
  std::vector<int64_t> begin(n), end(n);
  for (int64_t d = 0; d < n; ++d) {
    int64_t span = dilations[d] * (kernel[d] - 1) + 1;
    if (!outputShape.empty() || autoPad == "SAME_UPPER" ||
        autoPad == "SAME_LOWER") {
      int64_t total = outputPadding[d] + span - strides[d];
      if (!outputShape.empty()) {
        int64_t in = c.extent(0, d + 2);
        if (in < 0) {
          error = std::string(kUnsupportedPrefix) +
                  "output_shape needs X's spatial extents to be static";
          return false;
        }
        total =
            strides[d] * (in - 1) + outputPadding[d] + span - outputShape[d];
      }
      int64_t half = floorDiv(total, 2);
      begin[d] = autoPad == "SAME_UPPER" ? half : total - half;
      end[d] = total - begin[d];
    } else if (autoPad == "NOTSET") {
      begin[d] = pads[d];
      end[d] = pads[d + n];
    }
  }

  // W [C, M/g, k...] -> [M, C/g, k...], flipped along every spatial dim.
  std::vector<int64_t> spatial, perm = {0, 2, 1}, flipStarts, flipEnds,
                                flipSteps;
  for (int64_t d = 0; d < n; ++d) {
    spatial.push_back(d + 2);
    perm.push_back(d + 3);
    flipStarts.push_back(-1);
    flipEnds.push_back(std::numeric_limits<int64_t>::min());
    flipSteps.push_back(-1);
  }
  b.Const("G", std::vector<int64_t>{group}).Add(R"(
    WC = Shape <start = 0, end = 1> (W)
    WM = Shape <start = 1, end = 2> (W)
    WK = Shape <start = 2> (W)
    CG = Div (WC, G)
    M = Mul (WM, G)
    Grouped = Concat <axis = 0> (G, CG, WM, WK)
    WG = Reshape (W, Grouped)
  )");
  text(b, "WGT = Transpose <perm = " + intList(perm) + "> (WG)");
  b.Add(R"(
    Swapped = Concat <axis = 0> (M, CG, WK)
    WT = Reshape (WGT, Swapped)
  )");
  b.Const("FlipStarts", flipStarts)
      .Const("FlipEnds", flipEnds)
      .Const("FlipSteps", flipSteps)
      .Const("Spatial", spatial)
      .Add("WF = Slice (WT, FlipStarts, FlipEnds, Spatial, FlipSteps)");

  // X with stride - 1 zeros after each element: a unit dim after every
  // spatial dim, widened to the stride by a Where that keeps X at position
  // 0 (one elementwise kernel; a Mul by 0 would turn inf into NaN), merged.
  std::string z = "X";
  bool strided = false;
  for (int64_t s : strides)
    strided |= s > 1;
  if (strided) {
    std::vector<int64_t> unit, maskShape(2 + 2 * n, 1);
    for (int64_t d = 0; d < n; ++d) {
      unit.push_back(3 + 2 * d);
      maskShape[3 + 2 * d] = strides[d];
    }
    onnx::TensorProto mask;
    mask.set_data_type(onnx::TensorProto::BOOL);
    int64_t count = 1;
    for (int64_t e : maskShape) {
      mask.add_dims(e);
      count *= e;
    }
    // Row-major: element k is at position 0 of every strided dim when its
    // index along each is 0.
    for (int64_t k = 0; k < count; ++k) {
      int64_t rest = k;
      bool first = true;
      for (int64_t d = int64_t(maskShape.size()) - 1; d >= 0; --d) {
        first &= rest % maskShape[d] == 0;
        rest /= maskShape[d];
      }
      mask.add_int32_data(first);
    }
    b.Const("Unit", unit)
        .Const("ZeroF", 0.0f)
        .Const("Strides", strides)
        .Add("Mask = Constant ()", onnx::MakeAttribute("value", mask))
        .Add(R"(
          Zero = CastLike (ZeroF, X)
          XU = Unsqueeze (X, Unit)
          XE = Where (Mask, XU, Zero)
          NC = Shape <start = 0, end = 2> (X)
          XS = Shape <start = 2> (X)
          ZS = Mul (XS, Strides)
          ZShape = Concat <axis = 0> (NC, ZS)
          Z = Reshape (XE, ZShape)
        )");
    z = "Z";
  }

  // The Conv's pads; the zeros after the last element (stride - 1 of
  // them) come off the end pad. Negative pads become a cut of the result.
  std::vector<int64_t> convPads(2 * n), cutStarts(n), cutEnds(n);
  bool cut = false;
  for (int64_t d = 0; d < n; ++d) {
    int64_t span = dilations[d] * (kernel[d] - 1) + 1;
    int64_t lo = span - 1 - begin[d];
    int64_t hi = span - 1 - end[d] + outputPadding[d] - (strides[d] - 1);
    convPads[d] = std::max<int64_t>(lo, 0);
    convPads[d + n] = std::max<int64_t>(hi, 0);
    cutStarts[d] = std::max<int64_t>(-lo, 0);
    cutEnds[d] = hi < 0 ? hi : std::numeric_limits<int64_t>::max();
    cut |= lo < 0 || hi < 0;
  }
  std::string conv = "Conv <group = " + std::to_string(group) +
                     ", dilations = " + intList(dilations) +
                     ", kernel_shape = " + intList(kernel) +
                     ", pads = " + intList(convPads) + "> (" + z + ", WF" +
                     (c.hasInput(2) ? ", B)" : ")");
  if (!cut) {
    text(b, "Y = " + conv);
    return true;
  }
  text(b, "Full = " + conv);
  b.Const("CutStarts", cutStarts)
      .Const("CutEnds", cutEnds)
      .Add("Y = Slice (Full, CutStarts, CutEnds, Spatial)");
  return true;
}


// Resize (10-21) and Upsample (7-9), from the reference implementation of
// ONNX 1.22 (onnx/reference/ops/op_resize.py), which the specification's
// tests come from. Interpolation is separable: each resized axis in turn is
// a gather of `n` taps around every output position and a weighted sum, so
// one body covers nearest (one tap), linear (2), cubic (4) and their
// antialiased forms (a wider footprint when downscaling).
//
// Per axis of input extent L, scale s and output extent O (floor(L * s) from
// scales; the sizes given, or with keep_aspect_ratio_policy round(L * s) for
// the common s), output position y maps to x = the coordinate transform of
// y (half_pixel: (y + 0.5) / s - 0.5, ...), all in f64 as the reference
// computes it. With i0 = ceil(x) - 1 and r = x - i0 in (0, 1] (the
// reference's "prefer the pixel on the left"), the taps are
// i0 + start + k, k in [0, n), clamped into [0, L) (edge padding), with
// weights kernel(scale' * (start + k - r)); start = 1 - n / 2.
//
// Where the scales or sizes are constants and X's extents static, every
// extent and scale is computed here and the body's shapes are static;
// otherwise the kernels compute them and the plan reads the extents back
// (docs/design.md, "Extents that only kernels compute are read back").
class ResizeBody {
public:
  ResizeBody(const Call &c, onnx::FunctionBuilder &b) : c(c), b(b) {}

  /// Resize of `opset` >= 11 (X, roi, scales, sizes).
  bool resize(std::string &error);
  /// Resize-10 and Upsample: X and scales (input 1, or Upsample-7's
  /// attribute), modes nearest and linear, asymmetric coordinates.
  bool legacy(std::string &error);

private:
  /// How one axis is resized: its scale and output extent as constants
  /// when known here, and the names of [1]-shaped tensors holding them
  /// (f64 scale "S<i>", int64 extent "O<i>", f64 L "LF<i>").
  struct Axis {
    int64_t axis = 0;
    int64_t extent = -1; ///< L when static
    std::optional<double> scale;
    std::optional<int64_t> out;
    bool unchanged = false; ///< sizes gives the input's own extent
  };

  bool options(std::string &error);
  /// The constants every axis uses.
  void constants();
  bool axesAttribute(std::string &error);
  /// The scales and output extents of every axis.
  bool scalesAndSizes(int scalesInput, int sizesInput,
                      const std::vector<double> *scalesAttribute,
                      std::string &error);
  void emit();
  /// Emits the resize of axis `i` of `from` into `to`.
  void emitAxis(size_t i, const std::string &from, const std::string &to);
  std::string coordinates(size_t i);
  std::string n(const char *base, size_t i) const {
    return base + std::to_string(i);
  }
  void add(const std::string &nodes) { text(b, nodes); }
  void constD(const std::string &name, double v) {
    b.Const(name, std::vector<double>{v});
  }
  void constI(const std::string &name, int64_t v) {
    b.Const(name, std::vector<int64_t>{v});
  }

  const Call &c;
  onnx::FunctionBuilder &b;
  int64_t rank = 0;
  std::vector<Axis> axes;
  std::string mode = "nearest", transform = "half_pixel",
              nearestMode = "round_prefer_floor", aspect = "stretch";
  double cubicA = -0.75, extrapolation = 0;
  bool excludeOutside = false, antialias = false;
  /// The element type kernels interpolate in (ONNX TensorProto types).
  int64_t computeType = onnx::TensorProto::FLOAT;
};

bool ResizeBody::options(std::string &error) {
  mode = c.attr.s("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic") {
    error = "mode must be nearest, linear or cubic, not '" + mode + "'";
    return false;
  }
  transform = c.attr.s("coordinate_transformation_mode", "half_pixel");
  bool known = transform == "half_pixel" || transform == "asymmetric" ||
               transform == "pytorch_half_pixel" ||
               transform == "align_corners" ||
               transform == "tf_crop_and_resize" ||
               (transform == "tf_half_pixel_for_nn" && c.opset <= 12) ||
               (transform == "half_pixel_symmetric" && c.opset >= 19);
  if (!known) {
    error = "coordinate_transformation_mode '" + transform +
            "' is not defined at opset " + std::to_string(c.opset);
    return false;
  }
  nearestMode = c.attr.s("nearest_mode", "round_prefer_floor");
  if (nearestMode != "round_prefer_floor" &&
      nearestMode != "round_prefer_ceil" && nearestMode != "floor" &&
      nearestMode != "ceil") {
    error = "nearest_mode must be round_prefer_floor, round_prefer_ceil, "
            "floor or ceil, not '" + nearestMode + "'";
    return false;
  }
  aspect = c.attr.s("keep_aspect_ratio_policy", "stretch");
  if (aspect != "stretch" && aspect != "not_larger" &&
      aspect != "not_smaller") {
    error = "keep_aspect_ratio_policy must be stretch, not_larger or "
            "not_smaller, not '" + aspect + "'";
    return false;
  }
  cubicA = c.attr.f("cubic_coeff_a", -0.75f);
  extrapolation = c.attr.f("extrapolation_value", 0.0f);
  excludeOutside = c.attr.i("exclude_outside", 0) != 0;
  // Antialiasing filters linear and cubic only (nearest has one tap).
  antialias = c.attr.i("antialias", 0) != 0 && mode != "nearest";
  return true;
}

bool ResizeBody::axesAttribute(std::string &error) {
  std::vector<int64_t> given = c.attr.ints("axes");
  if (!c.attr.has("axes"))
    for (int64_t a = 0; a < rank; ++a)
      given.push_back(a);
  std::vector<bool> seen(rank, false);
  for (int64_t a : given) {
    if (a < -rank || a >= rank || seen[a < 0 ? a + rank : a]) {
      error = "axes must be distinct and in [-" + std::to_string(rank) +
              ", " + std::to_string(rank) + ")";
      return false;
    }
    Axis axis;
    axis.axis = a < 0 ? a + rank : a;
    seen[axis.axis] = true;
    axis.extent = c.extent(0, axis.axis);
    axes.push_back(axis);
  }
  return true;
}

bool ResizeBody::scalesAndSizes(int scalesInput, int sizesInput,
                                const std::vector<double> *scalesAttribute,
                                std::string &error) {
  const int64_t count = axes.size();
  // Opsets 11 and 12 require scales even with sizes: then it is empty.
  bool useSizes = sizesInput >= 0 && c.hasInput(sizesInput);
  bool hasScales = scalesAttribute || (scalesInput >= 0 && c.hasInput(scalesInput));
  if (hasScales && useSizes && !scalesAttribute) {
    int64_t length = c.extent(scalesInput, 0);
    if (length != 0) {
      error = length > 0 ? "scales and sizes cannot both be given"
                         : std::string(kUnsupportedPrefix) +
                               "with sizes given, scales must be known to be "
                               "empty (a static shape [0])";
      return false;
    }
    hasScales = false;
  }
  if (!hasScales && !useSizes) {
    error = "one of scales and sizes must be given";
    return false;
  }
  int in = useSizes ? sizesInput : scalesInput;
  if (!scalesAttribute && c.rank(in) != 1) {
    error = std::string(useSizes ? "sizes" : "scales") + " must be 1-D";
    return false;
  }
  int64_t length = scalesAttribute ? int64_t(scalesAttribute->size())
                                   : c.extent(in, 0);
  if (length >= 0 && length != count) {
    error = std::string(useSizes ? "sizes" : "scales") + " must have " +
            std::to_string(count) + " values (one per resized axis), not " +
            std::to_string(length);
    return false;
  }

  // Per axis: L, and L as f64.
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i].axis;
    add(n("L", i) + " = Shape <start = " + std::to_string(a) +
        ", end = " + std::to_string(a + 1) + "> (X)\n" + n("LF", i) +
        " = Cast <to = 11> (" + n("L", i) + ")");
    constI(n("I", i), int64_t(i));
  }

  if (!useSizes) {
    std::optional<std::vector<double>> values =
        scalesAttribute ? std::optional(*scalesAttribute)
                        : c.constantFloats(scalesInput);
    if (!values)
      add("ScalesD = Cast <to = 11> (scales)");
    for (size_t i = 0; i < axes.size(); ++i) {
      Axis &axis = axes[i];
      if (values) {
        double s = (*values)[i];
        if (!(s > 0)) {
          error = "scales must be positive";
          return false;
        }
        axis.scale = s;
        if (axis.extent >= 0)
          axis.out = int64_t(std::floor(s * double(axis.extent)));
        constD(n("S", i), s);
      } else {
        add(n("S", i) + " = Gather (ScalesD, " + n("I", i) + ")");
      }
      if (axis.out) {
        constI(n("O", i), *axis.out);
      } else {
        add(n("OF", i) + " = Mul (" + n("S", i) + ", " + n("LF", i) + ")\n" +
            n("OFl", i) + " = Floor (" + n("OF", i) + ")\n" + n("O", i) +
            " = Cast <to = 7> (" + n("OFl", i) + ")");
      }
    }
    return true;
  }

  // The sizes given, per axis: "Sz<i>". The ones the importer proved are
  // constants; a size that is provably the axis' own extent (torch's
  // interpolate(x, size) with the batch and channels from x.shape) leaves
  // the axis as it is.
  InputFacts facts = c.facts(sizesInput);
  std::vector<std::optional<int64_t>> sizes(axes.size());
  if (facts.knownElements.size() == axes.size())
    sizes = facts.knownElements;
  bool allKnown = true;
  for (size_t i = 0; i < axes.size(); ++i)
    allKnown &= axes[i].extent > 0 && sizes[i].has_value();
  for (size_t i = 0; i < axes.size(); ++i) {
    if (sizes[i] && *sizes[i] < 0) {
      error = "sizes must not be negative";
      return false;
    }
    if (sizes[i])
      constI(n("Sz", i), *sizes[i]);
    else
      add(n("Sz", i) + " = Gather (sizes, " +
          n("I", i) + ")");
    axes[i].unchanged =
        (sizes[i] && *sizes[i] == axes[i].extent) ||
        (facts.elementKeys.size() == axes.size() &&
         c.elementIsDim(sizesInput, i, 0, axes[i].axis));
  }
  if (aspect == "stretch") {
    for (size_t i = 0; i < axes.size(); ++i) {
      Axis &axis = axes[i];
      add(n("O", i) + " = Identity (" + n("Sz", i) + ")");
      if (sizes[i])
        axis.out = *sizes[i];
      if (axis.unchanged) {
        axis.scale = 1.0;
        constD(n("S", i), 1.0);
      } else if (sizes[i] && axis.extent > 0) {
        axis.scale = double(*axis.out) / double(axis.extent);
        constD(n("S", i), *axis.scale);
      } else {
        add(n("OD", i) + " = Cast <to = 11> (" + n("O", i) + ")\n" +
            n("S", i) + " = Div (" + n("OD", i) + ", " + n("LF", i) + ")");
      }
    }
    return true;
  }
  // keep_aspect_ratio_policy: one scale for every resized axis, the least
  // (not_larger) or the greatest (not_smaller) of sizes / L; the extents
  // are round_half_up(scale * L).
  bool larger = aspect == "not_smaller";
  for (Axis &axis : axes) // one scale for all: no axis is left alone
    axis.unchanged = false;
  if (allKnown) {
    double scale = 0;
    for (size_t i = 0; i < axes.size(); ++i) {
      double r = double(*sizes[i]) / double(axes[i].extent);
      scale = i == 0 ? r : larger ? std::max(scale, r) : std::min(scale, r);
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      axes[i].scale = scale;
      axes[i].out = int64_t(scale * double(axes[i].extent) + 0.5);
      constD(n("S", i), scale);
      constI(n("O", i), *axes[i].out);
    }
    return true;
  }
  std::string ratios;
  for (size_t i = 0; i < axes.size(); ++i) {
    add(n("OD", i) + " = Cast <to = 11> (" + n("Sz", i) + ")\n" + n("Q", i) +
        " = Div (" + n("OD", i) + ", " + n("LF", i) + ")");
    ratios += (i ? ", " : "") + n("Q", i);
  }
  add("Ratios = Concat <axis = 0> (" + ratios + ")\nZeroAxis = Constant "
      "<value = int64[1] {0}> ()\nCommon = " +
      std::string(larger ? "ReduceMax" : "ReduceMin") +
      " <keepdims = 1> (Ratios, ZeroAxis)");
  for (size_t i = 0; i < axes.size(); ++i)
    add(n("S", i) + " = Identity (Common)\n" + n("SL", i) + " = Mul (Common, " +
        n("LF", i) + ")\n" + n("SLH", i) + " = Add (" + n("SL", i) +
        ", HalfD)\n" + n("SLF", i) + " = Floor (" + n("SLH", i) + ")\n" +
        n("O", i) + " = Cast <to = 7> (" + n("SLF", i) + ")");
  return true;
}

std::string ResizeBody::coordinates(size_t i) {
  // Y: the output positions as f64; OW: the output width as the reference
  // sees it (scale * L, not rounded).
  std::string y = n("YF", i), s = n("S", i), lf = n("LF", i),
              ow = n("OW", i), x = n("X", i);
  add(n("On", i) + " = Squeeze (" + n("O", i) + ")\n" + n("Y", i) +
      " = Range (ZeroI, " + n("On", i) + ", OneI)\n" + y +
      " = Cast <to = 11> (" + n("Y", i) + ")\n" + ow + " = Mul (" + s +
      ", " + lf + ")\n" + n("OW1", i) + " = Equal (" + ow + ", OneD)");
  auto halfPixel = [&](const std::string &name) {
    add(n("YH", i) + " = Add (" + y + ", HalfD)\n" + n("YS", i) + " = Div (" +
        n("YH", i) + ", " + s + ")\n" + name + " = Sub (" + n("YS", i) +
        ", HalfD)");
  };
  if (transform == "half_pixel") {
    halfPixel(x);
  } else if (transform == "asymmetric") {
    add(x + " = Div (" + y + ", " + s + ")");
  } else if (transform == "tf_half_pixel_for_nn") {
    add(n("YH", i) + " = Add (" + y + ", HalfD)\n" + x + " = Div (" +
        n("YH", i) + ", " + s + ")");
  } else if (transform == "pytorch_half_pixel") {
    halfPixel(n("XH", i));
    add(x + " = Where (" + n("OW1", i) + ", MinusHalfD, " + n("XH", i) + ")");
  } else if (transform == "align_corners") {
    add(n("Lm1", i) + " = Sub (" + lf + ", OneD)\n" + n("OWm1", i) +
        " = Sub (" + ow + ", OneD)\n" + n("YL", i) + " = Mul (" + y + ", " +
        n("Lm1", i) + ")\n" + n("XA", i) + " = Div (" + n("YL", i) + ", " +
        n("OWm1", i) + ")\n" + x + " = Where (" + n("OW1", i) + ", ZeroD, " +
        n("XA", i) + ")");
  } else if (transform == "half_pixel_symmetric") {
    halfPixel(n("XH", i));
    add(n("OD2", i) + " = Cast <to = 11> (" + n("O", i) + ")\n" + n("Adj", i) +
        " = Div (" + n("OD2", i) + ", " + ow + ")\n" + n("Ctr", i) +
        " = Div (" + lf + ", TwoD)\n" + n("OneMinusAdj", i) +
        " = Sub (OneD, " + n("Adj", i) + ")\n" + n("Off", i) + " = Mul (" +
        n("Ctr", i) + ", " + n("OneMinusAdj", i) + ")\n" + n("XO", i) +
        " = Add (" + n("Off", i) + ", " + n("YS", i) + ")\n" + x +
        " = Sub (" + n("XO", i) + ", HalfD)");
  } else { // tf_crop_and_resize
    std::string d = n("RD", i), lm1 = n("Lm1", i);
    add(d + " = Sub (" + n("R1", i) + ", " + n("R0", i) + ")\n" + lm1 +
        " = Sub (" + lf + ", OneD)\n" + n("OWm1", i) + " = Sub (" + ow +
        ", OneD)\n" + n("DL", i) + " = Mul (" + d + ", " + lm1 + ")\n" +
        n("X1a", i) + " = Div (" + n("DL", i) + ", TwoD)\n" + n("YD", i) +
        " = Mul (" + y + ", " + d + ")\n" + n("YDL", i) + " = Mul (" +
        n("YD", i) + ", " + lm1 + ")\n" + n("X1b", i) + " = Div (" +
        n("YDL", i) + ", " + n("OWm1", i) + ")\n" + n("X1", i) +
        " = Where (" + n("OW1", i) + ", " + n("X1a", i) + ", " + n("X1b", i) +
        ")\n" + n("R0L", i) + " = Mul (" + n("R0", i) + ", " + lm1 + ")\n" +
        x + " = Add (" + n("X1", i) + ", " + n("R0L", i) + ")\n" +
        n("Below", i) + " = Less (" + x + ", ZeroD)\n" + n("Above", i) +
        " = Greater (" + x + ", " + lm1 + ")\n" + n("Outside", i) +
        " = Or (" + n("Below", i) + ", " + n("Above", i) + ")");
  }
  return x;
}

void ResizeBody::emitAxis(size_t i, const std::string &from,
                          const std::string &to) {
  const Axis &axis = axes[i];
  std::string x = coordinates(i);
  std::string lm1 = n("Lm1", i);
  if (transform != "align_corners" && transform != "tf_crop_and_resize")
    add(lm1 + " = Sub (" + n("LF", i) + ", OneD)");
  // i0 = ceil(x) - 1 and r = x - i0, in (0, 1].
  add(n("Xc", i) + " = Ceil (" + x + ")\n" + n("I0", i) + " = Sub (" +
      n("Xc", i) + ", OneD)\n" + n("R", i) + " = Sub (" + x + ", " +
      n("I0", i) + ")");
  std::string trailing; // the dims after the axis, as unit dims
  for (int64_t d = axis.axis + 1; d < rank; ++d)
    trailing += std::string(trailing.empty() ? "" : ", ") +
                std::to_string(d - axis.axis);
  std::string gathered = n("G", i), result = n("V", i);
  if (mode == "nearest") {
    // The tap of [i0, i0 + 1] the nearest mode picks.
    std::string pick = n("Pick", i);
    if (nearestMode == "simple") {
      // Resize-10 and Upsample (ONNX Runtime's reading): floor when
      // upscaling, ceil when downscaling.
      add(n("Fl", i) + " = Floor (" + x + ")\n" + n("Down", i) + " = Less (" +
          n("S", i) + ", OneD)\n" + pick + " = Where (" + n("Down", i) +
          ", " + n("Xc", i) + ", " + n("Fl", i) + ")");
    } else {
      std::string sel = n("Sel", i);
      if (nearestMode == "ceil")
        add(pick + " = Identity (" + n("Xc", i) + ")");
      else
        add(sel + " = " +
            (nearestMode == "round_prefer_floor"  ? "Greater (" + n("R", i) + ", HalfD)"
             : nearestMode == "round_prefer_ceil" ? "GreaterOrEqual (" + n("R", i) + ", HalfD)"
                                                  : "Equal (" + n("R", i) + ", OneD)") +
            "\n" + n("SelD", i) + " = Cast <to = 11> (" + sel + ")\n" + pick +
            " = Add (" + n("I0", i) + ", " + n("SelD", i) + ")");
    }
    add(n("PickHi", i) + " = Min (" + pick + ", " + lm1 + ")\n" +
        n("PickC", i) + " = Max (" + n("PickHi", i) + ", ZeroD)\n" +
        n("Idx", i) + " = Cast <to = 7> (" + n("PickC", i) + ")\n" + result +
        " = Gather <axis = " + std::to_string(axis.axis) + "> (" + from +
        ", " + n("Idx", i) + ")");
  } else {
    // The taps: n = 2 (linear) or 4 (cubic), or with antialias when
    // downscaling 2 - 2 * start, start = floor(-support / scale') + 1,
    // scale' = min(scale, 1).
    bool cubic = mode == "cubic";
    double support = cubic ? 2 : 1;
    std::string sp = n("SP", i), start = n("St", i), taps = n("N", i);
    if (!antialias) {
      constD(start, cubic ? -1 : 0);
      constI(taps, cubic ? 4 : 2);
      constD(sp, 1);
    } else if (axis.scale) {
      double scale = std::min(*axis.scale, 1.0);
      double st = std::floor(-support / scale) + 1;
      constD(sp, scale);
      constD(start, st);
      constI(taps, int64_t(2 - 2 * st));
    } else {
      constD(n("Sup", i), -support);
      add(sp + " = Min (" + n("S", i) + ", OneD)\n" + n("NS", i) + " = Div (" +
          n("Sup", i) + ", " + sp + ")\n" + n("NSF", i) + " = Floor (" +
          n("NS", i) + ")\n" + start + " = Add (" + n("NSF", i) +
          ", OneD)\n" + n("St2", i) + " = Mul (" + start + ", TwoD)\n" +
          n("ND", i) + " = Sub (TwoD, " + n("St2", i) + ")\n" + taps +
          " = Cast <to = 7> (" + n("ND", i) + ")");
    }
    // T [O, n] = start + k - r; the taps' positions i0 + start + k.
    add(n("Nn", i) + " = Squeeze (" + taps + ")\n" + n("K", i) +
        " = Range (ZeroI, " + n("Nn", i) + ", OneI)\n" + n("KF", i) +
        " = Cast <to = 11> (" + n("K", i) + ")\n" + n("KS", i) + " = Add (" +
        n("KF", i) + ", " + start + ")\n" + n("RU", i) + " = Unsqueeze (" +
        n("R", i) + ", OneAxis)\n" + n("T", i) + " = Sub (" + n("KS", i) +
        ", " + n("RU", i) + ")\n" + n("I0U", i) + " = Unsqueeze (" +
        n("I0", i) + ", OneAxis)\n" + n("P", i) + " = Add (" + n("I0U", i) +
        ", " + n("KS", i) + ")");
    std::string t = n("T", i), w = n("W", i);
    if (antialias) {
      add(n("TS", i) + " = Mul (" + sp + ", " + t + ")");
      t = n("TS", i);
    }
    add(n("TA", i) + " = Abs (" + t + ")");
    std::string a = n("TA", i);
    if (cubic) {
      // ((A + 2) t - (A + 3)) t^2 + 1 on [0, 1], ((A t - 5A) t + 8A) t - 4A
      // on (1, 2), 0 beyond.
      add(keysNear(a, n("Near", i), "OneD"));
      add(keysFar(a, n("Far", i)));
      add(n("In1", i) + " = LessOrEqual (" +
          a + ", OneD)\n" + n("In2", i) + " = Less (" + a + ", TwoD)\n" +
          n("FarOr0", i) + " = Where (" + n("In2", i) + ", " + n("Far", i) +
          ", ZeroD)\n" + w + " = Where (" + n("In1", i) + ", " + n("Near", i) +
          ", " + n("FarOr0", i) + ")");
    } else {
      add(n("L1", i) + " = Sub (OneD, " + a + ")\n" + w + " = Max (" +
          n("L1", i) + ", ZeroD)");
    }
    if (antialias) {
      add(n("WSum", i) + " = ReduceSum <keepdims = 1> (" + w + ", OneAxis)\n" +
          n("WN", i) + " = Div (" + w + ", " + n("WSum", i) + ")");
      w = n("WN", i);
    }
    if (excludeOutside) {
      add(n("PLo", i) + " = Less (" + n("P", i) + ", ZeroD)\n" + n("PHi", i) +
          " = Greater (" + n("P", i) + ", " + lm1 + ")\n" + n("POut", i) +
          " = Or (" + n("PLo", i) + ", " + n("PHi", i) + ")\n" + n("WIn", i) +
          " = Where (" + n("POut", i) + ", ZeroD, " + w + ")\n" + n("WInS", i) +
          " = ReduceSum <keepdims = 1> (" + n("WIn", i) + ", OneAxis)\n" +
          n("WIn0", i) + " = Equal (" + n("WInS", i) + ", ZeroD)\n" +
          n("WInD", i) + " = Where (" + n("WIn0", i) + ", OneD, " +
          n("WInS", i) + ")\n" + n("WEx", i) + " = Div (" + n("WIn", i) +
          ", " + n("WInD", i) + ")");
      w = n("WEx", i);
    }
    // Gather the taps along the axis ([..., O, n, ...]), weight, and sum.
    std::string weights = n("WC", i);
    add(n("PHiC", i) + " = Min (" + n("P", i) + ", " + lm1 + ")\n" +
        n("PC", i) + " = Max (" + n("PHiC", i) + ", ZeroD)\n" + n("Idx", i) +
        " = Cast <to = 7> (" + n("PC", i) + ")\n" + gathered +
        " = Gather <axis = " + std::to_string(axis.axis) + "> (" + from +
        ", " + n("Idx", i) + ")\n" + n("WT", i) + " = Cast <to = " +
        std::to_string(computeType) + "> (" + w + ")");
    if (!trailing.empty()) {
      std::string units;
      for (int64_t d = axis.axis + 1; d < rank; ++d)
        units += std::string(units.empty() ? "" : ", ") +
                 std::to_string(d - axis.axis + 1);
      add(n("WAxes", i) + " = Constant <value = int64[" +
          std::to_string(rank - axis.axis - 1) + "] {" + units + "}> ()\n" +
          weights + " = Unsqueeze (" + n("WT", i) + ", " + n("WAxes", i) +
          ")");
    } else {
      add(weights + " = Identity (" + n("WT", i) + ")");
    }
    add(n("GW", i) + " = Mul (" + gathered + ", " + weights + ")\n" +
        n("SumAxis", i) + " = Constant <value = int64[1] {" +
        std::to_string(axis.axis + 1) + "}> ()\n" + result +
        " = ReduceSum <keepdims = 0> (" + n("GW", i) + ", " + n("SumAxis", i) +
        ")");
  }
  if (transform != "tf_crop_and_resize") {
    add(to + " = Identity (" + result + ")");
    return;
  }
  // tf_crop_and_resize: positions outside [0, L - 1] take the
  // extrapolation value.
  std::string mask = n("Outside", i);
  if (!trailing.empty()) {
    add(n("MAxes", i) + " = Constant <value = int64[" +
        std::to_string(rank - axis.axis - 1) + "] {" + trailing + "}> ()\n" +
        n("OutsideU", i) + " = Unsqueeze (" + mask + ", " + n("MAxes", i) +
        ")");
    mask = n("OutsideU", i);
  }
  add(n("Ext", i) + " = CastLike (ExtrapolationD, " + result + ")\n" + to +
      " = Where (" + mask + ", " + n("Ext", i) + ", " + result + ")");
}

void ResizeBody::constants() {
  b.Const("ZeroI", int64_t(0)).Const("OneI", int64_t(1));
  b.Const("OneAxis", std::vector<int64_t>{1});
  constD("ZeroD", 0.0);
  constD("HalfD", 0.5);
  constD("MinusHalfD", -0.5);
  constD("TwoD", 2.0);
  constD("ExtrapolationD", extrapolation);
  constD("CubicA", cubicA);
  constD("CubicA2", cubicA + 2);
  constD("CubicA3", cubicA + 3);
  constD("CubicA4", 4 * cubicA);
  constD("CubicA5", 5 * cubicA);
  constD("CubicA8", 8 * cubicA);
  constD("OneD", 1.0);
}

void ResizeBody::emit() {
  // Interpolating modes compute in f32 (f64 for f64 and wide integers);
  // nearest only moves elements.
  int64_t type = c.elementType(0);
  bool wide = type == onnx::TensorProto::DOUBLE ||
              type == onnx::TensorProto::INT32 ||
              type == onnx::TensorProto::INT64 ||
              type == onnx::TensorProto::UINT32 ||
              type == onnx::TensorProto::UINT64;
  computeType = wide ? onnx::TensorProto::DOUBLE : onnx::TensorProto::FLOAT;
  bool converts = mode != "nearest" && type != computeType;
  std::string current = "X";
  if (converts) {
    add("XC = Cast <to = " + std::to_string(computeType) + "> (X)");
    current = "XC";
  }
  int stage = 0;
  for (size_t i = 0; i < axes.size(); ++i) {
    const Axis &axis = axes[i];
    // An axis that keeps its extent at scale 1 is the identity (except
    // tf_crop_and_resize, whose region of interest moves it).
    if (((axis.scale && *axis.scale == 1.0 && axis.out &&
          *axis.out == axis.extent) ||
         axis.unchanged) &&
        transform != "tf_crop_and_resize")
      continue;
    std::string next = "Stage" + std::to_string(++stage);
    emitAxis(i, current, next);
    current = next;
  }
  if (!converts) {
    add("Y = Identity (" + current + ")");
    return;
  }
  // Back to X's type as the reference does: integers rounded half to even
  // and saturated, narrow floats saturated to their finite range.
  if (isFloat(type)) {
    if (type == onnx::TensorProto::FLOAT16 ||
        type == onnx::TensorProto::BFLOAT16) {
      double limit = type == onnx::TensorProto::FLOAT16 ? 65504.0
                                                        : 3.3895313892515355e38;
      b.Const("Lo", std::vector<float>{float(-limit)})
          .Const("Hi", std::vector<float>{float(limit)});
      add("Clipped = Clip (" + current + ", Lo, Hi)");
      current = "Clipped";
    }
    add("Y = Cast <to = " + std::to_string(type) + "> (" + current + ")");
    return;
  }
  add("Rounded = Round (" + current + ")\nLo = CastLike (LoD, Rounded)\nHi = "
      "CastLike (HiD, Rounded)\nClipped = Clip (Rounded, Lo, Hi)\nY = Cast "
      "<to = " + std::to_string(type) + "> (Clipped)");
  double lo = 0, hi = 0;
  switch (type) {
  case onnx::TensorProto::INT8: lo = -128, hi = 127; break;
  case onnx::TensorProto::UINT8: lo = 0, hi = 255; break;
  case onnx::TensorProto::INT16: lo = -32768, hi = 32767; break;
  case onnx::TensorProto::UINT16: lo = 0, hi = 65535; break;
  case onnx::TensorProto::INT32: lo = -2147483648.0, hi = 2147483647.0; break;
  case onnx::TensorProto::UINT32: lo = 0, hi = 4294967295.0; break;
  case onnx::TensorProto::INT64: lo = -9223372036854775808.0, hi = 9223372036854774784.0; break;
  default: lo = 0, hi = 18446744073709549568.0; break;
  }
  constD("LoD", lo);
  constD("HiD", hi);
}

bool ResizeBody::resize(std::string &error) {
  if (!knownRank(c, 0, rank, error) || !options(error) ||
      !axesAttribute(error))
    return false;
  constants();
  if (!scalesAndSizes(2, 3, nullptr, error))
    return false;
  if (transform == "tf_crop_and_resize") {
    // roi: the starts, then the ends, one per resized axis.
    if (!c.hasInput(1)) {
      error = "tf_crop_and_resize needs roi";
      return false;
    }
    int64_t length = c.extent(1, 0);
    if (length >= 0 && length != 2 * int64_t(axes.size())) {
      error = "roi must have " + std::to_string(2 * axes.size()) +
              " values (a start and an end per resized axis), not " +
              std::to_string(length);
      return false;
    }
    std::optional<std::vector<double>> roi = c.constantFloats(1);
    if (!roi)
      add("RoiD = Cast <to = 11> (roi)");
    for (size_t i = 0; i < axes.size(); ++i) {
      if (roi) {
        constD(n("R0", i), (*roi)[i]);
        constD(n("R1", i), (*roi)[axes.size() + i]);
        continue;
      }
      constI(n("IE", i), int64_t(axes.size() + i));
      add(n("R0", i) + " = Gather (RoiD, " + n("I", i) + ")\n" + n("R1", i) +
          " = Gather (RoiD, " + n("IE", i) + ")");
    }
  }
  emit();
  return true;
}

bool ResizeBody::legacy(std::string &error) {
  if (!knownRank(c, 0, rank, error))
    return false;
  mode = c.attr.s("mode", "nearest");
  if (mode != "nearest" && mode != "linear") {
    error = "mode must be nearest or linear, not '" + mode + "'";
    return false;
  }
  transform = "asymmetric";
  nearestMode = "simple";
  if (!axesAttribute(error))
    return false;
  std::vector<double> attribute;
  bool fromAttribute = !c.hasInput(1);
  if (fromAttribute) {
    const onnx::AttributeProto *scales = c.attr.find("scales");
    if (!scales) {
      error = "scales must be given";
      return false;
    }
    attribute.assign(scales->floats().begin(), scales->floats().end());
  }
  constants();
  if (!scalesAndSizes(1, -1, fromAttribute ? &attribute : nullptr, error))
    return false;
  emit();
  return true;
}

bool buildResize(const Call &c, onnx::FunctionBuilder &b, std::string &error) {
  return ResizeBody(c, b).resize(error);
}

bool buildLegacyResize(const Call &c, onnx::FunctionBuilder &b,
                       std::string &error) {
  return ResizeBody(c, b).legacy(error);
}

} // namespace

// Keys' cubic kernel, shared with GridSample (BodyBuilders.h).
std::string bodies::keysNear(const std::string &t, const std::string &out,
                             const char *one) {
  return out + "a = Mul (CubicA2, " + t + ")\n" + out + "b = Sub (" + out +
         "a, CubicA3)\n" + out + "c = Mul (" + out + "b, " + t + ")\n" + out +
         "d = Mul (" + out + "c, " + t + ")\n" + out + " = Add (" + out +
         "d, " + one + ")";
}

std::string bodies::keysFar(const std::string &t, const std::string &out) {
  return out + "a = Mul (CubicA, " + t + ")\n" + out + "b = Sub (" + out +
         "a, CubicA5)\n" + out + "c = Mul (" + out + "b, " + t + ")\n" + out +
         "d = Add (" + out + "c, CubicA8)\n" + out + "e = Mul (" + out + "d, " +
         t + ")\n" + out + " = Sub (" + out + "e, CubicA4)";
}

void bodies::addResamplingBodies(std::vector<NewerOp> &ops) {
  const NewerOp table[] = {
      {"ConvTranspose", 1, 0, {"X", "W", "B"}, {"Y"}, buildConvTranspose},
      {"Resize", 11, 0, {"X", "roi", "scales", "sizes"}, {"Y"}, buildResize},
      {"Resize", 10, 10, {"X", "scales"}, {"Y"}, buildLegacyResize},
      {"Upsample", 7, 9, {"X", "scales"}, {"Y"}, buildLegacyResize},
  };
  ops.insert(ops.end(), std::begin(table), std::end(table));
}
