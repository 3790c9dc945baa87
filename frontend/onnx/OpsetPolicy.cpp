//===- OpsetPolicy.cpp - Which opsets the importer was written for --------===//
//
// The versions below are ONNX 1.22's operator definitions (onnx/defs/*,
// ONNX_OPERATOR_SET_SCHEMA and ONNX_ML_OPERATOR_SET_SCHEMA): for every op
// with a version newer than libonnx 1.12's schemas (opset 17 of the default
// domain, 3 of ai.onnx.ml), those versions.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/OpsetPolicy.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <initializer_list>

using namespace tessel;
using namespace tessel::onnx_import;

namespace {

struct Versions {
  const char *domain, *op;
  std::initializer_list<int64_t> versions;
};

const Versions kNewerThanLibonnx[] = {
    {"ai.onnx.ml", "LabelEncoder", {4}},
    {"ai.onnx.ml", "TreeEnsemble", {5}},
    {"ai.onnx.ml", "TreeEnsembleClassifier", {5}},
    {"ai.onnx.ml", "TreeEnsembleRegressor", {5}},
    {"", "Acos", {22}},
    {"", "Acosh", {22}},
    {"", "AffineGrid", {20}},
    {"", "Asin", {22}},
    {"", "Asinh", {22}},
    {"", "Atan", {22}},
    {"", "Atanh", {22}},
    {"", "Attention", {23, 24, 25}},
    {"", "AveragePool", {19, 22}},
    {"", "Bernoulli", {22}},
    {"", "BitCast", {26}},
    {"", "BitwiseAnd", {18}},
    {"", "BitwiseNot", {18}},
    {"", "BitwiseOr", {18}},
    {"", "BitwiseXor", {18}},
    {"", "Cast", {19, 21, 23, 24, 25}},
    {"", "CastLike", {19, 21, 23, 24, 25}},
    {"", "CausalConvWithState", {27}},
    {"", "CenterCropPad", {18}},
    {"", "Col2Im", {18}},
    {"", "Constant", {19, 21, 23, 24, 25}},
    {"", "ConstantOfShape", {20, 21, 23, 24, 25}},
    {"", "Conv", {22}},
    {"", "ConvTranspose", {22}},
    {"", "Cos", {22}},
    {"", "Cosh", {22}},
    {"", "CumProd", {26}},
    {"", "DFT", {20}},
    {"", "DeformConv", {19, 22}},
    {"", "DequantizeLinear", {19, 21, 23, 24, 25}},
    {"", "Det", {22}},
    {"", "Dropout", {22}},
    {"", "Elu", {22}},
    {"", "Equal", {19}},
    {"", "EyeLike", {22}},
    {"", "Flatten", {21, 23, 24, 25}},
    {"", "GRU", {22}},
    {"", "Gelu", {20}},
    {"", "GlobalAveragePool", {22}},
    {"", "GlobalLpPool", {22}},
    {"", "GlobalMaxPool", {22}},
    {"", "GridSample", {20, 22}},
    {"", "GroupNormalization", {18, 21}},
    {"", "HardSigmoid", {22}},
    {"", "HardSwish", {22}},
    {"", "Identity", {19, 21, 23, 24, 25}},
    {"", "If", {19, 21, 23, 24, 25}},
    {"", "ImageDecoder", {20}},
    {"", "InstanceNormalization", {22}},
    {"", "IsInf", {20}},
    {"", "IsNaN", {20}},
    {"", "LSTM", {22}},
    {"", "LinearAttention", {27}},
    {"", "Loop", {19, 21, 23, 24, 25}},
    {"", "LpNormalization", {22}},
    {"", "LpPool", {18, 22}},
    {"", "MaxPool", {22}},
    {"", "MaxRoiPool", {22}},
    {"", "MaxUnpool", {22}},
    {"", "Mish", {18, 22}},
    {"", "Multinomial", {22}},
    {"", "NegativeLogLikelihoodLoss", {22}},
    {"", "OptionalGetElement", {18}},
    {"", "OptionalHasElement", {18}},
    {"", "Pad", {18, 19, 21, 23, 24, 25}},
    {"", "QLinearMatMul", {21}},
    {"", "QuantizeLinear", {19, 21, 23, 24, 25}},
    {"", "RMSNormalization", {23}},
    {"", "RNN", {22}},
    {"", "RandomNormal", {22}},
    {"", "RandomNormalLike", {22}},
    {"", "RandomUniform", {22}},
    {"", "RandomUniformLike", {22}},
    {"", "Range", {27}},
    {"", "ReduceL1", {18}},
    {"", "ReduceL2", {18}},
    {"", "ReduceLogSum", {18}},
    {"", "ReduceLogSumExp", {18}},
    {"", "ReduceMax", {18, 20}},
    {"", "ReduceMean", {18}},
    {"", "ReduceMin", {18, 20}},
    {"", "ReduceProd", {18}},
    {"", "ReduceSumSquare", {18}},
    {"", "RegexFullMatch", {20}},
    {"", "Reshape", {19, 21, 23, 24, 25}},
    {"", "Resize", {18, 19}},
    {"", "RoiAlign", {22}},
    {"", "RotaryEmbedding", {23}},
    {"", "Round", {22}},
    {"", "Scan", {19, 21, 23, 24, 25}},
    {"", "ScatterElements", {18}},
    {"", "ScatterND", {18}},
    {"", "Selu", {22}},
    {"", "Shape", {19, 21, 23, 24, 25}},
    {"", "Sin", {22}},
    {"", "Sinh", {22}},
    {"", "Size", {19, 21, 23, 24, 25}},
    {"", "Softplus", {22}},
    {"", "Softsign", {22}},
    {"", "Split", {18}},
    {"", "SplitToSequence", {24}},
    {"", "Squeeze", {21, 23, 24, 25}},
    {"", "StringConcat", {20}},
    {"", "StringSplit", {20}},
    {"", "Swish", {24}},
    {"", "Tan", {22}},
    {"", "TensorScatter", {24}},
    {"", "ThresholdedRelu", {22}},
    {"", "TopK", {24}},
    {"", "Transpose", {21, 23, 24, 25}},
    {"", "Unsqueeze", {21, 23, 24, 25}},
};

/// Changes read against the ONNX changelog that keep a libonnx body's
/// meaning: the version only admits more element types.
struct Reviewed {
  const char *domain, *op;
  int64_t version;
};
const std::initializer_list<Reviewed> kSameMeaning = {
    // Version 22 of both adds tensor(bfloat16) to T; the text and the
    // function body are unchanged (docs/Changelog.md of ONNX 1.22).
    {"", "HardSwish", 22},
    {"", "NegativeLogLikelihoodLoss", 22},
};

} // namespace

std::optional<int64_t> onnx_import::newestKnownOpset(llvm::StringRef domain) {
  if (domain.empty() || domain == "ai.onnx")
    return 27;
  if (domain == "ai.onnx.ml")
    return 5;
  if (domain == "ai.onnx.preview.training" || domain == "ai.onnx.preview")
    return 1;
  return std::nullopt;
}

std::optional<int64_t> onnx_import::unreviewedNewerVersion(
    llvm::StringRef domain, llvm::StringRef op, int64_t schemaSince,
    int64_t opset) {
  if (domain == "ai.onnx")
    domain = "";
  for (const Versions &v : kNewerThanLibonnx) {
    if (domain != v.domain || op != v.op)
      continue;
    for (int64_t version : v.versions) {
      if (version <= schemaSince || version > opset)
        continue;
      bool same = llvm::any_of(kSameMeaning, [&](const Reviewed &r) {
        return domain == r.domain && op == r.op && version == r.version;
      });
      if (!same)
        return version;
    }
  }
  return std::nullopt;
}
