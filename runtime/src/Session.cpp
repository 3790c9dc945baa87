//===- Session.cpp - Runs an artifact's plan on one device ----------------===//
//
// The target-independent executor. Everything a driver does not need to know
// lives here: input validation and symbol binding, buffer sizing, views,
// the kernel ABI, control flow, and error messages that name the ONNX node
// of a failing kernel or control op.
//
// Buffers are placed when a step needs them, sized from the bindings of the
// step's region: a branch or a loop body may bind a symbol to another value
// on every entry. validate() made every index, count and dtype the steps
// use valid; every view is still checked against its buffer's element count
// before a kernel or a copy touches it. A Loop keeps its carried tensors
// between iterations, and its scan outputs, in session-owned memory that no
// step writes, so a body may yield its own arguments in any order.
//
// Bound inputs and outputs (tessel_session_bind_input/_output) are the
// caller's memory. A bound input's buffer is the caller's data on
// host-addressable devices unless a launch writes in place over it (the
// compiler never ties an input, but a hand-built artifact may): then it is
// copied for each run. A bound output is written directly into the
// caller's buffer when the run can (a host-addressable device, an output
// that owns its buffer and whose memory meets no other bound tensor's);
// otherwise it is copied there at the end of the run.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include "ThreadPool.h"
#include "format/MemoryPlan.h"

#include <algorithm>
#include <chrono>
#include <cstring>

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
                       const SessionOptions &options,
                       std::unique_ptr<Session> &out) {
  std::unique_ptr<Session> s(new Session);
  s->image = std::move(image);
  s->device = std::move(device);
  s->threadCount = resolveThreadCount(options.threads);
  s->maxLoopIterations = options.maxLoopIterations
                             ? options.maxLoopIterations
                             : TESSEL_DEFAULT_MAX_LOOP_ITERATIONS;
  const format::Artifact &model = s->image->model();
  ExecutableOptions exeOptions;
  exeOptions.threads = s->threadCount;
  exeOptions.cpuVariant = options.cpuVariant;
  TESSEL_RETURN_IF_ERROR(
      s->device->loadExecutable(model, exeOptions, s->executable));

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
  s->inputs.resize(model.inputs.size());
  s->outputs.resize(model.outputs.size());
  s->buffers.resize(model.buffers.size());
  s->directOutput.assign(model.buffers.size(), -1);
  // validate() lets two outputs share a buffer (the compiler copies a value
  // returned twice): neither is written directly into a caller's buffer.
  s->outputShared.assign(model.outputs.size(), false);
  for (size_t i = 0; i < model.outputs.size(); ++i)
    for (size_t j = i + 1; j < model.outputs.size(); ++j)
      if (model.outputs[i].buffer == model.outputs[j].buffer)
        s->outputShared[i] = s->outputShared[j] = true;
  // A result written in place names its argument's buffer twice in the
  // launch (docs/design.md, "In place over a dead input"). Partitioning
  // ties transients of the top level only, never an input, so this stays
  // false for compiled models; a launch that names an input twice is taken
  // to write it (were it only read twice, the copy costs a copy).
  s->inputWritten.assign(model.inputs.size(), false);
  {
    std::vector<int32_t> inputOf(model.buffers.size(), -1);
    for (size_t k = 0; k < model.inputs.size(); ++k)
      inputOf[model.inputs[k].buffer] = static_cast<int32_t>(k);
    std::vector<uint32_t> named;
    for (const format::Launch &launch : model.plan) {
      named.clear();
      for (const format::LaunchArg &arg : launch.args) {
        if (arg.buffer < inputOf.size() && inputOf[arg.buffer] >= 0 &&
            std::find(named.begin(), named.end(), arg.buffer) != named.end())
          s->inputWritten[inputOf[arg.buffer]] = true;
        named.push_back(arg.buffer);
      }
    }
  }
  s->hostValues.resize(model.hostValues.size());
  s->loops.resize(model.controlOps.size());
  if (model.regions.empty())
    s->implicit = format::implicitRegion(model);
  s->memory.lifetimes = format::bufferLifetimes(model);
  // Weights have static shapes and live in the weights section for good.
  for (size_t i = 0; i < model.buffers.size(); ++i) {
    const Buffer &desc = model.buffers[i];
    if (desc.kind != Buffer::Kind::Weight)
      continue;
    DeviceBuffer &b = s->buffers[i];
    b.ptr = static_cast<uint8_t *>(s->weights) + desc.weightOffset;
    for (const format::Dim &d : desc.shape)
      b.dims.push_back(d.value);
  }
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
  auto free = [&](DeviceBuffer &b) {
    if (b.owned)
      device->deallocate(b.ptr);
    b = DeviceBuffer();
  };
  for (DeviceBuffer &b : buffers)
    free(b);
  free(memory.arena);
  memory.plannedIn = 0;
  for (LoopState &loop : loops) {
    for (DeviceBuffer &b : loop.carried)
      free(b);
    for (DeviceBuffer &b : loop.scans)
      free(b);
  }
}

