//===- Session.cpp - Runs an artifact's plan on one device ----------------===//
//
// The target-independent executor. Everything a driver does not need to know
// lives here: input validation and symbol binding, buffer sizing, views,
// the kernel ABI, and error messages that name the ONNX node of a failing
// kernel.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include <chrono>
#include <cstring>
#include <set>

namespace tessel::runtime {

using format::Buffer;

bool HostBuffer::allocate(uint64_t bytes) {
  uint64_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0)
    rounded = 64;
  ptr.reset(static_cast<uint8_t *>(std::aligned_alloc(64, rounded)));
  return ptr != nullptr;
}

Status Session::create(std::shared_ptr<const ArtifactImage> image,
                       std::shared_ptr<Device> device,
                       std::unique_ptr<Session> &out) {
  std::unique_ptr<Session> s(new Session);
  s->image = std::move(image);
  s->device = std::move(device);
  const format::Artifact &model = s->image->model();
  TESSEL_RETURN_IF_ERROR(s->device->loadExecutable(model, s->executable));

  uint64_t weightsSize = s->image->weightsSize();
  if (s->device->hostAddressable()) {
    s->weights = const_cast<uint8_t *>(s->image->weights());
  } else if (weightsSize != 0) {
    TESSEL_RETURN_IF_ERROR(s->device->allocate(weightsSize, &s->weights));
    s->ownsWeights = true;
    TESSEL_RETURN_IF_ERROR(
        s->device->copyToDevice(s->weights, s->image->weights(), weightsSize));
    TESSEL_RETURN_IF_ERROR(s->device->synchronize());
  }
  // The symbols the plan uses as extents: the shape program must not give
  // them negative values (it may compute negative intermediates).
  std::set<std::string> extents;
  auto collect = [&](const format::Shape &shape) {
    for (const format::Dim &d : shape)
      if (d.isSymbolic())
        extents.insert(d.symbol);
  };
  for (const Buffer &b : model.buffers)
    collect(b.shape);
  for (const format::Launch &l : model.plan) {
    for (const format::LaunchArg &arg : l.args)
      collect(arg.shape);
    collect(l.workSize);
  }
  for (const format::TensorSignature &sig : model.outputs)
    collect(sig.shape);
  std::set<std::string> programResults;
  for (const format::ShapeOp &op : model.shapeProgram)
    for (const format::Dim &d : op.results)
      if (d.isSymbolic() && extents.count(d.symbol))
        programResults.insert(d.symbol);
  s->extentSymbols.assign(programResults.begin(), programResults.end());
  s->inputs.resize(model.inputs.size());
  s->outputs.resize(model.outputs.size());
  s->buffers.resize(model.buffers.size());
  out = std::move(s);
  return Status::ok();
}

Session::~Session() {
  releaseBuffers();
  if (ownsWeights)
    device->deallocate(weights);
  executable.reset();
}

void Session::releaseBuffers() {
  for (DeviceBuffer &b : buffers) {
    if (b.owned)
      device->deallocate(b.ptr);
    b = DeviceBuffer();
  }
}

Status Session::bindAll(const size_t *skip, bool freshOnly,
                        SymbolBindings &bindings) const {
  const format::Artifact &model = image->model();
  bindings.clear();
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].set && (!skip || *skip != i) &&
        (!freshOnly || inputs[i].setInRun == runs))
      TESSEL_RETURN_IF_ERROR(bindings.bindInput(
          model.inputs[i], inputs[i].dims.data(), inputs[i].dims.size()));
  return Status::ok();
}

Status Session::runShapeProgram(SymbolBindings &bindings) const {
  const format::Artifact &model = image->model();
  std::vector<int64_t> values;
  for (const format::ShapeOp &op : model.shapeProgram) {
    if (op.kind != format::ShapeOp::Kind::InputValues) {
      TESSEL_RETURN_IF_ERROR(bindings.evaluate(op));
      continue;
    }
    // validate() made the input int64 of a static shape with one element
    // per result, and setInput() checked the data against that shape.
    const Input &in = inputs[op.input];
    values.resize(op.results.size());
    if (in.bytes != values.size() * sizeof(int64_t))
      return invalidArtifact(
          "shape op InputValues reads " + std::to_string(values.size()) +
          " values of input '" + model.inputs[op.input].name + "', which has " +
          std::to_string(in.bytes) + " bytes");
    if (!values.empty())
      std::memcpy(values.data(), in.data.data(),
                  values.size() * sizeof(int64_t));
    TESSEL_RETURN_IF_ERROR(
        bindings.evaluate(op, model.inputs[op.input].name, values));
  }
  // Before any kernel runs: the extents it computed are extents.
  std::vector<int64_t> dims;
  for (const std::string &symbol : extentSymbols)
    TESSEL_RETURN_IF_ERROR(bindings.resolve({{-1, symbol}}, dims));
  return Status::ok();
}

