//===- Calibration.cpp - Running a model on calibration data --------------===//

#include "compiler/Calibration.h"

#include "io/HostTensor.h"
#include "tessel/tessel.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;

namespace tessel::calibration {

namespace {

/// The tensor file for `name` (or input `index`) in `dir`: <name>.npy,
/// <name>.pb, input_<index>.pb; empty when none exists.
std::string tensorFile(const fs::path &dir, const std::string &name,
                       size_t index) {
  for (const std::string &file :
       {name + ".npy", name + ".pb", "input_" + std::to_string(index) + ".pb"})
    if (fs::is_regular_file(dir / file))
      return (dir / file).string();
  return "";
}

bool readSample(const fs::path &dir,
                const std::vector<format::TensorSignature> &inputs,
                Sample &out, std::string &error) {
  out.name = dir.string();
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string file = tensorFile(dir, inputs[i].name, i);
    if (file.empty()) {
      error = dir.string() + ": no tensor for input '" + inputs[i].name +
              "' (" + inputs[i].name + ".npy, " + inputs[i].name +
              ".pb or input_" + std::to_string(i) + ".pb)";
      return false;
    }
    io::HostTensor t;
    if (!io::readTensorFile(file, t, error))
      return false;
    out.inputs.push_back(std::move(t));
  }
  return true;
}

/// Element `i` of a tensor the runtime returned, as a double.
double element(tessel_dtype_t dtype, const void *data, size_t i) {
  switch (dtype) {
  case TESSEL_DTYPE_FLOAT32:
    return static_cast<const float *>(data)[i];
  case TESSEL_DTYPE_FLOAT64:
    return static_cast<const double *>(data)[i];
  case TESSEL_DTYPE_FLOAT16:
    return io::halfToFloat(static_cast<const uint16_t *>(data)[i]);
  case TESSEL_DTYPE_BFLOAT16:
    return io::bfloat16ToFloat(static_cast<const uint16_t *>(data)[i]);
  case TESSEL_DTYPE_INT8:
    return static_cast<const int8_t *>(data)[i];
  case TESSEL_DTYPE_UINT8:
  case TESSEL_DTYPE_BOOL:
    return static_cast<const uint8_t *>(data)[i];
  case TESSEL_DTYPE_INT32:
    return static_cast<const int32_t *>(data)[i];
  case TESSEL_DTYPE_INT64:
    return static_cast<double>(static_cast<const int64_t *>(data)[i]);
  default:
    return std::nan("");
  }
}

std::string statusText(tessel_status_t s) {
  std::string text = tessel_status_message(s);
  tessel_status_free(s);
  return text;
}

double relL2(double errSq, double refSq) {
  return refSq > 0 ? std::sqrt(errSq / refSq) : (errSq > 0 ? INFINITY : 0);
}

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1e", v);
  return buf;
}

} // namespace

bool loadSet(const std::string &dir,
             const std::vector<format::TensorSignature> &inputs,
             std::vector<Sample> &out, std::string &error) {
  out.clear();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    error = dir + ": not a folder (--calibration takes a folder of input "
                  "tensors)";
    return false;
  }
  // One batch: a file per input in DIR itself.
  bool flat = !inputs.empty();
  for (size_t i = 0; i < inputs.size(); ++i)
    flat = flat && !tensorFile(dir, inputs[i].name, i).empty();
  if (flat) {
    Sample s;
    if (!readSample(dir, inputs, s, error))
      return false;
    out.push_back(std::move(s));
    return true;
  }
  std::vector<fs::path> folders;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec))
    if (e.is_directory())
      folders.push_back(e.path());
  std::sort(folders.begin(), folders.end());
  for (const fs::path &folder : folders) {
    Sample s;
    if (!readSample(folder, inputs, s, error))
      return false;
    out.push_back(std::move(s));
  }
  if (out.empty()) {
    error = dir + ": no calibration data: neither a tensor file per input "
                  "(<input>.npy) nor subfolders holding one sample each";
    return false;
  }
  return true;
}

