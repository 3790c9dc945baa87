//===- TesselModule.cpp - The `tessel._tessel` extension (pybind11) -------===//
//
// Python over the runtime's C API: tessel.Session (an artifact on one
// device), its inputs/outputs (TensorInfo) and run()/run_into(), and the
// exception class tessel.Error. The runtime is linked in statically.
//
// Arrays in: a C-contiguous, aligned array of the input's dtype is bound
// (tessel_session_bind_input), not copied, and the session keeps a
// reference to it until the input is bound again; other arrays of the right
// dtype are made contiguous first; an array of another dtype is refused
// with the runtime's message. Arrays out: run() copies each output once
// into a new array; run_into() binds the caller's arrays as the outputs
// (tessel_session_bind_output), so the kernels write into them directly.
//
// Threads: the C API allows one thread at a time per session. Every use of
// a session takes its mutex with the GIL released, so Python threads may
// share a session: their runs are serialized, and other Python code (and
// other sessions' runs) goes on meanwhile. A thread holding the mutex may
// take the GIL (to build the result arrays); no thread ever waits for the
// mutex while it holds the GIL, so the two cannot deadlock.
//
//===----------------------------------------------------------------------===//

#include "tessel/tessel.h"

#include <pybind11/eval.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

/// tessel.Error, created at import (see PYBIND11_MODULE). A strong
/// reference that is never dropped: a py::object here would be released
/// after the interpreter has gone.
PyObject *errorType = nullptr;

/// A failure to report as tessel.Error once the GIL is held again.
struct Failure {
  std::string code = "OK";
  std::string message;
  explicit operator bool() const { return code != "OK"; }
};

/// Takes `status` (freeing it); an empty Failure for success.
Failure take(tessel_status_t status) {
  Failure f;
  if (status) {
    f.code = tessel_status_code_name(tessel_status_code(status));
    f.message = tessel_status_message(status);
    tessel_status_free(status);
  }
  return f;
}

[[noreturn]] void raise(const std::string &code, const std::string &message) {
  py::object error = py::handle(errorType)(message, code);
  PyErr_SetObject(errorType, error.ptr());
  throw py::error_already_set();
}

[[noreturn]] void raise(const Failure &f) { raise(f.code, f.message); }

void check(tessel_status_t status) {
  if (Failure f = take(status))
    raise(f);
}

/// Whether `dtype` is a narrow format numpy lacks; it is exchanged one
/// element per byte: int4/int2 as int8 values, the others (uint4/uint2
/// values, float8/float4 bit patterns) as uint8.
bool isNarrow(tessel_dtype_t dtype) {
  return dtype >= TESSEL_DTYPE_FLOAT8E4M3FN && dtype <= TESSEL_DTYPE_INT2;
}
bool isSignedNarrow(tessel_dtype_t dtype) {
  return dtype == TESSEL_DTYPE_INT4 || dtype == TESSEL_DTYPE_INT2;
}

/// The numpy dtype of a tessel dtype; bfloat16, which numpy lacks, is
/// exchanged as its uint16 bit patterns, the narrow formats as bytes.
py::dtype numpyDtype(tessel_dtype_t dtype) {
  if (dtype == TESSEL_DTYPE_BFLOAT16)
    return py::dtype("uint16");
  if (isNarrow(dtype))
    return py::dtype(isSignedNarrow(dtype) ? "int8" : "uint8");
  // tessel_dtype_name is numpy's name of every dtype the runtime knows.
  if (tessel_dtype_size(dtype) == 0)
    raise("INVALID_ARTIFACT",
          "unsupported dtype " + std::to_string(static_cast<int>(dtype)));
  return py::dtype(std::string(tessel_dtype_name(dtype)));
}