Status Session::bindAll(const size_t *skip, bool freshOnly,
                        SymbolBindings &bindings) const {
  const format::Artifact &model = image->model();
  bindings.clear();
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].set && (!skip || *skip != i) &&
        (!freshOnly || inputs[i].setInRun == runSerial))
      TESSEL_RETURN_IF_ERROR(bindings.bindInput(
          model.inputs[i], inputs[i].dims.data(), inputs[i].dims.size()));
  return Status::ok();
}

Status Session::runShapeOp(uint32_t index, SymbolBindings &bindings) {
  const format::Artifact &model = image->model();
  const format::ShapeOp &op = model.shapeProgram[index];
  std::vector<int64_t> values(op.results.size());
  const uint64_t bytes = values.size() * sizeof(int64_t);
  if (op.kind == format::ShapeOp::Kind::BufferValues) {
    // validate() made the buffer int64 with one element per result and
    // written by a launch before this step; wait for that launch.
    TESSEL_RETURN_IF_ERROR(placeBuffer(op.buffer, bindings));
    if (bytes) {
      TESSEL_RETURN_IF_ERROR(
          device->copyToHost(values.data(), buffers[op.buffer].ptr, bytes));
      TESSEL_RETURN_IF_ERROR(device->synchronize());
    }
    return bindings.evaluate(op, {}, values);
  }
  if (op.kind != format::ShapeOp::Kind::InputValues)
    return bindings.evaluate(op);
  // validate() made the input int64 of a static shape with one element per
  // result, and setInput() checked the data against that shape.
  const Input &in = inputs[op.input];
  if (in.bytes != bytes)
    return invalidArtifact(
        "shape op InputValues reads " + std::to_string(values.size()) +
        " values of input '" + model.inputs[op.input].name + "', which has " +
        std::to_string(in.bytes) + " bytes");
  if (bytes)
    std::memcpy(values.data(), in.ptr(), bytes);
  return bindings.evaluate(op, model.inputs[op.input].name, values);
}

Status Session::setInput(const std::string &name, format::DType dtype,
                         const int64_t *dims, size_t rank, const void *data,
                         uint64_t bytes, bool inPlace) {
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
  if (inPlace && bytes) {
    // Read on every run, until the input is set or bound again.
    in.bound = static_cast<const uint8_t *>(data);
  } else {
    // An empty bound input gets the session's (non-null) allocation too.
    if (!in.data.allocate(bytes))
      return resourceExhausted(what + ": cannot allocate " +
                               std::to_string(bytes) + " bytes");
    if (bytes)
      std::memcpy(in.data.data(), data, bytes);
  }
  in.set = true;
  in.setInRun = runSerial;
  inputs[self] = std::move(in);
  return Status::ok();
}

Status Session::bindOutput(const std::string &name, void *buffer,
                           uint64_t bytes) {
  int64_t index = image->findOutput(name);
  if (index < 0)
    return notFound("unknown output '" + name +
                    "' (outputs: " + image->outputNames() + ")");
  Output &out = outputs[index];
  out.bound = buffer;
  out.boundBytes = buffer ? bytes : 0;
  return Status::ok();
}

