//===- BodyBuilders.h - Writing ONNX function bodies for nodes -*- C++ -*-===//
//
// The shared vocabulary of the bodies written in this directory for ops
// libonnx has no body for (NewerFunctionBodies.cpp, QuantizationBodies.cpp,
// PrimitiveBodies.cpp): what a builder sees of the node, and helpers that
// write common pieces in ONNX text. Adding an op as a body is one builder
// function and one NewerOp entry in its file's table (docs/design.md §6).
//
// Plain ONNX/protobuf code: no MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_FRONTEND_ONNX_BODYBUILDERS_H
#define TESSEL_FRONTEND_ONNX_BODYBUILDERS_H

#include "frontend/onnx/FunctionBodies.h"

#include <onnx/defs/function.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace tessel::onnx_import::bodies {

/// The default-domain opset every body imports; its ops have their
/// opset-21 meaning (Shape with start/end, ReduceMean and
/// Squeeze/Unsqueeze with axes inputs, Split with num_outputs).
constexpr int kBodyOpset = 21;

/// The node's attributes, with defaults.
struct Attributes {
  const onnx::NodeProto &node;

  const onnx::AttributeProto *find(const char *name) const {
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.name() == name)
        return &a;
    return nullptr;
  }
  bool has(const char *name) const { return find(name) != nullptr; }
  int64_t i(const char *name, int64_t fallback) const {
    const onnx::AttributeProto *a = find(name);
    return a ? a->i() : fallback;
  }
  float f(const char *name, float fallback) const {
    const onnx::AttributeProto *a = find(name);
    return a ? a->f() : fallback;
  }
  /// An ints attribute's values; empty when it is not set.
  std::vector<int64_t> ints(const char *name) const {
    const onnx::AttributeProto *a = find(name);
    return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end())
             : std::vector<int64_t>();
  }
  std::string s(const char *name, const std::string &fallback) const {
    const onnx::AttributeProto *a = find(name);
    return a ? a->s() : fallback;
  }
};

/// What a builder knows of the node: attributes, inputs and outputs
/// present, the input types the importer inferred.
struct Call {
  const onnx::NodeProto &node;
  const std::vector<onnx::TypeProto> &inputTypes;
  int64_t opset;
  const ConstantInputs &constants;
  Attributes attr{node};

  /// The values of input `i` when it is an integer constant.
  std::optional<std::vector<int64_t>> constantInts(int i) const {
    std::optional<ConstantValues> c = constant(i);
    if (!c || c->isFloat)
      return std::nullopt;
    return c->ints;
  }
  /// The values of input `i` when it is a floating-point constant.
  std::optional<std::vector<double>> constantFloats(int i) const {
    std::optional<ConstantValues> c = constant(i);
    if (!c || !c->isFloat)
      return std::nullopt;
    return c->floats;
  }
  std::optional<ConstantValues> constant(int i) const {
    return facts(i).constant;
  }
  /// What the importer knows of input `i` (nothing when it is absent).
  InputFacts facts(int i) const {
    if (!constants || !hasInput(i))
      return {};
    return constants(i);
  }
  /// Whether element `e` of input `i` (a shape) is provably dim `d` of
  /// input `j`.
  bool elementIsDim(int i, int64_t e, int j, int64_t d) const {
    InputFacts fi = facts(i), fj = facts(j);
    return e < int64_t(fi.elementKeys.size()) && d < int64_t(fj.dimKeys.size()) &&
           !fi.elementKeys[e].empty() && fi.elementKeys[e] == fj.dimKeys[d];
  }

  bool hasInput(int i) const {
    return i < node.input_size() && !node.input(i).empty();
  }
  bool hasOutput(int i) const {
    return i < node.output_size() && !node.output(i).empty();
  }
  int64_t elementType(int i) const {
    return i < int(inputTypes.size()) ? inputTypes[i].tensor_type().elem_type()
                                      : int64_t(onnx::TensorProto::UNDEFINED);
  }
  /// The rank of input `i`, or -1 when unknown.
  int64_t rank(int i) const {
    if (i >= int(inputTypes.size()) || !inputTypes[i].tensor_type().has_shape())
      return -1;
    return inputTypes[i].tensor_type().shape().dim_size();
  }
  /// The static extent of dim `d` of input `i`, or -1.
  int64_t extent(int i, int d) const {
    if (rank(i) <= d)
      return -1;
    const auto &dim = inputTypes[i].tensor_type().shape().dim(d);
    return dim.has_dim_value() ? dim.dim_value() : -1;
  }
};

/// Builds the body into `fn` (its nodes; the formal parameters and opset
/// are set by the caller); false with `error` set refuses the node.
using Builder = bool (*)(const Call &, onnx::FunctionBuilder &,
                         std::string &error);