bool runEach(const format::Artifact &artifact,
             const std::vector<Sample> &samples,
             const std::function<void(size_t, const Outputs &)> &visit,
             std::string &error) {
  std::vector<uint8_t> bytes = format::serialize(artifact);
  tessel_artifact_t *a = nullptr;
  tessel_device_t *d = nullptr;
  tessel_session_t *s = nullptr;
  auto release = [&] {
    tessel_session_release(s);
    tessel_device_release(d);
    tessel_artifact_release(a);
  };
  auto fail = [&](tessel_status_t st, const std::string &what) {
    error = what + ": " + statusText(st);
    release();
    return false;
  };
  if (tessel_status_t st =
          tessel_artifact_load_memory(bytes.data(), bytes.size(), &a))
    return fail(st, "loading the calibration artifact");
  if (tessel_status_t st = tessel_device_create("cpu", &d))
    return fail(st, "opening the CPU");
  if (tessel_status_t st = tessel_session_create(a, d, &s))
    return fail(st, "loading the calibration artifact");
  for (size_t index = 0; index < samples.size(); ++index) {
    const Sample &sample = samples[index];
    for (size_t i = 0; i < sample.inputs.size(); ++i) {
      const io::HostTensor &t = sample.inputs[i];
      if (tessel_status_t st = tessel_session_set_input(
              s, artifact.inputs[i].name.c_str(),
              static_cast<tessel_dtype_t>(t.dtype), t.shape.size(),
              t.shape.data(), t.data.data(), t.data.size()))
        return fail(st, sample.name + ": input '" + artifact.inputs[i].name +
                            "'");
    }
    if (tessel_status_t st = tessel_session_run(s))
      return fail(st, sample.name);
    Outputs outputs;
    for (const format::TensorSignature &sig : artifact.outputs) {
      tessel_tensor_view_t view;
      if (tessel_status_t st =
              tessel_session_get_output(s, sig.name.c_str(), &view))
        return fail(st, sample.name + ": output '" + sig.name + "'");
      Values &v = outputs[sig.name];
      v.shape.assign(view.dims, view.dims + view.rank);
      size_t n = view.data_bytes / std::max<size_t>(
                                       tessel_dtype_size(view.dtype), 1);
      v.data.resize(n);
      for (size_t i = 0; i < n; ++i)
        v.data[i] = element(view.dtype, view.data, i);
    }
    visit(index, outputs);
  }
  release();
  return true;
}

bool run(const format::Artifact &artifact, const std::vector<Sample> &samples,
         std::vector<Outputs> &out, std::string &error) {
  out.clear();
  return runEach(
      artifact, samples,
      [&](size_t, const Outputs &outputs) { out.push_back(outputs); }, error);
}

double Comparison::worstOutputRelL2() const {
  double worst = 0;
  for (const Error &e : outputs)
    worst = std::max(worst, e.relL2);
  return worst;
}

double Comparison::top1Agreement() const {
  return top1Rows ? double(top1Agree) / double(top1Rows) : 1.0;
}

bool compare(const std::vector<Outputs> &reference,
             const std::vector<Outputs> &candidate, Comparison &out,
             std::string &error) {
  out = Comparison();
  if (reference.empty() || reference.size() != candidate.size()) {
    error = "the runs to compare have different sample counts";
    return false;
  }
  bool classifierFound = false;
  std::string classifier;
  for (const auto &[name, first] : reference.front()) {
    double errSq = 0, refSq = 0;
    for (size_t s = 0; s < reference.size(); ++s) {
      auto r = reference[s].find(name);
      auto c = candidate[s].find(name);
      if (r == reference[s].end() || c == candidate[s].end() ||
          r->second.shape != c->second.shape) {
        error = "output '" + name + "' differs in shape between the runs";
        return false;
      }
      for (size_t i = 0; i < r->second.data.size(); ++i) {
        double d = c->second.data[i] - r->second.data[i];
        errSq += d * d;
        refSq += r->second.data[i] * r->second.data[i];
      }
    }
    Comparison::Error e{name, relL2(errSq, refSq)};
    if (name.rfind(kObservePrefix, 0) == 0) {
      e.name = name.substr(std::strlen(kObservePrefix));
      out.layers.push_back(e);
      continue;
    }
    out.outputs.push_back(e);
    if (!classifierFound && first.shape.size() >= 2 &&
        first.shape.back() > 1) {
      classifierFound = true;
      classifier = name;
    }
  }
  // (Outputs orders names; the report lists layers in model order from
  // the artifact's outputs.)
  if (classifierFound) {
    for (size_t s = 0; s < reference.size(); ++s) {
      const Values &r = reference[s].at(classifier),
                   &c = candidate[s].at(classifier);
      int64_t classes = r.shape.back();
      for (size_t row = 0; row * classes < r.data.size(); ++row) {
        auto rb = r.data.begin() + row * classes;
        auto cb = c.data.begin() + row * classes;
        bool same = std::max_element(rb, rb + classes) - rb ==
                    std::max_element(cb, cb + classes) - cb;
        out.top1Agree += same;
        ++out.top1Rows;
      }
    }
  }
  return true;
}

