//===- Session.h - Runs an artifact's plan on one device --------*- C++ -*-===//
//
// A session binds an artifact to a device: it loads the kernels, places the
// weights, keeps a copy of each input (or, for a bound input, the caller's
// pointer), and on run() walks the plan's regions
// step by step (region 0, or the one implicit region of an artifact without
// control flow): shape instructions bind symbols (they may read the inputs'
// values), host values are written, launches get their buffers sized from
// the current bindings and their ABI argument array, and control ops run
// their branches and bodies, each region from a copy of its enclosing
// region's bindings. Outputs are read back to host memory on demand, or
// written into the caller's buffer where one is bound (bindOutput).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_SRC_SESSION_H
#define TESSEL_RUNTIME_SRC_SESSION_H

#include "ArtifactImage.h"
#include "Driver.h"
#include "LaunchParams.h"
#include "SymbolBindings.h"
#include "format/MemoryPlan.h"

#include <cstdlib>

namespace tessel::runtime {

/// A 64-byte aligned host allocation.
class HostBuffer {
public:
  /// Allocates at least `bytes` (at least 1); false when out of memory.
  bool allocate(uint64_t bytes);
  uint8_t *data() const { return ptr.get(); }

private:
  struct Free {
    void operator()(uint8_t *p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> ptr;
};

/// How a session runs (tessel_session_options_t).
struct SessionOptions {
  /// The most threads a CPU launch uses; 0: the number of cores.
  uint32_t threads = 0;
  /// The most iterations one run of a Loop takes; 0: the default
  /// (TESSEL_DEFAULT_MAX_LOOP_ITERATIONS).
  uint64_t maxLoopIterations = 0;
  /// The CPU binary to run (ExecutableOptions::cpuVariant); empty: the
  /// best this CPU runs.
  std::string cpuVariant;
};

class Session {
public:
  static Status create(std::shared_ptr<const ArtifactImage> image,
                       std::shared_ptr<Device> device,
                       const SessionOptions &options,
                       std::unique_ptr<Session> &out);
  ~Session();

  /// Checks and sets input `name`: a copy of `data`, or with `inPlace`
  /// the caller's `data` itself, read on every run until the input is set
  /// again (tessel_session_bind_input).
  Status setInput(const std::string &name, format::DType dtype,
                  const int64_t *dims, size_t rank, const void *data,
                  uint64_t bytes, bool inPlace = false);
  /// Runs write output `name` into `buffer` (`bytes` long); a null
  /// `buffer` unbinds it (tessel_session_bind_output).
  Status bindOutput(const std::string &name, void *buffer, uint64_t bytes);
  Status run();
  /// The output `name` of the last run (see tessel_session_get_output).
  Status getOutput(const std::string &name, tessel_tensor_view_t &view);

  /// Per-launch wall times (see tessel_session_set_profiling).
  void setProfiling(bool enable) { profiling = enable; }
  /// Milliseconds per launch of the plan in the last successful run, summed
  /// over the times it ran (0 for a launch of a branch not taken); empty
  /// when the run was not profiled.
  const std::vector<double> &launchMilliseconds() const { return launchMs; }

  /// The arena of the last planned run and how many buffers it holds (0
  /// before a run, and always for plans with control flow).
  const format::ArenaPlan &arenaPlan() const { return memory.plan; }
  size_t arenaBuffers() const { return memory.plan.offsets.size(); }
  const format::Artifact &model() const { return image->model(); }
  /// The threads CPU launches use (SessionOptions::threads resolved).
  unsigned threads() const { return threadCount; }
  /// The target of the binary the session runs ("cpu:x86-64-v3").
  const std::string &target() const { return executable->target(); }

private:
  Session() = default;