Status Session::outputTooSmall(size_t output, uint64_t bytes) const {
  const Output &out = outputs[output];
  return invalidArgument("output '" + image->model().outputs[output].name +
                         "' needs " + std::to_string(bytes) +
                         " bytes, but its bound buffer has " +
                         std::to_string(out.boundBytes));
}

void Session::planOutputs() {
  std::fill(directOutput.begin(), directOutput.end(), -1);
  if (!device->hostAddressable())
    return;
  auto meets = [](const void *a, uint64_t aBytes, const void *b,
                  uint64_t bBytes) {
    auto p = reinterpret_cast<uintptr_t>(a), q = reinterpret_cast<uintptr_t>(b);
    return aBytes && bBytes && p < q + bBytes && q < p + aBytes;
  };
  const format::Artifact &model = image->model();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Output &out = outputs[i];
    if (!out.bound || outputShared[i])
      continue;
    // Kernels may read their inputs after writing part of an output, and
    // two outputs must not write over each other: such an output goes
    // through the session's memory and is copied at the end.
    bool clear = true;
    for (const Input &in : inputs)
      if (in.bound && meets(out.bound, out.boundBytes, in.bound, in.bytes))
        clear = false;
    for (size_t j = 0; j < outputs.size(); ++j)
      if (j != i && outputs[j].bound &&
          meets(out.bound, out.boundBytes, outputs[j].bound,
                outputs[j].boundBytes))
        clear = false;
    if (clear)
      directOutput[model.outputs[i].buffer] = static_cast<int32_t>(i);
  }
}

Status Session::release(DeviceBuffer &b) {
  if (b.owned) {
    // Launches and copies enqueued earlier in this run may still use it
    // (a loop body's buffer that grows); an earlier run's have finished.
    if (b.placedIn == runSerial)
      TESSEL_RETURN_IF_ERROR(device->synchronize());
    device->deallocate(b.ptr);
  }
  b.ptr = nullptr;
  b.owned = false;
  b.capacity = 0;
  return Status::ok();
}

Status Session::ensureCapacity(DeviceBuffer &b, uint64_t bytes) {
  if (!b.owned || b.capacity < bytes) {
    TESSEL_RETURN_IF_ERROR(release(b));
    uint64_t size = bytes ? bytes : 64;
    TESSEL_RETURN_IF_ERROR(device->allocate(size, &b.ptr));
    b.owned = true;
    b.capacity = size;
  }
  b.placedIn = runSerial;
  return Status::ok();
}

Status Session::placeInputs() {
  const format::Artifact &model = image->model();
  for (size_t k = 0; k < model.inputs.size(); ++k) {
    // validate() gave the buffer the signature's shape, so the input's
    // extents are the buffer's.
    DeviceBuffer &b = buffers[model.inputs[k].buffer];
    const Input &in = inputs[k];
    b.dims = in.dims;
    if (device->hostAddressable() && !inputWritten[k]) {
      TESSEL_RETURN_IF_ERROR(release(b));
      b.ptr = const_cast<uint8_t *>(in.ptr());
      continue;
    }
    // A launch writes over it: each run starts from the input's own data.
    TESSEL_RETURN_IF_ERROR(ensureCapacity(b, in.bytes));
    if (in.bytes)
      TESSEL_RETURN_IF_ERROR(device->copyToDevice(b.ptr, in.ptr(), in.bytes));
  }
  return Status::ok();
}

Status Session::planArena(const SymbolBindings &bindings) {
  const format::Artifact &model = image->model();
  const format::BufferLifetimes &lifetimes = memory.lifetimes;
  std::vector<uint64_t> bytes(lifetimes.buffers.size());
  std::vector<int64_t> dims;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const Buffer &desc = model.buffers[lifetimes.buffers[i]];
    TESSEL_RETURN_IF_ERROR(bindings.resolve(desc.shape, dims));
    uint64_t size;
    if (!byteSize(dims, desc.dtype, size) || size > (uint64_t(1) << 62))
      return resourceExhausted("buffer " +
                               std::to_string(lifetimes.buffers[i]) +
                               " of shape " + formatDims(dims) +
                               " is too large");
    bytes[i] = format::arenaSize(size);
  }
  memory.plannedIn = runSerial;
  if (bytes != memory.bytes || !memory.arena.owned) {
    memory.bytes = std::move(bytes);
    if (!format::planArena(lifetimes, memory.bytes, lifetimes.times,
                           memory.plan))
      return resourceExhausted("the transient buffers need more than 2^64 "
                               "bytes");
  }
  return ensureCapacity(memory.arena, memory.plan.arena);
}