/// The tessel dtype of a numpy dtype in native byte order; nullopt for
/// others. A uint16 array stands for bfloat16 where `expected` is that, an
/// int8 or uint8 array for the narrow format `expected` is.
std::optional<tessel_dtype_t> tesselDtype(const py::dtype &dt,
                                          tessel_dtype_t expected) {
  static const tessel_dtype_t all[] = {
      TESSEL_DTYPE_FLOAT32, TESSEL_DTYPE_UINT8,  TESSEL_DTYPE_INT8,
      TESSEL_DTYPE_UINT16,  TESSEL_DTYPE_INT16,  TESSEL_DTYPE_INT32,
      TESSEL_DTYPE_INT64,   TESSEL_DTYPE_BOOL,   TESSEL_DTYPE_FLOAT16,
      TESSEL_DTYPE_FLOAT64, TESSEL_DTYPE_UINT32, TESSEL_DTYPE_UINT64};
  for (tessel_dtype_t t : all)
    if (dt.is(numpyDtype(t)) || dt.equal(numpyDtype(t))) {
      if (t == TESSEL_DTYPE_UINT16 && expected == TESSEL_DTYPE_BFLOAT16)
        return TESSEL_DTYPE_BFLOAT16;
      if (isNarrow(expected) &&
          t == (isSignedNarrow(expected) ? TESSEL_DTYPE_INT8
                                         : TESSEL_DTYPE_UINT8))
        return expected;
      return t;
    }
  return std::nullopt;
}

std::string dtypeStr(const py::dtype &dt) {
  return py::str(py::object(dt)).cast<std::string>();
}

/// "(batch, 10)" / "(2, 10)".
std::string formatShape(const std::vector<std::string> &dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + dims[i];
  return s + (dims.size() == 1 ? ",)" : ")");
}
std::string formatShape(const std::vector<int64_t> &dims) {
  std::vector<std::string> s;
  for (int64_t d : dims)
    s.push_back(std::to_string(d));
  return formatShape(s);
}

/// An input or output of a model.
struct TensorInfo {
  std::string name;
  tessel_dtype_t tdtype = TESSEL_DTYPE_FLOAT32;
  py::dtype dtype;
  py::tuple shape;
  std::vector<int64_t> dims; ///< -1 where symbolic
  std::vector<std::string> dimNames;

  TensorInfo(const tessel_tensor_info_t &info)
      : name(info.name), tdtype(info.dtype), dtype(numpyDtype(info.dtype)),
        shape(info.rank), dims(info.dims, info.dims + info.rank) {
    for (size_t i = 0; i < info.rank; ++i) {
      if (info.dims[i] < 0) {
        shape[i] = py::str(info.dim_symbols[i]);
        dimNames.push_back(info.dim_symbols[i]);
      } else {
        shape[i] = py::int_(info.dims[i]);
        dimNames.push_back(std::to_string(info.dims[i]));
      }
    }
  }
  std::string repr() const {
    return "TensorInfo(name='" + name + "', dtype=" + dtypeStr(dtype) +
           ", shape=" + py::repr(shape).cast<std::string>() + ")";
  }
};

/// An input of one run, ready to bind without the GIL.
struct Feed {
  size_t index;
  std::string name;
  tessel_dtype_t dtype;
  std::vector<int64_t> dims;
  const void *data;
  size_t bytes;
  py::array array; ///< keeps `data` alive
};

/// A caller's output array of run_into.
struct Sink {
  size_t index;
  void *data;
  size_t bytes;
  py::array array;
};

/// An output of the last run, as the session reports it.
struct Produced {
  tessel_dtype_t dtype;
  std::vector<int64_t> dims;
  const void *data;
  size_t bytes;
};

class Session {
public:
  Session(const py::object &artifactArg, const std::string &deviceSpec,
          const py::object &threadsArg, const py::object &cpuVariantArg) {
    try {
      open(artifactArg, deviceSpec, threadsArg, cpuVariantArg);
    } catch (...) {
      release(); // no destructor runs for a constructor that throws
      throw;
    }
  }

  ~Session() { release(); }

