//===- Calibration.h - Running a model on calibration data -------*- C++ -*-===//
//
// What the precision report, the accuracy budget and (next) int8/fp8
// calibration share: a calibration set read from a folder, the model run
// through the runtime on the CPU (not through a second implementation of
// its ops), and the values of its outputs and of its observed layers
// (tessel-observe-contractions) compared with an fp32 run.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_CALIBRATION_H
#define TESSEL_COMPILER_CALIBRATION_H

#include "compiler/Compile.h"
#include "io/HostTensor.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tessel::calibration {

/// One run's inputs, in the model's input order.
struct Sample {
  std::string name; ///< for messages: the folder or file it came from
  std::vector<io::HostTensor> inputs;
};

/// Reads the calibration set in `dir` for a model with `inputs`, in one of
/// two layouts:
///   * DIR/<input>.npy (or .pb) for every input: one batch whose samples
///     lie along axis 0 (one run);
///   * subfolders DIR/*/, each one sample: <input>.npy, or input_<i>.pb as
///     ONNX's test_data_set_<n> folders hold them (one run each, in name
///     order).
/// False with `error` naming the folder and what is missing.
bool loadSet(const std::string &dir,
             const std::vector<format::TensorSignature> &inputs,
             std::vector<Sample> &out, std::string &error);

/// An output of one run, as float64 values in C order.
struct Values {
  std::vector<int64_t> shape;
  std::vector<double> data;
};
using Outputs = std::map<std::string, Values>;

/// Runs `artifact` on the CPU (the binary this CPU runs best) over every
/// sample; `out[i]` holds sample i's outputs by name.
bool run(const format::Artifact &artifact, const std::vector<Sample> &samples,
         std::vector<Outputs> &out, std::string &error);

/// The same, handing each sample's outputs to `visit` instead of keeping
/// them (calibration streams over data sets larger than memory).
bool runEach(const format::Artifact &artifact,
             const std::vector<Sample> &samples,
             const std::function<void(size_t, const Outputs &)> &visit,
             std::string &error);

/// The calibrators of int8 and fp8 (design.md section 8): each picks the range A
/// of a tensor from the histogram of its magnitudes (2,048 bins over
/// [0, max |x|]).
///   minmax      A = max |x|
///   percentile  A = the `percentile` (99.99) percentile of |x|
///   entropy     the A whose 128-level quantization of the distribution
///               loses the least information (KL divergence; TensorRT's
///               calibrator)
///   mse         the A that minimizes the mean squared quantization error
///               (rounding below A, clipping above)
double calibratedRange(const std::vector<double> &histogram, double maxAbs,
                       const std::string &calibrator, double percentile);

/// int8 and fp8 calibration (--precision int8|fp8).
struct RangeOptions {
  std::string calibrationDir;
  /// --calibration-cache: read when it exists (no calibration run), else
  /// written after calibrating.
  std::string cachePath;
  std::string calibrator = "minmax";
  double percentile = 99.99;
  /// int8 activations over [min, max] with a zero point ("NODE=LO:HI",
  /// the calibrator's range clipping both ends) instead of [-A, A].
  bool asymmetric = false;
};

/// The range of each contraction's input ("NODE=A" entries for
/// CompileOptions::quantRanges): from the cache, or by compiling `modelPath`
/// at fp32 with the inputs observed and running it twice over the
/// calibration set (the magnitudes' maxima, then their histograms).
/// `summary` gets a line saying where the ranges came from.
bool calibrateRanges(mlir::MLIRContext &context, const std::string &modelPath,
                   const CompileOptions &options, const RangeOptions &int8,
                   std::vector<std::string> &amax, std::string &summary,
                   std::string &error);

/// The prefix of the outputs tessel-observe-contractions adds.
inline constexpr const char *kObservePrefix = "tessel.observe:";

/// A candidate run compared with a reference run over the same samples.
struct Comparison {
  struct Error {
    std::string name;  ///< an output, or an observed layer's ONNX node
    double relL2 = 0;  ///< ||candidate - reference|| / ||reference||, over
                       ///< all samples together
  };
  std::vector<Error> layers;  ///< observed layers, in output order
  std::vector<Error> outputs; ///< the model's own outputs
  /// For the first output of rank >= 2 with more than one class along its
  /// last axis: how many rows have the same argmax in both runs.
  int64_t top1Agree = 0, top1Rows = 0;
  double worstOutputRelL2() const;
  double top1Agreement() const; ///< 1 when there is no classifier output
};

/// Compares outputs of the same names; false with `error` when a shape
/// differs or an output is missing.
bool compare(const std::vector<Outputs> &reference,
             const std::vector<Outputs> &candidate, Comparison &out,
             std::string &error);

/// The precision report and the accuracy budget (tessel-compile
/// --precision-report, --accuracy-budget; design.md section 8).
struct BudgetOptions {
  std::string calibrationDir;
  /// Absent (< 0): report only. Otherwise the bound the final outputs must
  /// meet: their worst relative L2 error against fp32 ("rel-l2", at most
  /// `budget`) or their top-1 agreement with fp32 ("top1", at least
  /// `budget`, a fraction).
  double budget = -1;
  std::string metric = "rel-l2";
};

/// Compiles `modelPath` at fp32 and at `options.precision`, both with
/// observers, runs both on the calibration set and writes the report
/// (markdown) into `report`. With a budget, while the budget does not
/// hold, the layer with the largest error that is still lowered is added
/// to `options.keepFp32` and the low model compiled again; `returned` gets
/// those layers in order. False with `error` on a compile or run failure,
/// or when the budget cannot hold even with every layer in fp32.
bool searchPrecision(mlir::MLIRContext &context, const std::string &modelPath,
                     CompileOptions &options, const BudgetOptions &budget,
                     std::string &report, std::vector<std::string> &returned,
                     std::string &error);

} // namespace tessel::calibration

#endif // TESSEL_COMPILER_CALIBRATION_H