namespace {

/// Compiles `modelPath` with `options` for the CPU alone, observing every
/// contraction's result (or, with `inputs`, its input).
bool compileObserved(mlir::MLIRContext &context, const std::string &modelPath,
                     CompileOptions &options, bool inputs,
                     format::Artifact &artifact, std::string &error) {
  options.observeContractions = true;
  options.observeInputs = inputs;
  options.targets = {"cpu"};
  options.emit.clear();
  options.onStage = nullptr;
  if (mlir::succeeded(compileOnnxModel(context, modelPath, options, artifact)))
    return true;
  error = "compiling the model at " + options.precision +
          " with observers failed (see the error above)";
  return false;
}

bool compileAndRun(mlir::MLIRContext &context, const std::string &modelPath,
                   CompileOptions options, const std::vector<Sample> &samples,
                   std::vector<Outputs> &out,
                   std::vector<std::string> &lowered, std::string &error) {
  format::Artifact artifact;
  if (!compileObserved(context, modelPath, options, false, artifact, error))
    return false;
  lowered = options.loweredContractions;
  return run(artifact, samples, out, error);
}

/// The node a layer name observes ("conv1#2" -> "conv1").
std::string nodeOf(const std::string &layer) {
  return layer.substr(0, layer.find('#'));
}

} // namespace

bool searchPrecision(mlir::MLIRContext &context, const std::string &modelPath,
                     CompileOptions &options, const BudgetOptions &budget,
                     std::string &report, std::vector<std::string> &returned,
                     std::string &error) {
  if (options.precision == "fp32") {
    error = "--precision-report and --accuracy-budget compare a lower "
            "precision with fp32: give --precision bf16, fp16 or int8";
    return false;
  }
  if (budget.metric != "rel-l2" && budget.metric != "top1") {
    error = "--metric: unknown metric '" + budget.metric + "' (rel-l2, top1)";
    return false;
  }
  // The model's inputs, from an fp32 compile (its signature).
  CompileOptions fp32 = options;
  fp32.precision = "fp32";
  fp32.keepFp32.clear();
  fp32.lowerNodes.clear();
  std::vector<Outputs> reference, candidate;
  std::vector<std::string> layers;
  {
    format::Artifact artifact;
    if (!compileObserved(context, modelPath, fp32, false, artifact, error))
      return false;
    std::vector<Sample> samples;
    if (!loadSet(budget.calibrationDir, artifact.inputs, samples, error) ||
        !run(artifact, samples, reference, error))
      return false;
    size_t rows = 0;
    for (const Sample &s : samples)
      rows += s.inputs.empty() || s.inputs[0].shape.empty()
                  ? 1
                  : size_t(s.inputs[0].shape[0]);
    report = "# Precision report: " + modelPath + " at " + options.precision +
             "\n\nCalibration set: " + budget.calibrationDir + " (" +
             std::to_string(samples.size()) + " run" +
             (samples.size() == 1 ? "" : "s") + ", " + std::to_string(rows) +
             " rows along the first input's axis 0). Errors are relative L2 "
             "norms against the fp32 model, over the whole set.\n";
    for (const format::TensorSignature &sig : artifact.outputs)
      if (sig.name.rfind(kObservePrefix, 0) == 0)
        layers.push_back(sig.name.substr(std::strlen(kObservePrefix)));
    // The search recompiles the low model only; the samples are kept.
    std::vector<std::string> lowered;
    Comparison cmp;
    for (unsigned round = 0;; ++round) {
      if (!compileAndRun(context, modelPath, options, samples, candidate,
                         lowered, error) ||
          !compare(reference, candidate, cmp, error))
        return false;
      double value = budget.metric == "top1" ? cmp.top1Agreement()
                                             : cmp.worstOutputRelL2();
      bool holds = budget.budget < 0 ||
                   (budget.metric == "top1" ? value >= budget.budget
                                            : value <= budget.budget);
      if (holds)
        break;
      // The worst layer still lowered goes back to fp32.
      const Comparison::Error *worst = nullptr;
      for (const Comparison::Error &e : cmp.layers) {
        std::string node = nodeOf(e.name);
        if (std::find(lowered.begin(), lowered.end(), node) == lowered.end())
          continue;
        if (!worst || e.relL2 > worst->relL2)
          worst = &e;
      }
      if (!worst) {
        error = "the accuracy budget (" + budget.metric + " " +
                (budget.metric == "top1" ? ">= " : "<= ") +
                sci(budget.budget) + ") does not hold even with every "
                "layer in fp32 (" + sci(value) + ")";
        return false;
      }
      returned.push_back(nodeOf(worst->name));
      options.keepFp32.push_back(nodeOf(worst->name));
    }
    // The table: layers in model order.
    report += "\n| layer (ONNX node) | precision | rel. L2 vs fp32 |\n"
              "|---|---|---:|\n";
    for (const std::string &layer : layers) {
      double err = 0;
      for (const Comparison::Error &e : cmp.layers)
        if (e.name == layer)
          err = e.relL2;
      bool low = std::find(lowered.begin(), lowered.end(), nodeOf(layer)) !=
                 lowered.end();
      report += "| " + layer + " | " + (low ? options.precision : "fp32") +
                " | " + sci(err) + " |\n";
    }
    for (const Comparison::Error &e : cmp.outputs)
      report += "| output '" + e.name + "' | | " + sci(e.relL2) + " |\n";
    if (cmp.top1Rows) {
      char line[160];
      std::snprintf(line, sizeof(line),
                    "\nTop-1 agreement with fp32: %.2f %% (%lld of %lld "
                    "rows)\n",
                    100.0 * cmp.top1Agreement(),
                    static_cast<long long>(cmp.top1Agree),
                    static_cast<long long>(cmp.top1Rows));
      report += line;
    }
    if (budget.budget >= 0) {
      report += "\nAccuracy budget: " + budget.metric +
                (budget.metric == "top1" ? " >= " : " <= ") +
                sci(budget.budget) + "; ";
      if (returned.empty()) {
        report += "it holds with every layer at " + options.precision + ".\n";
      } else {
        report += "returned to fp32, worst first:";
        for (const std::string &node : returned)
          report += " " + node;
        report += ".\n";
      }
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// int8 calibration
//===----------------------------------------------------------------------===//

namespace {

constexpr size_t kBins = 2048;
constexpr int kLevels = 128; // magnitudes 0..127 of symmetric int8

/// KL(p || q) of two unnormalized distributions over the same bins; bins
/// where p is 0 add nothing, a bin where only q is 0 makes it infinite.
double klDivergence(const std::vector<double> &p,
                    const std::vector<double> &q) {
  double ps = 0, qs = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    ps += p[i];
    qs += q[i];
  }
  if (ps <= 0 || qs <= 0)
    return INFINITY;
  double kl = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] <= 0)
      continue;
    if (q[i] <= 0)
      return INFINITY;
    kl += (p[i] / ps) * std::log((p[i] / ps) / (q[i] / qs));
  }
  return kl;
}

} // namespace