  void open(const py::object &artifactArg, const std::string &deviceSpec,
            const py::object &threadsArg, const py::object &cpuVariantArg) {
    tessel_session_options_t options;
    tessel_session_options_init(&options);
    std::string cpuVariant;
    if (!cpuVariantArg.is_none()) {
      cpuVariant = cpuVariantArg.cast<std::string>();
      options.cpu_variant = cpuVariant.c_str();
    }
    if (!threadsArg.is_none()) {
      long long threads = threadsArg.cast<long long>();
      if (threads < 0 || threads > 0xFFFFFFFFll)
        throw py::value_error("threads must be None or a count >= 0 "
                              "(0: the number of cores), not " +
                              std::to_string(threads));
      options.threads = static_cast<uint32_t>(threads);
    }
    Failure f;
    if (py::isinstance<py::bytes>(artifactArg) ||
        py::isinstance<py::bytearray>(artifactArg) ||
        py::isinstance<py::memoryview>(artifactArg)) {
      py::buffer_info info = py::buffer(artifactArg).request();
      size_t size = static_cast<size_t>(info.size * info.itemsize);
      const void *data = info.ptr;
      py::gil_scoped_release unlocked;
      f = take(tessel_artifact_load_memory(data, size, &artifact));
    } else {
      py::object fspath = py::module_::import("os").attr("fspath");
      py::object path = fspath(artifactArg); // TypeError for anything else
      if (!py::isinstance<py::str>(path))
        path = path.attr("decode")();
      std::string p = path.cast<std::string>();
      py::gil_scoped_release unlocked;
      f = take(tessel_artifact_load_file(p.c_str(), &artifact));
    }
    if (f)
      raise(f);
    {
      py::gil_scoped_release unlocked;
      f = take(tessel_device_create(deviceSpec.c_str(), &device));
      if (!f)
        f = take(tessel_session_create_with_options(artifact, device, &options,
                                                    &session));
    }
    if (f)
      raise(f);
    for (size_t i = 0; i < tessel_artifact_input_count(artifact); ++i) {
      tessel_tensor_info_t info;
      check(tessel_artifact_input_info(artifact, i, &info));
      inputInfos.emplace_back(info);
    }
    for (size_t i = 0; i < tessel_artifact_output_count(artifact); ++i) {
      tessel_tensor_info_t info;
      check(tessel_artifact_output_info(artifact, i, &info));
      outputInfos.emplace_back(info);
    }
    boundInputs.resize(inputInfos.size());
  }

  void release() {
    tessel_session_release(session);
    tessel_device_release(device);
    tessel_artifact_release(artifact);
    session = nullptr;
    device = nullptr;
    artifact = nullptr;
  }

  const std::vector<TensorInfo> &inputs() const { return inputInfos; }
  const std::vector<TensorInfo> &outputs() const { return outputInfos; }
  std::string deviceName() const { return tessel_device_name(device); }
  std::string binary() const { return tessel_session_target(session); }
  std::vector<std::string> targets() const {
    std::vector<std::string> t;
    for (size_t i = 0; i < tessel_artifact_target_count(artifact); ++i)
      t.push_back(tessel_artifact_target(artifact, i));
    return t;
  }
  uint64_t arenaBytes() const {
    tessel_memory_stats_t stats{};
    tessel_session_memory_stats(session, &stats);
    return stats.arena_bytes;
  }

  py::dict run(const py::dict &feeds) { return execute(feeds, nullptr); }
  py::dict runInto(const py::dict &feeds, const py::dict &outs) {
    return execute(feeds, &outs);
  }

  std::string repr() const {
    std::string s = "<tessel.Session on " + deviceName() + ": inputs ";
    for (size_t i = 0; i < inputInfos.size(); ++i)
      s += (i ? ", " : "") + inputInfos[i].name;
    s += "; outputs ";
    for (size_t i = 0; i < outputInfos.size(); ++i)
      s += (i ? ", " : "") + outputInfos[i].name;
    return s + ">";
  }

private:
  size_t findInput(const std::string &name) const {
    size_t index = 0;
    check(tessel_artifact_find_input(artifact, name.c_str(), &index));
    return index;
  }
  size_t findOutput(const std::string &name) const {
    size_t index = 0;
    check(tessel_artifact_find_output(artifact, name.c_str(), &index));
    return index;
  }