Status Session::setInput(const std::string &name, format::DType dtype,
                         const int64_t *dims, size_t rank, const void *data,
                         uint64_t bytes) {
  int64_t index = image->findInput(name);
  if (index < 0)
    return notFound("unknown input '" + name +
                    "' (inputs: " + image->inputNames() + ")");
  const format::TensorSignature &sig = image->model().inputs[index];
  std::string what = "input '" + name + "'";
  if (dtype != sig.dtype)
    return invalidArgument(
        what + ": expected dtype " + format::dtypeName(sig.dtype) + ", got " +
        (format::dtypeSize(dtype)
             ? format::dtypeName(dtype)
             : "unknown dtype " +
                   std::to_string(static_cast<uint32_t>(dtype))));
  if (rank && !dims)
    return invalidArgument(what + ": dims is null");

  size_t self = static_cast<size_t>(index);
  SymbolBindings bindings;
  // Checked against the inputs set for the coming run only, so that a new
  // batch size just needs every input set again; run() checks them all.
  TESSEL_RETURN_IF_ERROR(bindAll(&self, /*freshOnly=*/true, bindings));
  TESSEL_RETURN_IF_ERROR(bindings.bindInput(sig, dims, rank));

  Input in;
  in.dims.assign(dims, dims + rank);
  if (!byteSize(in.dims, dtype, in.bytes))
    return invalidArgument(what + ": shape " + formatDims(in.dims) +
                           " is too large");
  if (bytes != in.bytes)
    return invalidArgument(
        what + ": got " + std::to_string(bytes) + " bytes of data, expected " +
        std::to_string(in.bytes) + " for " + format::dtypeName(dtype) + " " +
        formatDims(in.dims));
  if (bytes && !data)
    return invalidArgument(what + ": data is null");
  if (!in.data.allocate(bytes))
    return resourceExhausted(what + ": cannot allocate " +
                             std::to_string(bytes) + " bytes");
  if (bytes)
    std::memcpy(in.data.data(), data, bytes);
  in.set = true;
  in.setInRun = runs;
  inputs[self] = std::move(in);
  return Status::ok();
}

Status Session::ensureCapacity(DeviceBuffer &b, uint64_t bytes) {
  if (b.owned && b.capacity >= bytes)
    return Status::ok();
  if (b.owned)
    device->deallocate(b.ptr);
  b.ptr = nullptr;
  b.owned = false;
  b.capacity = 0;
  uint64_t size = bytes ? bytes : 64;
  TESSEL_RETURN_IF_ERROR(device->allocate(size, &b.ptr));
  b.owned = true;
  b.capacity = size;
  return Status::ok();
}

Status Session::placeBuffers(const SymbolBindings &bindings) {
  const format::Artifact &model = image->model();
  for (size_t i = 0; i < model.buffers.size(); ++i) {
    const Buffer &desc = model.buffers[i];
    DeviceBuffer &b = buffers[i];
    TESSEL_RETURN_IF_ERROR(bindings.resolve(desc.shape, b.dims));
    uint64_t bytes;
    if (!byteSize(b.dims, desc.dtype, bytes))
      return resourceExhausted("buffer " + std::to_string(i) + " of shape " +
                               formatDims(b.dims) + " is too large");
    if (desc.kind == Buffer::Kind::Weight) {
      b.ptr = static_cast<uint8_t *>(weights) + desc.weightOffset;
      continue;
    }
    if (desc.kind == Buffer::Kind::Input && device->hostAddressable()) {
      if (b.owned)
        device->deallocate(b.ptr);
      b.owned = false;
      for (size_t k = 0; k < model.inputs.size(); ++k)
        if (model.inputs[k].buffer == i)
          b.ptr = inputs[k].data.data();
      continue;
    }
    TESSEL_RETURN_IF_ERROR(ensureCapacity(b, bytes));
    if (desc.kind == Buffer::Kind::Input)
      for (size_t k = 0; k < model.inputs.size(); ++k)
        if (model.inputs[k].buffer == i && bytes)
          TESSEL_RETURN_IF_ERROR(
              device->copyToDevice(b.ptr, inputs[k].data.data(), bytes));
  }
  return Status::ok();
}

Status Session::writeHostValues(const SymbolBindings &bindings) {
  const format::Artifact &model = image->model();
  hostValues.resize(model.hostValues.size());
  for (size_t i = 0; i < model.hostValues.size(); ++i) {
    const format::HostValues &h = model.hostValues[i];
    std::vector<int64_t> &values = hostValues[i];
    values.resize(h.values.size());
    // Any integer, negative ones included (a Slice's end may be -1).
    for (size_t k = 0; k < h.values.size(); ++k) {
      const format::Dim &d = h.values[k];
      if (!d.isSymbolic())
        values[k] = d.value;
      else if (!bindings.lookup(d.symbol, values[k]))
        return invalidArtifact("host values " + std::to_string(i) +
                               ": symbol '" + d.symbol + "' is not bound");
    }
    if (!values.empty())
      TESSEL_RETURN_IF_ERROR(device->copyToDevice(
          buffers[h.buffer].ptr, values.data(), values.size() * 8));
  }
  return Status::ok();
}