Status Session::placeBuffer(uint32_t index, const SymbolBindings &bindings) {
  const Buffer &desc = image->model().buffers[index];
  if (desc.kind == Buffer::Kind::Input || desc.kind == Buffer::Kind::Weight)
    return Status::ok();
  if (int32_t slot = memory.lifetimes.slotOf[index]; slot >= 0) {
    if (memory.plannedIn != runSerial)
      TESSEL_RETURN_IF_ERROR(planArena(bindings));
    DeviceBuffer &b = buffers[index];
    TESSEL_RETURN_IF_ERROR(bindings.resolve(desc.shape, b.dims));
    b.ptr =
        static_cast<uint8_t *>(memory.arena.ptr) + memory.plan.offsets[slot];
    b.owned = false;
    b.capacity = memory.bytes[slot];
    b.placedIn = runSerial;
    return Status::ok();
  }
  std::vector<int64_t> dims;
  // A negative extent (a symbol the shape program gave a negative value)
  // is an error of resolve().
  TESSEL_RETURN_IF_ERROR(bindings.resolve(desc.shape, dims));
  uint64_t bytes;
  if (!byteSize(dims, desc.dtype, bytes))
    return resourceExhausted("buffer " + std::to_string(index) + " of shape " +
                             formatDims(dims) + " is too large");
  DeviceBuffer &b = buffers[index];
  if (int32_t output = directOutput[index]; output >= 0) {
    // The caller's buffer, checked before any launch writes it.
    const Output &out = outputs[output];
    if (bytes > out.boundBytes)
      return outputTooSmall(output, bytes);
    TESSEL_RETURN_IF_ERROR(release(b));
    b.ptr = out.bound;
    b.capacity = out.boundBytes;
    b.placedIn = runSerial;
    b.dims = std::move(dims);
    return Status::ok();
  }
  TESSEL_RETURN_IF_ERROR(ensureCapacity(b, bytes));
  b.dims = std::move(dims);
  return Status::ok();
}

Status Session::placeView(const format::LaunchArg &view,
                          const SymbolBindings &bindings,
                          const std::string &what, std::vector<int64_t> &dims) {
  TESSEL_RETURN_IF_ERROR(placeBuffer(view.buffer, bindings));
  TESSEL_RETURN_IF_ERROR(bindings.resolve(view.shape, dims));
  const DeviceBuffer &b = buffers[view.buffer];
  uint64_t viewElems, bufferElems;
  if (!elementCount(dims, viewElems) || !elementCount(b.dims, bufferElems) ||
      viewElems != bufferElems)
    return invalidArtifact(what + " views buffer " +
                           std::to_string(view.buffer) + " " +
                           formatDims(b.dims) + " as " + formatDims(dims) +
                           ", a different number of elements");
  return Status::ok();
}

Status Session::writeHostValues(uint32_t index,
                                const SymbolBindings &bindings) {
  const format::HostValues &h = image->model().hostValues[index];
  std::vector<int64_t> &values = hostValues[index];
  values.resize(h.values.size());
  // Any integer, negative ones included (a Slice's end may be -1).
  for (size_t k = 0; k < h.values.size(); ++k) {
    const format::Dim &d = h.values[k];
    if (!d.isSymbolic())
      values[k] = d.value;
    else if (!bindings.lookup(d.symbol, values[k]))
      return invalidArtifact("host values " + std::to_string(index) +
                             ": symbol '" + d.symbol + "' is not bound");
  }
  // validate() made the buffer int64 of static shape, one value per element.
  TESSEL_RETURN_IF_ERROR(placeBuffer(h.buffer, bindings));
  if (values.empty())
    return Status::ok();
  return device->copyToDevice(buffers[h.buffer].ptr, values.data(),
                              values.size() * sizeof(int64_t));
}