double calibratedRange(const std::vector<double> &h, double maxAbs,
                       const std::string &calibrator, double percentile) {
  size_t bins = h.size();
  double width = maxAbs / double(bins), total = 0;
  for (double c : h)
    total += c;
  if (maxAbs <= 0 || total <= 0 || calibrator == "minmax")
    return maxAbs;
  if (calibrator == "percentile") {
    double want = total * percentile / 100.0, seen = 0;
    for (size_t i = 0; i < bins; ++i) {
      seen += h[i];
      if (seen >= want)
        return double(i + 1) * width;
    }
    return maxAbs;
  }
  if (calibrator == "mse") {
    double best = INFINITY, bestRange = maxAbs;
    for (size_t i = 1; i <= bins; ++i) {
      double range = double(i) * width, step = range / 127.0, err = 0;
      for (size_t j = 0; j < bins; ++j) {
        if (h[j] <= 0)
          continue;
        double c = (double(j) + 0.5) * width;
        double e = c <= range ? c - std::nearbyint(c / step) * step
                              : c - range;
        err += h[j] * e * e;
      }
      if (err < best) {
        best = err;
        bestRange = range;
      }
    }
    return bestRange;
  }
  // entropy: for each candidate range of i bins, the clipped distribution
  // P (outliers folded into its last bin) against Q, P merged into 128
  // levels and spread back evenly over each level's non-empty bins.
  double best = INFINITY, bestRange = maxAbs;
  for (size_t i = kLevels; i <= bins; ++i) {
    std::vector<double> p(h.begin(), h.begin() + i), q(i, 0.0);
    for (size_t j = i; j < bins; ++j)
      p[i - 1] += h[j];
    for (int level = 0; level < kLevels; ++level) {
      size_t begin = level * i / kLevels, end = (level + 1) * i / kLevels;
      double sum = 0;
      size_t nonEmpty = 0;
      for (size_t j = begin; j < end; ++j) {
        sum += h[j];
        nonEmpty += h[j] > 0;
      }
      for (size_t j = begin; j < end; ++j)
        if (h[j] > 0)
          q[j] = sum / double(nonEmpty);
    }
    double kl = klDivergence(p, q);
    if (kl < best) {
      best = kl;
      bestRange = double(i) * width;
    }
  }
  return bestRange;
}