  /// The feeds as bindable arrays (GIL held).
  std::vector<Feed> prepareFeeds(const py::dict &feeds) const {
    std::vector<Feed> prepared;
    std::vector<bool> given(inputInfos.size(), false);
    py::module_ numpy = py::module_::import("numpy");
    py::object asarray = numpy.attr("asarray"), require = numpy.attr("require");
    for (auto [key, value] : feeds) {
      if (!py::isinstance<py::str>(key))
        throw py::type_error(
            "input names must be str, not " +
            std::string(py::str(key.get_type().attr("__name__"))));
      std::string name = key.cast<std::string>();
      size_t index = findInput(name);
      const TensorInfo &info = inputInfos[index];
      given[index] = true;
      py::array array;
      if (py::isinstance<py::array>(value)) {
        array = py::reinterpret_borrow<py::array>(value);
      } else {
        // A list or a scalar has no dtype of its own: the input's.
        array = asarray(value, info.dtype);
      }
      std::optional<tessel_dtype_t> dtype =
          tesselDtype(array.dtype(), info.tdtype);
      if (!dtype)
        raise("INVALID_ARGUMENT", "input '" + name + "': expected dtype " +
                                      tessel_dtype_name(info.tdtype) +
                                      ", got " + dtypeStr(array.dtype()) +
                                      " (no dtype of the runtime)");
      // Bound in place when it is C-contiguous and aligned; otherwise a
      // contiguous copy of the same dtype is (another dtype is the
      // runtime's error when it is bound).
      constexpr int cAligned =
          py::array::c_style | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
      if ((array.flags() & cAligned) != cAligned)
        array = require(array, py::arg("requirements") = "CA");
      Feed feed{index, name,         *dtype,
                {},    array.data(), static_cast<size_t>(array.nbytes()),
                array};
      for (py::ssize_t d = 0; d < array.ndim(); ++d)
        feed.dims.push_back(array.shape(d));
      prepared.push_back(std::move(feed));
    }
    for (size_t i = 0; i < inputInfos.size(); ++i)
      if (!given[i])
        raise("FAILED_PRECONDITION",
              "input '" + inputInfos[i].name +
                  "' is not set: each run needs every input");
    return prepared;
  }

  /// The caller's output arrays of run_into, checked (GIL held).
  std::vector<Sink> prepareSinks(const py::dict &outs) const {
    std::vector<Sink> sinks;
    for (auto [key, value] : outs) {
      if (!py::isinstance<py::str>(key))
        throw py::type_error("output names must be str");
      std::string name = key.cast<std::string>();
      size_t index = findOutput(name);
      const TensorInfo &info = outputInfos[index];
      std::string what = "output '" + name + "'";
      if (!py::isinstance<py::array>(value))
        raise("INVALID_ARGUMENT",
              what + ": expected a numpy array, got " +
                  std::string(py::str(value.get_type().attr("__name__"))));
      auto array = py::reinterpret_borrow<py::array>(value);
      if (!array.dtype().equal(info.dtype))
        raise("INVALID_ARGUMENT", what + ": expected dtype " +
                                      dtypeStr(info.dtype) + ", got " +
                                      dtypeStr(array.dtype()));
      if (!(array.flags() & py::array::c_style))
        raise("INVALID_ARGUMENT",
              what + ": the array must be C-contiguous (it is written in "
                     "place)");
      if (!array.writeable())
        raise("INVALID_ARGUMENT", what + ": the array is read-only");
      std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
      bool fits = shape.size() == info.dims.size();
      for (size_t d = 0; fits && d < shape.size(); ++d)
        fits = info.dims[d] < 0 || info.dims[d] == shape[d];
      if (!fits)
        raise("INVALID_ARGUMENT",
              what + ": expected shape " + formatShape(info.dimNames) +
                  ", got an array of shape " + formatShape(shape));
      for (const Sink &s : sinks)
        if (s.index == index)
          raise("INVALID_ARGUMENT", what + " is given twice");
      sinks.push_back({index, array.mutable_data(),
                       static_cast<size_t>(array.nbytes()), array});
    }
    return sinks;
  }