std::string Session::describeKernel(uint32_t kernel) const {
  const format::Kernel &k = image->model().kernels[kernel];
  std::string s = "kernel '" + k.symbol + "'";
  if (!k.onnxNode.empty() || !k.onnxOp.empty())
    s += " (ONNX node '" + k.onnxNode + "', " + k.onnxOp + ")";
  return s;
}

Status Session::runLaunch(uint32_t index, const SymbolBindings &bindings) {
  const format::Launch &launch = image->model().plan[index];
  std::string what =
      "launch " + std::to_string(index) + ": " + describeKernel(launch.kernel);
  // Every buffer is placed before any address is taken: placing one may
  // move it.
  std::vector<std::vector<int64_t>> dims(launch.args.size());
  for (size_t j = 0; j < launch.args.size(); ++j)
    TESSEL_RETURN_IF_ERROR(placeView(launch.args[j], bindings,
                                     what + ": argument " + std::to_string(j),
                                     dims[j]));
  params.clear();
  for (size_t j = 0; j < launch.args.size(); ++j)
    params.addMemref(buffers[launch.args[j].buffer].ptr, dims[j]);
  std::vector<int64_t> work;
  TESSEL_RETURN_IF_ERROR(bindings.resolve(launch.workSize, work));
  return std::move(executable->launch(launch.kernel, params.params(), work))
      .withPrefix(what);
}

const format::Region &Session::region(uint32_t index) const {
  const format::Artifact &model = image->model();
  return model.regions.empty() ? implicit : model.regions[index];
}

Status Session::runRegion(uint32_t index, SymbolBindings &bindings) {
  const format::Artifact &model = image->model();
  for (const format::Step &step : region(index).steps) {
    switch (step.kind) {
    case format::Step::Kind::Shape:
      TESSEL_RETURN_IF_ERROR(runShapeOp(step.index, bindings));
      break;
    case format::Step::Kind::HostValues:
      TESSEL_RETURN_IF_ERROR(writeHostValues(step.index, bindings));
      break;
    case format::Step::Kind::Launch: {
      auto start = std::chrono::steady_clock::now();
      TESSEL_RETURN_IF_ERROR(runLaunch(step.index, bindings));
      if (profiling) {
        TESSEL_RETURN_IF_ERROR(device->synchronize());
        runMs[step.index] += std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
      }
      break;
    }
    case format::Step::Kind::Control:
      if (model.controlOps[step.index].kind == format::ControlOp::Kind::If)
        TESSEL_RETURN_IF_ERROR(runIf(step.index, bindings));
      else
        TESSEL_RETURN_IF_ERROR(runLoop(step.index, bindings));
      break;
    }
  }
  return Status::ok();
}

Status Session::readScalar(const format::LaunchArg &view,
                           const SymbolBindings &bindings,
                           const std::string &what, void *out, uint64_t bytes) {
  // validate() made it one element of the right dtype; placeView checks
  // that the buffer has one element.
  std::vector<int64_t> dims;
  TESSEL_RETURN_IF_ERROR(placeView(view, bindings, what, dims));
  return device->copyToHost(out, buffers[view.buffer].ptr, bytes);
}

Status Session::storeResult(const format::ControlOp &op,
                            const std::string &what, size_t i,
                            const DeviceBuffer &source,
                            const std::vector<int64_t> &dims,
                            SymbolBindings &bindings) {
  uint32_t result = op.results[i];
  const Buffer &desc = image->model().buffers[result];
  uint64_t bytes;
  if (!byteSize(dims, desc.dtype, bytes))
    return resourceExhausted(what + ": result " + std::to_string(i) + " " +
                             formatDims(dims) + " is too large");
  TESSEL_RETURN_IF_ERROR(bindings.bindValue(desc.shape, dims, what,
                                            "result " + std::to_string(i)));
  // Its symbols now give the buffer exactly the extents of the value.
  TESSEL_RETURN_IF_ERROR(placeBuffer(result, bindings));
  if (bytes == 0)
    return Status::ok();
  // `source` is read only now: placing the result may have moved it (when
  // a branch yields the result's own buffer).
  return device->copyOnDevice(buffers[result].ptr, source.ptr, bytes);
}