namespace {

std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

/// Reads the "ranges" object of a calibration cache written by
/// writeCache (a flat JSON object of node names to numbers).
bool readCache(const std::string &path, std::vector<std::string> &amax,
               std::string &calibrator, std::string &error) {
  std::vector<uint8_t> bytes;
  if (!io::readFileBytes(path, bytes, error))
    return false;
  std::string text(bytes.begin(), bytes.end());
  auto bad = [&](const std::string &why) {
    error = path + ": not a Tessel calibration cache (" + why + ")";
    return false;
  };
  if (text.find("\"format\": \"tessel-calibration\"") == std::string::npos)
    return bad("no \"format\": \"tessel-calibration\"");
  size_t c = text.find("\"calibrator\": \"");
  if (c != std::string::npos) {
    size_t begin = c + 15, end = text.find('"', begin);
    calibrator = text.substr(begin, end - begin);
  }
  size_t at = text.find("\"ranges\"");
  if (at == std::string::npos || (at = text.find('{', at)) == std::string::npos)
    return bad("no \"ranges\" object");
  ++at;
  while (true) {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])))
      ++at;
    if (at < text.size() && text[at] == '}')
      break;
    if (at >= text.size() || text[at] != '"')
      return bad("expected a node name at byte " + std::to_string(at));
    std::string name;
    for (++at; at < text.size() && text[at] != '"'; ++at) {
      if (text[at] == '\\' && at + 1 < text.size())
        ++at;
      name += text[at];
    }
    size_t colon = text.find(':', at);
    if (colon == std::string::npos)
      return bad("no value for '" + name + "'");
    // A number (symmetric) or [LO, HI] (asymmetric).
    const char *p = text.c_str() + colon + 1;
    while (std::isspace(static_cast<unsigned char>(*p)))
      ++p;
    char *end = nullptr;
    char buf[80];
    if (*p == '[') {
      double lo = std::strtod(p + 1, &end);
      const char *comma = end;
      while (std::isspace(static_cast<unsigned char>(*comma)))
        ++comma;
      double hi = *comma == ',' ? std::strtod(comma + 1, &end) : 0;
      while (end && std::isspace(static_cast<unsigned char>(*end)))
        ++end;
      if (*comma != ',' || !end || *end != ']' || !(lo <= hi))
        return bad("the range of '" + name + "' is not [LO, HI]");
      ++end;
      std::snprintf(buf, sizeof(buf), "%.9g:%.9g", lo, hi);
    } else {
      double v = std::strtod(p, &end);
      if (end == p || !(v >= 0))
        return bad("the range of '" + name + "' is not a number >= 0");
      std::snprintf(buf, sizeof(buf), "%.9g", v);
    }
    amax.push_back(name + "=" + buf);
    at = end - text.c_str();
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])))
      ++at;
    if (at < text.size() && text[at] == ',')
      ++at;
  }
  return true;
}

/// A calibrated range as the cache and the quantize pass write it.
struct CalibratedRange {
  std::string node;
  double lo, hi;
  bool asymmetric;
  /// "A" or "LO:HI" (the pass's form) / "A" or "[LO, HI]" (JSON).
  std::string text(bool json) const {
    char buf[80];
    if (!asymmetric)
      std::snprintf(buf, sizeof(buf), "%.9g", hi);
    else
      std::snprintf(buf, sizeof(buf), json ? "[%.9g, %.9g]" : "%.9g:%.9g",
                    lo, hi);
    return buf;
  }
};

bool writeCache(const std::string &path, const std::string &calibrator,
                const std::vector<CalibratedRange> &ranges, size_t samples,
                std::string &error) {
  std::string text = "{\n  \"format\": \"tessel-calibration\",\n"
                     "  \"version\": 1,\n  \"calibrator\": \"" +
                     calibrator + "\",\n  \"samples\": " +
                     std::to_string(samples) + ",\n  \"ranges\": {";
  for (size_t i = 0; i < ranges.size(); ++i)
    text += std::string(i ? "," : "") + "\n    \"" +
            jsonEscape(ranges[i].node) + "\": " + ranges[i].text(true);
  text += "\n  }\n}\n";
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size()) {
    if (f)
      std::fclose(f);
    error = path + ": cannot write the calibration cache";
    return false;
  }
  std::fclose(f);
  return true;
}

} // namespace