  struct Input {
    bool set = false;
    /// Value of `runSerial` when it was set: inputs set since the last run
    /// that got past its input checks are "fresh" (bindAll).
    uint64_t setInRun = 0;
    std::vector<int64_t> dims;
    HostBuffer data;
    /// The caller's data of a bound input, used in place of `data`.
    const uint8_t *bound = nullptr;
    uint64_t bytes = 0;
    const uint8_t *ptr() const { return bound ? bound : data.data(); }
  };
  /// A plan buffer on the device, grown as the bound shapes require.
  struct DeviceBuffer {
    void *ptr = nullptr;
    uint64_t capacity = 0;
    bool owned = false;
    std::vector<int64_t> dims; ///< shape resolved for the current run
    /// The run (runSerial) that last placed it: work of that run may still
    /// use it until the run's final synchronize().
    uint64_t placedIn = 0;
  };
  struct Output {
    std::vector<int64_t> dims;
    uint64_t bytes = 0;
    HostBuffer host; ///< read back from the device on first access
    bool fetched = false;
    /// The caller's buffer (bindOutput), or null.
    void *bound = nullptr;
    uint64_t boundBytes = 0;
    /// Where the last run left the output in host memory when it wrote it
    /// into the caller's buffer (`bound` then), else null.
    const void *delivered = nullptr;
  };

  /// The session-owned device memory of one Loop, which no step of the
  /// plan writes: the carried tensors between iterations (`dims` is the
  /// current value's shape) and the scan outputs as they grow.
  struct LoopState {
    std::vector<DeviceBuffer> carried;
    std::vector<DeviceBuffer> scans;
  };

  /// The transient buffers of a plan without control flow live in one
  /// arena (format/MemoryPlan.h). Offsets are planned once the shapes are
  /// bound (at the first placement of a run, after the shape program), and
  /// kept while the sizes stay the same.
  struct MemoryPlan {
    format::BufferLifetimes lifetimes; ///< from the plan, at create
    std::vector<uint64_t> bytes;       ///< per planned buffer, last planned
    format::ArenaPlan plan;
    uint64_t plannedIn = 0; ///< the run (runSerial) planned for
    DeviceBuffer arena;
  };
  /// Sizes every arena buffer under `bindings` and (re)plans the offsets.
  Status planArena(const SymbolBindings &bindings);

  /// Binds the symbols of the inputs that are set, except `skip`; only of
  /// those set since the last run that got past its input checks if
  /// `freshOnly` (a run that failed later, in a kernel or on an output
  /// buffer too small, had consistent inputs: the next ones are a new set).
  Status bindAll(const size_t *skip, bool freshOnly,
                 SymbolBindings &bindings) const;
  /// Region `index`: the artifact's, or the implicit one.
  const format::Region &region(uint32_t index) const;
  /// Runs the steps of region `index`; the symbols they bind go into
  /// `bindings`.
  Status runRegion(uint32_t index, SymbolBindings &bindings);
  /// Evaluates shape instruction `index`, reading the host copy of the
  /// input an InputValues instruction names, or the device buffer a
  /// BufferValues instruction names (after the work that writes it).
  Status runShapeOp(uint32_t index, SymbolBindings &bindings);
  /// Writes host values entry `index` (integers the shape program
  /// computed, e.g. a Slice's bounds) into its buffer.
  Status writeHostValues(uint32_t index, const SymbolBindings &bindings);
  Status runLaunch(uint32_t index, const SymbolBindings &bindings);
  /// Control op `index`: the branch its condition selects.
  Status runIf(uint32_t index, SymbolBindings &bindings);
  /// Control op `index`: its body, as long as ONNX Loop says.
  Status runLoop(uint32_t index, SymbolBindings &bindings);