Status Session::runIf(uint32_t index, SymbolBindings &bindings) {
  const format::ControlOp &op = image->model().controlOps[index];
  const std::string what = format::describeControlOp(op, index);
  uint8_t cond = 0;
  TESSEL_RETURN_IF_ERROR(
      readScalar(op.operands[0], bindings, what + ": the condition", &cond, 1));
  TESSEL_RETURN_IF_ERROR(device->synchronize());
  uint32_t branch = op.regions[cond ? 0 : 1];
  SymbolBindings scope = bindings;
  TESSEL_RETURN_IF_ERROR(runRegion(branch, scope));
  // The yields are resolved in the branch's scope, the results bound in
  // the enclosing one.
  const std::vector<format::LaunchArg> &yields = region(branch).yields;
  std::vector<std::vector<int64_t>> dims(yields.size());
  for (size_t i = 0; i < yields.size(); ++i)
    TESSEL_RETURN_IF_ERROR(placeView(yields[i], scope,
                                     what + ": yield " + std::to_string(i) +
                                         " of region " + std::to_string(branch),
                                     dims[i]));
  for (size_t i = 0; i < op.results.size(); ++i)
    TESSEL_RETURN_IF_ERROR(
        storeResult(op, what, i, buffers[yields[i].buffer], dims[i], bindings));
  return Status::ok();
}

Status Session::stash(DeviceBuffer &to, const DeviceBuffer &source,
                      const std::vector<int64_t> &dims, format::DType dtype) {
  uint64_t bytes;
  byteSize(dims, dtype, bytes); // the size of a placed view
  TESSEL_RETURN_IF_ERROR(ensureCapacity(to, bytes));
  to.dims = dims;
  return bytes ? device->copyOnDevice(to.ptr, source.ptr, bytes) : Status::ok();
}

Status Session::appendScan(DeviceBuffer &scan, int64_t iteration,
                           const DeviceBuffer &source, uint64_t bytes,
                           const std::string &what) {
  uint64_t offset, end;
  if (__builtin_mul_overflow(static_cast<uint64_t>(iteration), bytes,
                             &offset) ||
      __builtin_add_overflow(offset, bytes, &end) || end > (uint64_t(1) << 62))
    return resourceExhausted(what + " is too large after " +
                             std::to_string(iteration + 1) + " iterations");
  if (!scan.owned || scan.capacity < end) {
    // Doubling keeps the copies of a long loop linear in its length.
    uint64_t capacity = std::max<uint64_t>({end, 2 * scan.capacity, 64});
    void *grown = nullptr;
    TESSEL_RETURN_IF_ERROR(device->allocate(capacity, &grown));
    Status kept =
        offset ? device->copyOnDevice(grown, scan.ptr, offset) : Status::ok();
    if (kept.isOk())
      kept = release(scan);
    if (!kept.isOk()) {
      device->deallocate(grown);
      return kept;
    }
    scan.ptr = grown;
    scan.owned = true;
    scan.capacity = capacity;
  }
  scan.placedIn = runSerial;
  if (bytes == 0)
    return Status::ok();
  return device->copyOnDevice(static_cast<uint8_t *>(scan.ptr) + offset,
                              source.ptr, bytes);
}