std::string Session::describeKernel(uint32_t kernel) const {
  const format::Kernel &k = image->model().kernels[kernel];
  std::string s = "kernel '" + k.symbol + "'";
  if (!k.onnxNode.empty() || !k.onnxOp.empty())
    s += " (ONNX node '" + k.onnxNode + "', " + k.onnxOp + ")";
  return s;
}

Status Session::runLaunch(size_t index, const SymbolBindings &bindings) {
  const format::Launch &launch = image->model().plan[index];
  std::string what =
      "launch " + std::to_string(index) + ": " + describeKernel(launch.kernel);
  params.clear();
  std::vector<int64_t> dims;
  for (size_t j = 0; j < launch.args.size(); ++j) {
    const format::LaunchArg &arg = launch.args[j];
    const DeviceBuffer &b = buffers[arg.buffer];
    TESSEL_RETURN_IF_ERROR(bindings.resolve(arg.shape, dims));
    uint64_t viewElems, bufferElems;
    if (!elementCount(dims, viewElems) || !elementCount(b.dims, bufferElems) ||
        viewElems != bufferElems)
      return invalidArtifact(
          what + ": argument " + std::to_string(j) + " views buffer " +
          std::to_string(arg.buffer) + " " + formatDims(b.dims) + " as " +
          formatDims(dims) + ", a different number of elements");
    params.addMemref(b.ptr, dims);
  }
  TESSEL_RETURN_IF_ERROR(bindings.resolve(launch.workSize, dims));
  uint64_t work;
  if (!elementCount(dims, work))
    return invalidArtifact(what + ": work size overflows");
  return std::move(executable->launch(launch.kernel, params.params(), work))
      .withPrefix(what);
}

Status Session::run() {
  const format::Artifact &model = image->model();
  hasRun = false;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].set)
      return failedPrecondition("input '" + model.inputs[i].name +
                                "' is not set");
  SymbolBindings bindings;
  TESSEL_RETURN_IF_ERROR(bindAll(nullptr, /*freshOnly=*/false, bindings));
  TESSEL_RETURN_IF_ERROR(runShapeProgram(bindings));
  TESSEL_RETURN_IF_ERROR(placeBuffers(bindings));
  TESSEL_RETURN_IF_ERROR(writeHostValues(bindings));
  std::vector<double> times;
  for (size_t i = 0; i < model.plan.size(); ++i) {
    auto start = std::chrono::steady_clock::now();
    TESSEL_RETURN_IF_ERROR(runLaunch(i, bindings));
    if (profiling) {
      TESSEL_RETURN_IF_ERROR(device->synchronize());
      times.push_back(std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    }
  }
  TESSEL_RETURN_IF_ERROR(device->synchronize());

  for (size_t i = 0; i < outputs.size(); ++i) {
    // An output may be a view (another shape) of its buffer.
    const format::TensorSignature &sig = model.outputs[i];
    Output &out = outputs[i];
    const DeviceBuffer &b = buffers[sig.buffer];
    TESSEL_RETURN_IF_ERROR(bindings.resolve(sig.shape, out.dims));
    uint64_t viewElems, bufferElems;
    if (!elementCount(out.dims, viewElems) ||
        !elementCount(b.dims, bufferElems) || viewElems != bufferElems)
      return invalidArtifact(
          "output '" + sig.name + "' of shape " + formatDims(out.dims) +
          " views buffer " + std::to_string(sig.buffer) + " " +
          formatDims(b.dims) + ", a different number of elements");
    byteSize(out.dims, sig.dtype, out.bytes); // checked in placeBuffers
    out.fetched = false;
  }
  launchMs = std::move(times);
  hasRun = true;
  ++runs;
  return Status::ok();
}

Status Session::getOutput(const std::string &name, tessel_tensor_view_t &view) {
  int64_t index = image->findOutput(name);
  if (index < 0)
    return notFound("unknown output '" + name +
                    "' (outputs: " + image->outputNames() + ")");
  if (!hasRun)
    return failedPrecondition("output '" + name +
                              "': the session has not run successfully");
  const format::TensorSignature &sig = image->model().outputs[index];
  Output &out = outputs[index];
  const void *data = buffers[sig.buffer].ptr;
  if (!device->hostAddressable()) {
    if (!out.fetched) {
      if (!out.host.allocate(out.bytes))
        return resourceExhausted("output '" + name + "': cannot allocate " +
                                 std::to_string(out.bytes) + " bytes");
      if (out.bytes) {
        TESSEL_RETURN_IF_ERROR(
            device->copyToHost(out.host.data(), data, out.bytes));
        TESSEL_RETURN_IF_ERROR(device->synchronize());
      }
      out.fetched = true;
    }
    data = out.host.data();
  }
  view.dtype = static_cast<tessel_dtype_t>(sig.dtype);
  view.rank = out.dims.size();
  view.dims = out.dims.data();
  view.data = data;
  view.data_bytes = out.bytes;
  return Status::ok();
}

} // namespace tessel::runtime
