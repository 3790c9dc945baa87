//===- Calibration.cpp - Running a model on calibration data --------------===//

#include "compiler/Calibration.h"

#include "io/HostTensor.h"
#include "tessel/tessel.h"

#include <algorithm>
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

bool run(const format::Artifact &artifact, const std::vector<Sample> &samples,
         std::vector<Outputs> &out, std::string &error) {
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
  out.clear();
  for (const Sample &sample : samples) {
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
    out.push_back(std::move(outputs));
  }
  release();
  return true;
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
  // std::map orders names; the observed layers are wanted in model order,
  // which their output positions give: reorder by the reference's keys is
  // not possible, so callers list layers as compiled (see report).
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

bool compileAndRun(mlir::MLIRContext &context, const std::string &modelPath,
                   CompileOptions options, const std::vector<Sample> &samples,
                   std::vector<Outputs> &out,
                   std::vector<std::string> &layerOrder, std::string &error) {
  options.observeContractions = true;
  options.targets = {"cpu"};
  options.emit.clear();
  options.onStage = nullptr;
  format::Artifact artifact;
  if (mlir::failed(compileOnnxModel(context, modelPath, options, artifact))) {
    error = "compiling the model at " + options.precision +
            " with observers failed (see the error above)";
    return false;
  }
  layerOrder.clear();
  for (const format::TensorSignature &sig : artifact.outputs)
    if (sig.name.rfind(kObservePrefix, 0) == 0)
      layerOrder.push_back(sig.name.substr(std::strlen(kObservePrefix)));
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
            "precision with fp32: give --precision bf16 or fp16";
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
    CompileOptions probe = fp32;
    probe.observeContractions = true;
    probe.targets = {"cpu"};
    probe.emit.clear();
    probe.onStage = nullptr;
    format::Artifact artifact;
    if (mlir::failed(compileOnnxModel(context, modelPath, probe, artifact))) {
      error = "compiling the model at fp32 with observers failed";
      return false;
    }
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
    std::vector<std::string> order;
    Comparison cmp;
    for (unsigned round = 0;; ++round) {
      if (!compileAndRun(context, modelPath, options, samples, candidate,
                         order, error) ||
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
        if (std::find(options.keepFp32.begin(), options.keepFp32.end(),
                      node) != options.keepFp32.end())
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
      bool kept = std::find(options.keepFp32.begin(), options.keepFp32.end(),
                            nodeOf(layer)) != options.keepFp32.end();
      report += "| " + layer + " | " + (kept ? "fp32" : options.precision) +
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

} // namespace tessel::calibration