Status Session::runLoop(uint32_t index, SymbolBindings &bindings) {
  const format::Artifact &model = image->model();
  const format::ControlOp &op = model.controlOps[index];
  const std::string what = format::describeControlOp(op, index);
  const size_t carried = op.operands.size() - 2;
  const size_t scans = op.results.size() - carried;
  const uint32_t body = op.regions[0];
  const std::vector<format::LaunchArg> &yields = region(body).yields;
  auto dtypeOf = [&](uint32_t buffer) { return model.buffers[buffer].dtype; };

  // The trip count and the initial condition, with one synchronization.
  bool hasTrip = op.operands[0].buffer != format::kNoBuffer;
  bool hasCond = op.operands[1].buffer != format::kNoBuffer;
  int64_t trip = 0;
  uint8_t cond = 1;
  if (hasTrip)
    TESSEL_RETURN_IF_ERROR(readScalar(op.operands[0], bindings,
                                      what + ": the trip count", &trip, 8));
  if (hasCond)
    TESSEL_RETURN_IF_ERROR(readScalar(op.operands[1], bindings,
                                      what + ": the condition", &cond, 1));
  if (hasTrip || hasCond)
    TESSEL_RETURN_IF_ERROR(device->synchronize());

  // The loop state starts as the initial values, copied into session
  // memory: the body may overwrite the buffers they come from.
  LoopState &state = loops[index];
  state.carried.resize(carried);
  state.scans.resize(scans);
  std::vector<int64_t> dims;
  for (size_t c = 0; c < carried; ++c) {
    const format::LaunchArg &initial = op.operands[2 + c];
    TESSEL_RETURN_IF_ERROR(placeView(
        initial, bindings, what + ": operand " + std::to_string(2 + c), dims));
    TESSEL_RETURN_IF_ERROR(stash(state.carried[c], buffers[initial.buffer],
                                 dims, dtypeOf(initial.buffer)));
  }

  std::vector<std::vector<int64_t>> scanDims(scans);
  int64_t i = 0;
  for (; (!hasTrip || i < trip) && (!hasCond || cond); ++i) {
    if (uint64_t(i) >= maxLoopIterations)
      return resourceExhausted(
          what + ": stopped after " + std::to_string(i) +
          " iterations, the session's limit (tessel_session_options_t."
          "max_loop_iterations; tessel-run --max-loop-iterations)" +
          (!hasTrip && !hasCond ? "; the Loop has neither a trip count nor a "
                                  "condition, so it never ends by itself"
                                : ""));
    const std::string iteration = " at iteration " + std::to_string(i);
    // Each iteration enters the body from the loop's own bindings.
    SymbolBindings scope = bindings;
    uint32_t iterationArg = op.bodyArgs[0], condArg = op.bodyArgs[1];
    const uint8_t running = 1; // the body runs only while cond holds
    if (!op.iterationSymbol.empty()) // validate() made it unbound here
      TESSEL_RETURN_IF_ERROR(scope.bindValue(
          {format::Dim{-1, op.iterationSymbol}}, {i}, what,
          "the iteration number"));
    TESSEL_RETURN_IF_ERROR(placeBuffer(iterationArg, scope));
    TESSEL_RETURN_IF_ERROR(
        device->copyToDevice(buffers[iterationArg].ptr, &i, sizeof(i)));
    TESSEL_RETURN_IF_ERROR(placeBuffer(condArg, scope));
    TESSEL_RETURN_IF_ERROR(
        device->copyToDevice(buffers[condArg].ptr, &running, 1));
    for (size_t c = 0; c < carried; ++c) {
      uint32_t arg = op.bodyArgs[2 + c];
      const DeviceBuffer &value = state.carried[c];
      TESSEL_RETURN_IF_ERROR(
          scope.bindValue(model.buffers[arg].shape, value.dims, what,
                          "carried tensor " + std::to_string(c) + iteration));
      TESSEL_RETURN_IF_ERROR(placeBuffer(arg, scope));
      uint64_t bytes;
      byteSize(value.dims, dtypeOf(arg), bytes); // as placed
      if (bytes)
        TESSEL_RETURN_IF_ERROR(
            device->copyOnDevice(buffers[arg].ptr, value.ptr, bytes));
    }

    TESSEL_RETURN_IF_ERROR(runRegion(body, scope));

    // Out of the body's buffers before the next iteration writes them.
    for (size_t c = 0; c < carried; ++c) {
      const format::LaunchArg &yield = yields[1 + c];
      TESSEL_RETURN_IF_ERROR(
          placeView(yield, scope,
                    what + ": yield " + std::to_string(1 + c) + " of region " +
                        std::to_string(body) + iteration,
                    dims));
      TESSEL_RETURN_IF_ERROR(stash(state.carried[c], buffers[yield.buffer],
                                   dims, dtypeOf(yield.buffer)));
    }
    for (size_t k = 0; k < scans; ++k) {
      const format::LaunchArg &yield = yields[1 + carried + k];
      std::string scan = what + ": scan output " + std::to_string(k);
      TESSEL_RETURN_IF_ERROR(
          placeView(yield, scope,
                    what + ": yield " + std::to_string(1 + carried + k) +
                        " of region " + std::to_string(body) + iteration,
                    dims));
      if (i == 0)
        scanDims[k] = dims;
      else if (dims != scanDims[k])
        return invalidArgument(scan + " is " + formatDims(dims) + iteration +
                               ", but " + formatDims(scanDims[k]) +
                               " at iteration 0 (every iteration must "
                               "yield the same shape)");
      uint64_t bytes;
      byteSize(dims, dtypeOf(yield.buffer), bytes); // as placed
      TESSEL_RETURN_IF_ERROR(
          appendScan(state.scans[k], i, buffers[yield.buffer], bytes, scan));
    }
    if (hasCond) {
      TESSEL_RETURN_IF_ERROR(
          readScalar(yields[0], scope,
                     what + ": the condition yielded" + iteration, &cond, 1));
      TESSEL_RETURN_IF_ERROR(device->synchronize());
    }
  }

  for (size_t c = 0; c < carried; ++c)
    TESSEL_RETURN_IF_ERROR(storeResult(op, what, c, state.carried[c],
                                       state.carried[c].dims, bindings));
  for (size_t k = 0; k < scans; ++k) {
    // The iterations, then each iteration's shape. Without iterations the
    // result's own shape says what it can: its static dims, and symbols
    // bound already; any other symbol becomes 0.
    dims.assign(1, i);
    if (i > 0) {
      dims.insert(dims.end(), scanDims[k].begin(), scanDims[k].end());
    } else {
      const format::Shape &shape = model.buffers[op.results[carried + k]].shape;
      for (size_t d = 1; d < shape.size(); ++d) {
        int64_t extent = shape[d].value;
        if (shape[d].isSymbolic() && !bindings.lookup(shape[d].symbol, extent))
          extent = 0;
        dims.push_back(extent);
      }
    }
    TESSEL_RETURN_IF_ERROR(
        storeResult(op, what, carried + k, state.scans[k], dims, bindings));
  }
  return Status::ok();
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
  // A run that failed half way may have left work that uses the buffers.
  if (unsettled)
    TESSEL_RETURN_IF_ERROR(device->synchronize());
  unsettled = true;
  ++runSerial;
  planOutputs();
  TESSEL_RETURN_IF_ERROR(placeInputs());
  runMs.assign(profiling ? model.plan.size() : 0, 0.0);
  TESSEL_RETURN_IF_ERROR(runRegion(0, bindings));

  // The outputs, in the bindings of the end of region 0; an output may be
  // a view (another shape) of its buffer.
  for (size_t i = 0; i < outputs.size(); ++i) {
    const format::TensorSignature &sig = model.outputs[i];
    Output &out = outputs[i];
    TESSEL_RETURN_IF_ERROR(placeView({sig.buffer, sig.shape}, bindings,
                                     "output '" + sig.name + "'", out.dims));
    byteSize(out.dims, sig.dtype, out.bytes); // the size of a placed buffer
    out.fetched = false;
    out.delivered = nullptr;
  }
  // Bound outputs not written in place are copied into the caller's
  // buffers (all checked first, so a failed run copies none).
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].bound && outputs[i].bytes > outputs[i].boundBytes)
      return outputTooSmall(i, outputs[i].bytes);
  for (size_t i = 0; i < outputs.size(); ++i) {
    Output &out = outputs[i];
    if (!out.bound)
      continue;
    uint32_t buffer = model.outputs[i].buffer;
    if (directOutput[buffer] != static_cast<int32_t>(i) && out.bytes)
      TESSEL_RETURN_IF_ERROR(
          device->copyToHost(out.bound, buffers[buffer].ptr, out.bytes));
    out.delivered = out.bound;
  }
  TESSEL_RETURN_IF_ERROR(device->synchronize());
  unsettled = false;
  launchMs = std::move(runMs);
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
  if (out.delivered) {
    data = out.delivered; // the caller's buffer, written by the run
  } else if (!device->hostAddressable()) {
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