bool calibrateRanges(mlir::MLIRContext &context, const std::string &modelPath,
                   const CompileOptions &options, const RangeOptions &int8,
                   std::vector<std::string> &amax, std::string &summary,
                   std::string &error) {
  static const char *const calibrators[] = {"minmax", "percentile", "entropy",
                                            "mse"};
  if (std::find(std::begin(calibrators), std::end(calibrators),
                int8.calibrator) == std::end(calibrators)) {
    error = "--calibrator: unknown calibrator '" + int8.calibrator +
            "' (minmax, percentile, entropy, mse)";
    return false;
  }
  if (!(int8.percentile > 0 && int8.percentile <= 100)) {
    error = "--percentile must be in (0, 100]";
    return false;
  }
  amax.clear();
  if (!int8.cachePath.empty() && fs::exists(int8.cachePath)) {
    std::string calibrator;
    if (!readCache(int8.cachePath, amax, calibrator, error))
      return false;
    summary = "ranges of " + std::to_string(amax.size()) +
              " layers from the calibration cache " + int8.cachePath +
              (calibrator.empty() ? "" : " (" + calibrator + ")");
    return true;
  }
  if (int8.calibrationDir.empty()) {
    error = "--precision " + options.precision +
            " needs --calibration DIR (or an existing --calibration-cache "
            "FILE)";
    return false;
  }
  CompileOptions observe = options;
  observe.precision = "fp32";
  format::Artifact artifact;
  if (!compileObserved(context, modelPath, observe, true, artifact, error))
    return false;
  std::vector<Sample> samples;
  if (!loadSet(int8.calibrationDir, artifact.inputs, samples, error))
    return false;
  std::vector<std::string> names;
  for (const format::TensorSignature &sig : artifact.outputs)
    if (sig.name.rfind(kObservePrefix, 0) == 0)
      names.push_back(sig.name);
  // Pass 1: the extremes of each input; pass 2: histograms of |x|.
  std::map<std::string, double> maxAbs, minimum, maximum;
  std::map<std::string, std::vector<double>> histograms;
  bool ok = runEach(
      artifact, samples,
      [&](size_t, const Outputs &out) {
        for (const std::string &name : names)
          for (double v : out.at(name).data) {
            maxAbs[name] = std::max(maxAbs[name], std::fabs(v));
            minimum[name] = std::min(minimum[name], v);
            maximum[name] = std::max(maximum[name], v);
          }
      },
      error);
  if (!ok)
    return false;
  for (const std::string &name : names)
    histograms[name].assign(kBins, 0.0);
  ok = runEach(
      artifact, samples,
      [&](size_t, const Outputs &out) {
        for (const std::string &name : names) {
          double m = maxAbs[name];
          if (m <= 0)
            continue;
          std::vector<double> &h = histograms[name];
          for (double v : out.at(name).data) {
            size_t bin = std::min(kBins - 1, size_t(std::fabs(v) / m * kBins));
            h[bin] += 1;
          }
        }
      },
      error);
  if (!ok)
    return false;
  std::vector<CalibratedRange> ranges;
  for (const std::string &name : names) {
    double a = calibratedRange(histograms[name], maxAbs[name],
                               int8.calibrator, int8.percentile);
    CalibratedRange r{name.substr(std::strlen(kObservePrefix)), -a, a,
                      int8.asymmetric};
    if (r.asymmetric) {
      // The observed extremes (0 included: a zero must stay exact),
      // clipped to the calibrator's magnitude.
      r.lo = std::max(minimum[name], -a);
      r.hi = std::min(maximum[name], a);
    }
    ranges.push_back(r);
    amax.push_back(r.node + "=" + r.text(false));
  }
  summary = "ranges of " + std::to_string(ranges.size()) +
            " layers calibrated (" + int8.calibrator + ") on " +
            std::to_string(samples.size()) + " run" +
            (samples.size() == 1 ? "" : "s") + " of " + int8.calibrationDir;
  if (!int8.cachePath.empty()) {
    if (!writeCache(int8.cachePath, int8.calibrator, ranges, samples.size(),
                    error))
      return false;
    summary += ", written to " + int8.cachePath;
  }
  return true;
}

} // namespace tessel::calibration