  py::dict execute(const py::dict &feeds, const py::dict *outs) {
    std::vector<Feed> prepared = prepareFeeds(feeds);
    std::vector<Sink> sinks;
    if (outs)
      sinks = prepareSinks(*outs);
    std::vector<bool> bound(prepared.size(), false);
    std::vector<Produced> produced(outputInfos.size());
    Failure failure;
    py::dict result;
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> lock(mutex);
      failure = bindAndRun(prepared, sinks, bound, produced);
      // Still serialized: the views of `produced` stay valid until the
      // next run, and the references of the bound inputs change here.
      py::gil_scoped_acquire locked;
      for (size_t i = 0; i < prepared.size(); ++i)
        if (bound[i])
          boundInputs[prepared[i].index] = prepared[i].array;
      if (!failure)
        failure = collect(sinks, produced, result);
    }
    if (failure)
      raise(failure);
    return result;
  }

  /// Binds and runs (mutex held, GIL released).
  Failure bindAndRun(const std::vector<Feed> &feeds,
                     const std::vector<Sink> &sinks, std::vector<bool> &bound,
                     std::vector<Produced> &produced) {
    for (size_t i = 0; i < feeds.size(); ++i) {
      const Feed &f = feeds[i];
      if (Failure e = take(tessel_session_bind_input(
              session, f.name.c_str(), f.dtype, f.dims.size(), f.dims.data(),
              f.data, f.bytes)))
        return e;
      bound[i] = true;
    }
    Failure failure;
    for (const Sink &s : sinks)
      if (!failure)
        failure = take(tessel_session_bind_output(
            session, outputInfos[s.index].name.c_str(), s.data, s.bytes));
    if (!failure)
      failure = take(tessel_session_run(session));
    for (size_t i = 0; !failure && i < outputInfos.size(); ++i) {
      tessel_tensor_view_t view;
      failure = take(tessel_session_get_output(
          session, outputInfos[i].name.c_str(), &view));
      if (!failure)
        produced[i] = {view.dtype,
                       std::vector<int64_t>(view.dims, view.dims + view.rank),
                       view.data, view.data_bytes};
    }
    // The caller's arrays are theirs again after the call.
    for (const Sink &s : sinks)
      tessel_status_free(tessel_session_bind_output(
          session, outputInfos[s.index].name.c_str(), nullptr, 0));
    return failure;
  }

  /// The outputs as arrays: the caller's (run_into), checked against the
  /// shapes produced, or new ones (GIL and mutex held).
  Failure collect(const std::vector<Sink> &sinks,
                  const std::vector<Produced> &produced, py::dict &result) {
    auto fail = [](const std::string &code, const std::string &message) {
      Failure f;
      f.code = code;
      f.message = message;
      return f;
    };
    for (size_t i = 0; i < outputInfos.size(); ++i) {
      const Produced &p = produced[i];
      const Sink *sink = nullptr;
      for (const Sink &s : sinks)
        if (s.index == i)
          sink = &s;
      py::str name(outputInfos[i].name);
      if (sink) {
        std::vector<int64_t> shape(sink->array.shape(),
                                   sink->array.shape() + sink->array.ndim());
        if (shape != p.dims)
          return fail("INVALID_ARGUMENT",
                      "output '" + outputInfos[i].name +
                          "': the run produced shape " + formatShape(p.dims) +
                          ", but the array has shape " + formatShape(shape));
        result[name] = sink->array;
        continue;
      }
      std::vector<py::ssize_t> shape(p.dims.begin(), p.dims.end());
      py::array array(numpyDtype(p.dtype), shape);
      if (static_cast<size_t>(array.nbytes()) != p.bytes)
        return fail("INTERNAL", "output '" + outputInfos[i].name + "' has " +
                                    std::to_string(p.bytes) +
                                    " bytes for shape " + formatShape(p.dims));
      if (p.bytes)
        std::memcpy(array.mutable_data(), p.data, p.bytes);
      result[name] = array;
    }
    return Failure();
  }

  tessel_artifact_t *artifact = nullptr;
  tessel_device_t *device = nullptr;
  tessel_session_t *session = nullptr;
  std::vector<TensorInfo> inputInfos, outputInfos;
  /// The arrays bound as inputs, alive until bound again.
  std::vector<py::object> boundInputs;
  std::mutex mutex;
};

const char *kErrorSource = R"(
class Error(RuntimeError):
    """An error of the Tessel compiler or runtime.

    ``str(e)`` (and ``e.message``) is the message, which names the file, the
    ONNX node and op, the input or output concerned; ``e.code`` is the
    status code's name: ``"INVALID_ARGUMENT"``, ``"NOT_FOUND"``,
    ``"INVALID_ARTIFACT"``, ``"UNAVAILABLE"``, ``"FAILED_PRECONDITION"``,
    ``"RESOURCE_EXHAUSTED"`` or ``"INTERNAL"`` from the runtime, and
    ``"COMPILE_ERROR"`` for a failed ``tessel.compile``.
    """

    def __init__(self, message, code="INTERNAL"):
        super().__init__(message)
        self.message = message
        self.code = code

    def __reduce__(self):
        return (type(self), (self.message, self.code))
)";

} // namespace