/// An op with a body written here: its domain's opsets [since, last]
/// (last 0: to the newest), formal inputs and outputs, and its builder.
/// A variadic op lists no inputs (outputs): its formals are Inputs0,
/// Inputs1, ... (Outputs0, ...), one per input (output) of the node.
struct NewerOp {
  const char *type;
  int64_t since, last; // opsets of the op's domain
  std::vector<const char *> inputs, outputs;
  Builder build;
  /// The op's domain ("" for ai.onnx).
  const char *domain = "";
};

/// Whether ONNX type `type` is float, float16, bfloat16 or double.
bool isFloat(int64_t type);

/// Adds nodes written as a std::string.
void text(onnx::FunctionBuilder &b, const std::string &nodes);

/// The node's attributes named in `names`, as ONNX text ("<a = 1, b = [2]>",
/// or "" when none is set), to forward to an op of a body.
std::string forwardAttributes(const Call &c,
                              std::initializer_list<const char *> names);

/// `values` as an ONNX text list: "[1, 2, 3]".
std::string intList(const std::vector<int64_t> &values);

/// `rank` of input `i`, or an error naming it.
bool knownRank(const Call &c, int i, int64_t &rank, std::string &error);

/// Like knownRank, for an image [N, C, D1, ...]: rank >= 3, or an error.
bool knownImageRank(const Call &c, int i, int64_t &rank, std::string &error);

/// An axis attribute normalized into [0, rank), or an error.
bool axisAttribute(const Call &c, const char *name, int64_t fallback,
                   int64_t rank, int64_t &axis, std::string &error);

/// `out` = the 1-D `in` with `n` unit dims after it, so that it varies
/// along the dim that has n dims after it when it broadcasts.
void alongDim(onnx::FunctionBuilder &b, const std::string &out,
              const std::string &in, int64_t n);

/// The extents around an axis known as the int64 scalar `axis`, for a
/// tensor whose first `rank` dims are the 1-D int64 `shape`: `prefix`Outer
/// (the product of the dims before it), `prefix`N (its extent) and
/// `prefix`Inner (the product of those after it), each [1]; and
/// `prefix`At, the bool [rank] that is true at the axis. Folding a tensor
/// to [Outer, N, Inner] makes an op along an axis read at run time one
/// along dim 1.
void foldAroundAxis(onnx::FunctionBuilder &b, const std::string &prefix,
                    const std::string &shape, int64_t rank,
                    const std::string &axis);

/// Dims [begin, end) of X's shape as `name` (1-D int64).
void shapeSlice(onnx::FunctionBuilder &b, const std::string &name,
                int64_t begin, int64_t end);

/// The tables of the other files: QuantizeLinear, DequantizeLinear and the
/// integer and QLinear matmuls and convolutions; data movement and small
/// primitive ops; ConvTranspose and Resize; TopK; the scatters and
/// GatherND; RNN, GRU and LSTM; Einsum; DFT and STFT; the optimizers of
/// ai.onnx.preview.training and small ops of ai.onnx.ml; Det; GridSample;
/// NonMaxSuppression and RoiAlign.
void addQuantizationBodies(std::vector<NewerOp> &ops);
void addPrimitiveBodies(std::vector<NewerOp> &ops);
void addResamplingBodies(std::vector<NewerOp> &ops);
void addSelectionBodies(std::vector<NewerOp> &ops);
void addIndexBodies(std::vector<NewerOp> &ops);
void addRecurrentBodies(std::vector<NewerOp> &ops);
void addEinsumBody(std::vector<NewerOp> &ops);
void addSignalBodies(std::vector<NewerOp> &ops);
void addDomainBodies(std::vector<NewerOp> &ops);
void addMatrixBodies(std::vector<NewerOp> &ops);
void addGridSampleBody(std::vector<NewerOp> &ops);
void addDetectionBodies(std::vector<NewerOp> &ops);

/// Keys' cubic convolution kernel (Resize's cubic mode, GridSample's) at a
/// distance `t` >= 0, as ONNX text defining `out`, in the forms the ONNX
/// reference writes: ((A + 2) t - (A + 3)) t^2 + 1 on [0, 1] (keysNear)
/// and ((A t - 5A) t + 8A) t - 4A on [1, 2) (keysFar). The body defines the
/// constants CubicA, CubicA2 (A + 2), CubicA3 (A + 3), CubicA4 (4A),
/// CubicA5 (5A) and CubicA8 (8A) in its float type, and `one`.
std::string keysNear(const std::string &t, const std::string &out,
                     const char *one);
std::string keysFar(const std::string &t, const std::string &out);

} // namespace tessel::onnx_import::bodies

#endif // TESSEL_FRONTEND_ONNX_BODYBUILDERS_H