  /// Points the input buffers at the inputs (host-addressable devices) or
  /// copies the inputs into them, for the whole run. An input whose buffer
  /// a launch writes in place (`inputWritten`) is always copied.
  Status placeInputs();
  /// Decides, per bound output, whether this run writes it directly into
  /// the caller's buffer (`directOutput`).
  void planOutputs();
  /// "output 'y' needs N bytes, the bound buffer has M".
  Status outputTooSmall(size_t output, uint64_t bytes) const;
  /// Sizes buffer `index` for its shape under `bindings`. Input and weight
  /// buffers are placed for the whole run (placeInputs, create) instead.
  Status placeBuffer(uint32_t index, const SymbolBindings &bindings);
  /// Places the buffer `view` names and resolves the view's extents into
  /// `dims`, which must be the buffer's element count; `what` names the
  /// view in errors.
  Status placeView(const format::LaunchArg &view,
                   const SymbolBindings &bindings, const std::string &what,
                   std::vector<int64_t> &dims);
  /// Reads `bytes` of the one-element tensor `view` (a condition or a trip
  /// count) into `out`, valid after the next synchronize().
  Status readScalar(const format::LaunchArg &view,
                    const SymbolBindings &bindings, const std::string &what,
                    void *out, uint64_t bytes);
  /// Result `i` of control op `op` (`what`) receives the tensor of extents
  /// `dims` at `source`: binds the symbols of the result buffer's shape in
  /// `bindings` (checking its static dims), places it and copies.
  Status storeResult(const format::ControlOp &op, const std::string &what,
                     size_t i, const DeviceBuffer &source,
                     const std::vector<int64_t> &dims,
                     SymbolBindings &bindings);
  /// Copies the tensor of `dims` and `dtype` at `source` into `to`, grown
  /// as needed, and records its extents.
  Status stash(DeviceBuffer &to, const DeviceBuffer &source,
               const std::vector<int64_t> &dims, format::DType dtype);
  /// Appends the `bytes` at `source`, the value of iteration `iteration`,
  /// to the scan output `scan`.
  Status appendScan(DeviceBuffer &scan, int64_t iteration,
                    const DeviceBuffer &source, uint64_t bytes,
                    const std::string &what);
  /// Makes `buffer` hold at least `bytes`; its contents are lost when it
  /// grows.
  Status ensureCapacity(DeviceBuffer &buffer, uint64_t bytes);
  /// Frees `buffer`'s memory, waiting for the device first when work of
  /// this run may still use it.
  Status release(DeviceBuffer &buffer);
  std::string describeKernel(uint32_t kernel) const;
  void releaseBuffers();

  std::shared_ptr<const ArtifactImage> image;
  std::shared_ptr<Device> device;
  std::unique_ptr<Executable> executable;
  void *weights = nullptr; ///< the weights section on the device
  bool ownsWeights = false;
  /// The region of an artifact without regions (see format::Artifact).
  format::Region implicit;
  std::vector<Input> inputs;
  std::vector<DeviceBuffer> buffers;
  MemoryPlan memory;
  /// The host copy of each host values entry, reused each time it runs.
  std::vector<std::vector<int64_t>> hostValues;
  /// Per control op; used by Loops only.
  std::vector<LoopState> loops;
  std::vector<Output> outputs;
  /// Per artifact buffer: the output whose bound buffer the run in
  /// progress writes directly (host-addressable devices), or -1.
  std::vector<int32_t> directOutput;
  /// Per output: another output names its buffer too.
  std::vector<bool> outputShared;
  /// Per input: a launch names its buffer more than once, i.e. writes a
  /// result in place over it (the compiler never does; see create()).
  std::vector<bool> inputWritten;
  bool hasRun = false;
  uint64_t runs = 0;      ///< successful runs so far
  uint64_t runSerial = 0; ///< runs started so far
  /// A run started and did not finish: work it enqueued may be pending.
  bool unsettled = false;
  bool profiling = false;
  unsigned threadCount = 1;
  uint64_t maxLoopIterations = 0;
  std::vector<double> launchMs;
  /// Milliseconds per launch of the run in progress (when profiling).
  std::vector<double> runMs;
  LaunchParams params;
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_SRC_SESSION_H