PYBIND11_MODULE(_tessel, m) {
  m.doc() = "The Tessel runtime (C API) for Python; use the `tessel` package.";

  py::dict ns;
  ns["__builtins__"] = py::module_::import("builtins");
  ns["__name__"] = "tessel";
  py::exec(kErrorSource, ns, ns);
  py::object error = ns["Error"];
  errorType = error.inc_ref().ptr();
  m.attr("Error") = error;
  m.attr("API_VERSION") = TESSEL_API_VERSION;

  py::class_<TensorInfo>(m, "TensorInfo",
                         "An input or output of a model: name, dtype (a "
                         "numpy dtype) and shape (a tuple of ints, and of "
                         "str for symbolic dims such as 'batch').")
      .def_readonly("name", &TensorInfo::name)
      .def_readonly("dtype", &TensorInfo::dtype)
      .def_readonly("shape", &TensorInfo::shape)
      .def("__repr__", &TensorInfo::repr);

  py::class_<Session>(m, "Session",
                      R"(Session(artifact, device="cpu", threads=None, cpu_variant=None)

A compiled model (``.tsl``) loaded on one device, ready to run.

``artifact`` is the path of an artifact (str or os.PathLike) or its bytes
(bytes, bytearray, memoryview; copied). ``device`` is "cpu", "cuda",
"cuda:N", "hip", "hip:N", "vulkan" or "vulkan:N". ``threads`` caps the
threads a CPU run uses
(None or 0: the number of cores). ``cpu_variant`` names the artifact's CPU
binary to run ("cpu:x86-64-v3"; None: the best this CPU supports). Raises
tessel.Error when the artifact is
invalid, the device unavailable or the artifact has no kernels for it.

One session may be shared by several Python threads: their runs are
serialized (one at a time per session), with the GIL released while a run
executes, so other threads and other sessions run meanwhile.)")
      .def(py::init<const py::object &, const std::string &,
                    const py::object &, const py::object &>(),
           py::arg("artifact"), py::arg("device") = "cpu",
           py::arg("threads") = py::none(),
           py::arg("cpu_variant") = py::none())
      .def_property_readonly("inputs", &Session::inputs,
                             "The model's inputs (list of TensorInfo).")
      .def_property_readonly("outputs", &Session::outputs,
                             "The model's outputs (list of TensorInfo).")
      .def_property_readonly("device", &Session::deviceName,
                             "The device's name (\"cpu\", \"cuda:0\", ...).")
      .def_property_readonly("targets", &Session::targets,
                             "The targets the artifact has kernels for.")
      .def_property_readonly("binary", &Session::binary,
                             "The binary the session runs "
                             "(\"cpu:x86-64-v3\", \"cuda:sm_90\", ...).")
      .def_property_readonly("arena_bytes", &Session::arenaBytes,
                             "Bytes of the transient arena of the last run.")
      .def("run", &Session::run, py::arg("feeds"),
           R"(run(feeds) -> dict[str, numpy.ndarray]

Runs the model on ``feeds``, a dict of every input's name to its value,
and returns every output as a new array (in the model's order).

A C-contiguous array of the input's dtype is read in place, without a copy
(do not change it while the run executes); another array of that dtype is
copied contiguous; lists and scalars are converted to the input's dtype; an
array of another dtype, a wrong rank or shape, an unknown or a missing
input raise tessel.Error with the runtime's message.)")
      .def("run_into", &Session::runInto, py::arg("feeds"), py::arg("outputs"),
           R"(run_into(feeds, outputs) -> dict[str, numpy.ndarray]

Like run(), but the outputs named in ``outputs`` (a dict of name to array)
are written into the caller's arrays, directly by the kernels on the CPU,
with no copy. Each array must be C-contiguous, writable, of the output's
dtype and of its shape (its static dims before the run, all of them after
it), else tessel.Error; an array too small for the output fails the run.
Returns every output: the given arrays themselves, new arrays for the
others.)")
      .def("__repr__", &Session::repr);
}
