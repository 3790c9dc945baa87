//===- ResamplingBodies.cpp - ConvTranspose and Resize as ONNX bodies -----===//
//
// Ops that change spatial extents, written as bodies of supported ops from
// their ONNX specification (ONNX 1.22). See BodyBuilders.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/BodyBuilders.h"

#include <onnx/defs/attr_proto_util.h>

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

} // namespace

void bodies::addResamplingBodies(std::vector<NewerOp> &ops) {
  const NewerOp table[] = {
      {"ConvTranspose", 1, 0, {"X", "W", "B"}, {"Y"}, buildConvTranspose},
  };
  ops.insert(ops.end(), std::begin(table), std::end(table));
}
